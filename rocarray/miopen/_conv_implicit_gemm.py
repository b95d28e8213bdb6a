"""The implicit-GEMM convolution (``"implicit_gemm"``), every direction: each is one GEMM per
group whose operands are gathered from the tensors while the tiles load, so no im2col buffer
exists (kernel ``miopen/conv_implicit_gemm.hip``, which states the mappings). The forward's rows
are output pixels and backward data's input pixels, both reducing over (filter tap, channel)
with the tap in the outer loop; backward weights reduces over every output pixel of the batch,
split across blocks (partial sums in workspace scratch, added by a second kernel) so that small
weight tensors still fill the device.

Every dtype (float16 and bfloat16 accumulate in float32), both layouts, groups, stride, padding
and dilation, 1-D to 3-D. Forwards of float16 and bfloat16 in channels-last layout run on the
matrix units: on compute capability 9.0 the warpgroup kernel fed by TMA
(:mod:`rocarray.miopen._conv_wgmma`: 2-D, stride 1, one group, channels a multiple of 8; it
fuses bias and activation), otherwise ``mma.sync`` on NVIDIA sm_80+, MFMA on AMD CDNA, the same
tiles with scalar FMAs elsewhere; everything else on register tiles of scalar FMAs. Outside the
warpgroup kernel the epilogue (bias, activation) is a second pass
(:mod:`rocarray.miopen._conv_epilogue`).
"""

import numpy

from rocarray._core import backend
from rocarray._core import compile as _compile
from rocarray._core import dtypes, kernels, launch, plans
from rocarray._core.workspace import workspaces
from rocarray.miopen import _conv_epilogue, _conv_wgmma
from rocarray.miopen._conv_direct import ACTIVATIONS, LEAKY_RELU_SLOPE

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
#: Output elements (pixels x output channels, all groups) below which the small tile fills the
#: device better than the large one (256 large tiles: about two waves on 132 multiprocessors).
SMALL_WORK = 128 * 128 * 256


def kernel_name(dtype_name, channels_last, tile):
    """Name expression of the forward kernel, e.g. ``'ra_miopen_conv_igemm_fwd<float, false, 64, 64, 8, 4, 4>'``."""
    bm, bn, bk, tm, tn = TILES[tile]
    return (f"ra_miopen_conv_igemm_fwd<{CTYPES[dtype_name]}, {'true' if channels_last else 'false'}, "
            f"{bm}, {bn}, {bk}, {tm}, {tn}>")


def mma_kernel_name(dtype_name):
    """Name expression of the matrix-unit kernel, e.g. ``'ra_miopen_conv_igemm_fwd_mma<ra_half>'``."""
    return f"ra_miopen_conv_igemm_fwd_mma<{CTYPES[dtype_name]}>"


def backward_kernel_name(dtype_name, channels_last, direction, tile):
    """Name expression of a backward kernel (``direction`` 0: data, 1: weights), e.g.
    ``'ra_miopen_conv_igemm_bwd_data<float, false, 64, 64, 8, 4, 4>'``."""
    bm, bn, bk, tm, tn = TILES[tile]
    kind = ("data", "weights")[direction]
    return (f"ra_miopen_conv_igemm_bwd_{kind}<{CTYPES[dtype_name]}, {'true' if channels_last else 'false'}, "
            f"{bm}, {bn}, {bk}, {tm}, {tn}>")


def reduce_kernel_name(dtype_name):
    """Name expression of the kernel adding the split partial sums of backward weights."""
    return f"ra_miopen_conv_igemm_reduce<{CTYPES[dtype_name]}>"


#: Tile shapes of the backward kernels.
BACKWARD_TILES = ("small", "large")


def _tiles_of(dtype_name):
    # float64's 8 x 8 register tile (64 doubles, 128 registers per thread) would spill: never launched
    return [t for t in TILES if not (dtype_name == "float64" and t == "large")]


def _forward_tiles(dtype_name, channels_last):
    # 16-bit channels-last forwards always take the matrix-unit kernel
    return [] if channels_last and dtype_name in MMA_DTYPES else _tiles_of(dtype_name)


def instantiations():
    """Every name expression of the source that the library launches."""
    names = [kernel_name(d, cl, t) for d in CTYPES for cl in (False, True) for t in _forward_tiles(d, cl)]
    names += [backward_kernel_name(d, cl, r, t) for d in CTYPES for cl in (False, True) for r in (0, 1)
              for t in BACKWARD_TILES if t in _tiles_of(d)]
    names += [reduce_kernel_name(d) for d in CTYPES]
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


_P = launch.POINTER


class _Plan:
    """The prepared launch of one forward problem (per call: the three addresses and, for the
    matrix-unit kernel, whether 16-byte loads apply)."""

    __slots__ = ("launch", "mma", "chunked")

    def __init__(self, problem, tile, device_id):
        self.mma = tile == "mma"
        bm, bn = MMA_TILE if self.mma else TILES[tile][:2]
        rows = problem.n * int(numpy.prod(problem.output_size))
        name = (mma_kernel_name(problem.dtype.name) if self.mma
                else kernel_name(problem.dtype.name, problem.channels_last, tile))
        grid = (-(-rows // bm), -(-problem.k_per_group // bn), problem.groups)
        args = (_P, _P, _P, geometry(problem)) + ((launch.scalar(numpy.int32),) if self.mma else ())
        self.launch = KERNELS[name].prepare(device_id, grid, args)
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
        A key of :data:`TILES` or ``"mma"`` (default: :func:`choose_tile`); float16/bfloat16
        channels-last problems take ``"mma"`` only, and only they take it.
    """
    if y.size == 0:
        return
    tile = choose_tile(problem) if tile is None else tile
    device_id = x.data.device_id
    plan = plans.cache.lookup(("miopen.conv_implicit_gemm", problem.key(), tile, device_id),
                              lambda: _Plan(problem, tile, device_id))
    xp, wp = x.data.ptr, w.data.ptr
    if plan.mma:
        plan.launch(xp, wp, y.data.ptr, int(plan.chunked and xp % 16 == 0 and wp % 16 == 0))
    else:
        plan.launch(xp, wp, y.data.ptr)


#: Most blocks of the reduction launch (grid-stride).
REDUCE_GRID = 1 << 16
#: Least reduction steps (of BK) per split of backward weights.
MIN_SPLIT_STEPS = 32


def backward_shape(problem, direction):
    """``(rows, cols, reduction)`` of one group's GEMM of a backward direction (0 data, 1 weights)."""
    taps = int(numpy.prod(problem.filter_size))
    if direction == 0:
        return problem.n * int(numpy.prod(problem.input_size)), problem.c_per_group, problem.k_per_group * taps
    return problem.k_per_group, problem.c_per_group * taps, problem.n * int(numpy.prod(problem.output_size))


def backward_tile(problem, direction):
    """``"large"`` for much work in 16/32-bit types, else ``"small"``."""
    rows, cols, _ = backward_shape(problem, direction)
    large = problem.dtype.name != "float64" and rows * cols * problem.groups >= SMALL_WORK
    return "large" if large else "small"


def splits_for(problem, tile, multiprocessors):
    """Splits of the backward-weights reduction: enough blocks for two per multiprocessor, each
    split at least :data:`MIN_SPLIT_STEPS` steps long, ``groups * splits`` within the grid."""
    bm, bn, bk = TILES[tile][:3]
    rows, cols, red = backward_shape(problem, 1)
    blocks = -(-rows // bm) * -(-cols // bn) * problem.groups
    most = max(1, min(-(-red // (bk * MIN_SPLIT_STEPS)), 65535 // problem.groups))
    return max(1, min(most, -(-2 * multiprocessors // blocks)))


class _BackwardPlan:
    """The prepared launches of one backward problem: the GEMM kernel and, for backward
    weights, the kernel adding the splits (per call: the addresses)."""

    __slots__ = ("launch", "splits", "count", "reduce")

    def __init__(self, problem, direction, tile, device_id):
        bm, bn, bk = TILES[tile][:3]
        rows, cols, red = backward_shape(problem, direction)
        name = problem.dtype.name
        self.splits = 1
        if direction == 1:
            self.splits = splits_for(problem, tile, backend.device_info(device_id).multiprocessors)
        per = -(-red // self.splits)
        split_len = numpy.int64(-(-per // bk) * bk)  # whole tile steps per split
        grid = (-(-rows // bm), -(-cols // bn), problem.groups * self.splits)
        kernel = KERNELS[backward_kernel_name(name, problem.channels_last, direction, tile)]
        args = (_P, _P, _P, geometry(problem)) + ((split_len,) if direction == 1 else ())
        self.launch = kernel.prepare(device_id, grid, args)
        self.count = problem.k * cols
        self.reduce = None
        if direction == 1:
            reduce_grid = max(1, min(REDUCE_GRID, -(-self.count // BLOCK)))
            self.reduce = KERNELS[reduce_kernel_name(name)].prepare(
                device_id, reduce_grid, (_P, _P, numpy.int64(self.count), numpy.int64(self.splits)))


def _backward_plan(problem, direction, device_id):
    tile = backward_tile(problem, direction)
    return plans.cache.lookup(("miopen.conv_implicit_gemm", problem.key(), tile, device_id),
                              lambda: _BackwardPlan(problem, direction, tile, device_id))


def backward_data(problem, dy, w, dx):
    """``dx`` of a ``"backward_data"`` ``problem`` from ``dy`` and ``w`` (contiguous arrays in its
    layout; ``dx`` is overwritten)."""
    if dx.size == 0:
        return
    device_id = dy.data.device_id
    plan = _backward_plan(problem, 0, device_id)
    plan.launch(dy.data.ptr, w.data.ptr, dx.data.ptr)


def backward_weights(problem, x, dy, dw):
    """``dw`` of a ``"backward_weights"`` ``problem`` from ``x`` and ``dy`` (contiguous arrays in
    its layout; ``dw`` is overwritten)."""
    if dw.size == 0:
        return
    device_id = x.data.device_id
    plan = _backward_plan(problem, 1, device_id)
    acc = numpy.dtype(numpy.float64 if problem.dtype.name == "float64" else numpy.float32)
    nbytes = plan.splits * plan.count * acc.itemsize
    partial = workspaces.scratch("miopen.conv_igemm.partials", nbytes, device_id)[:nbytes].view(acc)
    plan.launch(dy.data.ptr, x.data.ptr, partial.data.ptr)
    plan.reduce(partial.data.ptr, dw.data.ptr)


class ImplicitGemm:
    """The ``"implicit_gemm"`` algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "implicit_gemm"
    #: The forward applies bias and activation: in the warpgroup kernel's epilogue where it runs,
    #: else as a second pass.
    fuses_epilogue = True
    #: Kernel sources (the find-db's entries of a problem are keyed by their content).
    sources = (SOURCE, _conv_wgmma.SOURCE)

    def applicable(self, problem):
        return problem.dtype.name in CTYPES

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        if problem.direction == "forward":
            if _conv_wgmma.forward(problem, x, w, y, bias, ACTIVATIONS[activation], LEAKY_RELU_SLOPE):
                return
            forward(problem, x, w, y)
            _conv_epilogue.apply(problem, y, bias, activation)
        elif problem.direction == "backward_data":
            backward_data(problem, y, w, x)
        else:
            backward_weights(problem, x, y, w)


ALGORITHMS = [ImplicitGemm()]
