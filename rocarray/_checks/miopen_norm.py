"""Self-checks and vendor-ratio benchmark cases of batch, layer and group normalization
(``python -m rocarray``).

The self-checks run the ``rocarray.nn`` functions, forward and backward, on small fresh random
inputs of both layouts and every dtype against NumPy float64 references written here (running
statistics included).

The benchmark cases are the issue's and torch's on the same device arrays (cuDNN for batch norm;
torch is imported by the case, and a case whose setup cannot import it reports an error):

* ``bn_train_f32_64x256x56x56_nchw`` / ``_nhwc``: training forward with running statistics
  (torch: ``F.batch_norm(..., training=True)``, a channels-last tensor for NHWC);
* ``ln_8192x4096_f16`` / ``_f32``: layer norm forward with weight and bias (the same values;
  rocarray's in float32, its parameter dtype for 16-bit data, torch's in the input's dtype).

Bytes counted: one read of the input and one write of the output (the count behind the issue's
1450 GB/s for cuDNN); the batch-norm training forward itself reads the input twice.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"
_DTYPES = ("float16", "float32", "float64")


def _wide(a):
    return numpy.asarray(backend.cupy().asnumpy(a), numpy.float64)


def _channels_first(x, layout):
    return numpy.moveaxis(x, -1, 1) if layout == "NHWC" else x


def _bn_reference(x, w, b, dy):
    """(y, mean, invstd, dx, dw, db) of a channels-first float64 array, eps 1e-5."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    n = x.size // x.shape[1]
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    invstd = 1 / numpy.sqrt(var + 1e-5)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    y = xhat * w.reshape(shape) + b.reshape(shape)
    db, dw = dy.sum(axis=axes), (dy * xhat).sum(axis=axes)
    dx = (w * invstd).reshape(shape) * (dy - db.reshape(shape) / n - xhat * dw.reshape(shape) / n)
    return y, mean, invstd, dx, dw, db


@harness.self_check(_LIB, "batch_norm")
def check_batch_norm(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in _DTYPES:
        # the last: channels of 34560 elements
        for layout, shape in (("NCHW", (4, 6, 9, 7)), ("NHWC", (3, 5, 7, 10)), ("NCHW", (33, 5)),
                              ("NCHW", (9, 3, 60, 64))):
            x = harness.standard_normal(rng, shape, dtype)
            C = shape[1] if layout == "NCHW" else shape[-1]
            acc = numpy.float64 if dtype == "float64" else numpy.float32
            w, b = harness.standard_normal(rng, C, acc), harness.standard_normal(rng, C, acc)
            rm, rv = cupy.zeros(C, acc), cupy.ones(C, acc)
            y, mean, invstd = ra.nn.batch_norm(cupy.asarray(x), rm, rv, cupy.asarray(w), cupy.asarray(b), True,
                                               layout=layout, return_stats=True)
            dy = harness.standard_normal(rng, shape, dtype)
            dx, dw, db = ra.nn.batch_norm_backward(cupy.asarray(dy), cupy.asarray(x), cupy.asarray(w), mean, invstd,
                                                   layout=layout)
            xc, dyc = _channels_first(x.astype(numpy.float64), layout), _channels_first(dy.astype(numpy.float64),
                                                                                         layout)
            want = _bn_reference(xc, w.astype(numpy.float64), b.astype(numpy.float64), dyc)
            n = x.size // C
            tag = f"batch_norm {layout} {shape} {dtype}"
            harness.assert_close(_channels_first(_wide(y), layout), want[0], dtype, n, name=f"{tag} y")
            harness.assert_close(invstd, want[2], acc, n, name=f"{tag} invstd")
            harness.assert_close(rm, 0.1 * want[1], acc, n, atol_scale=1.0, name=f"{tag} running_mean")
            harness.assert_close(rv, 0.9 + 0.1 * xc.var(axis=(0,) + tuple(range(2, xc.ndim)), ddof=1), acc, n,
                                 name=f"{tag} running_var")
            harness.assert_close(_channels_first(_wide(dx), layout), want[3], dtype, n, factor=32, name=f"{tag} dx")
            harness.assert_close(dw, want[4], acc, n, factor=32, name=f"{tag} dw")
            harness.assert_close(db, want[5], acc, n, factor=32, name=f"{tag} db")


@harness.self_check(_LIB, "batch_norm_pipe")
def check_batch_norm_pipe(rng):
    """The channels-first training forward through the pipeline of resident blocks
    (``_batchnorm.PIPE_TRAINING`` on, any input size through ``PIPE_MIN_BYTES``): 9 x 5 x 60 x 64
    (channels of 34,560 elements, several items each), every dtype, with weight, bias and running
    statistics, the output poisoned, against the float64 reference; the kernel's wait error word;
    a second call gives the same bits. Where the device has no cooperative launch it is the
    two-launch path."""
    from rocarray import miopen
    from rocarray.miopen import _batchnorm

    cupy = backend.cupy()
    dev = cupy.cuda.runtime.getDevice()
    saved = _batchnorm.PIPE_TRAINING, _batchnorm.PIPE_MIN_BYTES
    shape, C = (9, 5, 60, 64), 5
    try:
        _batchnorm.PIPE_TRAINING, _batchnorm.PIPE_MIN_BYTES = True, 0
        for dtype in _DTYPES:
            x = harness.standard_normal(rng, shape, dtype)
            acc = numpy.float64 if dtype == "float64" else numpy.float32
            w, b = harness.standard_normal(rng, C, acc), harness.standard_normal(rng, C, acc)
            runs = []
            for _ in range(2):
                rm, rv = cupy.zeros(C, acc), cupy.ones(C, acc)
                out = cupy.full(shape, numpy.nan, x.dtype)
                y, mean, invstd = miopen.batchnorm_forward_training(cupy.asarray(x), cupy.asarray(w),
                                                                    cupy.asarray(b), rm, rv, 0.1, 1e-5, out=out)
                _batchnorm.check_pipe(dev)
                runs.append((y, mean, invstd, rm, rv))
            xc = x.astype(numpy.float64)
            want = _bn_reference(xc, w.astype(numpy.float64), b.astype(numpy.float64), xc)
            n = x.size // C
            tag = f"batch_norm pipe {dtype}"
            y, mean, invstd, rm, rv = runs[0]
            harness.assert_close(_wide(y), want[0], dtype, n, name=f"{tag} y")
            harness.assert_close(mean, want[1], acc, n, atol_scale=1.0, name=f"{tag} mean")
            harness.assert_close(invstd, want[2], acc, n, name=f"{tag} invstd")
            harness.assert_close(rm, 0.1 * want[1], acc, n, atol_scale=1.0, name=f"{tag} running_mean")
            harness.assert_close(rv, 0.9 + 0.1 * xc.var(axis=(0, 2, 3), ddof=1), acc, n, name=f"{tag} running_var")
            for first, again in zip(runs[0], runs[1]):
                if bytes(cupy.asnumpy(first).tobytes()) != bytes(cupy.asnumpy(again).tobytes()):
                    raise AssertionError(f"{tag}: a second call gave other bits")
    finally:
        _batchnorm.PIPE_TRAINING, _batchnorm.PIPE_MIN_BYTES = saved


@harness.self_check(_LIB, "layer_norm")
def check_layer_norm(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for rows, d in ((5, 96), (3, 1000), (2, 9001)):
            x = harness.standard_normal(rng, (rows, d), dtype)
            w, b = harness.standard_normal(rng, d, dtype), harness.standard_normal(rng, d, dtype)
            y, mean, invstd = ra.nn.layer_norm(cupy.asarray(x), d, cupy.asarray(w), cupy.asarray(b),
                                               return_stats=True)
            xw, ww, bw = (a.astype(numpy.float64) for a in (x, w, b))
            mu = xw.mean(axis=1, keepdims=True)
            s = 1 / numpy.sqrt(xw.var(axis=1, keepdims=True) + 1e-5)
            xhat = (xw - mu) * s
            tag = f"layer_norm ({rows}, {d}) {dtype}"
            harness.assert_close(y, xhat * ww + bw, dtype, d, name=f"{tag} y")
            dy = harness.standard_normal(rng, (rows, d), dtype)
            dx, dw, db = ra.nn.layer_norm_backward(cupy.asarray(dy), cupy.asarray(x), d, mean, invstd,
                                                   cupy.asarray(w), cupy.asarray(b))
            g = dy.astype(numpy.float64) * ww
            want = s * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
            harness.assert_close(dx, want, dtype, d, factor=32, name=f"{tag} dx")
            harness.assert_close(dw, (dy * xhat).sum(axis=0), dtype, rows, factor=32, name=f"{tag} dw")
            harness.assert_close(db, dy.astype(numpy.float64).sum(axis=0), dtype, rows, factor=32, name=f"{tag} db")


@harness.self_check(_LIB, "group_norm")
def check_group_norm(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for layout, shape, groups in (("NCHW", (2, 12, 5, 7), 4), ("NHWC", (3, 6, 5, 8), 2)):
            x = harness.standard_normal(rng, shape, dtype)
            C = shape[1] if layout == "NCHW" else shape[-1]
            w = harness.standard_normal(rng, C, numpy.float32)
            y = ra.nn.group_norm(cupy.asarray(x), groups, cupy.asarray(w), None, layout=layout)
            xc = _channels_first(x.astype(numpy.float64), layout)
            g = xc.reshape(xc.shape[0], groups, -1)
            xhat = ((g - g.mean(axis=2, keepdims=True)) / numpy.sqrt(g.var(axis=2, keepdims=True) + 1e-5))
            want = xhat.reshape(xc.shape) * w.astype(numpy.float64).reshape([1, -1] + [1] * (xc.ndim - 2))
            harness.assert_close(_channels_first(_wide(y), layout), want, dtype, g.shape[2],
                                 name=f"group_norm {layout} {shape} {dtype}")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _torch():
    return harness.require("torch")


def _bn_case(layout):
    n, c, h, w = 64, 256, 56, 56
    shape = (n, c, h, w) if layout == "NCHW" else (n, h, w, c)

    def setup():
        torch = _torch()
        cupy = backend.cupy()
        x = cupy.random.RandomState(1).standard_normal(shape, dtype=numpy.float32)
        weight = cupy.random.RandomState(2).standard_normal(c, dtype=numpy.float32)
        bias = cupy.random.RandomState(3).standard_normal(c, dtype=numpy.float32)
        rm, rv = cupy.zeros(c, numpy.float32), cupy.ones(c, numpy.float32)
        xt = torch.as_tensor(x, device="cuda")
        if layout == "NHWC":
            xt = xt.permute(0, 3, 1, 2)  # logical NCHW over channels-last memory: cuDNN's NHWC kernels
        tensors = [torch.as_tensor(a, device="cuda").clone() for a in (weight, bias, rm, rv)]
        return x, weight, bias, rm, rv, xt, tensors

    def ours(x, weight, bias, rm, rv, xt, tensors):
        import rocarray as ra

        ra.nn.batch_norm(x, rm, rv, weight, bias, True, layout=layout)

    def theirs(x, weight, bias, rm, rv, xt, tensors):
        torch = _torch()
        tw, tb, trm, trv = tensors
        torch.nn.functional.batch_norm(xt, trm, trv, tw, tb, True)

    harness.bench_case(BenchCase(name=f"{_LIB}.bn_train_f32_64x256x56x56_{layout.lower()}", library=_LIB,
                                 setup=setup, rocarray=ours, vendor=theirs, bytes_moved=2 * 4 * n * c * h * w))


def _ln_case(dtype):
    rows, d = 8192, 4096

    def setup():
        torch = _torch()
        cupy = backend.cupy()
        x = cupy.random.RandomState(1).standard_normal((rows, d), dtype=numpy.float32).astype(dtype)
        w = cupy.random.RandomState(2).standard_normal(d, dtype=numpy.float32).astype(dtype)
        b = cupy.random.RandomState(3).standard_normal(d, dtype=numpy.float32).astype(dtype)
        tensors = [torch.as_tensor(a, device="cuda") for a in (x, w, b)]
        # rocarray keeps parameters in float32 for 16-bit data: given so, no conversion per call
        return x, w.astype(numpy.float32), b.astype(numpy.float32), tensors

    def ours(x, w, b, tensors):
        import rocarray as ra

        ra.nn.layer_norm(x, d, w, b)

    def theirs(x, w, b, tensors):
        torch = _torch()
        xt, wt, bt = tensors
        torch.nn.functional.layer_norm(xt, (d,), wt, bt)

    harness.bench_case(BenchCase(name=f"{_LIB}.ln_8192x4096_{numpy.dtype(dtype).name[0]}{8 * numpy.dtype(dtype).itemsize}",
                                 library=_LIB, setup=setup, rocarray=ours, vendor=theirs,
                                 bytes_moved=2 * rows * d * numpy.dtype(dtype).itemsize))


for _layout in ("NCHW", "NHWC"):
    _bn_case(_layout)
for _dtype in ("float16", "float32"):
    _ln_case(_dtype)
