"""rocblas level 3 (gemm) against NumPy references (float64/complex128) and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) store A, B and C column-major in 1-D device buffers (leading
dimensions at or above the minimum, a few spare elements at the end), run one gemm, and compare the
whole C buffer with a host twin: the m x n elements to a tolerance scaled by
``|alpha| |op(A)| |op(B)| + |beta| |C|`` and k, every other element exactly (writes out of place
show up); A and B must be unchanged. beta == 0 runs on a NaN-poisoned C. CPU tests cover the
pure-Python layer: option parsing, kernel names and registration, flags and grid, and every
argument error, on fake device arrays never launched on.
"""

import contextlib
import itertools
import re

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import Mat, SameDevice, as_passed, op as _op, scalar as _scalar

from rocarray._core import compile as _compile, launch as _launch
from rocarray.rocblas import _level3, _level3_mma
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


@pytest.fixture(autouse=True)
def fresh_prepared_launches(monkeypatch):
    """Launches prepared by earlier calls (gemm's warm path, gemm_mma's prepared launches) must
    not stand in for what a test forces (plans, kernels, configurations)."""
    monkeypatch.setattr(_level3, "_warm", {})
    monkeypatch.setattr(_level3, "_runs", {})
    monkeypatch.setattr(_level3_mma, "_prepared", {})

ALL = ["float32", "float64", "complex64", "complex128"]
TRANS = [a + b for a, b in itertools.product("NTC", "NTC")]


def _ids(v):
    return str(v)


# --------------------------------------------------------------------------------------------
# host references and buffers
# --------------------------------------------------------------------------------------------

def run_gemm(rng, dtype, trans, m, n, k, extra=(0, 0, 0), alpha=None, beta=None, poison=False):
    """One gemm on fresh random buffers, checked against the host reference."""
    ta, tb = trans
    alpha = _scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = _scalar(dtype, -0.5, 0.75) if beta is None else beta
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ar) + extra[0], max(1, br) + extra[1], max(1, m) + extra[2]
    a = Mat(rng, ar, ac, lda, dtype)
    b = Mat(rng, br, bc, ldb, dtype)
    c = Mat(rng, m, n, ldc, dtype, fill=np.nan if poison else None)
    assert rocblas.gemm(ta, tb, m, n, k, alpha, a.dev, lda, b.dev, ldb, beta, c.dev, ldc) is None
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside C changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if m == 0 or n == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    cm = c.matrix()
    want = np.zeros((m, n), cm.dtype if be != 0 else np.float64)
    scale = np.zeros((m, n))
    if al != 0 and k > 0:
        oa, ob = _op(a.matrix(), ta), _op(b.matrix(), tb)
        want = al * (oa @ ob)
        scale = abs(al) * (np.abs(oa) @ np.abs(ob))
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    assert_close(got[c.pos], want, dtype, max(k, 1), atol_scale=float(np.max(scale)))


# --------------------------------------------------------------------------------------------
# GPU: gemm against NumPy
# --------------------------------------------------------------------------------------------

# (m, n, k, (lda, ldb, ldc) above the minimum): 1x1, sizes crossing the 64-tile and the k-tile
# (16 real, 8 complex) boundaries, a non-square shape with every leading dimension padded
GEMM_SHAPES = [(1, 1, 1, (0, 0, 0)), (7, 7, 7, (0, 0, 0)), (63, 64, 65, (0, 1, 0)),
               (100, 37, 129, (3, 5, 2))]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GEMM_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_matches_numpy(rng, dtype, trans, shape):
    m, n, k, extra = shape
    run_gemm(rng, dtype, trans, m, n, k, extra)


@pytest.mark.gpu
@pytest.mark.parametrize("size", [63, 64, 65])
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_square_tile_boundaries(rng, dtype, trans, size):
    run_gemm(rng, dtype, trans, size, size, size)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC", "CT"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_beta_zero_does_not_read_c(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 65, 33, 20, (1, 0, 3), beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_alpha_zero_and_k_zero_scale_c(rng, dtype):
    beta = _scalar(dtype, 2.0, -1.0)
    run_gemm(rng, dtype, "NT", 65, 33, 20, alpha=0, beta=beta)          # A, B not read
    run_gemm(rng, dtype, "NT", 65, 33, 20, alpha=0, beta=0, poison=True)  # zero fill
    run_gemm(rng, dtype, "CN", 65, 33, 0, beta=beta)                    # k == 0
    run_gemm(rng, dtype, "CN", 65, 33, 0, beta=0, poison=True)
    run_gemm(rng, dtype, "NN", 65, 33, 20, alpha=0, beta=1, poison=True)  # no-op: C untouched
    run_gemm(rng, dtype, "NN", 0, 33, 20)
    run_gemm(rng, dtype, "TN", 33, 0, 20)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_1000_cubed(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 1000, 1000, 1000, (0, 0, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "CT"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_tall_non_square(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 4097, 64, 129, (1, 0, 5))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_fortran_arrays(rng, dtype):
    a = random_array(rng, (70, 30), dtype)
    b = random_array(rng, (30, 50), dtype)
    c = np.asfortranarray(random_array(rng, (70, 50), dtype))
    dc = cupy.asfortranarray(to_device(c))
    rocblas.gemm("N", "N", 70, 50, 30, 1.0, cupy.asfortranarray(to_device(a)), 70,
                 cupy.asfortranarray(to_device(b)), 30, 1.0, dc, 70)
    want = wide(a) @ wide(b) + wide(c)
    scale = float(np.max(np.abs(wide(a)) @ np.abs(wide(b)) + np.abs(wide(c))))
    assert_close(to_host(dc), want, dtype, 30, atol_scale=scale)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(127, 129, 9), (128, 128, 8), (129, 257, 31), (257, 130, 250)], ids=_ids)
@pytest.mark.parametrize("trans", ["NN", "TN", "NT", "CC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_large_tile_boundaries(rng, dtype, trans, shape):
    # 128 x 128 (float32) and 128 x 64 (float64) tiles, k tiles of 8 and 16
    m, n, k = shape
    run_gemm(rng, dtype, trans, m, n, k, (1, 2, 3))


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_split_k(rng, dtype, trans):
    # few tiles and a long k: split-K parts, finished in order by the finish kernel
    m, n, k = 70, 65, 5000
    assert _level3.heuristic(dtype, m, n, k, 132)[1] > 1
    run_gemm(rng, dtype, trans, m, n, k, (0, 1, 2))
    run_gemm(rng, dtype, trans, m, n, k, beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(64, 8192, 8192), (256, 256, 65536)], ids=_ids)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_awkward_shapes(rng, dtype, shape):
    m, n, k = shape
    run_gemm(rng, dtype, "NN", m, n, k)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_4097_cubed(rng, dtype):
    run_gemm(rng, dtype, "NT", 4097, 4097, 4097)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_split_k_is_deterministic(rng, dtype):
    m, n, k = 40, 40, 8000
    a, b = to_device(random_array(rng, m * k, dtype)), to_device(random_array(rng, k * n, dtype))
    outs = []
    for _ in range(3):
        c = cupy.full(m * n, np.nan, dtype)
        rocblas.gemm("N", "N", m, n, k, 1.0, a, m, b, k, 0.0, c, m)
        outs.append(to_host(c).tobytes())
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_launch_runs_strided_batches(rng, dtype):
    # the batch grid dimension: A advances by stride_a, B is shared (stride 0), C has gaps
    m, n, k, batch = 13, 5, 7, 70000  # more matrices than one grid dimension takes
    sa, sc = m * k + 3, m * n + 5
    a = random_array(rng, sa * batch, dtype)
    b = random_array(rng, k * n, dtype)
    c = random_array(rng, sc * batch, dtype)
    dc = to_device(c)
    _level3._launch(dc.data.device_id, np.dtype(dtype), m, n, k, _level3.scalar_arg(1.0, dtype),
                    to_device(a).data, m, to_device(b).data, k, _level3.scalar_arg(0.5, dtype), dc.data, m, 0,
                    batch=batch, stride_a=sa, stride_b=0, stride_c=sc)
    got = to_host(dc)
    bm = wide(b).reshape(n, k).T
    for i in [0, 1, 65534, 65535, 65536, batch - 1]:
        am = wide(a[i * sa:i * sa + m * k]).reshape(k, m).T
        cm = wide(c[i * sc:i * sc + m * n]).reshape(n, m).T
        want = am @ bm + 0.5 * cm
        assert_close(wide(got[i * sc:i * sc + m * n]).reshape(n, m).T, want, dtype, k,
                     atol_scale=float(np.max(np.abs(am) @ np.abs(bm) + 0.5 * np.abs(cm))))
        np.testing.assert_array_equal(got[i * sc + m * n:(i + 1) * sc], c[i * sc + m * n:(i + 1) * sc])


def _every_plan():
    """(dtype, plan) for every tile this module can launch on the current device, plain and split."""
    sms, mma = _level3._device_facts(to_device(np.zeros(1)).data.device_id)
    for dtype in ALL:
        for tile in _level3.tiles_for(dtype, mma):
            for splits in (1, 3):
                yield dtype, _level3.Plan(tile, splits)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT", "CC"])
def test_every_tile_and_split_matches_numpy(rng, monkeypatch, trans):
    # each plan forced (the heuristic picks the large tiles only for large problems): sizes
    # below, at and across the 64 and 128 tiles and the 8/16-deep k tiles, padded leading dims
    plans = list(_every_plan())
    for dtype, plan in plans:
        monkeypatch.setattr(_level3, "choose_plan", lambda *args, **kwargs: plan)
        monkeypatch.setattr(_level3, "_warm", {})  # the calls of the previous plan prepared theirs
        monkeypatch.setattr(_level3, "_runs", {})
        for m, n, k, extra in [(1, 1, 1, (0, 0, 0)), (7, 33, 129, (1, 2, 3)), (129, 200, 33, (0, 0, 0)),
                               (200, 129, 777, (3, 0, 1))]:
            run_gemm(rng, dtype, trans, m, n, k, extra)
        run_gemm(rng, dtype, trans, 65, 33, 20, beta=0, poison=True)


def test_prepared_launches_are_remembered_per_shape(monkeypatch):
    # callers of _launch (trsm, trmm, symm: hundreds of sub-matrix products) prepare a shape once
    prepared = []
    plan = _level3.Plan(_level3.TILES[np.dtype("float64")][0], 1)
    monkeypatch.setattr(_level3, "choose_plan", lambda *args, **kwargs: plan)
    monkeypatch.setattr(_level3, "_prepare_run", lambda *args: prepared.append(args) or (lambda *values: None))
    monkeypatch.setattr(_launch, "on_device", lambda device_id: contextlib.nullcontext())
    for _ in range(3):
        _level3._prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 64, 0)
    assert len(prepared) == 1
    _level3._prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 128, 0)  # another ldc
    _level3._prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 64, _level3.TRANS_A)
    assert len(prepared) == 3

@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT"])
def test_f64_16_byte_layout_matches_numpy(rng, monkeypatch, trans):
    # the direct float64 tiles' 16-byte instance (even leading dimensions, 16-byte aligned A and
    # B) on edges of every parity: rows and k that end in half a pair, tiles past the matrix,
    # one partial k tile, split k; then the same problem with A or B 8 bytes off (the 8-byte
    # instance), both against NumPy, C poisoned where beta = 0
    sms, mma = _level3._device_facts(to_device(np.zeros(1)).data.device_id)
    tiles = [t for t in _level3.tiles_for("float64", mma) if _level3.has_vec(t)]
    if not tiles:
        pytest.skip("no direct float64 matrix tiles on this device")
    ta, tb = trans
    for tile in tiles:
        for splits in (1, 3):
            plan = _level3.Plan(tile, splits)
            monkeypatch.setattr(_level3, "choose_plan", lambda *args, **kwargs: plan)
            for m, n, k in [(1, 1, 1), (129, 67, 35), (200, 130, 777), (2 * tile[0] + 3, tile[1] + 1, 48),
                              (2 * tile[0] + 2, tile[1] + 6, 40)]:
                for shift_a, shift_b in ((0, 0), (1, 0), (0, 1)):
                    monkeypatch.setattr(_level3, "_warm", {})
                    monkeypatch.setattr(_level3, "_runs", {})
                    _run_shifted(rng, trans, m, n, k, shift_a, shift_b)


def _run_shifted(rng, trans, m, n, k, shift_a, shift_b):
    """float64 gemm with even leading dimensions on buffers whose A and B start ``shift_a`` and
    ``shift_b`` elements into a fresh device array (16-byte aligned at 0), against NumPy."""
    ta, tb = trans
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = ar + ar % 2, br + br % 2 + 2, m + 1  # even; B's padded
    a = random_array(rng, shift_a + lda * ac, "float64")
    b = random_array(rng, shift_b + ldb * bc, "float64")
    da, db = to_device(a), to_device(b)
    assert da.data.ptr % 16 == 0 and db.data.ptr % 16 == 0
    dc = to_device(np.full(ldc * n, np.nan))
    rocblas.gemm(ta, tb, m, n, k, 1.0, da[shift_a:], lda, db[shift_b:], ldb, 0.0, dc, ldc)
    am = a[shift_a:].reshape(ac, lda).T[:ar]
    bm = b[shift_b:].reshape(bc, ldb).T[:br]
    oa, ob = (am if ta == "N" else am.T), (bm if tb == "N" else bm.T)
    got = to_host(dc).reshape(n, ldc).T
    assert_close(got[:m], oa @ ob, "float64", k, atol_scale=float(np.max(np.abs(oa) @ np.abs(ob))))
    assert np.isnan(got[m:]).all()  # the padding rows of C untouched


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC", "CT"])
def test_last_wave_split_along_k_matches_numpy(rng, monkeypatch, trans):
    # a few block slots (a fake device of `sms` multiprocessors, one block each) make small grids
    # end in a nearly empty wave, split along k: (3 x 3 tiles, 4 slots) gives one tail tile in 3
    # parts, (2 x 8 tiles, 13 slots) the end of a tile column and a whole column in 2 parts
    real = _level3._device_facts
    tails = []
    prepare_tail = _level3._prepare_tail

    def spy(*args):
        tails.append(args[-1])
        return prepare_tail(*args)

    monkeypatch.setattr(_level3, "_prepare_tail", spy)
    monkeypatch.setattr(_level3, "residency", lambda dtype, tile: 1)
    for dtype, plan in _every_plan():
        if plan[1] != 1:
            continue
        tile = plan[0]
        if getattr(tile, "x3", False):
            continue
        monkeypatch.setattr(_level3, "choose_plan", lambda *args, **kwargs: plan)
        for sms, m, n, k, want in [(4, 2 * tile[0] + 5, 2 * tile[1] + 7, 777, [(2, 3, 2, 3)]),
                                   (13, tile[0] + 3, 7 * tile[1] + 1, 600, [(1, 2, 6, 7), (0, 2, 7, 8)])]:
            monkeypatch.setattr(_level3, "_device_facts", lambda device_id, sms=sms: (sms, real(device_id)[1]))
            for beta, poison in ((None, False), (0, True)):
                monkeypatch.setattr(_level3, "_warm", {})
                monkeypatch.setattr(_level3, "_runs", {})
                del tails[:]
                run_gemm(rng, dtype, trans, m, n, k, (1, 2, 3), beta=beta, poison=poison)
                assert tails == [want], (dtype, plan.name, m, n, k)
        if dtype in ("float32", "float64"):  # the bias and activation reach the tail's finish kernel
            m, n, k = 2 * tile[0] + 5, 2 * tile[1] + 7, 777
            monkeypatch.setattr(_level3, "_device_facts", lambda device_id: (4, real(device_id)[1]))
            monkeypatch.setattr(_level3, "_warm", {})
            monkeypatch.setattr(_level3, "_runs", {})
            run_gemm_bias_activation(rng, dtype, m, n, k, "silu")


def _activation(name, x):
    from scipy.special import erf

    return {"relu": lambda v: np.maximum(v, 0), "gelu": lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))),
            "silu": lambda v: v / (1 + np.exp(-v)), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
            "tanh": np.tanh, None: lambda v: v}[name](x)


@pytest.mark.gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "silu", "sigmoid", "tanh"])
@pytest.mark.parametrize("shape", [(70, 33, 45), (300, 70, 5000)], ids=_ids)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_fused_bias_and_activation(rng, dtype, shape, activation):
    m, n, k = shape  # the second shape splits k: the epilogue runs in the finish kernel
    run_gemm_bias_activation(rng, dtype, m, n, k, activation)


def run_gemm_bias_activation(rng, dtype, m, n, k, activation):
    """C := act(0.5 A B - C + bias) on fresh column-major buffers, checked against the host."""
    a, b = random_array(rng, m * k, dtype), random_array(rng, k * n, dtype)
    c, bias = random_array(rng, m * n, dtype), random_array(rng, m, dtype)
    dc = to_device(c)
    rocblas.gemm("N", "N", m, n, k, 0.5, to_device(a), m, to_device(b), k, -1.0, dc, m,
                 bias=to_device(bias), activation=activation)
    am, bm, cm = wide(a).reshape(k, m).T, wide(b).reshape(n, k).T, wide(c).reshape(n, m).T
    pre = 0.5 * am @ bm - cm + wide(bias)[:, None]
    scale = float(np.max(0.5 * np.abs(am) @ np.abs(bm) + np.abs(cm) + np.abs(wide(bias))[:, None]))
    # every activation here has a derivative of at most about 1.13 in magnitude
    assert_close(wide(to_host(dc)).reshape(n, m).T, _activation(activation, pre), dtype, k,
                 atol_scale=1.2 * scale)


HALF_DTYPES = ["float16"] + (["bfloat16"] if _level3_mma.bfloat16_dtype() is not None else [])


@pytest.mark.gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "silu", "sigmoid", "tanh"])
@pytest.mark.parametrize("shape", [(70, 33, 45), (256, 136, 4000), (512, 264, 320), (2048, 2312, 72), (40, 24, 0)],
                         ids=_ids)
@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_gemm_fused_bias_and_activation_16_bit(rng, dtype, shape, activation):
    # (70, 33, 45): the mma kernel (odd leading dimensions); on sm_90 (256, 136, 4000) takes the
    # wgmma kernel with split k (the epilogue runs in the finish kernel), (512, 264, 320) the
    # wgmma kernel's own epilogue on 128 x 128 tiles and (2048, 2312, 72) on 128 x 256 tiles, the
    # last one partly outside C; k = 0 with beta = 1: C := act(C + bias)
    m, n, k = shape
    dt = np.dtype(np.float16) if dtype == "float16" else _level3_mma.bfloat16_dtype()
    a, b = rng.standard_normal(m * k).astype(dt), rng.standard_normal(k * n).astype(dt)
    c, bias = rng.standard_normal(m * n).astype(dt), rng.standard_normal(m).astype(dt)
    alpha, beta = (0.5, -1.0) if k else (1.0, 1.0)
    dc = to_device(c)
    rocblas.gemm("N", "N", m, n, k, alpha, to_device(a), max(m, 1), to_device(b), max(k, 1), beta, dc, m,
                 bias=to_device(bias), activation=activation)
    am, bm, cm = wide(a).reshape(k, m).T, wide(b).reshape(n, k).T, wide(c).reshape(n, m).T
    pre = alpha * am @ bm + beta * cm + wide(bias)[:, None]
    scale = abs(alpha) * np.abs(am) @ np.abs(bm) + np.abs(cm) + np.abs(wide(bias))[:, None]
    want = _activation(activation, pre)
    got = wide(to_host(dc)).reshape(n, m).T
    # one rounding to the 16-bit output, float32 sums over k terms, activations of slope <= 1.13
    eps = 2.0**-8 if dtype == "bfloat16" else 2.0**-11
    tol = 1.01 * eps * np.abs(want) + 1.2 * (k + 8) * 2.0**-23 * scale + 1e-6
    bad = ~(np.abs(got - want) <= tol)
    assert not bad.any(), f"{bad.sum()} of {m * n} off; max error {np.max(np.abs(got - want)):.3g}"


@pytest.mark.gpu
def test_gemm_bias_with_complex_data_and_k_zero(rng):
    m, n = 9, 4
    c, bias = random_array(rng, m * n, "complex64"), random_array(rng, m, "complex64")
    dc = to_device(c)
    a = to_device(random_array(rng, m, "complex64"))
    rocblas.gemm("N", "N", m, n, 0, 1.0, a, m, a, 1, 1.0, dc, m, bias=to_device(bias))  # beta 1, k 0
    assert_close(to_host(dc), (wide(c).reshape(n, m) + wide(bias)[None, :]).ravel(), "complex64", 1)


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_level3, "_launch", refuse)
    monkeypatch.setattr(_level3, "_prepare_launch", refuse)
    monkeypatch.setattr(_level3, "_kernel", refuse)


def test_kernel_names():
    assert _level3.kernel_name(np.float32) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1>"
    assert _level3.kernel_name(np.float32, _level3.Tile(128, 128, 8, 8, 8)) == "ra_rocblas_gemm<float, 128, 128, 8, 8, 8>"
    assert _level3.Tile(128, 128, 8, 8, 8).name == "128x128" and not _level3.Tile(128, 128, 8, 8, 8).direct
    assert _level3.Tile(128, 128, 16, 8, 8, 1).name == "128x128x16d"
    assert _level3.kernel_name(np.float64, _level3.Tile(64, 64, 16, 4, 4)) == "ra_rocblas_gemm<double, 64, 64, 16, 4, 4>"
    assert _level3.kernel_name(np.complex64) == "ra_rocblas_gemm<ra_c64, 64, 64, 8, 4, 4>"
    assert _level3.kernel_name(np.complex128) == "ra_rocblas_gemm<ra_c128, 64, 64, 8, 4, 4>"
    assert _level3.finish_name(np.float32) == "ra_rocblas_gemm_splitk_finish<float>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_level3.SOURCE))
    assert registered == set(_level3.instantiations())
    # one per dtype and tile shape, a 16-byte-layout one per direct float64 matrix tile, plus one
    # split-K finish per dtype: the transposes are flags
    vec = sum(_level3.has_vec(t) for d in _level3.TILES for t in _level3.tiles_for(d, "cuda"))
    assert vec == 4
    assert len(registered) == sum(len(_level3.tiles_for(d, "cuda")) for d in _level3.TILES) + vec + 4
    assert "ra_rocblas_gemm_f64mma(" in _compile.read_text(_level3.SOURCE)
    source = _compile.read_text(_level3.SOURCE)
    assert "ra_rocblas_gemm(" in source and "ra_rocblas_gemm_splitk_finish(" in source
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source


def test_tile_shapes_fit_the_kernel_constraints():
    for dtype, tiles in _level3.TILES.items():
        for tile in tiles:
            bm, bn, bk, tm, tn, direct, lm, ln, stages = tile
            assert not direct or dtype.kind == "f"  # the direct copies cannot conjugate
            assert (bm // tm) * (bn // tn) == _level3.BLOCK
            assert bm * bk % _level3.BLOCK == 0 and bn * bk % _level3.BLOCK == 0
            assert _level3.BLOCK % bm == 0 and _level3.BLOCK % bn == 0 and _level3.BLOCK % bk == 0
            assert stages == 2 or (direct and stages >= 3)  # a ring only with the direct copies
            vec = max(1, 16 // dtype.itemsize)
            stage = bk * ((bm + min(vec, tm)) + (bn + min(vec, tn))) * dtype.itemsize
            if stages == 2:  # double-buffered static shared tiles within the 48 KB limit
                assert 2 * stage <= 48 * 1024 and _level3.simt_shared_bytes(dtype, tile) == 0, tile
            else:  # a ring in dynamic shared memory, within every sm_80+ part's 99 KB opt-in
                assert _level3.simt_shared_bytes(dtype, tile) == stages * stage <= 99 * 1024, tile


def _simt_layout(tile, dtype):
    """(row, col) of C's tile for each (thread, r, c) of the kernel's micro-tiles (a mirror of
    ra_rocblas3_geom's row0/col0 and the epilogue's index math)."""
    bm, bn, bk, tm, tn, direct, lm, ln, stages = tile
    vec = max(1, 16 // np.dtype(dtype).itemsize)
    va, vb = min(vec, tm), min(vec, tn)
    tdm, tdn = bm // tm, bn // tn
    if lm:
        wtm, wtn = (tm // va) * lm * va, (tn // vb) * ln * vb
        wgm = bm // wtm
        span_a, span_b = lm * va, ln * vb
    else:
        span_a, span_b = tdm * va, tdn * vb
    cells = []
    for t in range(_level3.BLOCK):
        if lm:
            lane, w = t % (lm * ln), t // (lm * ln)
            row0 = (w % wgm) * wtm + (lane % lm) * va
            col0 = (w // wgm) * wtn + (lane // lm) * vb
        else:
            row0, col0 = (t % tdm) * va, (t // tdm) * vb
        for r in range(tm):
            for c in range(tn):
                cells.append(((r // va) * span_a + row0 + r % va, (c // vb) * span_b + col0 + c % vb))
    return cells


def test_every_thread_layout_covers_its_tile_once():
    for dtype, tiles in _level3.TILES.items():
        for tile in tiles:
            cells = _simt_layout(tile, dtype)
            assert sorted(cells) == [(i, j) for i in range(tile[0]) for j in range(tile[1])], tile.name
    # the warp-tiled layout: each group of 8 x 4 threads owns a compact 64 x 32 piece of C
    warp = _level3.Tile(128, 128, 16, 8, 8, 1, 8, 4)
    cells = _simt_layout(warp, "float32")[: 32 * 64]
    assert {i // 64 for i, _ in cells} == {0} and {j // 32 for _, j in cells} == {0}


def test_simt_variant_names_and_defaults():
    t = _level3.Tile(128, 128, 16, 8, 8, 1, 8, 4, 3)
    assert t.name == "128x128x16dw8x4r3" and t.stages == 3
    assert _level3.kernel_name("float32", t) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 8, 4, 3>"
    ring = _level3.Tile(128, 128, 16, 8, 8, 1, 0, 0, 3)
    assert ring.name == "128x128x16dr3"
    assert _level3.kernel_name("float32", ring) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 0, 0, 3>"
    assert _level3.simt_shared_bytes("float32", ring) == 3 * 16 * (132 + 132) * 4 > 48 * 1024
    assert _level3.kernel_name("float32", _level3.Tile(128, 128, 16, 8, 8, 1, 4, 8)) == \
        "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 4, 8>"
    for d in _level3.TILES:
        names = [t.name for t in _level3.TILES[d]]
        assert len(set(names)) == len(names) and not any("." in n for n in names)
    # the default for large float32 problems: the direct 128 x 128 x 16 tile (fastest at 8192^3)
    assert _level3.heuristic("float32", 8192, 8192, 8192, 132, mma="cuda")[0].name == "128x128x16d"
    fat = _level3.Tile(256, 128, 8, 16, 8, 1)  # 16 x 8 micro-tiles: one block per multiprocessor
    assert _level3.residency("float32", fat) == 1
    assert "ra_rocblas3_fat<TM * TN>" in _compile.read_text(_level3.SOURCE)
    # the skinny tile is a tuning candidate (with the splits that fill a wave)
    skinny = {p.name for p in _level3.candidates("float32", 64, 8192, 8192, 132, "cuda")}
    assert {"64x256x16d.s4", "64x256x16d.s8"} <= skinny


def test_f64_matrix_tiles_and_devices():
    from types import SimpleNamespace as NS

    for bm, bn, bk, stages, k16, threads in _level3.MMA_TILES[np.dtype("float64")]:
        warps = ((32, (8, 8)),) if stages else ((32, (8, 8)), (64, (16, 16)))  # DMMA 8x8x4, MFMA 16x16x4
        for warp, (fm, fn) in warps:
            wm, wn = threads // warp // 2, 2
            assert wm >= 1 and bm % (wm * fm) == 0 and bn % (wn * fn) == 0 and bk % 4 == 0
        assert stages == 0 or stages >= 2
        assert not k16 or (stages and bk % 16 == 0)  # m16n8k16: whole instructions per k tile
        # every sm_80+ part opts in to 99 KB of shared memory per block
        ring = stages if stages else 2
        assert _level3.mma_shared_bytes((bm, bn, bk, stages, k16, threads)) == ring * bk * (bm + 4 + bn + 4) * 8 <= 99 * 1024
        if not stages:
            assert _level3.mma_shared_bytes((bm, bn, bk)) == _level3.mma_shared_bytes((bm, bn, bk, stages))
    hip = _level3.tiles_for("float64", "hip")
    assert all(_level3.mma_shared_bytes(t) <= 64 * 1024 for t in hip if t.mma) and hip[0].mma
    cuda = _level3.tiles_for("float64", "cuda")
    assert all(t.direct for t in cuda if t.mma) and cuda[0].name == "mma128x128x16d3"
    assert not any(t.direct for t in hip if t.mma)
    assert _level3.has_f64_mma(NS(is_hip=False, arch="sm_90", compute_capability="90")) == "cuda"
    assert not _level3.has_f64_mma(NS(is_hip=False, arch="sm_75", compute_capability="75"))
    assert _level3.has_f64_mma(NS(is_hip=True, arch="gfx90a:sramecc+:xnack-", compute_capability="")) == "hip"
    assert _level3.has_f64_mma(NS(is_hip=True, arch="gfx942", compute_capability="")) == "hip"
    assert not _level3.has_f64_mma(NS(is_hip=True, arch="gfx1100", compute_capability=""))
    assert _level3.tiles_for("float64", False) == _level3.TILES[np.dtype("float64")]
    assert _level3.tiles_for("float64", "cuda")[0].mma
    assert _level3.tiles_for("float32", "cuda") == _level3.TILES[np.dtype("float32")]
    assert _level3.heuristic("float64", 8192, 8192, 8192, 132, mma="cuda")[0].name == "mma128x128x16d3"
    assert _level3.kernel_name("float64", _level3.MmaTile(128, 64, 8)) == "ra_rocblas_gemm_f64mma<128, 64, 8>"


def test_f64_direct_matrix_tiles_are_nvidia_only():
    # the ring of cp.async copies: named with its stage count, launched only on NVIDIA sm_80+
    direct = _level3.MmaTile(128, 128, 16, 3)
    assert direct.direct and direct.name == "mma128x128x16d3" and direct in _level3.MMA_TILES[np.dtype("float64")]
    assert _level3.kernel_name("float64", direct) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3>"
    k16 = _level3.MmaTile(128, 128, 16, 3, 1)
    assert k16.name == "mma128x128x16d3k16" and k16 in _level3.MMA_TILES[np.dtype("float64")]
    assert _level3.kernel_name("float64", k16) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 1>"
    assert _level3.mma_shared_bytes(k16) == _level3.mma_shared_bytes(direct)
    assert _level3.mma_shared_bytes(direct) == 3 * 16 * (132 + 132) * 8
    assert not _level3.MmaTile(128, 128, 16).direct and _level3.MmaTile(128, 128, 16).name == "mma128x128x16"
    cuda, hip = _level3.tiles_for("float64", "cuda"), _level3.tiles_for("float64", "hip")
    assert any(t.mma and t.direct for t in cuda)
    assert not any(t.mma and t.direct for t in hip) and not any(t.mma for t in _level3.tiles_for("float64", False))
    assert _level3.kernel_name("float64", direct) in _level3.instantiations()
    assert _level3.residency("float64", direct) == 1 and _level3.residency("float64", _level3.MmaTile(64, 64, 16, 3)) == 2
    source = _compile.read_text(_level3.SOURCE)
    assert "cp.async.wait_group" in source and "cp.async.commit_group" in source
    # the 64 x 64 tile on 128 threads (four 32 x 32 warp tiles): THREADS is the last template
    # argument, launched as the block (VEC, before it, written out when THREADS is)
    narrow = _level3.MmaTile(64, 64, 16, 4, threads=128)
    assert narrow.name == "mma64x64x16d4t128" and narrow.threads == 128 and narrow in _level3.MMA_TILES[np.dtype("float64")]
    assert _level3.residency("float64", narrow) == 2
    wide = _level3.MmaTile(128, 64, 16, 3)  # eight 32 x 32 warp tiles, one block a multiprocessor
    assert wide.name == "mma128x64x16d3" and wide in _level3.MMA_TILES[np.dtype("float64")]
    assert _level3.residency("float64", wide) == 1 and wide in _level3.tiles_for("float64", "cuda")
    assert _level3.kernel_name("float64", narrow) == "ra_rocblas_gemm_f64mma<64, 64, 16, 4, 0, 0, 128>"
    assert _level3.kernel_name("float64", narrow, vec=True) == "ra_rocblas_gemm_f64mma<64, 64, 16, 4, 0, 1, 128>"
    assert _level3.MmaTile(64, 64, 16, 3).template_args(vec=True) == (64, 64, 16, 3, 0, 1)
    assert {_level3.kernel_name("float64", narrow, v) for v in (False, True)} <= set(_level3.instantiations())
    assert "__launch_bounds__(THREADS, (ra_rocblas3_f64mma_blocks<BM * BN / THREADS, THREADS>))" in source


def test_f64_direct_tiles_take_the_16_byte_layout_per_call(monkeypatch):
    # the direct float64 tiles have a second instance (VEC = 1) launched only when this call's A
    # and B addresses, both leading dimensions and the batch strides are 16-byte aligned
    direct = _level3.MmaTile(128, 128, 16, 3)
    assert _level3.has_vec(direct) and not _level3.has_vec(_level3.MmaTile(128, 128, 16))
    assert not _level3.has_vec(_level3.TILES[np.dtype("float64")][0])
    assert _level3.kernel_name("float64", direct, vec=True) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 0, 1>"
    k16 = _level3.MmaTile(128, 128, 16, 3, 1)
    assert _level3.kernel_name("float64", k16, vec=True) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 1, 1>"
    names = _level3.instantiations()
    for tile in _level3.MMA_TILES[np.dtype("float64")]:
        assert (_level3.kernel_name("float64", tile, vec=True) in names) == (tile.direct and _level3.has_vec(tile))
    assert _level3.vec_strides(8, 130, 64, (0, 0, 7))  # C's stride does not matter
    assert not _level3.vec_strides(8, 129, 64, (0, 0, 0)) and not _level3.vec_strides(8, 130, 63, (0, 0, 0))
    assert not _level3.vec_strides(8, 130, 64, (3, 0, 0)) and not _level3.vec_strides(8, 130, 64, (0, 5, 0))

    launched = []

    class Kernel:
        def __init__(self, name):
            self.name = name

    class Launch:
        def __init__(self, kernel, grid, block, args, shared_mem=0, dependent=False):
            self.kernel = kernel
            assert dependent   # the matrix-core tiles go as dependents where the device has them

        def __call__(self, *values):
            launched.append(self.kernel.name)

    monkeypatch.setattr(_level3, "_kernel", lambda name, device_id: (Kernel(name), 132))
    monkeypatch.setattr(_level3.launch, "allow_shared", lambda kernel, nbytes: None)
    monkeypatch.setattr(_level3.launch, "dependent_launches", lambda device_id: True)
    monkeypatch.setattr(_level3.prepared_launch, "PreparedLaunch", Launch)
    monkeypatch.setattr(_level3, "_device_facts", lambda device_id: (132, "cuda"))
    plain, vec = _level3.kernel_name("float64", direct), _level3.kernel_name("float64", direct, vec=True)
    for lda, ldb, a, b, want in [(512, 512, 4096, 8192, vec), (512, 512, 4096 + 8, 8192, plain),
                                 (512, 512, 4096, 8192 + 24, plain), (511, 512, 4096, 8192, plain),
                                 (512, 513, 4096, 8192, plain)]:
        run = _level3._prepare_run(0, "float64", _level3.Plan(direct, 1), 512, 512, 512, lda, ldb, 512, 0, 1,
                                   (0, 0, 0))
        del launched[:]
        run(1.0, 0.0, a, b, 1 << 20, 0)
        assert launched == [want], (lda, ldb, a, b)


def test_flag_bits_and_geometry_match_the_source():
    source = _compile.read_text(_level3.SOURCE)
    for name, value in [("TRANS_A", 1), ("CONJ_A", 2), ("TRANS_B", 4), ("CONJ_B", 8), ("BIAS", 16)]:
        assert re.search(rf"#define RA_ROCBLAS3_{name} 0x{value:02x}\b", source), name
        assert getattr(_level3, name) == value
    assert re.search(rf"#define RA_ROCBLAS3_BLOCK {_level3.BLOCK}\b", source)
    assert re.search(rf"#define RA_ROCBLAS3_ACT_SHIFT {_level3.ACT_SHIFT}\b", source)
    for name, code in _level3.ACTIVATIONS.items():
        assert re.search(rf"#define RA_ROCBLAS3_ACT_{name.upper()} {code}\b", source), name


def test_flags_conjugate_only_complex_data():
    assert _level3.flags("N", "N", np.float32) == 0
    assert _level3.flags("C", "C", np.float64) == _level3.TRANS_A | _level3.TRANS_B
    assert _level3.flags("C", "T", np.complex64) == _level3.TRANS_A | _level3.CONJ_A | _level3.TRANS_B
    assert _level3.flags("N", "C", np.complex128) == _level3.TRANS_B | _level3.CONJ_B


def test_grid_is_one_block_per_tile():
    small = _level3.Tile(64, 64, 16, 4, 4)
    assert _level3.grid(1, 1) == 1
    assert _level3.grid(128, 128) == 1
    assert _level3.grid(129, 128) == 2
    assert _level3.grid(64, 64, small) == 1
    assert _level3.grid(65, 64, small) == 2
    assert _level3.grid(4097, 64, small) == 65
    assert _level3.grid(1000, 1000, small) == 16 * 16


def test_heuristic_fills_the_device_then_splits_k():
    big, small = _level3.tiles_for("float32", False)  # the register-staged tiles
    sms = 132
    assert _level3.heuristic("float32", 8192, 8192, 8192, sms) == (big, 1)
    assert _level3.heuristic("float32", 1000, 1000, 1000, sms) == (small, 1)  # 64 big tiles < 132
    # 256 x 256 x 65536: no tile fills a wave; the 4 big tiles split along k into 64 parts fill
    # the 264 slots of two blocks per multiprocessor (parts of at least MIN_SPLIT_K)
    assert _level3.heuristic("float32", 256, 256, 65536, sms) == (big, 64)
    assert _level3.heuristic("float32", 256, 256, 300, sms) == (small, 1)  # k too short to split
    assert _level3.heuristic("float32", 100, 100, 100, sms) == (small, 1)  # nothing fills: smallest
    # m = 64: 128-row tiles would be half padding, so the 64-row tile, in 2 parts
    assert _level3.heuristic("float32", 64, 8192, 8192, sms) == (small, 2)
    assert _level3.heuristic("float32", 32, 32, 32, sms, batch=100000) == (big, 1)  # batches fill
    assert _level3.heuristic("complex128", 8192, 8192, 8192, sms) == (_level3.TILES[np.dtype("complex128")][0], 1)
    plans = _level3.candidates("float32", 256, 256, 65536, sms)
    assert {p.name for p in plans} >= {"128x128.s64", "64x64.s16", "64x64.s1"}
    assert len({p.name for p in plans}) == len(plans)
    for mma in (False, "cuda", "hip"):  # the tuning DB needs unique candidate names
        for dtype in _level3.TILES:
            names = [p.name for p in _level3.candidates(dtype, 64, 8192, 8192, 132, mma)]
            assert len(set(names)) == len(names), (dtype, mma, names)
    # half octaves: (4096, 6144] and (6144, 8192] are two classes, and classes never decrease
    classes = [_level3.size_class(v) for v in range(1, 20000)]
    assert classes == sorted(classes) and _level3.size_class(1) == 0
    assert _level3.size_class(4097) == _level3.size_class(6144) != _level3.size_class(6145) == _level3.size_class(8192)
    assert _level3.size_class(8192) != _level3.size_class(8193)


def test_direct_tiles_only_where_copies_are_asynchronous():
    for mma in (False, "hip"):  # AMD and NVIDIA before sm_80: register-staged tiles only
        for dtype in _level3.TILES:
            assert not any(getattr(t, "direct", False) for t in _level3.tiles_for(dtype, mma))
    cuda = _level3.tiles_for("float32", "cuda")
    assert cuda == _level3.TILES[np.dtype("float32")] and cuda[0].direct
    sms = 132
    assert _level3.heuristic("float32", 8192, 8192, 8192, sms, mma="cuda") == (cuda[0], 1)
    assert _level3.heuristic("float32", 1000, 1000, 1000, sms, mma="cuda")[0].name == "64x64x16d"
    # few tiles, long k: the largest tile that covers the result as tightly as any, split into
    # as many parts as one wave holds (H200: 246 / 218 us against 330 / 272 for 64 x 64 tiles)
    assert _level3.heuristic("float32", 256, 256, 65536, sms, mma="cuda").name == "128x128x16d.s64"
    assert _level3.heuristic("float64", 256, 256, 65536, sms, mma="cuda").name == "mma128x128x16d3.s33"
    # m = 64: the 64 x 256 tile in 8 parts (259 us; 64 x 64 in 2 parts 333), float64's 64 x 64
    assert _level3.heuristic("float32", 64, 8192, 8192, sms, mma="cuda").name == "64x256x16d.s8"
    assert _level3.heuristic("float64", 64, 8192, 8192, sms, mma="cuda").name == "mma64x64x16d4t128.s2"
    assert _level3.coverage(64, 8192, _level3.Tile(128, 128, 8, 8, 8)) == 0.5
    # the three-product path is the untuned choice where it runs: split inside the kernel for
    # products with a short side, the split pass for the others
    for m, n, k in [(1000, 1000, 1000), (256, 256, 65536), (2047, 2047, 512)]:
        assert _level3.heuristic("float32", m, n, k, sms, mma="cuda", x3=True).name == "x3f_128x128.s1"
    # with a side of at most 64, the short tile along it
    assert _level3.heuristic("float32", 64, 8192, 8192, sms, mma="cuda", x3=True).name == "x3f_64x128.s1"
    assert _level3.heuristic("float32", 8192, 64, 8192, sms, mma="cuda", x3=True).name == "x3f_128x64.s1"
    for m, n, k in [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]:
        assert _level3.heuristic("float32", m, n, k, sms, mma="cuda", x3=True).name == "x3_128x128.s1"


def test_float64_direct_tiles_follow_the_measured_wave_rule():
    # H200 (132 multiprocessors), every tile timed (docs/performance.md, 2026-12-03): the untuned
    # float64 tile on NVIDIA's direct matrix tiles
    sms = 132
    big, wide, small = _level3.F64_BIG, _level3.F64_WIDE, _level3.F64_SMALL
    tiles = _level3.tiles_for("float64", "cuda")
    assert {big, wide, small} <= set(tiles)
    assert _level3.residency("float64", big) == _level3.residency("float64", wide) == 1
    assert _level3.residency("float64", small) == 2
    cases = {  # (m, n, k, batch): tile; the comment gives the times in us (chosen / the old choice)
        (2048, 2048, 2048, 1): big,      # 256 tiles, two full waves: 335 (64 x 64 361)
        (8192, 8192, 8192, 1): big,      # 31 waves and a split tail
        (2800, 2800, 2800, 1): big,      # 484 tiles: 3.7 of 4 waves
        (5000, 5000, 1000, 1): big,      # 12 waves and a split tail, 12500 k steps: 1123 (64 x 64 1393)
        (2200, 2200, 2200, 1): wide,     # 128 x 128: 2.45 of 3 waves; 128 x 64 4.8 of 5: 476 (524)
        (1024, 1024, 8192, 1): wide,     # one wave of 128 tiles, 8192 k steps
        (1000, 1000, 1000, 1): small,    # too short a run for one block a multiprocessor (tuned anyway)
        (1536, 1536, 1536, 1): small,    # 144 big tiles, a second wave of 12: 163 (198)
        (1700, 1700, 1700, 1): small,    # 229 (292)
        (960, 1056, 1000, 1): small,     # 136 wide tiles, just over a wave: 48.4 (74.3)
        (4096, 1024, 1024, 1): small,    # two waves of 1024 k steps: 192 (211)
        (2048, 2048, 256, 1): small,     # 65.9 (82.9)
        (768, 768, 768, 4): small,       # batched: 98.6 (152)
        (384, 384, 384, 16): small,      # 63.1 (100.3)
    }
    for (m, n, k, batch), tile in cases.items():
        assert _level3.direct_f64_tile(tiles, m, n, k, sms, batch) == tile, (m, n, k, batch)
        assert _level3.heuristic("float64", m, n, k, sms, batch, mma="cuda") == (tile, 1), (m, n, k, batch)
    # the 64 x 64 tiles leave multiprocessors idle: the coverage and split rule decides
    assert _level3.direct_f64_tile(tiles, 64, 8192, 8192, sms) is None
    assert _level3.direct_f64_tile(tiles, 640, 640, 640, sms) is None
    assert _level3.heuristic("float64", 640, 640, 640, sms, mma="cuda").name == "mma64x64x16d4t128.s2"
    # AMD and devices without float64 matrix instructions keep the rule of the other dtypes
    for mma in ("hip", False):
        assert _level3.direct_f64_tile(_level3.tiles_for("float64", mma), 2048, 2048, 2048, sms) is None
    # 256 tiles on 132 slots take two waves; 400 take three and a split tail (a batch is not split)
    assert _level3.waves_taken(256, sms, 2048) == 2
    assert _level3.waves_taken(400, sms, 2500) == 3.5
    assert _level3.waves_taken(400, sms, 2500, batch=2) == 4
    assert _level3.waves_taken(100, sms, 2048) == 1


def test_split_k_fills_one_wave_and_candidates_cover_skinny_shapes():
    sms = 132
    t64 = _level3.Tile(64, 64, 16, 4, 4)
    for m, n, k in [(256, 256, 65536), (64, 8192, 8192), (70, 65, 5000), (1000, 1000, 1000)]:
        for per in (1, 2):
            s = _level3.split_count(m, n, k, t64, sms, per)
            blocks = _level3.tiles_of(m, n, t64)
            assert s == 1 or blocks * s <= per * sms  # never a second, nearly empty wave
            assert s == 1 or k // s >= _level3.MIN_SPLIT_K
    assert _level3.split_count(64, 8192, 8192, t64, sms, 2) == 2  # 128 tiles: two parts fill 264 slots
    names = {p.name for p in _level3.candidates("float32", 64, 8192, 8192, sms, "cuda")}
    assert {"64x64x16d.s1", "64x64x16d.s2", "128x128x16d.s2", "128x128x16d.s4", "128x128.s1",
            "64x256x16d.s8"} <= names
    names = {p.name for p in _level3.candidates("float64", 256, 256, 65536, sms, "cuda")}
    assert {"mma64x64x16d4t128.s8", "mma64x64x16d4t128.s16", "mma128x128x16d3.s33", "mma128x128x16d3k16.s33",
            "64x64.s8"} <= names
    assert _level3.residency("float32", t64) == 2 and _level3.residency("float64", t64) == 1
    for mma in (False, "cuda", "hip"):  # the heuristic's plan is always a candidate (the DB's default)
        for dtype in _level3.TILES:
            for m, n, k in [(1000, 1000, 1000), (4097, 4097, 4097), (64, 8192, 8192), (256, 256, 65536),
                            (8192, 8192, 8192), (70, 65, 5000), (3000, 20, 9000)]:
                names = [p.name for p in _level3.candidates(dtype, m, n, k, sms, mma)]
                assert _level3.heuristic(dtype, m, n, k, sms, mma=mma).name in names
                assert len(set(names)) == len(names)
    # 1000^3 (2e9 flops) is tuned: its tile and split are measured, not guessed
    assert 2 * 1000**3 >= _level3.TUNE_MIN_FLOPS


def test_tail_split_takes_a_nearly_empty_last_wave_along_k():
    # 8192^3 with 128 x 128 tiles on 132 multiprocessors: 31 waves and 4 tiles
    assert _level3.tail_split(4096, 132, 8192) == (4092, 32)
    assert _level3.tail_split(1089, 132, 4097) == (1056, 4)  # 4097^3: 33 tiles over 8 waves
    assert _level3.tail_split(4096, 128, 8192) == (4096, 1)  # whole waves
    assert _level3.tail_split(100, 132, 8192) == (100, 1)  # less than one wave: split_count's case
    assert _level3.tail_split(132 + 34, 132, 8192) == (166, 1)  # a last wave over a quarter full
    assert _level3.tail_split(132 + 33, 132, 8192) == (132, 4)
    assert _level3.tail_split(133, 132, 511) == (133, 1)  # k too short to split
    assert _level3.tail_split(133, 132, 512) == (132, 2)  # parts at least MIN_SPLIT_K deep
    assert _level3.tail_split(133, 132, 1 << 20) == (132, _level3.MAX_SPLITS)
    for blocks in range(1, 600):
        for slots in (4, 13, 132, 264):
            first, parts = _level3.tail_split(blocks, slots, 4096)
            assert (first, parts) == (blocks, 1) or (
                first % slots == 0 and 0 < first < blocks and (blocks - first) * parts <= slots and parts > 1)


def test_tile_rectangles_cover_the_tail_once():
    assert _level3.tile_rectangles(64, 4092, 4096) == [(60, 64, 63, 64)]
    assert _level3.tile_rectangles(2, 13, 16) == [(1, 2, 6, 7), (0, 2, 7, 8)]
    assert _level3.tile_rectangles(3, 6, 12) == [(0, 3, 2, 4)]
    assert _level3.tile_rectangles(5, 7, 7) == []
    for tiles_m in (1, 2, 3, 7, 64):
        for tiles_n in (1, 2, 5):
            blocks = tiles_m * tiles_n
            for first in range(blocks + 1):
                covered = [tm + tn * tiles_m for tm0, tm1, tn0, tn1 in _level3.tile_rectangles(tiles_m, first, blocks)
                           for tn in range(tn0, tn1) for tm in range(tm0, tm1)]
                assert sorted(covered) == list(range(first, blocks))


def test_options_are_case_insensitive_and_named_when_invalid():
    assert _level3.option("n", "transA", "gemm") == "N"
    assert _level3.option("c", "transB", "gemm") == "C"
    for value, name in [("X", "transA"), ("", "transB"), ("H", "transB"), (None, "transA"), (1, "transB")]:
        with pytest.raises(ValueError, match=f"rocblas.gemm: {name} must be one of 'N', 'T', 'C'"):
            _level3.option(value, name, "gemm")


@needs_cupy
def test_argument_errors_raise_before_the_device(no_launch):
    A = fake((100,), np.float32)
    B = fake((100,), np.float32, address=1 << 21)
    C = fake((100,), np.float32, address=1 << 22)
    gemm = rocblas.gemm
    with pytest.raises(ValueError, match="transA must be one of 'N', 'T', 'C'"):
        gemm("X", "N", 10, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="transB must be one of"):
        gemm("N", "H", 10, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="m must be >= 0"):
        gemm("N", "N", -1, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="n must be >= 0"):
        gemm("N", "N", 10, -1, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="k must be >= 0"):
        gemm("N", "N", 10, 10, -3, 1.0, A, 10, B, 10, 0.0, C, 10)
    # leading dimensions: rows of each matrix as stored
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 10\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 9, B, 4, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 4\)"):
        gemm("T", "N", 10, 5, 4, 1.0, A, 3, B, 4, 0.0, C, 10)
    assert_launches(lambda: gemm("T", "N", 10, 5, 4, 1.0, A, 4, B, 4, 0.0, C, 10))
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 4\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 3, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 5\)"):
        gemm("N", "C", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 10\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 9)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 0\)"):
        gemm("N", "N", 0, 5, 4, 1.0, A, 0, B, 4, 0.0, C, 1)
    # buffers too short (A: 10 x 11 needs 110 elements)
    with pytest.raises(ValueError, match="needs 110 elements of A"):
        gemm("N", "N", 10, 5, 11, 1.0, A, 10, B, 11, 0.0, C, 10)
    with pytest.raises(ValueError, match="needs 110 elements of B"):
        gemm("N", "T", 10, 11, 10, 1.0, A, 10, B, 11, 0.0, C, 10)
    with pytest.raises(ValueError, match="needs 110 elements of C"):
        gemm("N", "N", 10, 11, 5, 1.0, A, 10, B, 5, 0.0, C, 10)
    # types
    with pytest.raises(TypeError, match="A is a host"):
        gemm("N", "N", 3, 3, 3, 1.0, np.ones(9, np.float32), 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="C is a host"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, np.ones(9, np.float32), 3)
    with pytest.raises(TypeError, match="B must be a cupy.ndarray"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, [1.0] * 9, 3, 0.0, C, 3)
    half = np.dtype("float16")  # runs on the matrix units; a bias of another dtype is refused
    with pytest.raises(TypeError, match="bias"):
        gemm("N", "N", 3, 3, 3, 1.0, fake((9,), half), 3, fake((9,), half, address=1 << 21), 3, 0.0,
             fake((9,), half, address=1 << 22), 3, bias=fake((3,), np.float32, address=1 << 23))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        gemm("N", "N", 3, 3, 3, 1.0, fake((9,), np.int32), 3, fake((9,), np.int32, address=1 << 21), 3,
             0.0, fake((9,), np.int32, address=1 << 22), 3)
    with pytest.raises(TypeError, match=r"B must have the dtype of A \(float32\), got float64"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, fake((9,), np.float64, address=1 << 21), 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="C must have the dtype of A"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, fake((9,), np.complex64, address=1 << 22), 3)
    with pytest.raises(TypeError, match="complex alpha"):
        gemm("N", "N", 3, 3, 3, 1j, A, 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="complex beta"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 1j, C, 3)
    with pytest.raises(TypeError, match="integer"):
        gemm("N", "N", 3.0, 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="integer"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3.5, 0.0, C, 3)
    # layout and alignment
    with pytest.raises(ValueError, match="A must be a contiguous"):
        gemm("N", "N", 3, 3, 3, 1.0, A[::2], 3, B, 3, 0.0, C, 3)
    with pytest.raises(ValueError, match="C must be a contiguous"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, fake((10, 10), np.float32, address=1 << 22), 10)
    with pytest.raises(ValueError, match="B is not aligned"):
        c128 = np.complex128
        gemm("N", "N", 2, 2, 2, 1.0, fake((20,), c128), 2, fake((20,), c128, address=(1 << 21) + 8), 2, 0.0,
             fake((20,), c128, address=1 << 22), 2)


def assert_launches(call):
    """The checks pass and the call reaches the (refused) launch."""
    with pytest.raises(AssertionError, match="kernel launch"):
        call()


@needs_cupy
def test_complex_scalars_with_complex_data_and_fortran_arrays_pass_the_checks(no_launch):
    a = fake((10, 10), np.complex64, order="F")
    b = fake((10, 10), np.complex64, order="F", address=1 << 21)
    c = fake((10, 10), np.complex64, order="F", address=1 << 22)
    assert_launches(lambda: rocblas.gemm("c", "t", 10, 10, 10, 1 + 2j, a, 10, b, 10, 0.5j, c, 10))


@needs_cupy
def test_noops_never_reach_the_device(no_launch):
    A = fake((100,), np.float32)
    B = fake((100,), np.float32, address=1 << 21)
    C = fake((100,), np.float32, address=1 << 22)
    assert rocblas.gemm("N", "N", 0, 10, 10, 1.0, A, 1, B, 10, 0.0, C, 1) is None
    assert rocblas.gemm("N", "N", 10, 0, 10, 1.0, A, 10, B, 10, 0.0, C, 10) is None
    assert rocblas.gemm("N", "N", 10, 10, 10, 0.0, A, 10, B, 10, 1.0, C, 10) is None  # alpha 0, beta 1
    assert rocblas.gemm("T", "C", 10, 10, 0, 2.0, A, 1, B, 10, 1.0, C, 10) is None    # k 0, beta 1
    # k == 0 or alpha == 0 with beta != 1 still scales C
    assert_launches(lambda: rocblas.gemm("N", "N", 10, 10, 0, 1.0, A, 10, B, 1, 0.0, C, 10))
    # even a no-op rejects a buffer that is too short once the sizes are positive
    with pytest.raises(ValueError, match="needs 110 elements"):
        rocblas.gemm("N", "N", 10, 11, 10, 0.0, A, 10, B, 10, 1.0, C, 10)


def test_epilogue_argument_errors(no_launch):
    a = fake((64,), np.float32)
    c = fake((64,), np.float32)
    with pytest.raises(ValueError, match="activation must be None or one of"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, activation="softmax")
    with pytest.raises(ValueError, match="needs real data"):
        cz = fake((64,), np.complex64)
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, cz, 8, cz, 8, 0.0, cz, 8, activation="relu")
    with pytest.raises(TypeError, match="bias must have the dtype of A"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=fake((8,), np.float64))
    with pytest.raises(ValueError, match="bias must be a 1-D vector of m=8"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=fake((9,), np.float32))
    with pytest.raises(TypeError, match="host"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=np.zeros(8, np.float32))


# --------------------------------------------------------------------------------------------
# warm calls: a repeated signature skips the checks and the launch choice
# --------------------------------------------------------------------------------------------

@pytest.fixture
def prepared_launches(monkeypatch):
    """``_launch`` replaced by a recorder returning a recording ``run`` (the prepared launches),
    and the device switch by a no-op, so that gemm's warm path runs without a device (each test
    starts without prepared launches: ``fresh_prepared_launches``)."""
    from rocarray.rocblas import _level1

    record = {"launch": [], "run": []}

    def run(alpha, beta, A, B, C, bias):
        record["run"].append((alpha, beta, A, B, C, bias))

    def launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits, **kw):
        record["launch"].append((m, n, k, alpha, A.ptr, B.ptr, C.ptr, flag_bits))
        return run

    monkeypatch.setattr(_level3, "_launch", launch)
    monkeypatch.setattr(_launch, "on_device", SameDevice)
    return record


@needs_cupy
def test_a_repeated_gemm_call_takes_its_prepared_launches(prepared_launches):
    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 1 and not record["run"]
    # new buffers of the same layout, new scalars: no checks, no plan, the prepared launches
    A2, B2, C2 = (fake((100,), np.float32, address=a) for a in (1 << 23, 1 << 24, 1 << 25))
    rocblas.gemm("N", "N", 10, 5, 4, 2.5, A2, 10, B2, 4, 0.5, C2, 10)
    assert len(record["launch"]) == 1
    alpha, beta, a, b, c, bias = record["run"][-1]
    assert (a, b, c, bias) == (1 << 23, 1 << 24, 1 << 25, 0)
    assert alpha.dtype == np.float32 and alpha == 2.5 and beta.dtype == np.float32 and beta == 0.5


@needs_cupy
def test_a_changed_signature_is_checked_again(prepared_launches):
    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    short = fake((40,), np.float32, address=1 << 22)
    with pytest.raises(ValueError, match="needs 50 elements of C"):  # another shape: checked
        rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, short, 10)
    with pytest.raises(TypeError, match="complex alpha needs complex data"):  # another scalar type
        rocblas.gemm("N", "N", 10, 5, 4, 1j, A, 10, B, 4, 0.0, C, 10)
    odd = fake((100,), np.float32, address=(1 << 23) + 2)
    with pytest.raises(ValueError, match="not aligned"):  # another alignment
        rocblas.gemm("N", "N", 10, 5, 4, 1.0, odd, 10, B, 4, 0.0, C, 10)
    with pytest.raises(TypeError, match="must be an integer"):  # a float size equal to the int one
        rocblas.gemm("N", "N", 10.0, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    rocblas.gemm("N", "N", 10, 5, 4, 0.0, A, 10, B, 4, 0.0, C, 10)  # alpha == 0: k passed as 0
    assert record["launch"][-1][2] == 0 and len(record["launch"]) == 2
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10, activation="relu")
    assert len(record["launch"]) == 3 and record["launch"][-1][-1] & (0xF << _level3.ACT_SHIFT)
    assert not record["run"]


@needs_cupy
def test_the_prepared_launches_follow_the_tuning_state(prepared_launches, monkeypatch):
    from rocarray._core import tuning

    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 1 and len(record["run"]) == 1
    monkeypatch.setenv("ROCARRAY_TUNE", "0")  # another tuning mode: the plan may differ
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 2


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL + ["float16"])
@pytest.mark.parametrize("m, n, k", [(130, 70, 40), (64, 64, 20000)], ids=["one-launch", "split-k"])
def test_repeated_calls_take_the_prepared_launches_on_fresh_data(rng, monkeypatch, dtype, m, n, k):
    # fresh buffers (new addresses) and new scalars each call; only the first call of the
    # signature is checked and planned, the others run its prepared launches (beta == 0 on a
    # NaN-poisoned C: C must not be read)
    cold = []
    for module, name in ((_level3, "_launch"), (_level3_mma, "gemm_mma")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, **kw: cold.append(1) or _f(*a, **kw))
    passed = [(_scalar(dtype, alpha, 0.5), _scalar(dtype, beta, -0.25) if beta else 0.0)
              for alpha, beta in [(1.5, -0.5), (2.0, 0.25), (-0.75, 3.0), (0.5, 0)]]
    for alpha, beta in passed:
        run_gemm(rng, dtype, "NT", m, n, k, extra=(1, 0, 2), alpha=alpha, beta=beta, poison=beta == 0)
    signatures = {(type(alpha), type(beta)) for alpha, beta in passed}  # complex data: beta 0.0 is a float
    assert len(cold) == len(signatures) == len(_level3._warm), (cold, signatures)


def test_plan_timing_warms_the_device_before_its_samples(monkeypatch):
    """A plan is run for TIME_WARM_SECONDS untimed before its three samples, each of which starts
    behind one untimed call; the median sample is returned. A fake device runs a call in 1 ms
    while cold (its first 10 calls) and in 0.25 ms after: a tuner that timed at once would see
    the cold time."""
    import types

    clock = {"calls": 0, "now": 0.0}

    def run(*args):
        clock["now"] += 1e-3 if clock["calls"] < 10 else 0.25e-3
        clock["calls"] += 1

    class Event:
        def record(self):
            self.at = clock["now"]

        def synchronize(self):
            pass

    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: (b.at - a.at) * 1e3)
    fake_cupy = types.SimpleNamespace(cuda=cuda, empty=lambda n, dtype: types.SimpleNamespace(
        data=types.SimpleNamespace(ptr=1 << 20)))
    monkeypatch.setattr(_level3, "_cupy", lambda: fake_cupy)
    monkeypatch.setattr(_level3, "_prepare_run", lambda *a: run)
    monkeypatch.setattr(_level3, "TIME_WARM_SECONDS", 0.02)
    t = _level3._time_plan(0, np.float32, None, 1000, 1000, 1000, np.float32(1), 1, 1000, 2, 1000, 0)
    assert t == pytest.approx(0.25e-3)
    # the first timed call (1 untimed + 1, the cold 1 ms), 20 warm-up calls (0.02 / 1e-3), then
    # three samples of TIME_CALLS_SMALL calls behind one untimed call each
    assert clock["calls"] == 2 + 20 + 3 * (1 + _level3.TIME_CALLS_SMALL)
    clock.update(calls=0, now=0.0)
    monkeypatch.setattr(_level3, "TIME_WARM_SECONDS", 10.0)   # 10^4 calls: capped
    _level3._time_plan(0, np.float32, None, 1000, 1000, 1000, np.float32(1), 1, 1000, 2, 1000, 0)
    assert clock["calls"] == 2 + _level3.TIME_WARM_CALLS_MAX + 3 * (1 + _level3.TIME_CALLS_SMALL)
