"""fold_batchnorm on the CPU (the emulator's NumPy-backed CuPy stand-in runs its array
arithmetic): the folded convolution equals convolution then inference batch norm (NumPy float64
reference), for both layouts, with and without the optional vectors; and its argument errors."""

import numpy as np
import pytest

from miopen import miopen_conv_host as host
from conftest import fake
from kernel_emu import emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

import rocarray as ra


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 1e-5), ("float16", 3e-3)])
@pytest.mark.parametrize("optional", [True, False])
def test_folded_convolution_is_convolution_then_batch_norm(emulated_device, rng, layout, dtype, tol, optional):
    p = host.problem("forward", 2, 3, 4, (5, 6), (3, 3), pad=1, layout=layout)
    x, w, _ = host.inputs(rng, p)
    w = w.astype(dtype)
    k = p.k
    bias, gamma, beta = (rng.standard_normal(k).astype(dtype) if optional else None for _ in range(3))
    mean = rng.standard_normal(k).astype(dtype)
    var = rng.uniform(0.5, 2.0, k).astype(dtype)
    dev = emulated_device
    arrays = [None if v is None else dev.array(v) for v in (w, bias, mean, var, gamma, beta)]
    w2, b2 = ra.nn.fold_batchnorm(*arrays, eps=1e-3, layout=layout)
    assert w2.dtype == np.dtype(dtype) and b2.dtype == np.dtype(dtype) and w2.shape == w.shape
    wide = [None if v is None else v.astype(np.float64) for v in (w, bias, mean, var, gamma, beta)]
    w64, b64, m64, v64, g64, be64 = wide
    channel = (slice(None),) if layout == "NHWC" else (slice(None), None, None)
    conv = host.forward(p, x, w64) + (0 if b64 is None else b64[channel])
    want = (conv - m64[channel]) / np.sqrt(v64[channel] + 1e-3)
    if optional:
        want = want * g64[channel] + be64[channel]
    got = host.forward(p, x, np.asarray(w2, np.float64)) + np.asarray(b2, np.float64)[channel]
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * 10)


def test_fold_batchnorm_errors():
    w = fake((4, 3, 3, 3), "float32")
    v = fake((4,), "float32")
    with pytest.raises(ValueError, match="'running_var' must have shape \\(4,\\)"):
        ra.nn.fold_batchnorm(w, None, v, fake((5,), "float32"), None, None)
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.fold_batchnorm(w, None, v, fake((4,), "float64"), None, None)
    with pytest.raises(TypeError, match="'running_mean' is required"):
        ra.nn.fold_batchnorm(w, None, None, v, None, None)
    with pytest.raises(ValueError, match="eps must be >= 0"):
        ra.nn.fold_batchnorm(w, None, v, v, None, None, eps=-1.0)
    with pytest.raises(ValueError, match="dimensions"):
        ra.nn.fold_batchnorm(fake((4, 3), "float32"), None, v, v, None, None)
