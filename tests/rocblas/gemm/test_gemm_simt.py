"""The kernels of gemm.hip (``_gemm/simt.py``): names, registration, flags, the launches of a tile choice."""

import re

import numpy as np
import pytest

from conftest import assert_close, random_array, to_device, to_host
from level3_host import every_choice, run_gemm, run_gemm_bias_activation

from rocblas_fixtures import fresh_prepared_launches, record_launches  # noqa: F401  (autouse)

from rocarray._core import backend, compile as _compile, kernels, plans
import rocarray.rocblas as rocblas
from rocarray.rocblas._gemm import plan as _plan, simt as _simt, tiles as _tiles

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT"])
def test_f64_16_byte_layout_matches_numpy(rng, monkeypatch, trans):
    # the direct float64 tiles' 16-byte instance (even leading dimensions, 16-byte aligned A and
    # B) on edges of every parity: rows and k that end in half a pair, tiles past the matrix,
    # one partial k tile, split k; then the same problem with A or B 8 bytes off (the 8-byte
    # instance), both against NumPy, C poisoned where beta = 0
    sms, mma = _tiles.device_facts(to_device(np.zeros(1)).data.device_id)
    tiles = [t for t in _tiles.tiles_for("float64", mma) if _tiles.has_vec(t)]
    if not tiles:
        pytest.skip("no direct float64 matrix tiles on this device")
    ta, tb = trans
    for tile in tiles:
        for splits in (1, 3):
            plan = _tiles.TileChoice(tile, splits)
            monkeypatch.setattr(_plan, "choose", lambda *args, **kwargs: plan)
            for m, n, k in [(1, 1, 1), (129, 67, 35), (200, 130, 777), (2 * tile[0] + 3, tile[1] + 1, 48),
                              (2 * tile[0] + 2, tile[1] + 6, 40)]:
                for shift_a, shift_b in ((0, 0), (1, 0), (0, 1)):
                    monkeypatch.setattr(plans, "cache", plans.PlanCache())
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
    real = _tiles.device_facts
    tails = []
    prepare_tail = _simt.prepare_tail

    def spy(*args):
        tails.append(args[-1])
        return prepare_tail(*args)

    monkeypatch.setattr(_simt, "prepare_tail", spy)
    monkeypatch.setattr(_tiles, "residency", lambda dtype, tile: 1)
    for dtype, plan in every_choice():
        if plan[1] != 1:
            continue
        tile = plan[0]
        if getattr(tile, "x3", False):
            continue
        monkeypatch.setattr(_plan, "choose", lambda *args, **kwargs: plan)
        for sms, m, n, k, want in [(4, 2 * tile[0] + 5, 2 * tile[1] + 7, 777, [(2, 3, 2, 3)]),
                                   (13, tile[0] + 3, 7 * tile[1] + 1, 600, [(1, 2, 6, 7), (0, 2, 7, 8)])]:
            monkeypatch.setattr(_tiles, "device_facts", lambda device_id, sms=sms: (sms, real(device_id)[1]))
            for beta, poison in ((None, False), (0, True)):
                monkeypatch.setattr(plans, "cache", plans.PlanCache())
                del tails[:]
                run_gemm(rng, dtype, trans, m, n, k, (1, 2, 3), beta=beta, poison=poison)
                assert tails == [want], (dtype, plan.name, m, n, k)
        if dtype in ("float32", "float64"):  # the bias and activation reach the tail's finish kernel
            m, n, k = 2 * tile[0] + 5, 2 * tile[1] + 7, 777
            monkeypatch.setattr(_tiles, "device_facts", lambda device_id: (4, real(device_id)[1]))
            monkeypatch.setattr(plans, "cache", plans.PlanCache())
            run_gemm_bias_activation(rng, dtype, m, n, k, "silu")


def test_kernel_names():
    assert _simt.kernel_name(np.float32) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1>"
    assert _simt.kernel_name(np.float32, _tiles.Tile(128, 128, 8, 8, 8)) == "ra_rocblas_gemm<float, 128, 128, 8, 8, 8>"
    assert _tiles.Tile(128, 128, 8, 8, 8).name == "128x128" and not _tiles.Tile(128, 128, 8, 8, 8).direct
    assert _tiles.Tile(128, 128, 16, 8, 8, 1).name == "128x128x16d"
    assert _simt.kernel_name(np.float64, _tiles.Tile(64, 64, 16, 4, 4)) == "ra_rocblas_gemm<double, 64, 64, 16, 4, 4>"
    assert _simt.kernel_name(np.complex64) == "ra_rocblas_gemm<ra_c64, 64, 64, 8, 4, 4>"
    assert _simt.kernel_name(np.complex128) == "ra_rocblas_gemm<ra_c128, 64, 64, 8, 4, 4>"
    assert _simt.finish_name(np.float32) == "ra_rocblas_gemm_splitk_finish<float>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_simt.SOURCE))
    assert registered == set(_simt.instantiations())
    # one per dtype and tile shape of either vendor (AMD's float64 matrix tiles are their own
    # instances), a 16-byte-layout one per direct float64 matrix tile, plus one split-K finish per
    # dtype: the transposes are flags
    vec = sum(_tiles.has_vec(t) for d in _tiles.TILES for t in _tiles.tiles_for(d, "cuda"))
    assert vec == 4
    shapes = {(d, t) for d in _tiles.TILES for vendor in ("cuda", "hip") for t in _tiles.tiles_for(d, vendor)}
    assert len(registered) == len({_simt.kernel_name(d, t) for d, t in shapes}) + vec + 4
    hip_only = {_simt.kernel_name("float64", t) for t in _tiles.tiles_for("float64", "hip")}
    assert hip_only and hip_only <= registered
    assert "ra_rocblas_gemm_f64mma(" in _compile.read_text(_simt.SOURCE)
    source = _compile.read_text(_simt.SOURCE)
    assert "ra_rocblas_gemm(" in source and "ra_rocblas_gemm_splitk_finish(" in source
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source


def test_f64_direct_tiles_take_the_16_byte_layout_per_call(monkeypatch):
    # the direct float64 tiles have a second instance (VEC = 1) launched only when this call's A
    # and B addresses, both leading dimensions and the batch strides are 16-byte aligned
    direct = _tiles.MmaTile(128, 128, 16, 3)
    assert _tiles.has_vec(direct) and not _tiles.has_vec(_tiles.MmaTile(128, 128, 16))
    assert not _tiles.has_vec(_tiles.TILES[np.dtype("float64")][0])
    assert _simt.kernel_name("float64", direct, vec=True) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 0, 1>"
    k16 = _tiles.MmaTile(128, 128, 16, 3, 1)
    assert _simt.kernel_name("float64", k16, vec=True) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 1, 1>"
    names = _simt.instantiations()
    for tile in _tiles.MMA_TILES[np.dtype("float64")]:
        assert (_simt.kernel_name("float64", tile, vec=True) in names) == (tile.direct and _tiles.has_vec(tile))
    assert _tiles.vec_strides(8, 130, 64, (0, 0, 7))  # C's stride does not matter
    assert not _tiles.vec_strides(8, 129, 64, (0, 0, 0)) and not _tiles.vec_strides(8, 130, 63, (0, 0, 0))
    assert not _tiles.vec_strides(8, 130, 64, (3, 0, 0)) and not _tiles.vec_strides(8, 130, 64, (0, 5, 0))

    calls, _ = record_launches(monkeypatch, _simt, wave=132)
    real_prepare = kernels.Kernel.prepare

    def prepare(self, device_id, grid, args, **options):
        assert options.get("dependent")   # the matrix-core tiles go as dependents where the device has them
        return real_prepare(self, device_id, grid, args, **options)

    monkeypatch.setattr(kernels.Kernel, "prepare", prepare)
    monkeypatch.setattr(backend, "dependent_launches", lambda device_id: True)
    monkeypatch.setattr(_tiles, "device_facts", lambda device_id: (132, "cuda"))
    plain, vec = _simt.kernel_name("float64", direct), _simt.kernel_name("float64", direct, vec=True)
    for lda, ldb, a, b, want in [(512, 512, 4096, 8192, vec), (512, 512, 4096 + 8, 8192, plain),
                                 (512, 512, 4096, 8192 + 24, plain), (511, 512, 4096, 8192, plain),
                                 (512, 513, 4096, 8192, plain)]:
        run = _plan.prepare(0, "float64", _tiles.TileChoice(direct, 1), 512, 512, 512, lda, ldb, 512, 0, 1, (0, 0, 0))
        calls.clear()
        run(1.0, 0.0, a, b, 1 << 20, 0)
        assert [c[0] for c in calls] == [want], (lda, ldb, a, b)


def test_flag_bits_and_geometry_match_the_source():
    source = _compile.read_text(_simt.SOURCE)
    for name, value in [("TRANS_A", 1), ("CONJ_A", 2), ("TRANS_B", 4), ("CONJ_B", 8), ("BIAS", 16)]:
        assert re.search(rf"#define RA_ROCBLAS3_{name} 0x{value:02x}\b", source), name
        assert getattr(_simt, name) == value
    assert re.search(rf"#define RA_ROCBLAS3_BLOCK {_tiles.BLOCK}\b", source)
    assert re.search(rf"#define RA_ROCBLAS3_ACT_SHIFT {_simt.ACT_SHIFT}\b", source)
    for name, code in _simt.ACTIVATIONS.items():
        assert re.search(rf"#define RA_ROCBLAS3_ACT_{name.upper()} {code}\b", source), name


def test_flags_conjugate_only_complex_data():
    assert _simt.flags("N", "N", np.float32) == 0
    assert _simt.flags("C", "C", np.float64) == _simt.TRANS_A | _simt.TRANS_B
    assert _simt.flags("C", "T", np.complex64) == _simt.TRANS_A | _simt.CONJ_A | _simt.TRANS_B
    assert _simt.flags("N", "C", np.complex128) == _simt.TRANS_B | _simt.CONJ_B


@pytest.mark.gpu
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_tile_applies_the_activation_in_its_second_pass(rng, monkeypatch, dtype, activation):
    # each tile's rolled activation pass over the elements its threads stored: shifted last tiles
    # (the float64 matrix tiles' overlap rows, not stored twice), odd and even m (the 8- and
    # 16-byte layouts), against NumPy
    sms, mma = _tiles.device_facts(to_device(np.zeros(1)).data.device_id)
    for tile in _tiles.tiles_for(dtype, mma):
        plan = _tiles.TileChoice(tile, 1)
        monkeypatch.setattr(_plan, "choose", lambda *args, **kwargs: plan)
        for m, n, k in [(2 * tile[0] + 3, tile[1] + 1, 48), (2 * tile[0] + 2, tile[1] + 6, 40)]:
            monkeypatch.setattr(plans, "cache", plans.PlanCache())
            run_gemm_bias_activation(rng, dtype, m, n, k, activation)
