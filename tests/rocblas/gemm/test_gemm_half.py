"""float16/bfloat16 gemm (``_gemm/half.py``: float32 accumulation on the matrix units) against NumPy float64.

GPU tests store A, B and C column-major in 1-D device buffers (leading dimensions at or above the
minimum, spare elements at the end, optional element offsets), run one launch of
:func:`rocarray.rocblas._gemm.half.launch` (the unchecked entry :func:`rocblas.gemm` dispatches
16-bit dtypes to) and compare the whole C buffer with a host twin: the m x n elements to

    |got - want| <= eps_out |want| + (k + 4) 2^-23 (|alpha| |op(A)| |op(B)| + |beta| |C|)

(one rounding of the float32 result to the output dtype, plus float32 accumulation over k terms;
tight enough that a dropped or doubled k term fails for every k used here), every other element
bit for bit. A and B must be unchanged. beta == 0 runs on a NaN-poisoned C, alpha == 0 and k == 0
on NaN-poisoned A and B. CPU tests cover the launches on stand-in kernels: the kernel each case takes, its
arguments, the quick returns and the dtype rules.
"""


import itertools
import types

import numpy as np
import pytest

from conftest import to_device, to_host
from level3_host import SameDevice, activation_reference
from rocblas_fixtures import fresh_prepared_launches, record_launches  # noqa: F401  (autouse)

from rocarray._core import launch, plans, workspace as workspace_owner
from rocarray.rocblas._gemm import half as _half, mma as _mma, tensor_maps as _tensor_maps, wgmma as _wgmma
from rocarray.rocblas._gemm.simt import ACTIVATIONS
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


BF16 = _mma.bfloat16_dtype()


DTYPES = ["float16"] + (["bfloat16"] if BF16 is not None else [])


TRANS = ["".join(t) for t in itertools.product("NT", "NT")]


EPS_OUT = {"float16": 2.0**-10, "bfloat16": 2.0**-7}


def _dtype(name):
    return np.dtype(np.float16) if name == "float16" else BF16


def _ids(v):
    return str(v)


class Mat:
    """A column-major rows x cols matrix at element ``offset`` of a 1-D device buffer."""

    def __init__(self, rng, rows, cols, ld, dtype, offset=0, fill=None):
        size = offset + (max(cols, 1) - 1) * ld + max(rows, 1) + 5
        if fill is None:
            self.host = rng.standard_normal(size).astype(dtype)
        else:
            self.host = np.full(size, fill, np.float32).astype(dtype)
        self.rows, self.cols, self.ld, self.offset = rows, cols, ld, offset
        self.pos = offset + np.arange(rows)[:, None] + np.arange(cols)[None, :] * ld
        self.dev = to_device(self.host)

    @property
    def ptr(self):
        return self.dev[self.offset:].data

    def matrix(self):
        return self.host[self.pos].astype(np.float64)

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev).view(np.uint16), self.host.view(np.uint16))


def run_mma(rng, dtype, trans, m, n, k, extra=(0, 0, 0), alpha=1.5, beta=-0.5, offsets=(0, 0, 0),
            poison_c=False, poison_ab=False, expect_aligned=None, activation=None):
    """One matrix-core gemm on fresh random buffers, checked against the float64 reference;
    ``activation`` (a name of ``ACTIVATIONS``, or ``''`` for a bias alone) adds a random bias and
    the fused activation."""
    dt = _dtype(dtype)
    ta, tb = trans
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ar) + extra[0], max(1, br) + extra[1], max(1, m) + extra[2]
    nan_ab = np.nan if poison_ab else None
    a = Mat(rng, ar, ac, lda, dt, offsets[0], fill=nan_ab)
    b = Mat(rng, br, bc, ldb, dt, offsets[1], fill=nan_ab)
    c = Mat(rng, m, n, ldc, dt, offsets[2], fill=np.nan if poison_c else None)
    if expect_aligned is not None:
        assert _mma.use_aligned(a.ptr.ptr, lda, b.ptr.ptr, ldb, k) is expect_aligned
    device = a.dev.data.device_id
    fused = {}
    if activation is not None:
        bias = rng.standard_normal(max(m, 1)).astype(dt)
        fused = dict(bias=to_device(bias).data, activation=ACTIVATIONS.get(activation, 0))
    _half.launch(device, dt, ta, tb, m, n, k, alpha, a.ptr, lda, b.ptr, ldb, beta, c.ptr, ldc, **fused)
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest].view(np.uint16), c.host[rest].view(np.uint16),
                                  err_msg="elements outside C changed")
    al, be = float(np.float32(alpha)), float(np.float32(beta))
    if m == 0 or n == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    want = np.zeros((m, n))
    scale = np.zeros((m, n))
    if al != 0 and k > 0:
        oa = a.matrix() if ta == "N" else a.matrix().T
        ob = b.matrix() if tb == "N" else b.matrix().T
        want = al * (oa @ ob)
        scale = abs(al) * (np.abs(oa) @ np.abs(ob))
    if be != 0:
        cm = c.matrix()
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    if activation is not None:
        b64 = bias[:m].astype(np.float64)[:, None]
        want, scale = activation_reference(activation or None, want + b64), 1.2 * (scale + np.abs(b64))
    g = got[c.pos].astype(np.float64)
    tol = EPS_OUT[dtype] * np.abs(want) + (k + 4) * 2.0**-23 * scale + 1e-7
    bad = ~(np.abs(g - want) <= tol)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise AssertionError(f"{bad.sum()} of {m * n} elements off; first ({i}, {j}): got {g[i, j]}, "
                             f"want {want[i, j]}, tol {tol[i, j]}")


def _wgmma_device():
    facts = _mma.device_facts(to_device(np.zeros(1, np.float16)).data.device_id)
    return _wgmma.usable(True, is_hip=facts["is_hip"], cc_major=facts["cc_major"],
                         cc_minor=facts["cc_minor"]), facts


@pytest.fixture(params=["auto", "mma"])
def path(request, monkeypatch):
    """Both kernels of an sm_90 device: as dispatched (wgmma when aligned), and the mma kernel
    forced (elsewhere the two runs take the same kernel)."""
    if request.param == "mma":
        if not _wgmma_device()[0]:
            pytest.skip("the same kernel as 'auto' on this device")
        monkeypatch.setattr(_wgmma, "usable", lambda *a, **k: False)
    return request.param


# sizes crossing the 128 x 128 block tile, the 32-deep k tile and the 16/8 fragments
SHAPES = [(1, 1, 1), (16, 16, 16), (17, 17, 17), (64, 128, 64), (130, 17, 257), (257, 130, 16),
          (128, 257, 130)]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_matches_numpy(rng, path, dtype, trans, shape):
    run_mma(rng, dtype, trans, *shape)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_padded_leading_dimensions_stay_aligned(rng, path, dtype, trans):
    # ld above the rows, multiples of 8: the 16-byte (cp.async) variant, with element offsets of 8
    run_mma(rng, dtype, trans, 100, 72, 90, extra=(4, 12, 3), offsets=(8, 16, 3), expect_aligned=None)
    run_mma(rng, dtype, trans, 96, 64, 96, extra=(8, 16, 1), offsets=(8, 0, 1), expect_aligned=True)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_unaligned_uses_predicated_variant(rng, dtype, trans):
    run_mma(rng, dtype, trans, 130, 64, 70, extra=(5, 1, 2), expect_aligned=False)   # ld % 8 != 0
    run_mma(rng, dtype, trans, 64, 64, 64, offsets=(1, 0, 0), expect_aligned=False)  # A off by 2 bytes
    run_mma(rng, dtype, trans, 31, 33, 35, extra=(0, 0, 0), expect_aligned=False)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_beta_zero_does_not_read_c(rng, path, dtype):
    for trans in ("NN", "TT"):
        run_mma(rng, dtype, trans, 150, 70, 33, beta=0.0, poison_c=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_alpha_zero_and_k_zero_do_not_read_a_b(rng, path, dtype):
    run_mma(rng, dtype, "NT", 150, 70, 33, alpha=0.0, beta=2.0, poison_ab=True)
    run_mma(rng, dtype, "NT", 150, 70, 33, alpha=0.0, beta=0.0, poison_ab=True, poison_c=True)
    run_mma(rng, dtype, "TN", 150, 70, 0, alpha=1.0, beta=0.5)
    run_mma(rng, dtype, "TN", 150, 70, 0, alpha=float("inf"), beta=0.5)   # C := beta C still
    run_mma(rng, dtype, "TT", 150, 70, 0, alpha=1.0, beta=0.0, poison_c=True)
    run_mma(rng, dtype, "NN", 150, 70, 33, alpha=0.0, beta=1.0, poison_c=True)   # no-op
    run_mma(rng, dtype, "NN", 0, 70, 33)
    run_mma(rng, dtype, "NN", 70, 0, 33)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1024, 1024, 1024), (1000, 999, 1001), (4097, 64, 129)], ids=_ids)
@pytest.mark.parametrize("trans", ["NN", "TN", "NT", "TT"])
def test_gemm_mma_large(rng, path, trans, shape):
    run_mma(rng, "float16", trans, *shape)


# Every (tile width, stages) configuration the library can choose, forced on one device.
CONFIGS = [(128, 3), (128, 4), (256, 3), (256, 4)]


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_every_tile_configuration(rng, monkeypatch, dtype, trans, config):
    tile_n, stages = config
    facts = _mma.device_facts(to_device(np.zeros(1, np.float16)).data.device_id)
    monkeypatch.setattr(_wgmma, "usable", lambda *a, **k: False)
    if facts["is_hip"] and tile_n != 128:
        pytest.skip("the 128 x 256 tile is for NVIDIA only")
    if _mma.shared_bytes(tile_n, stages) > max(facts["shared_limit"], _mma.DEFAULT_SHARED):
        pytest.skip("not enough shared memory for this configuration")
    monkeypatch.setattr(_mma, "choose_config", lambda *a, **k: config)
    run_mma(rng, dtype, trans, 300, 260, 70)
    run_mma(rng, dtype, trans, 300, 260, 70, extra=(3, 1, 0), expect_aligned=False)
    run_mma(rng, dtype, trans, 2100, 520, 40, beta=0.0, poison_c=True)   # 2 groups of tile rows


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_mma_every_tile_configuration_applies_bias_and_activation(rng, monkeypatch, dtype, config):
    # the epilogue's rolled activation pass over the values kept in float, in each tile
    # configuration's own accumulator layout: every activation, partial tiles at every edge (odd m
    # and n, k not a multiple of 32), C's spare rows untouched, one rounding to the 16-bit output
    tile_n, stages = config
    facts = _mma.device_facts(to_device(np.zeros(1, np.float16)).data.device_id)
    monkeypatch.setattr(_wgmma, "usable", lambda *a, **k: False)
    if facts["is_hip"] and tile_n != 128:
        pytest.skip("the 128 x 256 tile is for NVIDIA only")
    if _mma.shared_bytes(tile_n, stages) > max(facts["shared_limit"], _mma.DEFAULT_SHARED):
        pytest.skip("not enough shared memory for this configuration")
    monkeypatch.setattr(_mma, "choose_config", lambda *a, **k: config)
    for activation in ["", "relu", "gelu", "silu", "sigmoid", "tanh"]:  # 16-byte copies
        run_mma(rng, dtype, "NT", 304, 264, 70, extra=(0, 0, 3), expect_aligned=True, activation=activation)
    run_mma(rng, dtype, "TN", 131, 257, 45, extra=(3, 1, 0), expect_aligned=False, activation="gelu")


@pytest.mark.gpu
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_unaligned_operands_get_padded_copies_on_sm90(rng, monkeypatch, dtype, trans):
    # past PACK_MIN_FLOPS the odd-ld operands are copied to padded buffers for the wgmma kernel
    # (elsewhere: the predicated mma variant); forced small here, then one real size
    monkeypatch.setattr(_wgmma, "PACK_MIN_FLOPS", 0)
    run_mma(rng, dtype, trans, 130, 64, 70, extra=(5, 1, 2), expect_aligned=False)
    run_mma(rng, dtype, trans, 64, 64, 64, offsets=(1, 0, 0), expect_aligned=False)
    run_mma(rng, dtype, trans, 31, 33, 35, beta=0.0, poison_c=True, expect_aligned=False)
    monkeypatch.undo()
    run_mma(rng, dtype, trans, 1030, 1030, 1030, expect_aligned=False)


@pytest.mark.gpu
def test_gemm_batched_split_and_packed(rng, monkeypatch):
    monkeypatch.setattr(_wgmma, "PACK_MIN_FLOPS", 0)
    for m, n, k, batch in [(70, 130, 600, 3), (72, 136, 3000, 2)]:   # packed; split k
        dt = np.dtype(np.float16)
        a = rng.standard_normal((batch, k, m)).astype(dt)
        b = rng.standard_normal((batch, n, k)).astype(dt)
        c = rng.standard_normal((batch, n, m)).astype(dt)
        da, db, dc = to_device(a.ravel()), to_device(b.ravel()), to_device(c.ravel())
        _half.launch(da.data.device_id, dt, "N", "N", m, n, k, 1.0, da.data, m, db.data, k, 1.0, dc.data,
                     m, batch=batch, stride_a=m * k, stride_b=k * n, stride_c=m * n)
        got = to_host(dc).reshape(batch, n, m).astype(np.float64)
        for i in range(batch):
            oa, ob = a[i].astype(np.float64).T, b[i].astype(np.float64).T
            want = (oa @ ob + c[i].astype(np.float64).T).T
            scale = (np.abs(oa) @ np.abs(ob) + np.abs(c[i].astype(np.float64).T)).T
            assert np.all(np.abs(got[i] - want) <= EPS_OUT["float16"] * np.abs(want) + (k + 4) * 2.0**-23 * scale
                          + 1e-7)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", TRANS)
def test_gemm_mma_big_tile_chosen_for_big_problems(rng, trans):
    facts = _mma.device_facts(to_device(np.zeros(1, np.float16)).data.device_id)
    m, n, k = 2048, 256 * -(-facts["multiprocessors"] // 16), 64
    tile_n, _ = _mma.choose_config(m, n, 1, is_hip=facts["is_hip"], cc_major=facts["cc_major"],
                                   multiprocessors=facts["multiprocessors"],
                                   shared_limit=facts["shared_limit"])
    assert tile_n == (128 if facts["is_hip"] or facts["cc_major"] < 8 else 256)
    run_mma(rng, "float16", trans, m, n, k)


# Every (tile width, stages[, tile height]) configuration of the sm_90 kernel, forced: the ring
# wraps several times (k of 1000 is 16 tiles of 64) and the edges of m, n and k are partial.
WGMMA_CONFIGS = [(64, 3), (64, 8), (128, 3), (128, 6), (256, 3), (256, 4), (64, 3, 64), (64, 8, 64),
                 (64, 13, 64)]


@pytest.mark.gpu
@pytest.mark.parametrize("config", WGMMA_CONFIGS, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_wgmma_every_configuration(rng, monkeypatch, dtype, trans, config):
    wgmma, facts = _wgmma_device()
    if not wgmma:
        pytest.skip("the warpgroup kernel runs on compute capability 9.0 only")
    tile_n, stages, tile_m = _wgmma.Config(*config)
    if _wgmma.shared_bytes(tile_n, stages, tile_m=tile_m) > facts["shared_limit"]:
        pytest.skip("not enough shared memory for this configuration")
    monkeypatch.setattr(_wgmma, "choose_config", lambda *a, **k: config)

    def aligned_run(m, n, k, offsets=(0, 0, 0), **kw):
        # leading dimensions padded to multiples of 8 (16-byte columns): the wgmma kernel's domain
        ar = m if trans[0] == "N" else k
        br = k if trans[1] == "N" else n
        run_mma(rng, dtype, trans, m, n, k, extra=(-ar % 8, -br % 8, 3), offsets=offsets,
                expect_aligned=True, **kw)

    aligned_run(300, 260, 70)
    aligned_run(130, 300, 1000, offsets=(8, 16, 1))   # 16 k tiles: too few to split
    aligned_run(256, 200, 4000, beta=0.0, poison_c=True)
    aligned_run(2100, 520, 40, beta=0.0, poison_c=True)   # 2 groups of tile rows
    aligned_run(64, 64, 8)   # one partial k tile
    aligned_run(1, 1, 1)


# The producer skips the 64-row boxes of an mn-major operand that lie wholly past m (A) or n (B);
# that part of the slot keeps what an earlier tile of the block left there. With 135 tiles on
# the H200's 132 blocks, block 2 takes tile row 2 and then the last one (5 tile rows, A side), or
# block 0 tile column 0 and then the last (B side); the earlier tile's skipped-box rows (columns)
# hold infinities, which must reach only sums that are not stored.
@pytest.mark.gpu
@pytest.mark.parametrize("side", ["A", "B"])
def test_gemm_wgmma_skipped_boxes_keep_stale_data_out(rng, side):
    wgmma, facts = _wgmma_device()
    if not wgmma:
        pytest.skip("the warpgroup kernel runs on compute capability 9.0 only")
    long, short, k = 128 * 27, 4 * 128 + 40, 64
    m, n = (short, long) if side == "A" else (long, short)
    bad = slice(320, 384) if side == "A" else slice(64, 128)   # the earlier tile's second box
    oa = rng.standard_normal((m, k)).astype(np.float16)
    ob = rng.standard_normal((k, n)).astype(np.float16)
    if side == "A":
        oa[bad] = np.inf
    else:
        ob[:, bad] = np.inf
    # A 'N' (stored m x k, m contiguous: mn-major); B 'T' on the B side (stored n x k: mn-major)
    trans_b = "N" if side == "A" else "T"
    a = to_device(np.asfortranarray(oa).ravel(order="F"))
    b_host = ob if trans_b == "N" else ob.T
    b = to_device(np.asfortranarray(b_host).ravel(order="F"))
    c = to_device(np.full(m * n, np.nan, np.float16))
    _half.launch(a.data.device_id, np.float16, "N", trans_b, m, n, k, 1.0, a.data, m, b.data,
                 b_host.shape[0], 0.0, c.data, m)
    got = to_host(c).reshape(n, m).T.astype(np.float64)
    want = oa.astype(np.float64) @ ob.astype(np.float64)
    keep = np.ones((m, n), bool)
    keep[bad if side == "A" else (slice(None), bad)] = False
    assert np.isfinite(got[keep]).all()
    scale = np.abs(oa.astype(np.float64)) @ np.abs(ob.astype(np.float64))
    assert (np.abs(got - want)[keep] <= 2e-3 * scale[keep] + 1e-3).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sizes", [(70, 130, 48, 3), (72, 136, 48, 3), (300, 260, 136, 2)], ids=_ids)
def test_gemm_mma_batched(rng, path, dtype, sizes):
    # odd sizes: the predicated mma variant; multiples of 8: 16-byte columns (wgmma on sm_90)
    dt = _dtype(dtype)
    m, n, k, batch = sizes
    a = rng.standard_normal((batch, k, m)).astype(dt)    # each entry k x m column-major ('N', lda = m)
    b = rng.standard_normal((batch, n, k)).astype(dt)    # each entry k x n column-major ('N', ldb = k)
    c = rng.standard_normal((batch, n, m)).astype(dt)
    da, db, dc = to_device(a.ravel()), to_device(b.ravel()), to_device(c.ravel())
    _half.launch(da.data.device_id, dt, "N", "N", m, n, k, 1.0, da.data, m, db.data, k, 1.0, dc.data, m,
                 batch=batch, stride_a=m * k, stride_b=k * n, stride_c=m * n)
    got = to_host(dc).reshape(batch, n, m).astype(np.float64)
    for i in range(batch):
        oa = a[i].astype(np.float64).T          # m x k
        ob = b[i].astype(np.float64).T          # k x n
        want = (oa @ ob + c[i].astype(np.float64).T).T
        scale = (np.abs(oa) @ np.abs(ob) + np.abs(c[i].astype(np.float64).T)).T
        assert np.all(np.abs(got[i] - want) <= EPS_OUT[dtype] * np.abs(want) + (k + 4) * 2.0**-23 * scale + 1e-7)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_public_gemm_dispatches_16_bit(rng, dtype):
    # rocblas.gemm checks the arguments and sends 16-bit dtypes to the matrix-core path
    dt = _dtype(dtype)
    a = rng.standard_normal((70, 30)).astype(dt)
    b = rng.standard_normal((50, 30)).astype(dt)
    c = rng.standard_normal((70, 50)).astype(dt)
    da = to_device(a.ravel(order="F"))
    db = to_device(b.ravel(order="F"))
    dc = to_device(c.ravel(order="F"))
    rocblas.gemm("N", "T", 70, 50, 30, 2.0, da, 70, db, 50, 0.5, dc, 70)
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    want = 2.0 * a64 @ b64.T + 0.5 * c64
    scale = 2.0 * np.abs(a64) @ np.abs(b64.T) + 0.5 * np.abs(c64)
    got = to_host(dc).astype(np.float64).reshape(50, 70).T
    assert np.all(np.abs(got - want) <= EPS_OUT[dtype] * np.abs(want) + 34 * 2.0**-23 * scale + 1e-7)


H200 = dict(is_hip=False, cc_major=9, cc_minor=0, multiprocessors=132, shared_limit=227 * 1024)


A100 = dict(is_hip=False, cc_major=8, cc_minor=0, multiprocessors=108, shared_limit=163 * 1024)


def test_unsupported_dtype_is_type_error():
    with pytest.raises(TypeError, match="float32"):
        _half.launch(0, np.float32, "N", "N", 4, 4, 4, 1.0, None, 4, None, 4, 0.0, None, 4)
    if BF16 is None:
        with pytest.raises(TypeError, match="ml_dtypes"):
            _half.launch(0, np.float32, "N", "N", 4, 4, 4, 1.0, None, 4, None, 4, 0.0, None, 4)


class _Ptr:
    def __init__(self, ptr):
        self.ptr = ptr


@pytest.fixture
def recorder(monkeypatch):
    rec = types.SimpleNamespace()
    rec.calls, _ = record_launches(monkeypatch, _mma, _wgmma, wave=1)
    rec.facts = dict(A100)
    monkeypatch.setattr(_mma, "device_facts", lambda device_id: rec.facts)
    monkeypatch.setattr(plans, "cache", plans.PlanCache())  # launches prepared against these stand-ins only

    monkeypatch.setattr(launch, "on_device", SameDevice)
    return rec


def test_quick_returns_launch_nothing(recorder):
    f16 = np.float16
    p = _Ptr(0x1000)
    _half.launch(0, f16, "N", "N", 0, 5, 5, 1.0, p, 8, p, 8, 0.0, p, 8)
    _half.launch(0, f16, "N", "N", 5, 0, 5, 1.0, p, 8, p, 8, 0.0, p, 8)
    _half.launch(0, f16, "N", "N", 5, 5, 5, 0.0, p, 8, p, 8, 1.0, p, 8)   # alpha 0, beta 1
    _half.launch(0, f16, "N", "N", 5, 5, 0, 2.0, p, 8, p, 8, 1.0, p, 8)   # k 0, beta 1
    assert recorder.calls == []


def test_launch_arguments(recorder):
    f16 = np.float16
    _half.launch(0, f16, "t", "C", 300, 200, 64, 2.0, _Ptr(0x1000), 64, _Ptr(0x2000), 200, 0.5,
                 _Ptr(0x3000), 300)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_mma<ra_half, true, false, 128>"
    assert grid == (3 * 2, 1) and block == (256,)
    assert args[0] == 300 and args[1] == 200 and args[2] == 64
    assert args[3].dtype == np.float32 and args[3] == 2.0
    assert args[10].dtype == np.float32 and args[10] == 0.5
    assert len(args) == 18 and all(isinstance(args[i], np.int64) for i in (0, 1, 2, 5, 6, 8, 9, 12, 13))
    assert args[16] == 0 and args[17].dtype == np.int32 and args[17] == 0   # no bias, no activation
    assert args[14].dtype == np.int32 and args[14] == 1   # aligned copies
    assert args[15].dtype == np.int32 and args[15] == 4   # stages
    assert shared == 64 * 1024
    # alpha == 0: k passed as 0 (A and B not read), and the aligned variant whatever the pointers
    _half.launch(0, f16, "N", "N", 300, 200, 64, 0.0, _Ptr(0x1002), 301, _Ptr(0x2000), 65, 0.5,
                 _Ptr(0x3000), 300)
    name, grid, block, args, shared = recorder.calls[-1]
    assert args[2] == 0 and args[14] == 1
    # an odd leading dimension: the predicated variant
    _half.launch(0, f16, "N", "N", 30, 20, 64, 1.0, _Ptr(0x1000), 31, _Ptr(0x2000), 64, 0.5,
                 _Ptr(0x3000), 30)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_mma<ra_half, false, true, 128>" and args[14] == 0


def test_big_problem_launches_the_wide_tile_with_more_shared_memory(recorder):
    f16 = np.float16
    _half.launch(0, f16, "N", "N", 4096, 4096, 64, 1.0, _Ptr(0x1000), 4096, _Ptr(0x2000), 64, 0.0,
                 _Ptr(0x3000), 4096)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_mma<ra_half, false, true, 256>"
    assert grid == (32 * 16, 1) and args[15] == 4 and shared == 96 * 1024


def test_sm90_launches_the_warpgroup_kernel_when_aligned(recorder, monkeypatch):
    maps = []

    def fake_map(address, kmajor, mn, k, ld, stride, batch, rows):
        maps.append((address, kmajor, mn, k, ld, stride, batch, rows))
        return np.zeros(1, _tensor_maps.TENSOR_MAP)

    monkeypatch.setattr(_tensor_maps, "operand_map", fake_map)
    recorder.facts = dict(H200)
    f16 = np.float16
    _half.launch(0, f16, "T", "N", 4096, 4096, 64, 2.0, _Ptr(0x1000), 64, _Ptr(0x2000), 64, 0.5,
                 _Ptr(0x3000), 4096)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_wgmma<ra_half, true, true, 256>"
    assert grid == (132, 1) and block == (288,)   # persistent: one block per multiprocessor
    assert maps == [(0x1000, True, 4096, 64, 64, 0, 1, 128), (0x2000, True, 4096, 64, 64, 0, 1, 256)]
    assert len(args) == 18 and args[0].dtype == _tensor_maps.TENSOR_MAP and args[1].dtype == _tensor_maps.TENSOR_MAP
    assert (args[2], args[3], args[4], args[5]) == (4096, 4096, 64, 1)
    assert args[6].dtype == np.float32 and args[6] == 2.0 and args[7] == 0.5
    assert args[9] == 4096 and args[11].dtype == np.int32 and args[11] == 4
    assert (args[12], args[13], args[14]) == (1, 1, 0)   # one split of the one k tile, no workspace
    assert args[15] == 0 and args[16] == 0                # no bias, no activation
    assert args[17].dtype == np.int32 and args[17] == 0   # 16-bit: the matrix units keep the whole sum
    assert shared == _wgmma.shared_bytes(256, 4)
    # fewer tiles than multiprocessors: the narrow tile with the deeper ring, one block per tile
    _half.launch(0, f16, "N", "T", 1000, 1000, 64, 1.0, _Ptr(0x1000), 1000, _Ptr(0x2000), 1000, 0.0,
                 _Ptr(0x3000), 1000)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_wgmma<ra_half, false, false, 128>" and args[11] == 6 and grid == (64, 1)
    assert block == (288,) and shared == _wgmma.shared_bytes(128, 6)
    assert maps[-2:] == [(0x1000, False, 1000, 64, 1000, 0, 1, 128), (0x2000, False, 1000, 64, 1000, 0, 1, 128)]
    # a skinny product: 64 x 64 tiles of one consumer warpgroup (160 threads), the deepest ring, no
    # split of k, both maps with 64-row boxes
    _half.launch(0, f16, "N", "N", 8192, 64, 8192, 1.0, _Ptr(0x1000), 8192, _Ptr(0x2000), 8192, 0.0,
                 _Ptr(0x3000), 8192)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_wgmma<ra_half, false, true, 64, 64>" and args[11] == 8
    assert grid == (128, 1) and block == (160,) and shared == _wgmma.shared_bytes(64, 8, tile_m=64)
    assert (args[12], args[13], args[14]) == (1, 128, 0)   # one split of all 128 k tiles, no workspace
    assert maps[-2:] == [(0x1000, False, 8192, 8192, 8192, 0, 1, 64), (0x2000, True, 64, 8192, 8192, 0, 1, 64)]
    # the small operand's columns are 96 bytes (lda = m = 48): 128 x 128 tiles and a split instead
    workspace = types.SimpleNamespace(data=_Ptr(0x5000))
    monkeypatch.setattr(workspace_owner, "workspaces", types.SimpleNamespace(scratch=lambda name, nbytes, device_id: workspace))
    _half.launch(0, f16, "N", "N", 48, 8192, 8192, 1.0, _Ptr(0x1000), 48, _Ptr(0x2000), 8192, 0.0,
                 _Ptr(0x3000), 48)
    name, grid, block, args, shared = recorder.calls[-2]
    assert name == "ra_rocblas_gemm_wgmma<ra_half, false, true, 128>" and grid == (128, 1)
    assert (args[12], args[13], args[14]) == (2, 64, 0x5000)   # 64 tiles x 2 splits
    # where 64 x 64 tiles would fill at most half the device, 128 x 128 tiles split a long k deeper
    _half.launch(0, f16, "N", "N", 256, 256, 65536, 1.0, _Ptr(0x1000), 256, _Ptr(0x2000), 65536, 0.0,
                 _Ptr(0x3000), 256)
    name, grid, block, args, shared = recorder.calls[-2]
    assert name == "ra_rocblas_gemm_wgmma<ra_half, false, true, 128>" and grid == (128, 1) and block == (288,)
    assert (args[12], args[13], args[14]) == (32, 32, 0x5000)   # 4 tiles x 32 splits
    assert recorder.calls[-1][0] == "ra_rocblas_gemm_wg_finish<ra_half>"
    # unaligned operands stay on the mma kernel's predicated variant
    _half.launch(0, f16, "N", "N", 30, 20, 64, 1.0, _Ptr(0x1000), 31, _Ptr(0x2000), 64, 0.5,
                 _Ptr(0x3000), 30)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_mma<ra_half, false, true, 128>" and args[14] == 0
    # a tensor map the driver refuses: the mma kernel instead
    def refuse(*a):
        raise _tensor_maps.TensorMapError("no")
    monkeypatch.setattr(_tensor_maps, "operand_map", refuse)
    _half.launch(0, f16, "N", "N", 64, 64, 64, 1.0, _Ptr(0x1000), 64, _Ptr(0x2000), 64, 0.5,
                 _Ptr(0x3000), 64)
    assert recorder.calls[-1][0] == "ra_rocblas_gemm_mma<ra_half, false, true, 128>"
    # a bias and an activation travel to the kernel; k == 0 with beta == 1 then still runs
    bias = _Ptr(0x4000)
    _half.launch(0, f16, "T", "N", 4096, 4096, 0, 2.0, _Ptr(0x1000), 64, _Ptr(0x2000), 64, 1.0,
                 _Ptr(0x3000), 4096, bias=bias, activation=2)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name.startswith("ra_rocblas_gemm_mma<") and args[2] == 0 and args[16] == bias.ptr and args[17] == 2


def test_sm90_matrix_shared_by_the_batch(recorder, monkeypatch):
    # a zero batch stride has no tensor map: past PACK_MIN_FLOPS the plan asks for padded copies
    # (one per batch entry, made by launch), below it the mma.sync kernel reads the matrix in place
    monkeypatch.setattr(_tensor_maps, "operand_map", lambda *a: np.zeros(1, _tensor_maps.TENSOR_MAP))
    recorder.facts = dict(H200)
    f16 = np.dtype(np.float16)
    big = (3136, 256, 256, 1.0, 0x1000, 3136, 0x2000, 256, 0.0, 3136, 64, 256 * 3136, 0, 256 * 3136)
    assert _half.prepare(0, f16, "N", "N", *big) is None
    assert callable(_half.prepare(0, f16, "N", "N", *big[:12], 256 * 256, *big[13:]))   # strides positive
    small = (64, 64, 64, 1.0, 0x1000, 64, 0x2000, 64, 0.0, 64, 3, 64 * 64, 0, 64 * 64)
    _half.prepare(0, f16, "N", "N", *small)(1.0, 0.0, 0x1000, 0x2000, 0x3000, 0)
    name, grid, block, args, shared = recorder.calls[-1]
    assert name == "ra_rocblas_gemm_mma<ra_half, false, true, 128>" and args[14] == 1   # the 16-byte variant
    assert not any(c[0].startswith("ra_rocblas_gemm_wgmma") for c in recorder.calls)


@pytest.mark.gpu
@pytest.mark.parametrize("forced_pack", [False, True], ids=["in_place", "copied"])
def test_gemm_batch_sharing_one_matrix(rng, monkeypatch, forced_pack):
    # a zero batch stride of B (a convolution's weights over its images): the copies per entry for
    # the wgmma kernel (PACK_MIN_FLOPS forced to 0 here; sm_90) or the mma.sync kernel in place
    if forced_pack:
        monkeypatch.setattr(_wgmma, "PACK_MIN_FLOPS", 0)
    m, n, k, batch = 136, 72, 200, 3
    dt = np.dtype(np.float16)
    a = rng.standard_normal((batch, k, m)).astype(dt)
    b = rng.standard_normal((n, k)).astype(dt)
    da, db = to_device(a.ravel()), to_device(b.ravel())
    dc = to_device(np.full(batch * m * n, np.nan, dt))
    _half.launch(da.data.device_id, dt, "N", "N", m, n, k, 1.0, da.data, m, db.data, k, 0.0, dc.data, m,
                 batch=batch, stride_a=m * k, stride_b=0, stride_c=m * n)
    got = to_host(dc).reshape(batch, n, m).astype(np.float64)
    ob = b.astype(np.float64).T
    for i in range(batch):
        oa = a[i].astype(np.float64).T
        want = (oa @ ob).T
        scale = (np.abs(oa) @ np.abs(ob)).T
        assert np.all(np.abs(got[i] - want) <= EPS_OUT["float16"] * np.abs(want) + (k + 4) * 2.0**-23 * scale + 1e-7)
