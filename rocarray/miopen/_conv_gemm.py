"""The ``"gemm"`` convolution algorithm: patch matrices (im2col, ``miopen/im2col.hip``) times the
weights through :func:`rocarray.rocblas.gemm` / :func:`rocarray.rocblas.gemm_strided_batched`
(float16 and bfloat16 on the matrix units, float32 sums).

Channels first, per group: ``y[n] (K_g x P) = W_g (K_g x C_g R) col[n] (C_g R x P)``, one
strided-batched product over a chunk of images; the epilogue kernel adds the bias and the
activation after. Channels last, per group: ``y (N P x K_g)`` is one product over every output
position of a chunk of images, its rows being the output channels in column-major terms, so
rocblas's fused epilogue adds the bias and applies relu, gelu, silu, sigmoid or tanh in the same
kernel. The data gradient multiplies by the transposed weights into a patch matrix and gathers it
back (col2im, no atomics); the weight gradient multiplies patches by the output gradient,
summing chunks with ``beta = 1``. A 1x1 filter with stride 1 and no padding uses the tensors
themselves as the matrices (no im2col). Patch matrices take at most :data:`COL_BYTES` (images are
chunked) from the one workspace owner.
"""

import math

import numpy

from rocarray import rocblas
from rocarray._core import compile as _compile, kernels, launch
from rocarray._core.workspace import workspaces
from rocarray.miopen import _conv_epilogue
from rocarray.miopen._conv_direct import DTYPES, ctype, geometry

SOURCE = "miopen/im2col.hip"
BLOCK = 256
MAX_GRID = 1 << 20
#: Most bytes of one patch matrix.
COL_BYTES = 256 << 20
#: The activations rocblas's gemm epilogue applies.
GEMM_ACTIVATIONS = ("relu", "gelu", "silu", "sigmoid", "tanh")


def kernel_name(kernel, dtype, channels_last):
    return f"ra_miopen_{kernel}<{ctype(dtype)}, {'true' if channels_last else 'false'}>"


_compile.register(SOURCE, sorted(kernel_name(k, t, cl) for k in ("im2col", "col2im") for t in DTYPES
                                 for cl in (False, True)))
KERNELS = kernels.Family(SOURCE, BLOCK, 8)


def _pointwise(p):
    """1x1 filter, stride 1, no padding: the input is its own patch matrix."""
    return (all(f == 1 for f in p.filter_size) and all(s == 1 for s in p.stride) and not any(p.pad)
            and tuple(p.output_size) == tuple(p.input_size))


class _Sizes:
    """The matrix sizes of one problem."""

    def __init__(self, p):
        self.P = math.prod(p.output_size)   # output positions per image
        self.R = math.prod(p.filter_size)   # filter taps
        self.cg, self.kg = p.c_per_group, p.k_per_group
        self.CR = self.cg * self.R          # patch length
        self.pointwise = _pointwise(p)
        self.chunk = max(1, COL_BYTES // max(1, self.CR * self.P * p.dtype.itemsize))  # images per patch matrix


def _single_sum(p, s):
    """Whether the weight gradient is one product (no chunk sums, which would round 16-bit data)."""
    if p.channels_last:
        return s.pointwise or s.chunk >= p.n
    return p.n == 1


def _grid(items):
    return int(max(1, min(MAX_GRID, -(-int(items) // BLOCK))))


def _chunks(p, s):
    return [(n0, min(s.chunk, p.n - n0)) for n0 in range(0, p.n, s.chunk)]


def _scratch(p, s, nimg, like):
    """A patch matrix of ``nimg`` images (a workspace view)."""
    count = nimg * s.CR * s.P
    buf = workspaces.scratch("miopen.conv.col", count * p.dtype.itemsize, like.data.device_id)
    return buf[:count * p.dtype.itemsize].view(p.dtype)


def _patches(p, s, x, n0, nimg, group):
    """The patch matrix of images ``n0 ..`` and ``group``."""
    dev = x.data.device_id
    col = _scratch(p, s, nimg, x)
    KERNELS[kernel_name("im2col", p.dtype, p.channels_last)](
        dev, (_grid(col.size),), (geometry(p), x, col, numpy.int64(n0), numpy.int64(nimg), numpy.int64(group)))
    return col


def _col2im(p, s, col, dx, n0, nimg, group):
    dev = dx.data.device_id
    KERNELS[kernel_name("col2im", p.dtype, p.channels_last)](
        dev, (_grid(nimg * s.cg * math.prod(p.input_size)),),
        (geometry(p), col, dx, numpy.int64(n0), numpy.int64(nimg), numpy.int64(group)))


def _forward(p, s, x, w, y, bias, activation):
    xf, wf, yf = x.reshape(-1), w.reshape(-1), y.reshape(-1)
    K, C, P, cg, kg, CR = p.k, p.c, s.P, s.cg, s.kg, s.CR
    fuse = p.channels_last and activation in (None,) + GEMM_ACTIVATIONS
    for g in range(p.groups):
        wg = wf[g * kg * CR:]
        if p.channels_last:
            bg = bias[g * kg:(g + 1) * kg] if fuse and bias is not None else None
            act = activation if fuse else None
            if s.pointwise:
                rocblas.gemm("T", "N", kg, p.n * P, cg, 1, wg, cg, xf[g * cg:], C, 0, yf[g * kg:], K,
                             bias=bg, activation=act)
                continue
            for n0, nimg in _chunks(p, s):
                col = _patches(p, s, x, n0, nimg, g)
                rocblas.gemm("T", "N", kg, nimg * P, CR, 1, wg, CR, col, CR, 0, yf[n0 * P * K + g * kg:], K,
                             bias=bg, activation=act)
        elif s.pointwise:
            rocblas.gemm_strided_batched("N", "N", P, kg, cg, 1, xf[g * cg * P:], P, C * P, wg, cg, 0, 0,
                                         yf[g * kg * P:], P, K * P, p.n)
        else:
            for n0, nimg in _chunks(p, s):
                col = _patches(p, s, x, n0, nimg, g)
                rocblas.gemm_strided_batched("N", "N", P, kg, CR, 1, col, P, CR * P, wg, CR, 0, 0,
                                             yf[(n0 * K + g * kg) * P:], P, K * P, nimg)
    if not fuse:
        _conv_epilogue.apply(p, y, bias, activation)


def _backward_data(p, s, dx, w, dy):
    dxf, wf, dyf = dx.reshape(-1), w.reshape(-1), dy.reshape(-1)
    K, C, P, cg, kg, CR = p.k, p.c, s.P, s.cg, s.kg, s.CR
    for g in range(p.groups):
        wg = wf[g * kg * CR:]
        if p.channels_last:
            if s.pointwise:
                rocblas.gemm("N", "N", cg, p.n * P, kg, 1, wg, cg, dyf[g * kg:], K, 0, dxf[g * cg:], C)
                continue
            for n0, nimg in _chunks(p, s):
                col = _scratch(p, s, nimg, dx)
                rocblas.gemm("N", "N", CR, nimg * P, kg, 1, wg, CR, dyf[n0 * P * K + g * kg:], K, 0, col, CR)
                _col2im(p, s, col, dx, n0, nimg, g)
        elif s.pointwise:
            rocblas.gemm_strided_batched("N", "T", P, cg, kg, 1, dyf[g * kg * P:], P, K * P, wg, cg, 0, 0,
                                         dxf[g * cg * P:], P, C * P, p.n)
        else:
            for n0, nimg in _chunks(p, s):
                col = _scratch(p, s, nimg, dx)
                rocblas.gemm_strided_batched("N", "T", P, CR, kg, 1, dyf[(n0 * K + g * kg) * P:], P, K * P, wg, CR,
                                             0, 0, col, P, CR * P, nimg)
                _col2im(p, s, col, dx, n0, nimg, g)


def _backward_weights(p, s, x, dw, dy):
    xf, dwf, dyf = x.reshape(-1), dw.reshape(-1), dy.reshape(-1)
    K, C, P, cg, kg, CR = p.k, p.c, s.P, s.cg, s.kg, s.CR
    for g in range(p.groups):
        dwg = dwf[g * kg * CR:]
        if p.channels_last:
            if s.pointwise:
                rocblas.gemm("N", "T", cg, kg, p.n * P, 1, xf[g * cg:], C, dyf[g * kg:], K, 0, dwg, cg)
                continue
            for n0, nimg in _chunks(p, s):
                col = _patches(p, s, x, n0, nimg, g)
                rocblas.gemm("N", "T", CR, kg, nimg * P, 1, col, CR, dyf[n0 * P * K + g * kg:], K, 1 if n0 else 0,
                             dwg, CR)
            continue
        # channels first: a product per image, summed with beta = 1 (float32/float64, or one image)
        for n0, nimg in _chunks(p, s):
            col = None if s.pointwise else _patches(p, s, x, n0, nimg, g)
            for i in range(nimg):
                n = n0 + i
                a = xf[(n * C + g * cg) * P:] if s.pointwise else col[i * CR * P:]
                rocblas.gemm("T", "N", CR, kg, P, 1, a, P, dyf[(n * K + g * kg) * P:], P, 1 if n else 0, dwg, CR)


class Gemm:
    """The gemm algorithm object (see :mod:`rocarray.miopen._conv_registry`); ``run`` applies the
    forward's bias and activation itself (fused into rocblas's epilogue where it can)."""

    name = "gemm"
    fuses_epilogue = True
    sources = (SOURCE,)

    def applicable(self, problem):
        if problem.dtype.name not in DTYPES or problem.n == 0 or problem.k == 0 or problem.c == 0:
            return False
        if problem.direction == "backward_weights" and problem.dtype.itemsize == 2:
            return _single_sum(problem, _Sizes(problem))
        return True

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        s = _Sizes(problem)
        with launch.on_device(x.data.device_id):
            if problem.direction == "forward":
                _forward(problem, s, x, w, y, bias, activation)
            elif problem.direction == "backward_data":
                _backward_data(problem, s, x, w, y)
            else:
                _backward_weights(problem, s, x, w, y)


ALGORITHMS = [Gemm()]
