"""The gemm tile catalog and its geometry (``_gemm/tiles.py``), checked against the kernel source."""


import numpy as np
import pytest


from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas._gemm import plan as _plan, simt as _simt, tiles as _tiles

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


def test_tile_shapes_fit_the_kernel_constraints():
    for dtype, tiles in _tiles.TILES.items():
        for tile in tiles:
            bm, bn, bk, tm, tn, direct, lm, ln, stages = tile
            assert not direct or dtype.kind == "f"  # the direct copies cannot conjugate
            assert (bm // tm) * (bn // tn) == _tiles.BLOCK
            assert bm * bk % _tiles.BLOCK == 0 and bn * bk % _tiles.BLOCK == 0
            assert _tiles.BLOCK % bm == 0 and _tiles.BLOCK % bn == 0 and _tiles.BLOCK % bk == 0
            assert stages == 2 or (direct and stages >= 3)  # a ring only with the direct copies
            vec = max(1, 16 // dtype.itemsize)
            stage = bk * ((bm + min(vec, tm)) + (bn + min(vec, tn))) * dtype.itemsize
            if stages == 2:  # double-buffered static shared tiles within the 48 KB limit
                assert 2 * stage <= 48 * 1024 and _tiles.simt_shared_bytes(dtype, tile) == 0, tile
            else:  # a ring in dynamic shared memory, within every sm_80+ part's 99 KB opt-in
                assert _tiles.simt_shared_bytes(dtype, tile) == stages * stage <= 99 * 1024, tile


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
    for t in range(_tiles.BLOCK):
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
    for dtype, tiles in _tiles.TILES.items():
        for tile in tiles:
            cells = _simt_layout(tile, dtype)
            assert sorted(cells) == [(i, j) for i in range(tile[0]) for j in range(tile[1])], tile.name
    # the warp-tiled layout: each group of 8 x 4 threads owns a compact 64 x 32 piece of C
    warp = _tiles.Tile(128, 128, 16, 8, 8, 1, 8, 4)
    cells = _simt_layout(warp, "float32")[: 32 * 64]
    assert {i // 64 for i, _ in cells} == {0} and {j // 32 for _, j in cells} == {0}


def test_simt_variant_names_and_defaults():
    t = _tiles.Tile(128, 128, 16, 8, 8, 1, 8, 4, 3)
    assert t.name == "128x128x16dw8x4r3" and t.stages == 3
    assert _simt.kernel_name("float32", t) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 8, 4, 3>"
    ring = _tiles.Tile(128, 128, 16, 8, 8, 1, 0, 0, 3)
    assert ring.name == "128x128x16dr3"
    assert _simt.kernel_name("float32", ring) == "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 0, 0, 3>"
    assert _tiles.simt_shared_bytes("float32", ring) == 3 * 16 * (132 + 132) * 4 > 48 * 1024
    assert _simt.kernel_name("float32", _tiles.Tile(128, 128, 16, 8, 8, 1, 4, 8)) == \
        "ra_rocblas_gemm<float, 128, 128, 16, 8, 8, 1, 4, 8>"
    for d in _tiles.TILES:
        names = [t.name for t in _tiles.TILES[d]]
        assert len(set(names)) == len(names) and not any("." in n for n in names)
    # the default for large float32 problems: the direct 128 x 128 x 16 tile (fastest at 8192^3)
    assert _plan.heuristic("float32", 8192, 8192, 8192, 132, mma="cuda")[0].name == "128x128x16d"
    fat = _tiles.Tile(256, 128, 8, 16, 8, 1)  # 16 x 8 micro-tiles: one block per multiprocessor
    assert _tiles.residency("float32", fat) == 1
    assert "ra_rocblas3_fat<TM * TN>" in _compile.read_text(_simt.SOURCE)
    # the skinny tile is a tuning candidate (with the splits that fill a wave)
    skinny = {p.name for p in _plan.candidates("float32", 64, 8192, 8192, 132, "cuda")}
    assert {"64x256x16d.s4", "64x256x16d.s8"} <= skinny


def test_f64_matrix_tiles_and_devices():
    from types import SimpleNamespace as NS

    for bm, bn, bk, stages, k16, threads in _tiles.MMA_TILES[np.dtype("float64")]:
        warps = ((32, (8, 8)),) if stages else ((32, (8, 8)), (64, (16, 16)))  # DMMA 8x8x4, MFMA 16x16x4
        for warp, (fm, fn) in warps:
            wm, wn = threads // warp // 2, 2
            assert wm >= 1 and bm % (wm * fm) == 0 and bn % (wn * fn) == 0 and bk % 4 == 0
        assert stages == 0 or stages >= 2
        assert not k16 or (stages and bk % 16 == 0)  # m16n8k16: whole instructions per k tile
        # every sm_80+ part opts in to 99 KB of shared memory per block
        ring = stages if stages else 2
        assert _tiles.mma_shared_bytes((bm, bn, bk, stages, k16, threads)) == ring * bk * (bm + 4 + bn + 4) * 8 <= 99 * 1024
        if not stages:
            assert _tiles.mma_shared_bytes((bm, bn, bk)) == _tiles.mma_shared_bytes((bm, bn, bk, stages))
    hip = _tiles.tiles_for("float64", "hip")
    assert all(_tiles.mma_shared_bytes(t) <= 64 * 1024 for t in hip if t.mma) and hip[0].mma
    cuda = _tiles.tiles_for("float64", "cuda")
    assert all(t.direct for t in cuda if t.mma) and cuda[0].name == "mma128x128x16d3"
    assert not any(t.direct for t in hip if t.mma)
    assert _tiles.has_f64_mma(NS(is_hip=False, arch="sm_90", compute_capability="90")) == "cuda"
    assert not _tiles.has_f64_mma(NS(is_hip=False, arch="sm_75", compute_capability="75"))
    assert _tiles.has_f64_mma(NS(is_hip=True, arch="gfx90a:sramecc+:xnack-", compute_capability="")) == "hip"
    assert _tiles.has_f64_mma(NS(is_hip=True, arch="gfx942", compute_capability="")) == "hip"
    assert not _tiles.has_f64_mma(NS(is_hip=True, arch="gfx1100", compute_capability=""))
    assert _tiles.tiles_for("float64", False) == _tiles.TILES[np.dtype("float64")]
    assert _tiles.tiles_for("float64", "cuda")[0].mma
    assert _tiles.tiles_for("float32", "cuda") == _tiles.TILES[np.dtype("float32")]
    assert _plan.heuristic("float64", 8192, 8192, 8192, 132, mma="cuda")[0].name == "mma128x128x16d3"
    assert _simt.kernel_name("float64", _tiles.MmaTile(128, 64, 8)) == "ra_rocblas_gemm_f64mma<128, 64, 8>"


def test_f64_direct_matrix_tiles_are_nvidia_only():
    # the ring of cp.async copies: named with its stage count, launched only on NVIDIA sm_80+
    direct = _tiles.MmaTile(128, 128, 16, 3)
    assert direct.direct and direct.name == "mma128x128x16d3" and direct in _tiles.MMA_TILES[np.dtype("float64")]
    assert _simt.kernel_name("float64", direct) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3>"
    k16 = _tiles.MmaTile(128, 128, 16, 3, 1)
    assert k16.name == "mma128x128x16d3k16" and k16 in _tiles.MMA_TILES[np.dtype("float64")]
    assert _simt.kernel_name("float64", k16) == "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 1>"
    assert _tiles.mma_shared_bytes(k16) == _tiles.mma_shared_bytes(direct)
    assert _tiles.mma_shared_bytes(direct) == 3 * 16 * (132 + 132) * 8
    assert not _tiles.MmaTile(128, 128, 16).direct and _tiles.MmaTile(128, 128, 16).name == "mma128x128x16"
    cuda, hip = _tiles.tiles_for("float64", "cuda"), _tiles.tiles_for("float64", "hip")
    assert any(t.mma and t.direct for t in cuda)
    assert not any(t.mma and t.direct for t in hip) and not any(t.mma for t in _tiles.tiles_for("float64", False))
    assert _simt.kernel_name("float64", direct) in _simt.instantiations()
    assert _tiles.residency("float64", direct) == 1 and _tiles.residency("float64", _tiles.MmaTile(64, 64, 16, 3)) == 2
    source = _compile.read_text(_simt.SOURCE)
    assert "cp.async.wait_group" in source and "cp.async.commit_group" in source
    # the 64 x 64 tile on 128 threads (four 32 x 32 warp tiles): THREADS is the last template
    # argument, launched as the block (VEC, before it, written out when THREADS is)
    narrow = _tiles.MmaTile(64, 64, 16, 4, threads=128)
    assert narrow.name == "mma64x64x16d4t128" and narrow.threads == 128 and narrow in _tiles.MMA_TILES[np.dtype("float64")]
    assert _tiles.residency("float64", narrow) == 2
    wide = _tiles.MmaTile(128, 64, 16, 3)  # eight 32 x 32 warp tiles, one block a multiprocessor
    assert wide.name == "mma128x64x16d3" and wide in _tiles.MMA_TILES[np.dtype("float64")]
    assert _tiles.residency("float64", wide) == 1 and wide in _tiles.tiles_for("float64", "cuda")
    assert _simt.kernel_name("float64", narrow) == "ra_rocblas_gemm_f64mma<64, 64, 16, 4, 0, 0, 128>"
    assert _simt.kernel_name("float64", narrow, vec=True) == "ra_rocblas_gemm_f64mma<64, 64, 16, 4, 0, 1, 128>"
    assert _tiles.MmaTile(64, 64, 16, 3).template_args(vec=True) == (64, 64, 16, 3, 0, 1)
    assert {_simt.kernel_name("float64", narrow, v) for v in (False, True)} <= set(_simt.instantiations())
    assert "__launch_bounds__(THREADS, (ra_rocblas3_f64mma_blocks<BM * BN / THREADS, THREADS>))" in source


def test_grid_is_one_block_per_tile():
    small = _tiles.Tile(64, 64, 16, 4, 4)
    assert _tiles.grid(1, 1) == 1
    assert _tiles.grid(128, 128) == 1
    assert _tiles.grid(129, 128) == 2
    assert _tiles.grid(64, 64, small) == 1
    assert _tiles.grid(65, 64, small) == 2
    assert _tiles.grid(4097, 64, small) == 65
    assert _tiles.grid(1000, 1000, small) == 16 * 16


def test_tail_split_takes_a_nearly_empty_last_wave_along_k():
    # 8192^3 with 128 x 128 tiles on 132 multiprocessors: 31 waves and 4 tiles
    assert _tiles.tail_split(4096, 132, 8192) == (4092, 32)
    assert _tiles.tail_split(1089, 132, 4097) == (1056, 4)  # 4097^3: 33 tiles over 8 waves
    assert _tiles.tail_split(4096, 128, 8192) == (4096, 1)  # whole waves
    assert _tiles.tail_split(100, 132, 8192) == (100, 1)  # less than one wave: split_count's case
    assert _tiles.tail_split(132 + 34, 132, 8192) == (166, 1)  # a last wave over a quarter full
    assert _tiles.tail_split(132 + 33, 132, 8192) == (132, 4)
    assert _tiles.tail_split(133, 132, 511) == (133, 1)  # k too short to split
    assert _tiles.tail_split(133, 132, 512) == (132, 2)  # parts at least MIN_SPLIT_K deep
    assert _tiles.tail_split(133, 132, 1 << 20) == (132, _tiles.MAX_SPLITS)
    for blocks in range(1, 600):
        for slots in (4, 13, 132, 264):
            first, parts = _tiles.tail_split(blocks, slots, 4096)
            assert (first, parts) == (blocks, 1) or (
                first % slots == 0 and 0 < first < blocks and (blocks - first) * parts <= slots and parts > 1)


def test_tile_rectangles_cover_the_tail_once():
    assert _tiles.tile_rectangles(64, 4092, 4096) == [(60, 64, 63, 64)]
    assert _tiles.tile_rectangles(2, 13, 16) == [(1, 2, 6, 7), (0, 2, 7, 8)]
    assert _tiles.tile_rectangles(3, 6, 12) == [(0, 3, 2, 4)]
    assert _tiles.tile_rectangles(5, 7, 7) == []
    for tiles_m in (1, 2, 3, 7, 64):
        for tiles_n in (1, 2, 5):
            blocks = tiles_m * tiles_n
            for first in range(blocks + 1):
                covered = [tm + tn * tiles_m for tm0, tm1, tn0, tn1 in _tiles.tile_rectangles(tiles_m, first, blocks)
                           for tn in range(tn0, tn1) for tm in range(tm0, tm1)]
                assert sorted(covered) == list(range(first, blocks))
