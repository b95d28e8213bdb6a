"""The "gemm" convolution algorithm on the CPU: its im2col/col2im kernels run through the kernel
emulator, its rocblas products through a NumPy stand-in of rocblas's column-major contract (the
matrix sizes, leading dimensions, offsets and batch strides are what this checks), against the
NumPy float64 reference: every direction, both layouts, groups, stride, dilation, 1x1, chunks of
images. CPU tests: skipped where g++ is missing."""

import types

import numpy as np
import pytest

import miopen_conv_host as host
from kernel_emu import emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import miopen
from rocarray.miopen import _conv_gemm

SEED = 20261206
_ACT = {None: lambda v: v, "relu": lambda v: np.maximum(v, 0), "tanh": np.tanh}


def _operand(buf, trans, rows, cols, ld):
    """op(X) of a column-major X in a flat buffer (a view: writes reach the buffer)."""
    buf = np.asarray(buf)
    r, c = (rows, cols) if trans == "N" else (cols, rows)
    need = (c - 1) * ld + r
    assert ld >= max(1, r) and buf.size >= need, "operand outside its buffer"
    view = np.lib.stride_tricks.as_strided(buf, shape=(r, c), strides=(buf.itemsize, ld * buf.itemsize))
    return view if trans == "N" else view.T


def _gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, *, bias=None, activation=None, calls=None):
    a = _operand(A, ta, m, k, lda).astype(np.float64)
    b = _operand(B, tb, k, n, ldb).astype(np.float64)
    c = _operand(C, "N", m, n, ldc)
    r = alpha * (a @ b) + (beta * c.astype(np.float64) if beta else 0)
    if bias is not None:
        r = r + np.asarray(bias, np.float64)[:, None]
    c[...] = _ACT[activation](r)
    calls.append(("gemm", bias is not None, activation))


def _batched(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count, calls=None):
    A, B, C = np.asarray(A), np.asarray(B), np.asarray(C)
    for i in range(count):
        _gemm(ta, tb, m, n, k, alpha, A[i * sa:], lda, B[i * sb:], ldb, beta, C[i * sc:], ldc, calls=[])
    calls.append(("batched", count))


@pytest.fixture
def rocblas_calls(monkeypatch):
    calls = []
    stand_in = types.SimpleNamespace(gemm=lambda *a, **k: _gemm(*a, **k, calls=calls),
                                     gemm_strided_batched=lambda *a: _batched(*a, calls=calls))
    monkeypatch.setattr(_conv_gemm, "rocblas", stand_in)
    return calls


CASES = [  # (layout, n, c, k, size, filter, stride, pad, dilation, groups)
    ("NCHW", 3, 4, 6, (7, 6), (3, 2), (2, 1), (1, 0), (1, 2), 2),
    ("NHWC", 3, 4, 6, (5, 7), (2, 3), (1, 2), (0, 1), (2, 1), 2),
    ("NCHW", 2, 6, 4, (5, 4), (1, 1), (1, 1), (0, 0), (1, 1), 2),
    ("NHWC", 2, 3, 5, (4, 3, 2), (1, 1, 1), 1, 0, 1, 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[5]))}")
@pytest.mark.parametrize("col_bytes", [1 << 20, 1], ids=["one-chunk", "image-chunks"])
def test_gemm_every_direction(emulated_device, rocblas_calls, monkeypatch, case, col_bytes):
    monkeypatch.setattr(_conv_gemm, "COL_BYTES", col_bytes)
    layout, n, c, k, size, flt, stride, pad, dil, groups = case
    dev = emulated_device
    rng = np.random.default_rng(SEED)

    def problem(direction):
        return host.problem(direction, n, c, k, size, flt, stride=stride, pad=pad, dilation=dil, groups=groups,
                            layout=layout)

    fwd = problem("forward")
    x, w, dy = host.inputs(rng, fwd)
    bias = rng.standard_normal(k)
    y = miopen.convolution_forward(fwd, dev.array(x), dev.array(w), bias=dev.array(bias), activation="relu",
                                   algo="gemm")
    want = host.forward(fwd, x, w) + (bias if layout == "NHWC" else bias.reshape((k,) + (1,) * len(size)))
    np.testing.assert_allclose(np.asarray(y), np.maximum(want, 0), rtol=1e-12, atol=1e-12)
    fused = [call for call in rocblas_calls if call[0] == "gemm" and call[1]]
    assert bool(fused) == (layout == "NHWC")  # rocblas's epilogue takes the bias channels last
    bd = problem("backward_data")
    dx = miopen.convolution_backward_data(bd, dev.array(dy), dev.array(w), algo="gemm")
    np.testing.assert_allclose(np.asarray(dx), host.backward_data(bd, dy, w), rtol=1e-12, atol=1e-12)
    bw = problem("backward_weights")
    dw = miopen.convolution_backward_weights(bw, dev.array(x), dev.array(dy), algo="gemm")
    np.testing.assert_allclose(np.asarray(dw), host.backward_weights(bw, x, dy), rtol=1e-12, atol=1e-12)
    pointwise = all(f == 1 for f in flt)
    assert any("im2col" in name for name in dev.names()) != pointwise


def test_leaky_relu_runs_the_epilogue_kernel_after_the_fused_gemm(emulated_device, rocblas_calls):
    rng = np.random.default_rng(SEED)
    p = host.problem("forward", 2, 3, 4, (5, 5), (3, 3), pad=1, layout="NHWC")
    x, w, _ = host.inputs(rng, p)
    y = miopen.convolution_forward(p, emulated_device.array(x), emulated_device.array(w), activation="leaky_relu",
                                   algo="gemm")
    want = host.forward(p, x, w)
    np.testing.assert_allclose(np.asarray(y), np.where(want < 0, 0.01 * want, want), rtol=1e-12, atol=1e-12)
    assert emulated_device.names()[-1] == "ra_miopen_conv_epilogue<double>"


def test_16_bit_weight_gradients_that_would_sum_chunks_go_elsewhere(monkeypatch):
    gemm = _conv_gemm.ALGORITHMS[0]
    nchw = host.problem("backward_weights", 2, 4, 4, (5, 5), (3, 3), dtype="float16")
    nhwc = host.problem("backward_weights", 2, 4, 4, (5, 5), (3, 3), dtype="float16", layout="NHWC")
    assert not gemm.applicable(nchw) and gemm.applicable(nhwc)
    monkeypatch.setattr(_conv_gemm, "COL_BYTES", 1)
    assert not gemm.applicable(nhwc)
    assert gemm.applicable(host.problem("backward_weights", 2, 4, 4, (5, 5), (3, 3), dtype="float32"))
