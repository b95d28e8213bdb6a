"""Winograd convolutions ``"winograd_f2x3"`` and ``"winograd_f4x3"``: F(2 x 2, 3 x 3) and
F(4 x 4, 3 x 3) of Lavin & Gray (2016) for 2-D, 3 x 3, stride 1, dilation 1 forward problems,
every dtype, both layouts, groups, any padding, while the transformed operands fit in
:data:`MAX_SCRATCH_BYTES`.

Three transform kernels (``miopen/conv_winograd.hip``, which states the buffers) and, between
them, the channel sums as strided batched GEMMs (:func:`rocarray.rocblas.gemm_strided_batched`,
one batch entry per transform position and group). Transforms and products run in float32
(float64 for float64 data); the transformed operands live in workspace scratch. Per output,
F(2 x 2) multiplies 2.25x and F(4 x 4) 4x less than a direct convolution; F(4 x 4) rounds more
(larger transform coefficients). Both are tested against the float64 reference.
"""

import numpy

from rocarray import rocblas
from rocarray._core import compile as _compile
from rocarray._core import kernels, launch, plans
from rocarray._core.workspace import workspaces
from rocarray.miopen._conv_implicit_gemm import CTYPES

SOURCE = "miopen/conv_winograd.hip"
BLOCK = 256
#: Most blocks of a grid-stride transform launch.
MAX_GRID = 1 << 16
#: Most scratch bytes (transformed filters, inputs and products) a problem may need: past it the
#: algorithm does not apply (the search and the caller take another).
MAX_SCRATCH_BYTES = 4 << 30
#: Most products of one batched GEMM call (one launch's grid dimension).
MAX_GEMM_BATCH = 65535
#: The transform kernels, by role.
STAGES = ("filter", "input", "output")
_GEOMETRY = numpy.dtype((numpy.void, 8 * 12))


def kernel_name(stage, dtype_name, m, channels_last):
    """Name expression of a transform kernel, e.g. ``'ra_miopen_winograd_input<float, 2, false>'``."""
    return f"ra_miopen_winograd_{stage}<{CTYPES[dtype_name]}, {int(m)}, {'true' if channels_last else 'false'}>"


def instantiations():
    """Every name expression of the source that the library launches."""
    return sorted(kernel_name(s, d, m, cl) for s in STAGES for d in CTYPES for m in (2, 4) for cl in (False, True))


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, 4)


def acc_dtype(dtype):
    """The dtype the transforms and products run in."""
    return numpy.dtype(numpy.float64 if numpy.dtype(dtype).name == "float64" else numpy.float32)


def scratch_bytes(problem, m):
    """Bytes of the three transformed buffers of ``problem`` under F(``m`` x ``m``, 3 x 3)."""
    (oh, ow) = problem.output_size
    tiles = problem.n * -(-oh // m) * -(-ow // m)
    elements = (m + 2) ** 2 * (problem.k * problem.c_per_group + (problem.c + problem.k) * tiles)
    return elements * acc_dtype(problem.dtype).itemsize


def _grid(items):
    return max(1, min(MAX_GRID, -(-int(items) // BLOCK)))


class _Plan:
    """Everything one problem's launches need but its data: the prepared transform launches
    (per call: two addresses each), GEMM shape and scratch sizes (elements of the acc dtype)."""

    def __init__(self, problem, m, device_id):
        (h, w), (oh, ow), (ph, pw) = problem.input_size, problem.output_size, problem.pad
        th, tw = -(-oh // m), -(-ow // m)
        self.al2 = (m + 2) ** 2
        self.tiles = problem.n * th * tw
        geo = numpy.array((problem.n, problem.c, problem.k, problem.c_per_group, h, w, oh, ow, ph, pw, th, tw),
                          numpy.int64).view(_GEOMETRY)
        cl, name = problem.channels_last, problem.dtype.name
        self.sizes = (self.al2 * problem.k * problem.c_per_group, self.al2 * problem.c * self.tiles,
                      self.al2 * problem.k * self.tiles)
        self.filter, self.input, self.output = (
            KERNELS[kernel_name(stage, name, m, cl)].prepare(device_id, _grid(size // self.al2),
                                                             (launch.POINTER, launch.POINTER, geo))
            for stage, size in zip(STAGES, self.sizes))


def _scratch(name, count, dtype, device_id):
    return workspaces.scratch(name, count * dtype.itemsize, device_id)[:count * dtype.itemsize].view(dtype)


def forward(problem, x, w, y, m):
    """``y := conv(x, w)`` by F(``m`` x ``m``, 3 x 3) for a problem :class:`Winograd` takes
    (contiguous arrays in its layout; ``y`` is overwritten)."""
    if y.size == 0:
        return
    device_id = x.data.device_id
    plan = plans.cache.lookup(("miopen.conv_winograd", problem.key(), m, device_id),
                              lambda: _Plan(problem, m, device_id))
    acc = acc_dtype(problem.dtype)
    u = _scratch("miopen.winograd.filter", plan.sizes[0], acc, device_id)
    v = _scratch("miopen.winograd.input", plan.sizes[1], acc, device_id)
    t = _scratch("miopen.winograd.products", plan.sizes[2], acc, device_id)
    plan.filter(w.data.ptr, u.data.ptr)
    plan.input(x.data.ptr, v.data.ptr)
    products(problem, plan.al2, plan.tiles, u, v, t)
    plan.output(t.data.ptr, y.data.ptr)


def products(problem, al2, tiles, u, v, t):
    """``t[xi, g] := u[xi, g] @ v[xi, g]`` for every transform position ``xi`` and group ``g``
    (row-major KG x CG times CG x P blocks, see the kernel source), as column-major strided
    batched GEMMs of the transposes, ``t^T = v^T u^T``, :data:`MAX_GEMM_BATCH` products a call."""
    kg, cg = problem.k_per_group, problem.c_per_group
    sv, su, st = cg * tiles, kg * cg, kg * tiles
    batch = al2 * problem.groups
    for b in range(0, batch, MAX_GEMM_BATCH):
        count = min(MAX_GEMM_BATCH, batch - b)
        rocblas.gemm_strided_batched("N", "N", tiles, kg, cg, 1.0, v[b * sv:], tiles, sv, u[b * su:], cg, su, 0.0,
                                     t[b * st:], tiles, st, count)


class Winograd:
    """A Winograd algorithm object (see :mod:`rocarray.miopen._conv_registry`): F(``m`` x ``m``, 3 x 3)."""

    fuses_epilogue = False
    #: Kernel sources (the find-db's entries of a problem are keyed by their content).
    sources = (SOURCE,)

    def __init__(self, m):
        self.m = m
        self.name = f"winograd_f{m}x3"

    def applicable(self, problem):
        return (problem.direction == "forward" and problem.nd == 2 and problem.filter_size == (3, 3)
                and problem.stride == (1, 1) and problem.dilation == (1, 1) and problem.dtype.name in CTYPES
                and scratch_bytes(problem, self.m) <= MAX_SCRATCH_BYTES)

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        forward(problem, x, w, y, self.m)


ALGORITHMS = [Winograd(4), Winograd(2)]
