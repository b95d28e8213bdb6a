"""The merge kernels of SpGEMM (rows of C with few entries of A and few products: one thread merges
the sorted rows of B) run on the CPU through the kernel emulator (tests/kernel_emu.py), through
``rocsparse.csrgemm``, against SciPy, for both warp widths: every value dtype and both index
widths, rows at the cursor and product limits and one past them (those go to the hash tables in
the same call), duplicates in A and in B's sorted rows, empty rows, exact cancellation, unsorted
rows of B (the merge count notices and the hash tables take over), rows across blocks. Outputs
come from the emulator's ``empty`` (NaN / -1 filled), so an unwritten entry shows. CPU tests:
skipped where g++ is missing."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from rocsparse.spgemm_data import from_coo, laplacian_2d_parts, scipy_of

from rocarray import rocsparse
from rocarray.rocsparse import _spgemm_kernels as _k

SEED = 20261205


def _tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


def _assert_canonical(parts, ref, dtype, index):
    indptr, indices, data = (np.asarray(p) for p in parts)
    ref = sp.csr_array(ref)
    ref.sum_duplicates()
    ref.eliminate_zeros()
    ref.sort_indices()
    assert indptr.dtype == indices.dtype == np.dtype(index) and data.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(indptr, ref.indptr)
    np.testing.assert_array_equal(indices, ref.indices)
    np.testing.assert_allclose(data, ref.data, rtol=_tol(dtype), atol=_tol(dtype))


def _a_rows(rng, k, lengths, dtype, index, explicit=()):
    """A with rows of the given lengths (random columns, repeats allowed, unsorted), then the
    ``explicit`` rows (lists of columns)."""
    rows = [np.repeat(np.arange(len(lengths)), lengths)]
    cols = [rng.integers(0, k, int(np.sum(lengths)))]
    for i, c in enumerate(explicit):
        rows.append(np.full(len(c), len(lengths) + i))
        cols.append(np.asarray(c, np.int64))
    m = len(lengths) + len(explicit)
    return m, from_coo(rng, m, k, np.concatenate(rows), np.concatenate(cols), dtype, index, unsorted=True)


def _b_rows(rng, n, lengths, dtype, index, unsorted=False):
    """B with rows of the given lengths, random columns with repeats (duplicates), sorted unless
    ``unsorted``."""
    rows = np.repeat(np.arange(len(lengths)), lengths)
    return from_coo(rng, len(lengths), n, rows, rng.integers(0, n, rows.size), dtype, index, unsorted=unsorted)


def _product(dev, m, k, n, a, b):
    return rocsparse.csrgemm(m, k, n, *(dev.array(p) for p in a), *(dev.array(p) for p in b))


def _launched(dev, prefix):
    return sorted({name for name in dev.names() if name.startswith(prefix)})


def _short_case(rng, dtype, index):
    # every row of A at most 8 entries (0, 1, 7, 8 among them); B rows of 0-6 entries with repeats
    k, n = 30, 25
    lengths = np.concatenate([[0, 1, 7, 8, 8, 0], rng.integers(0, 9, 14)])
    m, a = _a_rows(rng, k, lengths, dtype, index)
    b = _b_rows(rng, n, rng.integers(0, 7, k), dtype, index)
    return m, k, n, a, b


def _wide_case(rng, dtype, index):
    # B: row 0 has 600 entries, row 1 512 distinct ones, row 2 one, the others 0-5 (repeats)
    k, n = 40, 700
    b_len = np.concatenate([[600, 512, 1], rng.integers(0, 6, k - 3)])
    b_rows = np.repeat(np.arange(k), b_len)
    b_cols = np.concatenate([rng.integers(0, n, 600), rng.choice(n, 512, replace=False),
                             rng.integers(0, n, b_len[2:].sum())])
    b = from_coo(rng, k, n, b_rows, b_cols, dtype, index)
    # A: rows of 9, 31, 32 entries (merge, 32 cursors), 33 and 40 (hash); [1]: 512 products (merge),
    # [0] and [1, 2]: 600 and 513 products (hash); short random rows around them
    wide = [list(rng.integers(3, k, w)) for w in (9, 31, 32, 33, 40)]
    m, a = _a_rows(rng, k, rng.integers(0, 5, 12), dtype, index, wide + [[1], [0], [1, 2], [1, 3, 1]])
    return m, k, n, a, b


@pytest.mark.parametrize("dtype,index", [("float32", "int32"), ("float64", "int64"), ("complex64", "int64"),
                                         ("complex128", "int32")])
def test_short_rows_take_the_8_way_merge(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, k, n, a, b = _short_case(rng, dtype, index)
    c = _product(emulated_device, m, k, n, a, b)
    _assert_canonical(c, scipy_of(a, (m, k)) @ scipy_of(b, (k, n)), dtype, index)
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_fill") == [_k.merge_fill_name(8, dtype, index)]
    assert _launched(emulated_device, "ra_rocsparse_spgemm_fill") == []
    assert _launched(emulated_device, "ra_rocsparse_spgemm_count") == []


@pytest.mark.parametrize("dtype,index", [("float64", "int32"), ("complex64", "int64")])
def test_wide_rows_take_the_32_way_merge_beside_the_hash_tables(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED + 1)
    m, k, n, a, b = _wide_case(rng, dtype, index)
    c = _product(emulated_device, m, k, n, a, b)
    _assert_canonical(c, scipy_of(a, (m, k)) @ scipy_of(b, (k, n)), dtype, index)
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_fill") == [_k.merge_fill_name(32, dtype, index)]
    assert _launched(emulated_device, "ra_rocsparse_spgemm_fill") != []


def test_8_way_fill_stages_a_block_only_when_it_fits_and_has_no_hash_row(emulated_device, monkeypatch):
    # 4096 bytes of stage: 340 entries of float64 + int32. Blocks of 256 rows: the first spans
    # exactly 340 entries (staged), the second 341 (written in place), the third holds a hash row
    # (a row of 33 entries of A; written in place), the last is partial (staged)
    monkeypatch.setattr(_k, "MERGE_STAGE_BYTES", 4096)
    rng = np.random.default_rng(SEED + 5)
    k, n = 40, 100
    b = from_coo(rng, k, n, np.arange(k), 2 * np.arange(k), "float64", "int32")
    per_row = np.ones(800, np.int64)
    per_row[:84] = 2
    per_row[256:256 + 85] = 2
    rows = [np.repeat(np.arange(800), per_row)]
    cols = [np.concatenate([rng.choice(k, size=int(c), replace=False) for c in per_row])]
    rows.append(np.full(32, 600))  # row 600: 33 entries of A, so a hash row
    cols.append(rng.integers(0, k, 32))
    m = 800
    a = from_coo(rng, m, k, np.concatenate(rows), np.concatenate(cols), "float64", "int32", unsorted=True)
    c = _product(emulated_device, m, k, n, a, b)
    _assert_canonical(c, scipy_of(a, (m, k)) @ scipy_of(b, (k, n)), "float64", "int32")
    indptr = np.asarray(c[0])
    assert [indptr[256] - indptr[0], indptr[512] - indptr[256]] == [340, 341]
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_fill") == [_k.merge_fill_name(8, "float64", "int32")]
    assert _launched(emulated_device, "ra_rocsparse_spgemm_fill") != []


def test_unsorted_rows_of_b_go_to_the_hash_tables(emulated_device):
    rng = np.random.default_rng(SEED + 2)
    k, n = 30, 25
    m, a = _a_rows(rng, k, rng.integers(0, 9, 20), "float64", "int32")
    b = _b_rows(rng, n, rng.integers(2, 7, k), "float64", "int32", unsorted=True)
    assert any(np.any(np.diff(b[1][b[0][r]:b[0][r + 1]]) < 0) for r in range(k))
    c = _product(emulated_device, m, k, n, a, b)
    _assert_canonical(c, scipy_of(a, (m, k)) @ scipy_of(b, (k, n)), "float64", "int32")
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_count") != []
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_fill") == []
    assert _launched(emulated_device, "ra_rocsparse_spgemm_fill") != []


def test_exact_cancellation_and_no_products(emulated_device):
    rng = np.random.default_rng(SEED + 3)
    # rows 0-299 of A @ B: 1*1 + 1*(-1) = 0 in column 0 (not stored), 2 and 3 in columns 3 and 4;
    # rows 300-301 empty (one with an entry whose row of B is empty)
    m = 302
    rows = np.r_[np.repeat(np.arange(300), 2), 301]
    a = from_coo(rng, m, 3, rows, np.r_[np.tile([0, 1], 300), 2], "float64", "int64", data=np.ones(601))
    b = from_coo(rng, 3, 5, [0, 0, 1, 1], [0, 3, 0, 4], "float64", "int64", data=[1.0, 2.0, -1.0, 3.0])
    c = _product(emulated_device, m, 3, 5, a, b)
    ref = scipy_of(a, (m, 3)) @ scipy_of(b, (3, 5))
    assert ref.nnz == 600
    _assert_canonical(c, ref, "float64", "int64")
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge_fill") != []


def test_laplacian_square_across_blocks(emulated_device):
    side = 17  # 289 rows: more than one block of threads
    a = laplacian_2d_parts(side, "float64", "int32")
    n = side * side
    c = _product(emulated_device, n, n, n, a, a)
    _assert_canonical(c, scipy_of(a, (n, n)) @ scipy_of(a, (n, n)), "float64", "int32")
    assert _launched(emulated_device, "ra_rocsparse_spgemm_merge") == [
        _k.merge_count_name(8, "int32"), _k.merge_fill_name(8, "float64", "int32")]


def test_wave64_short_and_wide_rows(emulated_wave64_device):
    dev = emulated_wave64_device
    rng = np.random.default_rng(SEED + 4)
    for case, ways in ((_short_case, 8), (_wide_case, 32)):
        m, k, n, a, b = case(rng, "float64", "int32")
        c = _product(dev, m, k, n, a, b)
        _assert_canonical(c, scipy_of(a, (m, k)) @ scipy_of(b, (k, n)), "float64", "int32")
        assert _k.merge_fill_name(ways, "float64", "int32") in dev.names()
