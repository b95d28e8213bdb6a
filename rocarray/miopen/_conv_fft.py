"""The FFT convolution ``"fft"``: forward problems through the convolution theorem, for filters
of more than one tap (the larger the filter, the better it does against the direct and GEMM
algorithms: its cost does not grow with the filter) whose spectra fit in
:data:`MAX_SCRATCH_BYTES`.

Every spatial axis is zero-padded to a length ``L`` (the least 2, 3, 5, 7-smooth length holding
every input position the outputs read), so the circular cross-correlation of length ``L`` equals
the linear one at the outputs kept:

    y[n, k] = irfft( sum_c rfft(x[n, c]) * conj(rfft(w_dilated[k, c])) )  at o * stride,

with the channel sums strided batched complex GEMMs over (frequency, group)
(:func:`rocarray.rocblas.gemm_strided_batched` with ``transA = 'C'``) and the transforms
:func:`rocarray.rocfft.r2c` / :func:`rocarray.rocfft.c2r`. Every dtype and layout, groups,
stride, padding and dilation, 1-D to 3-D; float32 arithmetic (float64 for float64 data).
Rearrangements (padding, layouts, transposes, dtype conversions) are CuPy's.
"""

import numpy

from rocarray import rocblas, rocfft
from rocarray._core import backend

#: dtypes taken (bfloat16 by name: NumPy itself lacks it).
DTYPES = ("float16", "bfloat16", "float32", "float64")
#: Most products of one batched GEMM call (one launch's grid dimension).
MAX_GEMM_BATCH = 65535
#: Most bytes of spectra and their rearranged copies a problem may need: past it the algorithm
#: does not apply (the search and the caller take another).
MAX_SCRATCH_BYTES = 4 << 30


def fast_length(n):
    """The least ``m >= n`` whose prime factors are 2, 3, 5 and 7 (lengths the FFT does fastest)."""
    m = max(1, int(n))
    while True:
        r = m
        for p in (2, 3, 5, 7):
            while r % p == 0:
                r //= p
        if r == 1:
            return m
        m += 1


def _real_dtype(dtype):
    return numpy.dtype(numpy.float64 if dtype.name == "float64" else numpy.float32)


def bfloat16_widen(bits):
    """float32 values of bfloat16 bit patterns (``uint16`` device array; exact)."""
    cupy = backend.cupy()
    return (bits.astype(cupy.uint32) << 16).view(cupy.float32)


def bfloat16_bits(values):
    """bfloat16 bit patterns (``uint16``) of float32 ``values``: rounded to nearest even, a NaN
    kept a quiet NaN with its sign (the kernels' and ml_dtypes' rounding)."""
    cupy = backend.cupy()
    u = cupy.ascontiguousarray(values, dtype=cupy.float32).view(cupy.uint32)
    rounded = (u + (0x7FFF + ((u >> 16) & 1))) >> 16
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return cupy.where(nan, (u >> 16) | 0x40, rounded).astype(cupy.uint16)


def to_real(a, real):
    """``a`` as a ``real`` (float32/float64) device array."""
    cupy = backend.cupy()
    if a.dtype.name == "bfloat16":
        return bfloat16_widen(a.view(cupy.uint16)).astype(real, copy=False)
    return a.astype(real, copy=False)


def store(out, values):
    """``out[...] = values`` (float32/float64) rounded to ``out``'s dtype."""
    cupy = backend.cupy()
    if out.dtype.name == "bfloat16":
        out.view(cupy.uint16)[...] = bfloat16_bits(values)
    else:
        out[...] = values


class Geometry:
    """Per problem: padded lengths ``lengths`` (the FFT sizes), the slices of the padded input
    that hold ``x``, and the slices of the full correlation that are ``y``."""

    def __init__(self, problem):
        self.lengths, self.inner, self.source, self.outputs = [], [], [], []
        for i, f, o, s, p, d in zip(problem.input_size, problem.filter_size, problem.output_size, problem.stride,
                                    problem.pad, problem.dilation):
            span = (o - 1) * s + (f - 1) * d + 1  # padded positions the outputs read
            self.lengths.append(fast_length(span))
            # input positions 0 .. i - 1 sit at p .. p + i - 1; those past the span are never read
            end = max(p, min(p + i, span))
            self.inner.append(slice(p, end))
            self.source.append(slice(0, end - p))
            self.outputs.append(slice(0, (o - 1) * s + 1, s))


def scratch_bytes(problem):
    """Bytes of the spectra of x, w and y at the FFT lengths, twice (each is also rearranged
    for the batched product)."""
    lengths = Geometry(problem).lengths
    freqs = int(numpy.prod(lengths[:-1])) * (lengths[-1] // 2 + 1)
    complex_bytes = 16 if problem.dtype.name == "float64" else 8
    spectra = (problem.n * problem.c + problem.k * problem.c_per_group + problem.n * problem.k) * freqs
    return 2 * spectra * complex_bytes


def forward(problem, x, w, y):
    """``y := conv(x, w)`` through FFTs for a forward ``problem`` (contiguous arrays in its
    layout; ``y`` is overwritten)."""
    if y.size == 0:
        return
    cupy = backend.cupy()
    geo = Geometry(problem)
    real = _real_dtype(problem.dtype)
    complex_ = numpy.dtype(numpy.complex128 if real == numpy.float64 else numpy.complex64)
    nd, g, cg, kg = problem.nd, problem.groups, problem.c_per_group, problem.k_per_group
    axes = tuple(range(2, 2 + nd))
    lengths = tuple(geo.lengths)
    if problem.channels_last:
        x, w = cupy.moveaxis(x, -1, 1), cupy.moveaxis(w, -1, 1)

    xp = cupy.zeros((problem.n, problem.c, *lengths), real)
    xp[(slice(None), slice(None), *geo.inner)] = to_real(x[(slice(None), slice(None), *geo.source)], real)
    wp = cupy.zeros((problem.k, cg, *lengths), real)
    wp[(slice(None), slice(None), *(slice(0, (f - 1) * d + 1, d) for f, d in
                                    zip(problem.filter_size, problem.dilation)))] = to_real(w, real)
    xf = rocfft.r2c(xp, axes)
    wf = rocfft.r2c(wp, axes)
    del xp, wp
    freqs = int(numpy.prod(xf.shape[2:]))
    # batch entry (frequency, group): X_b (N x CG) and W_b (KG x CG), both row-major
    xt = cupy.ascontiguousarray(xf.reshape(problem.n, g, cg, freqs).transpose(3, 1, 0, 2))
    wt = cupy.ascontiguousarray(wf.reshape(g, kg, cg, freqs).transpose(3, 0, 1, 2))
    del xf, wf
    yt = cupy.empty((freqs, g, problem.n, kg), complex_)
    products(problem, freqs * g, wt.reshape(-1), xt.reshape(-1), yt.reshape(-1))
    del xt, wt
    yf = cupy.ascontiguousarray(yt.transpose(2, 1, 3, 0)).reshape(problem.n, problem.k, *spectrum_shape(lengths))
    full = rocfft.c2r(yf, axes, lengths[-1], scale=1.0 / float(numpy.prod(lengths)))
    result = full[(slice(None), slice(None), *geo.outputs)]
    store(y, cupy.moveaxis(result, 1, -1) if problem.channels_last else result)


def products(problem, batch, wt, xt, yt):
    """``Y_b := X_b conj(W_b)^T`` for the ``batch`` (frequency, group) entries of the flat
    spectra: column-major, ``Y_b^T (KG x N) = conj(W_b) X_b^T`` with ``W_b`` stored as its
    CG x KG transpose (``transA = 'C'``), :data:`MAX_GEMM_BATCH` products a call."""
    n, cg, kg = problem.n, problem.c_per_group, problem.k_per_group
    sw, sx, sy = kg * cg, n * cg, n * kg
    for b in range(0, batch, MAX_GEMM_BATCH):
        count = min(MAX_GEMM_BATCH, batch - b)
        rocblas.gemm_strided_batched("C", "N", kg, n, cg, 1.0, wt[b * sw:], cg, sw, xt[b * sx:], cg, sx, 0.0,
                                     yt[b * sy:], kg, sy, count)


def spectrum_shape(lengths):
    """Shape of the spectrum of a real array of spatial ``lengths`` (the last axis halved)."""
    return (*lengths[:-1], lengths[-1] // 2 + 1)


class Fft:
    """The ``"fft"`` algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "fft"
    fuses_epilogue = False
    #: Kernel sources of its own (none: the transforms and products are rocfft's and rocblas's).
    sources = ()

    def applicable(self, problem):
        return (problem.direction == "forward" and problem.dtype.name in DTYPES
                and int(numpy.prod(problem.filter_size)) > 1 and scratch_bytes(problem) <= MAX_SCRATCH_BYTES)

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        forward(problem, x, w, y)


ALGORITHMS = [Fft()]
