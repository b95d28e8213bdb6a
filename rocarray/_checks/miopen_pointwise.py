"""Self-checks and vendor-ratio benchmark cases of rocarray's pooling, activations and softmax
(``python -m rocarray``).

The self-checks run the ``rocarray.nn`` functions on small random tensors against NumPy float64
formulas: every activation forward and backward, softmax and log-softmax along the last and an
inner axis, and max (with indices) and average pooling in both layouts.

The benchmark cases are the issue's, each against torch on the same GPU and the same arrays
(torch is imported inside the case through ``harness.require``):

* ``max_pool_3x3s2_n64c64_112_{float32,float16}_nhwc``: ResNet's stem pool (kernel 3, stride 2,
  padding 1) on a channels-last 64 x 64 x 112 x 112 tensor; torch gets the same memory as a
  channels-last NCHW tensor. Bytes: input read once and output written (torch also writes int64
  indices it does not return; rocarray writes none).
* ``relu_2^28_float32``, ``gelu_2^28_float32``: 2^28 elements, read and written once.
* ``softmax_65536x1024_float32``: along the last axis, read and written once.
"""

import math

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"


# --------------------------------------------------------------------------------------------
# self-checks
# --------------------------------------------------------------------------------------------

def _activation_reference(name, x):
    from scipy.special import erf

    sig = 0.5 * (1.0 + numpy.tanh(0.5 * x))
    forward = {
        "relu": numpy.maximum(x, 0.0), "sigmoid": sig, "tanh": numpy.tanh(x), "silu": x * sig,
        "gelu": 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))), "hardswish": x * numpy.clip(x + 3.0, 0.0, 6.0) / 6.0,
        "leaky_relu": numpy.where(x > 0, x, 0.01 * x), "elu": numpy.where(x > 0, x, numpy.expm1(x)),
        "softplus": numpy.where(x > 20.0, x, numpy.log1p(numpy.exp(numpy.minimum(x, 20.0)))),
    }[name]
    slope = {
        "relu": (x > 0) * 1.0, "sigmoid": sig * (1 - sig), "tanh": 1 - numpy.tanh(x) ** 2,
        "silu": sig * (1 + x * (1 - sig)),
        "gelu": 0.5 * (1 + erf(x / math.sqrt(2))) + x * numpy.exp(-0.5 * x * x) / math.sqrt(2 * math.pi),
        "hardswish": numpy.where(x < -3, 0.0, numpy.where(x <= 3, x / 3 + 0.5, 1.0)),
        "leaky_relu": numpy.where(x > 0, 1.0, 0.01), "elu": numpy.where(x > 0, 1.0, numpy.exp(x)),
        "softplus": numpy.where(x > 20.0, 1.0, sig),
    }[name]
    return forward, slope


@harness.self_check(_LIB, "activations")
def check_activations(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in ("float32", "float64"):
        x = harness.standard_normal(rng, (3, 1031), dtype) * 3
        g = harness.standard_normal(rng, (3, 1031), dtype)
        wide = x.astype(numpy.float64)
        for name in ("relu", "leaky_relu", "elu", "sigmoid", "tanh", "gelu", "silu", "softplus", "hardswish"):
            forward, slope = _activation_reference(name, wide)
            y = getattr(ra.nn, name)(cupy.asarray(x))
            harness.assert_close(y, forward, dtype, name=f"{name} {dtype}")
            saved = y if name in ("sigmoid", "tanh") else cupy.asarray(x)
            dx = getattr(ra.nn, name + "_backward")(cupy.asarray(g), saved)
            harness.assert_close(dx, g * slope, dtype, factor=32, name=f"{name}_backward {dtype}")


@harness.self_check(_LIB, "softmax")
def check_softmax(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in ("float32", "float64"):
        for shape, dim in (((37, 3000), 1), ((5, 300), -1), ((4, 33, 6), 1)):
            x = harness.standard_normal(rng, shape, dtype) * 4
            wide = x.astype(numpy.float64)
            shifted = wide - wide.max(axis=dim, keepdims=True)
            lse = numpy.log(numpy.exp(shifted).sum(axis=dim, keepdims=True))
            n = shape[dim]
            harness.assert_close(ra.nn.softmax(cupy.asarray(x), dim), numpy.exp(shifted - lse), dtype, n,
                                 name=f"softmax {shape} {dtype}")
            harness.assert_close(ra.nn.log_softmax(cupy.asarray(x), dim), shifted - lse, dtype, n,
                                 name=f"log_softmax {shape} {dtype}")


def _padded_windows(x, k, s, p, fill):
    """NCHW float64 ``x`` padded by ``p`` with ``fill``: its k x k windows every s, (N, C, OH, OW, k, k)."""
    from numpy.lib.stride_tricks import sliding_window_view

    padded = numpy.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    return sliding_window_view(padded, (k, k), axis=(2, 3))[:, :, ::s, ::s]


@harness.self_check(_LIB, "pooling")
def check_pooling(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in ("float32", "float64"):
        x = harness.standard_normal(rng, (2, 5, 13, 11), dtype)
        wide = x.astype(numpy.float64)
        windows = _padded_windows(wide, 3, 2, 1, -numpy.inf)
        want = windows.max(axis=(4, 5))
        for layout in ("NCHW", "NHWC"):
            xin = cupy.asarray(x if layout == "NCHW" else numpy.ascontiguousarray(x.transpose(0, 2, 3, 1)))
            y, idx = ra.nn.max_pool2d(xin, 3, 2, 1, return_indices=True, layout=layout)
            y, idx = cupy.asnumpy(y), cupy.asnumpy(idx)
            if layout == "NHWC":
                y, idx = y.transpose(0, 3, 1, 2), idx.transpose(0, 3, 1, 2)
            harness.assert_close(y, want, dtype, name=f"max_pool2d {layout} {dtype}")
            picked = numpy.take_along_axis(wide.reshape(2, 5, -1), idx.reshape(2, 5, -1), 2).reshape(want.shape)
            harness.assert_close(picked, want, dtype, name=f"max_pool2d indices {layout} {dtype}")
            a = ra.nn.avg_pool2d(xin, 3, 2, 1, layout=layout)
            a = cupy.asnumpy(a) if layout == "NCHW" else cupy.asnumpy(a).transpose(0, 3, 1, 2)
            harness.assert_close(a, _padded_windows(wide, 3, 2, 1, 0.0).mean(axis=(4, 5)), dtype, 9,
                                 name=f"avg_pool2d {layout} {dtype}")
    # channels last in 16-byte packs (8 float32 channels): the max-pool run kernel
    x = harness.standard_normal(rng, (2, 8, 13, 11), "float32")
    wide = x.astype(numpy.float64)
    want = _padded_windows(wide, 3, 2, 1, -numpy.inf).max(axis=(4, 5))
    y, idx = ra.nn.max_pool2d(cupy.asarray(numpy.ascontiguousarray(x.transpose(0, 2, 3, 1))), 3, 2, 1,
                              return_indices=True, layout="NHWC")
    y, idx = cupy.asnumpy(y).transpose(0, 3, 1, 2), cupy.asnumpy(idx).transpose(0, 3, 1, 2)
    harness.assert_close(y, want, "float32", name="max_pool2d NHWC, packed channels")
    picked = numpy.take_along_axis(wide.reshape(2, 8, -1), idx.reshape(2, 8, -1), 2).reshape(want.shape)
    harness.assert_close(picked, want, "float32", name="max_pool2d NHWC indices, packed channels")
    # float16 channels last without indices: two channels per comparison
    x = harness.standard_normal(rng, (2, 16, 13, 11), "float16")
    want = _padded_windows(x.astype(numpy.float64), 3, 2, 1, -numpy.inf).max(axis=(4, 5))
    y = ra.nn.max_pool2d(cupy.asarray(numpy.ascontiguousarray(x.transpose(0, 2, 3, 1))), 3, 2, 1, layout="NHWC")
    harness.assert_close(cupy.asnumpy(y).transpose(0, 3, 1, 2), want, "float16", name="max_pool2d NHWC float16 pairs")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _torch():
    return harness.require("torch")


def _max_pool_case(dtype):
    n, c, h = 64, 64, 112
    itemsize = numpy.dtype(dtype).itemsize
    out = (h + 2 - 3) // 2 + 1

    def setup():
        cupy = backend.cupy()
        x = cupy.random.RandomState(3).standard_normal((n, h, h, c), dtype=numpy.float32).astype(dtype)
        torch = _torch()
        tx = torch.as_tensor(x, device="cuda").permute(0, 3, 1, 2)  # NCHW shape, channels-last memory
        return x, tx

    def ours(x, tx):
        import rocarray as ra

        ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")

    def theirs(x, tx):
        _torch().nn.functional.max_pool2d(tx, 3, 2, 1)

    nbytes = (n * c * h * h + n * c * out * out) * itemsize
    harness.bench_case(BenchCase(name=f"{_LIB}.max_pool_3x3s2_n64c64_112_{dtype}_nhwc", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=theirs, bytes_moved=nbytes))


def _activation_case(name):
    size = 1 << 28

    def setup():
        cupy = backend.cupy()
        x = cupy.random.RandomState(5).standard_normal(size, dtype=numpy.float32)
        return x, _torch().as_tensor(x, device="cuda")

    def ours(x, tx):
        import rocarray as ra

        getattr(ra.nn, name)(x)

    def theirs(x, tx):
        getattr(_torch().nn.functional, name)(tx)

    harness.bench_case(BenchCase(name=f"{_LIB}.{name}_2^28_float32", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=theirs, bytes_moved=2 * 4 * size))


def _softmax_case():
    rows, cols = 65536, 1024

    def setup():
        cupy = backend.cupy()
        x = cupy.random.RandomState(7).standard_normal((rows, cols), dtype=numpy.float32)
        return x, _torch().as_tensor(x, device="cuda")

    def ours(x, tx):
        import rocarray as ra

        ra.nn.softmax(x, -1)

    def theirs(x, tx):
        _torch().softmax(tx, -1)

    harness.bench_case(BenchCase(name=f"{_LIB}.softmax_65536x1024_float32", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=theirs, bytes_moved=2 * 4 * rows * cols))


def _register_benchmarks():
    _max_pool_case("float32")
    _max_pool_case("float16")
    _activation_case("relu")
    _activation_case("gelu")
    _softmax_case()


_register_benchmarks()
