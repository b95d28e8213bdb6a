"""The row expansion (``csr2coo``, and ``csr2coo_pairs`` with its ``unpack_pairs``), the CSR
structure check (``check_matrix_csr``) and ``csr2csc`` through both of its sort paths run on the
CPU through the kernel emulator (tests/kernel_emu.py), on NVIDIA's 32-lane and AMD's 64-lane targets,
against NumPy on adversarial structures: runs of empty rows far longer than a merge tile, one row
holding every element, rows of exactly a tile's length and one more, no rows, no elements, both
index widths, one block taking every tile (more than one batch of splits), and for the check
every status bit, with index pointers that decrease (the column range bits stay exact there).
Outputs come from the emulator's ``empty`` (0xff bytes: -1), so an element the kernel skips fails.
CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import rocsparse
from rocarray._core import kernels
from rocarray.rocsparse import _convert_kernels

TILE = _convert_kernels.TILE
SEED = 20261205


def _indptr(lengths, index):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(index)


def _structures(rng):
    """name -> row lengths."""
    rand = rng.integers(0, 21, 600)
    sparse_rows = np.zeros(150_000, np.int64)
    sparse_rows[rng.choice(sparse_rows.size, 10, replace=False)] = 1
    tail = np.zeros(3 * TILE, np.int64)
    tail[-1] = 5
    head = np.zeros(3 * TILE, np.int64)
    head[0] = 7
    return {
        "random ~10 per row": rand,
        "many empty rows, 10 elements": sparse_rows,
        "one row holds everything": np.array([3 * TILE + 5]),
        "middle row holds everything": np.array([0, 0, 2 * TILE + 3, 0]),
        "rows of a tile and one past": np.array([TILE, TILE + 1, TILE - 1, 0, 1, TILE]),
        "merge items exactly two tiles": np.array([TILE - 1, TILE - 1]),
        "merge items two tiles plus one": np.array([TILE - 1, TILE]),
        "elements only at the end": tail,
        "elements only at the start": head,
        "one row, one element": np.array([1]),
        "one empty row": np.array([0]),
        "no rows": np.array([], np.int64),
        "empty rows only": np.zeros(5000, np.int64),
    }


def _reference_rows(lengths):
    return np.repeat(np.arange(lengths.size), lengths)


def _run_csr2coo(dev, lengths, index):
    indptr = _indptr(lengths, index)
    got = np.asarray(rocsparse.csr2coo(dev.array(indptr), int(indptr[-1])))
    assert got.dtype == np.dtype(index)
    np.testing.assert_array_equal(got, _reference_rows(lengths))


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_csr2coo_structures(emulated_device, index):
    rng = np.random.default_rng(SEED)
    for name, lengths in _structures(rng).items():
        try:
            _run_csr2coo(emulated_device, lengths, index)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_csr2coo_structures_wave64(emulated_wave64_device, index):
    rng = np.random.default_rng(SEED + 1)
    for name, lengths in _structures(rng).items():
        try:
            _run_csr2coo(emulated_wave64_device, lengths, index)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


def test_csr2coo_pairs_structures(emulated_device):
    # the packed rows and values that csr2csc sorts: every structure, int32 rows, float32 bits
    rng = np.random.default_rng(SEED + 2)
    for name, lengths in _structures(rng).items():
        indptr = _indptr(lengths, np.int32)
        data = rng.standard_normal(int(indptr[-1])).astype(np.float32)
        got = np.asarray(_convert_kernels.csr2coo_pairs(emulated_device.array(indptr), lengths.size,
                                                        emulated_device.array(data)))
        want = _reference_rows(lengths).astype(np.uint64) | (data.view(np.uint32).astype(np.uint64) << np.uint64(32))
        assert got.dtype == np.uint64, name
        np.testing.assert_array_equal(got, want, err_msg=name)
        if name.startswith("random"):
            low, high = _convert_kernels.unpack_pairs(emulated_device.array(want), np.int32, np.float32)
            assert low.dtype == np.int32 and high.dtype == np.float32
            np.testing.assert_array_equal(np.asarray(low), _reference_rows(lengths))
            np.testing.assert_array_equal(np.asarray(high).view(np.uint32), data.view(np.uint32))


@pytest.mark.parametrize("blocks", [1, 3])
def test_csr2coo_few_blocks_take_every_tile(emulated_device, monkeypatch, blocks):
    # one block: 300 tiles, more than one batch of BLOCK - 1 splits; three: uneven shares
    monkeypatch.setattr(kernels.Kernel, "wave", lambda self, device_id: blocks)
    rng = np.random.default_rng(SEED)
    lengths = rng.integers(0, 4, 300 * TILE // 2 - 7)
    lengths[rng.integers(0, lengths.size, 3)] = 3 * TILE
    _run_csr2coo(emulated_device, lengths, np.int32)
    assert {x.grid for x in emulated_device.launches if "csr2coo" in x.name} == {(blocks, 1, 1)}


def test_csr2coo_launches_one_block_per_tile_at_most(emulated_device):
    _run_csr2coo(emulated_device, np.array([3, 0, 2]), np.int64)
    (launch,) = [x for x in emulated_device.launches if "csr2coo" in x.name]
    assert launch.name == "ra_rocsparse_csr2coo<ra_i64>"
    assert launch.grid == (1, 1, 1)


# ---- the structure check -------------------------------------------------------------------


def _reference_bits(n, indptr, indices):
    bits = set()
    if (np.diff(indptr) < 0).any():
        bits.add("indptr")
    if (indices < 0).any():
        bits.add("negative")
    if (indices >= n).any():
        bits.add("too_large")
    if "indptr" in bits:
        return bits, True
    k = np.arange(1, indices.size)
    inner = ~np.isin(k, indptr)  # not the first element of its row
    prev, cur = indices[:-1][inner], indices[1:][inner]
    if (cur < prev).any():
        bits.add("unsorted")
    if (cur == prev).any():
        bits.add("duplicates")
    return bits, False


def _check(dev, m, n, indptr, indices, index):
    indptr, indices = np.asarray(indptr, index), np.asarray(indices, index)
    assert indptr.size == m + 1 and indptr[0] == 0 and indptr[-1] == indices.size  # the host's checks
    got = rocsparse.check_matrix_csr(m, n, dev.array(indptr), dev.array(indices))
    want, order_unknown = _reference_bits(n, indptr.astype(np.int64), indices.astype(np.int64))
    if order_unknown:
        got = got - {"unsorted", "duplicates"}
    assert got == want, (sorted(got), sorted(want))


def _sorted_columns(rng, lengths, n):
    """Strictly increasing columns in each row (each of length <= n)."""
    lengths = np.asarray(lengths, np.int64)
    nnz = int(lengths.sum())
    if nnz == 0:
        return np.zeros(0, np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(nnz) - starts
    stride = n // int(lengths.max())
    return position * stride + rng.integers(0, stride, nnz)


def _check_cases(rng):
    """(name, m, n, indptr, indices)."""
    cases = []
    n = 4 * TILE
    for name, lengths in _structures(rng).items():
        lengths = np.minimum(lengths, n)
        indptr = _indptr(lengths, np.int64)
        cols = _sorted_columns(rng, lengths, n).astype(np.int64)
        m, nnz = lengths.size, cols.size
        cases.append((name + ", canonical", m, n, indptr, cols))
        if nnz < 2:
            continue
        # one problem at a time, at the first, last and a tile-boundary element
        for k in sorted({1, nnz - 1, min(TILE, nnz - 1), min(TILE + 1, nnz - 1)}):
            c = cols.copy()
            c[k] = -1
            cases.append((f"{name}, negative at {k}", m, n, indptr, c))
            c = cols.copy()
            c[k] = n
            cases.append((f"{name}, too large at {k}", m, n, indptr, c))
            c = cols.copy()
            c[k] = c[k - 1]  # a duplicate inside a row, or the same column across a row boundary
            cases.append((f"{name}, repeat at {k}", m, n, indptr, c))
            c = cols.copy()
            c[k - 1], c[k] = c[k], c[k - 1]
            cases.append((f"{name}, swap at {k}", m, n, indptr, c))
    # decreasing index pointers (the merge splits go backwards), with range errors
    m = 3 * TILE
    nnz = 2 * TILE + 11
    good = np.sort(rng.integers(0, nnz + 1, m - 1))
    cols = rng.integers(0, n, nnz)
    for where in (1, m // 2, m - 1):
        p = np.concatenate([[0], good, [nnz]])
        p[where] = 10 * nnz if where != m - 1 else -5
        for bad_col in (None, 0, nnz - 1, TILE):
            c = cols.copy()
            if bad_col is not None:
                c[bad_col] = -3 if bad_col % 2 else n + 2
            cases.append((f"indptr spike at {where}, bad column {bad_col}", m, n, p, c))
    p = np.concatenate([[0], np.full(m - 1, nnz // 2), [nnz]])
    p[1:m // 2] = nnz  # jumps to the end, falls back to the middle
    cases.append(("indptr falls back", m, n, p, cols))
    c = cols.copy()
    c[-1] = n
    cases.append(("indptr falls back, last column too large", m, n, p, c))
    return cases


def _run_checks(dev, index, step=1):
    """Every ``step``-th case of :func:`_check_cases`."""
    rng = np.random.default_rng(SEED)
    for name, m, n, indptr, indices in _check_cases(rng)[::step]:
        try:
            _check(dev, m, n, indptr, indices, index)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


def test_check_csr_every_bit(emulated_device):
    _run_checks(emulated_device, np.int32)


def test_check_csr_every_bit_int64(emulated_device):
    _run_checks(emulated_device, np.int64, step=3)


def test_check_csr_every_bit_wave64(emulated_wave64_device):
    _run_checks(emulated_wave64_device, np.int64, step=4)


def _merge_rows(indptr, nnz, d):
    """The kernels' split of the merge path at diagonal d (their binary search, for any indptr)."""
    m = indptr.size - 1
    lo, hi = max(0, d - nnz), min(d, m)
    while lo < hi:
        mid = (lo + hi) >> 1
        if indptr[mid + 1] <= d - mid - 1:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _reversed_only_elements(indptr, nnz):
    """Elements that only tiles with a reversed row range (rows < 0) cover."""
    m = indptr.size - 1
    ds = [min(t * TILE, m + nnz) for t in range(-(-(m + nnz) // TILE) + 1)]
    splits = [(_merge_rows(indptr, nnz, d), d) for d in ds]
    plain, reverse = np.zeros(nnz, bool), np.zeros(nnz, bool)
    for (i0, d0), (i1, d1) in zip(splits, splits[1:]):
        j0, j1 = d0 - i0, d1 - i1
        if i1 < i0:
            reverse[j0:j1] = True
        elif j1 >= j0:
            plain[j0:j1] = True
    return np.flatnonzero(reverse & ~plain)


def test_check_csr_garbage_indptr_keeps_the_column_bits(emulated_device):
    # index pointers anywhere in [-nnz, 2 nnz): some tiles' splits go backwards and only such a
    # tile reads some elements; a bad column there must still be found
    rng = np.random.default_rng(SEED)
    found = 0
    while found < 3:
        m, nnz = int(rng.integers(2, 4 * TILE)), int(rng.integers(1, 4 * TILE))
        indptr = rng.integers(-nnz, 2 * nnz, m + 1)
        indptr[0], indptr[-1] = 0, nnz
        lonely = _reversed_only_elements(indptr, nnz)
        if lonely.size == 0:
            continue
        found += 1
        n = 50
        cols = rng.integers(0, n, nnz)
        _check(emulated_device, m, n, indptr, cols, np.int32)
        for k, bad in ((lonely[0], -1), (lonely[-1], n), (lonely[lonely.size // 2], n + 7)):
            c = cols.copy()
            c[k] = bad
            _check(emulated_device, m, n, indptr, c, np.int32)


def test_check_csr_one_block_takes_every_tile(emulated_device, monkeypatch):
    monkeypatch.setattr(kernels.Kernel, "wave", lambda self, device_id: 1)
    rng = np.random.default_rng(SEED)
    lengths = rng.integers(0, 3, 300 * TILE // 2)
    n = 1000
    indptr = _indptr(lengths, np.int64)
    cols = _sorted_columns(rng, lengths, n)
    _check(emulated_device, lengths.size, n, indptr, cols, np.int32)
    c = cols.copy()
    c[-1] = n
    k = int(np.flatnonzero(np.diff(indptr) > 1)[-1])  # a row of two or more: make it unsorted
    c[indptr[k]], c[indptr[k] + 1] = c[indptr[k] + 1], c[indptr[k]]
    _check(emulated_device, lengths.size, n, indptr, c, np.int32)
    p = indptr.copy()
    p[p.size // 2] = p[-1] + 1
    _check(emulated_device, lengths.size, n, p, cols, np.int32)


@pytest.mark.parametrize("indptr, indices, want", [
    ([0, 2, 2, 5, 6], [1, 3, 4, 3, 3, 0], {"unsorted", "duplicates"}),  # row 2: 4 > 3, then 3 == 3
    ([0, 2, 2, 4, 5], [1, 3, 3, 4, 0], set()),
    ([0, 2, 2, 4, 5], [0, 3, 3, 4, 0], set()),  # equal columns across a row boundary
    ([0, 2, 2, 4, 5], [1, 5, 3, 4, 0], {"too_large"}),
    ([0, 2, 2, 4, 5], [-1, 3, 3, 4, 0], {"negative"}),
    ([0, 3, 2, 4, 5], [1, 3, 3, 4, 0], {"indptr"}),  # (the order bits mean nothing then)
])
def test_check_csr_hand_made(emulated_device, indptr, indices, want):
    got = rocsparse.check_matrix_csr(4, 5, emulated_device.array(np.array(indptr, np.int32)),
                                     emulated_device.array(np.array(indices, np.int32)))
    if "indptr" in want:
        got = got - {"unsorted", "duplicates"}
    assert got == want


def test_check_csr_no_rows_and_no_elements(emulated_device):
    _check(emulated_device, 0, 5, [0], [], np.int32)
    _check(emulated_device, 4, 0, [0, 0, 0, 0, 0], [], np.int64)
    assert not [x for x in emulated_device.launches if "check_csr" in x.name and x.name.endswith("ra_i32>")]


# ---- csr2csc: rows and 4-byte values carried through the sort as one word, or positions -----


def _csc_reference(m, n, indptr, indices, data):
    row = np.repeat(np.arange(m), np.diff(indptr))
    order = np.argsort(indices, kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(indices, minlength=n))])
    return ptr, row[order], data[order]


def _csr2csc_case(dev, rng, m, n, lengths, index, dtype):
    indptr = _indptr(lengths, index)
    nnz = int(indptr[-1])
    indices = rng.integers(0, n, nnz).astype(index)  # unsorted, with duplicates
    if np.dtype(dtype).kind == "f":
        data = rng.standard_normal(nnz).astype(dtype)
        data[::7] = -0.0  # moved bit for bit
    else:
        data = rng.integers(-1000, 1000, nnz).astype(dtype)
    got = rocsparse.csr2csc(m, n, dev.array(indptr), dev.array(indices), dev.array(data))
    want = _csc_reference(m, n, indptr.astype(np.int64), indices.astype(np.int64), data)
    for g, w, dt in zip(got, want, (index, index, dtype)):
        g = np.asarray(g)
        assert g.dtype == np.dtype(dt)
        np.testing.assert_array_equal(g.view(f"u{g.dtype.itemsize}"), w.astype(dt).view(f"u{g.dtype.itemsize}"))


CSC_CASES = [(np.int32, np.float32), (np.int32, np.int32), (np.int32, np.float64), (np.int64, np.float32)]


@pytest.mark.parametrize("index, dtype", CSC_CASES)
def test_csr2csc_structures(emulated_device, index, dtype):
    rng = np.random.default_rng(SEED)
    cases = [
        (1, 1, np.array([5])),                                  # one column: no key bits to sort on
        (3, 2, np.array([4, 0, 9])),
        (40, 64, rng.integers(0, 12, 40)),                      # n a power of two
        (40, 65, rng.integers(0, 12, 40)),                      # and one past
        (2, 300, np.array([TILE + 1, 5])),                      # one long row crossing a tile
        (5000, 7, np.where(rng.random(5000) < 0.002, 3, 0)),    # mostly empty rows
    ]
    for m, n, lengths in cases:
        try:
            _csr2csc_case(emulated_device, rng, m, n, lengths, index, dtype)
        except AssertionError as e:
            raise AssertionError(f"m={m} n={n}: {e}") from None
    names = emulated_device.names()
    pairs = any("csr2coo_pairs" in x for x in names)
    assert pairs == (index == np.int32 and np.dtype(dtype).itemsize == 4)
    assert pairs == ("ra_rocsparse_unpack_pairs" in names)


def test_csr2csc_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    _csr2csc_case(emulated_wave64_device, rng, 60, 33, rng.integers(0, 40, 60), np.int32, np.float32)
    _csr2csc_case(emulated_wave64_device, rng, 60, 33, rng.integers(0, 40, 60), np.int64, np.float64)
