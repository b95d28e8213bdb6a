"""Self-checks of miopen's paths that the other checks leave out (``python -m rocarray``).

Small enough for the sanitizers, all against float64 NumPy: depthwise convolutions (``groups ==
C``: the one-channel-per-thread forward in 2-D and 3-D, and the channels-last packed forward and
data gradient), a convolution with bias and ReLU on the implicit-GEMM path (the epilogue pass),
inference batch normalization, group normalization's backward pass in both layouts (checked by
a central difference along a random direction), and average pooling's backward pass (checked as
the adjoint of the forward: ``<pool(x), g> == <x, pool_backward(g)>``).
"""

import itertools

import numpy

from rocarray._core import backend, harness

_LIB = "miopen"


def _conv_ref(x, w, pad):
    """Cross-correlation of NCHW/NCDHW ``x`` with ``w`` (K, C/groups, taps...), stride 1, depthwise
    when ``w.shape[1] == 1`` and K == C (groups == C)."""
    nd = x.ndim - 2
    xp = numpy.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * nd)
    out = [xp.shape[2 + i] - w.shape[2 + i] + 1 for i in range(nd)]
    y = numpy.zeros((x.shape[0], w.shape[0], *out))
    depthwise = w.shape[1] == 1 and w.shape[0] == x.shape[1]
    for taps in itertools.product(*[range(t) for t in w.shape[2:]]):
        window = xp[(slice(None), slice(None)) + tuple(slice(t, t + o) for t, o in zip(taps, out))]
        if depthwise:
            y += window * w[(slice(None), 0) + taps].reshape((1, -1) + (1,) * nd)
        else:
            y += numpy.einsum("nc...,kc->nk...", window, w[(slice(None), slice(None)) + taps])
    return y


def _to_nhwc(a):
    return numpy.ascontiguousarray(numpy.moveaxis(a, 1, -1))


def _depthwise(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for shape, flt in (((2, 6, 13, 11), 3), ((1, 4, 5, 7, 6), 3)):
        x = harness.standard_normal(rng, shape, "float32")
        w = harness.standard_normal(rng, (shape[1], 1) + (flt,) * (len(shape) - 2), "float32")
        conv = ra.nn.conv2d if len(shape) == 4 else ra.nn.conv3d
        y = conv(cupy.asarray(x), cupy.asarray(w), padding=1, groups=shape[1], algo="depthwise")
        harness.assert_close(y, _conv_ref(x.astype(numpy.float64), w, 1), "float32", 27,
                             name=f"depthwise conv {shape}")
    # channels last, K == C a multiple of 4 float32 channels: the packed kernels
    x = harness.standard_normal(rng, (2, 8, 9, 16), "float32")          # NCHW reference shape
    w = harness.standard_normal(rng, (8, 1, 3, 3), "float32")
    want = _conv_ref(x.astype(numpy.float64), w, 1)
    w_nhwc = _to_nhwc(w)
    y = ra.nn.conv2d(cupy.asarray(_to_nhwc(x)), cupy.asarray(w_nhwc), padding=1, groups=8, layout="NHWC",
                     algo="depthwise")
    harness.assert_close(y, _to_nhwc(want), "float32", 9, name="depthwise conv NHWC, packed channels")
    # a 5-wide window has no run kernel: the packed kernel that loads a tap at a time
    w5 = harness.standard_normal(rng, (8, 1, 5, 5), "float32")
    y5 = ra.nn.conv2d(cupy.asarray(_to_nhwc(x)), cupy.asarray(_to_nhwc(w5)), padding=2, groups=8, layout="NHWC",
                      algo="depthwise")
    harness.assert_close(y5, _to_nhwc(_conv_ref(x.astype(numpy.float64), w5, 2)), "float32", 25,
                         name="depthwise conv NHWC 5x5, packed channels")
    g = harness.standard_normal(rng, want.shape, "float32")
    dx = cupy.asnumpy(ra.nn.conv2d_input((2, 9, 16, 8), cupy.asarray(w_nhwc), cupy.asarray(_to_nhwc(g)), padding=1,
                                         groups=8, layout="NHWC", algo="depthwise")).astype(numpy.float64)
    # the data gradient is the adjoint of the forward: <conv(x), g> == <x, conv_input(g)>
    lhs, rhs = numpy.vdot(want, g.astype(numpy.float64)), numpy.vdot(_to_nhwc(x).astype(numpy.float64), dx)
    if not abs(lhs - rhs) <= 1e-4 * numpy.abs(want).sum() * numpy.abs(g).max():
        raise AssertionError(f"depthwise conv NHWC data gradient: adjoint identity off ({lhs} vs {rhs})")


def _epilogue(rng):
    import rocarray as ra

    cupy = backend.cupy()
    x = harness.standard_normal(rng, (2, 8, 12, 10), "float32")
    w = harness.standard_normal(rng, (16, 8, 3, 3), "float32")
    b = harness.standard_normal(rng, (16,), "float32")
    y = ra.nn.conv2d(cupy.asarray(x), cupy.asarray(w), cupy.asarray(b), padding=1, activation="relu",
                     algo="implicit_gemm")
    want = numpy.maximum(_conv_ref(x.astype(numpy.float64), w, 1) + b.reshape(1, -1, 1, 1), 0)
    harness.assert_close(y, want, "float32", 72, name="conv + bias + relu (epilogue)")


def _batch_norm_inference(rng):
    import rocarray as ra

    cupy = backend.cupy()
    x = harness.standard_normal(rng, (3, 5, 7, 9), "float32")
    mean, var = harness.standard_normal(rng, 5, "float32"), rng.random(5).astype(numpy.float32) + 0.5
    w, b = harness.standard_normal(rng, 5, "float32"), harness.standard_normal(rng, 5, "float32")
    y = ra.nn.batch_norm(*(cupy.asarray(v) for v in (x, mean, var, w, b)), training=False, eps=1e-5)
    c = (slice(None), None, None)
    want = (x - mean[c].astype(numpy.float64)) / numpy.sqrt(var[c].astype(numpy.float64) + 1e-5) * w[c] + b[c]
    harness.assert_close(y, want, "float32", 4, name="batch_norm inference")


def _group_norm_backward(rng):
    import rocarray as ra

    cupy = backend.cupy()
    shape, groups = (2, 6, 5, 7), 3
    for layout in ("NCHW", "NHWC"):
        arrange = _to_nhwc if layout == "NHWC" else numpy.ascontiguousarray
        x = arrange(harness.standard_normal(rng, shape, "float64"))
        w = harness.standard_normal(rng, shape[1], "float64")
        b = harness.standard_normal(rng, shape[1], "float64")
        g = harness.standard_normal(rng, x.shape, "float64")
        v = harness.standard_normal(rng, x.shape, "float64")
        dx_, w_, b_ = (cupy.asarray(a) for a in (x, w, b))
        _, mean, invstd = ra.nn.group_norm(dx_, groups, w_, b_, layout=layout, return_stats=True)
        dx, dw, db = ra.nn.group_norm_backward(cupy.asarray(g), dx_, groups, mean, invstd, w_, layout=layout)

        def loss(xx, ww=w, bb=b):
            y = ra.nn.group_norm(cupy.asarray(xx), groups, cupy.asarray(ww), cupy.asarray(bb), layout=layout)
            return numpy.vdot(cupy.asnumpy(y), g)

        h = 1e-6
        for name, got, (plus, minus), direction in (
                ("input", dx, (loss(x + h * v), loss(x - h * v)), v),
                ("weight", dw, (loss(x, w + h * v.ravel()[:w.size]), loss(x, w - h * v.ravel()[:w.size])),
                 v.ravel()[:w.size]),
                ("bias", db, (loss(x, w, b + h * v.ravel()[:b.size]), loss(x, w, b - h * v.ravel()[:b.size])),
                 v.ravel()[:b.size])):
            want = (plus - minus) / (2 * h)
            have = numpy.vdot(cupy.asnumpy(got), direction)
            if not abs(have - want) <= 1e-5 * max(1.0, abs(want)):
                raise AssertionError(f"group_norm_backward {layout} {name}: {have} vs central difference {want}")


def _avg_pool_backward(rng):
    import rocarray as ra

    cupy = backend.cupy()
    x = harness.standard_normal(rng, (2, 3, 11, 9), "float64")
    y = cupy.asnumpy(ra.nn.avg_pool2d(cupy.asarray(x), 3, stride=2, padding=1))
    g = harness.standard_normal(rng, y.shape, "float64")
    dx = cupy.asnumpy(ra.nn.avg_pool2d_backward(cupy.asarray(g), cupy.asarray(x), 3, stride=2, padding=1))
    lhs, rhs = numpy.vdot(y, g), numpy.vdot(x, dx)
    if not abs(lhs - rhs) <= 1e-12 * numpy.abs(y).sum() * numpy.abs(g).max():
        raise AssertionError(f"avg_pool2d_backward: adjoint identity off ({lhs} vs {rhs})")


@harness.self_check(_LIB, "rare_paths")
def check_rare_paths(rng):
    _depthwise(rng)
    _epilogue(rng)
    _batch_norm_inference(rng)
    _group_norm_backward(rng)
    _avg_pool_backward(rng)
