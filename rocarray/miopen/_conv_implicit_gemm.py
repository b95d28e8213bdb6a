"""The implicit-GEMM convolution (``"implicit_gemm"``): the forward as one GEMM per group whose
left operand (input pixels x (channel, tap) pairs) is gathered from ``x`` while the tile loads,
so no im2col buffer exists (kernel ``miopen/conv_implicit_gemm.hip``, which states the mapping).

Every dtype (float16 and bfloat16 accumulate in float32), both layouts, groups, stride, padding
and dilation, 1-D to 3-D. float16 and bfloat16 in channels-last layout run on the matrix units
(``mma.sync`` on NVIDIA sm_80+, MFMA on AMD CDNA; the same tiles with scalar FMAs elsewhere);
the other problems on tiles of scalar FMAs. The epilogue (bias, activation) is the caller's.
"""

import numpy

from rocarray._core import compile as _compile
from rocarray._core import dtypes, kernels, plans

SOURCE = "miopen/conv_implicit_gemm.hip"
#: Threads per block of every tile shape.
BLOCK = 256
#: Tile shapes ``(BM, BN, BK, TM, TN)``: ``BM`` output pixels x ``BN`` output channels per block,
#: ``BK`` reduction steps per shared-memory pass, ``TM x TN`` outputs per thread.
TILES = {"large": (128, 128, 8, 8, 8), "small": (64, 64, 8, 4, 4), "narrow": (256, 32, 8, 8, 4)}
#: The matrix-unit kernel's tile (pixels x output channels); its name in :func:`choose_tile`.
MMA_TILE = (128, 128)
#: dtypes of the matrix-unit kernel (channels-last problems).
MMA_DTYPES = ("float16", "bfloat16")
#: Kernel element type of each dtype name taken (bfloat16 by name: NumPy itself lacks it).
CTYPES = {"float16": "ra_half", "bfloat16": dtypes.BFLOAT16, "float32": "float", "float64": "double"}
#: The 64-bit fields of the kernel's ``ra_conv_geometry``, in order.
GEOMETRY_FIELDS = ("n", "c", "k", "cg", "kg", "in_d", "in_h", "in_w", "out_d", "out_h", "out_w", "f_d", "f_h",
                   "f_w", "stride_d", "stride_h", "stride_w", "pad_d", "pad_h", "pad_w", "dil_d", "dil_h", "dil_w")
_GEOMETRY = numpy.dtype((numpy.void, 8 * len(GEOMETRY_FIELDS)))
#: Output elements (pixels x channels of a group) below which the small tile fills the device
#: better than the large one (about a wave of large tiles on a big GPU).
SMALL_WORK = 128 * 128 * 256


def kernel_name(dtype_name, channels_last, tile):
    """Name expression of the forward kernel, e.g. ``'ra_miopen_conv_igemm_fwd<float, false, 64, 64, 8, 4, 4>'``."""
    bm, bn, bk, tm, tn = TILES[tile]
    return (f"ra_miopen_conv_igemm_fwd<{CTYPES[dtype_name]}, {'true' if channels_last else 'false'}, "
            f"{bm}, {bn}, {bk}, {tm}, {tn}>")


def mma_kernel_name(dtype_name):
    """Name expression of the matrix-unit kernel, e.g. ``'ra_miopen_conv_igemm_fwd_mma<ra_half>'``."""
    return f"ra_miopen_conv_igemm_fwd_mma<{CTYPES[dtype_name]}>"


def _tiles_of(dtype_name):
    # float64's 8 x 8 register tile (128 doubles per thread) would spill: never launched
    return [t for t in TILES if not (dtype_name == "float64" and t == "large")]


def instantiations():
    """Every name expression of the source that the library launches."""
    names = [kernel_name(d, cl, t) for d in CTYPES for cl in (False, True) for t in _tiles_of(d)]
    return sorted(names + [mma_kernel_name(d) for d in MMA_DTYPES])


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, 2)


def geometry(problem):
    """The kernel's ``ra_conv_geometry`` of ``problem`` (a size-one NumPy structure): sizes as
    3-D, the missing leading axes of length 1 with stride 1, no padding and dilation 1."""
    lead = 3 - problem.nd

    def three(values, fill):
        return (fill,) * lead + tuple(values)

    values = (problem.n, problem.c, problem.k, problem.c_per_group, problem.k_per_group,
              *three(problem.input_size, 1), *three(problem.output_size, 1), *three(problem.filter_size, 1),
              *three(problem.stride, 1), *three(problem.pad, 0), *three(problem.dilation, 1))
    return numpy.array(values, numpy.int64).view(_GEOMETRY)


def choose_tile(problem):
    """The tile shape of ``problem``: ``"mma"`` (the matrix-unit kernel) for 16-bit channels-last
    problems; else narrow for few output channels per group, small for little work or float64,
    large otherwise."""
    if problem.channels_last and problem.dtype.name in MMA_DTYPES:
        return "mma"
    kg = problem.k_per_group
    if kg <= 32:
        return "narrow"
    rows = problem.n * int(numpy.prod(problem.output_size))
    if problem.dtype.name == "float64" or rows * kg * problem.groups < SMALL_WORK:
        return "small"
    return "large"


class _Plan:
    __slots__ = ("kernel", "grid", "geometry", "mma", "chunked")

    def __init__(self, problem, tile):
        self.mma = tile == "mma"
        bm, bn = MMA_TILE if self.mma else TILES[tile][:2]
        rows = problem.n * int(numpy.prod(problem.output_size))
        name = (mma_kernel_name(problem.dtype.name) if self.mma
                else kernel_name(problem.dtype.name, problem.channels_last, tile))
        self.kernel = KERNELS[name]
        self.grid = (-(-rows // bm), -(-problem.k_per_group // bn), problem.groups)
        self.geometry = geometry(problem)
        # 16-byte loads of 8 channels of one tap need whole groups of 8 channels
        self.chunked = problem.c_per_group % 8 == 0


def forward(problem, x, w, y, tile=None):
    """``y := conv(x, w)`` for a forward ``problem`` (contiguous arrays in its layout).

    Parameters
    ----------
    problem : ConvProblem
        The problem (direction ``"forward"``).
    x, w, y : cupy.ndarray
        Input, weights and output of ``problem``'s dtype and shapes; ``y`` is overwritten.
    tile : str, optional
        A key of :data:`TILES` or ``"mma"`` (default: :func:`choose_tile`); ``"mma"`` takes
        float16/bfloat16 channels-last problems only.
    """
    if y.size == 0:
        return
    tile = choose_tile(problem) if tile is None else tile
    device_id = x.data.device_id
    plan = plans.cache.lookup(("miopen.conv_implicit_gemm", problem.key(), tile, device_id),
                              lambda: _Plan(problem, tile))
    if plan.mma:
        vec = plan.chunked and x.data.ptr % 16 == 0 and w.data.ptr % 16 == 0
        plan.kernel(device_id, plan.grid, (x, w, y, plan.geometry, numpy.int32(vec)))
    else:
        plan.kernel(device_id, plan.grid, (x, w, y, plan.geometry))


class ImplicitGemm:
    """The ``"implicit_gemm"`` algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "implicit_gemm"
    fuses_epilogue = False

    def applicable(self, problem):
        return problem.direction == "forward" and problem.dtype.name in CTYPES

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        forward(problem, x, w, y)


ALGORITHMS = [ImplicitGemm()]
