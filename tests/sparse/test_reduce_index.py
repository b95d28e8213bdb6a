"""Sparse reductions and indexing (:mod:`rocarray.sparse._reduce`, :mod:`rocarray.sparse._index`).

CPU tests run the façade logic on NumPy with the contract's stand-ins (``sparse_standin``) and
compare with SciPy: ``sum``/``mean`` dtypes and shapes (1-D for arrays, 2-D for matrices),
``max``/``min`` with implicit zeros, NaN and ``explicit``, ``diagonal``, ``count_nonzero``,
SciPy's axis errors; every key kind of ``__getitem__`` on CSR, CSC and COO (negative indices,
steps, fancy rows and columns, masks, pairs) and SciPy's ``IndexError``\\ s. GPU tests compare the
real classes with SciPy on random canonical and messy inputs, every value dtype, both index widths.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import sparse_standin as si
from ops_data import INDEX_DTYPES, VALUE_DTYPES, csr, dense

from rocarray.sparse import _index, _reduce


@pytest.fixture
def host(monkeypatch):
    si.install(monkeypatch)
    return si


def _close(x, y, rtol=1e-12):
    np.testing.assert_allclose(dense(x), dense(y), rtol=rtol, atol=rtol, equal_nan=True)


# ------------------------------------------------------------------------------------------
# CPU: reductions
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("matrix", [False, True])
def test_sum_mean_shapes_dtypes_values_match_scipy(host, rng, fmt, matrix):
    for dtype in ("float32", "complex128", "int8", "uint8", "bool"):
        a_s = csr(rng, 7, 5, dtype=dtype, messy=dtype != "bool")
        ref = sp.csr_matrix(a_s) if matrix else a_s
        a = si.from_scipy(a_s, fmt, matrix)
        for axis in (None, 0, 1, -1, -2, (0, 1)):
            got, want = _reduce.sum(a, axis=axis), ref.sum(axis=axis)
            assert got.dtype == np.asarray(want).dtype, (dtype, axis)
            assert got.shape == np.shape(want), (dtype, axis, got.shape)
            _close(got, want, 1e-5)
            got, want = _reduce.mean(a, axis=axis), ref.mean(axis=axis)
            assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
            _close(got, want, 1e-5)
        assert _reduce.sum(a, axis=0, dtype=np.complex128).dtype == np.complex128


def test_sum_of_empty_and_axis_errors(host):
    z = si.from_scipy(sp.csr_array((3, 4)))
    assert _reduce.sum(z).dtype == np.float64 and _reduce.sum(z) == 0
    _close(_reduce.sum(z, axis=1), np.zeros(3))
    for bad, err in ((2, ValueError), (-3, ValueError), ((0, 0), ValueError), (1.5, TypeError), ((), ValueError)):
        with pytest.raises(err):
            _reduce.sum(z, axis=bad)
        with pytest.raises(err):
            sp.csr_array((3, 4)).sum(axis=bad) if bad != 1.5 else _reduce.validate_axis(1.5)
    with pytest.raises(ZeroDivisionError):
        _reduce.mean(si.from_scipy(sp.csr_array((0, 4))))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("matrix", [False, True])
@pytest.mark.parametrize("explicit", [False, True])
def test_max_min_match_scipy(host, rng, fmt, matrix, explicit):
    for dtype in ("float64", "int16", "complex128"):
        a_s = csr(rng, 8, 6, density=0.4, dtype=dtype, messy=True)
        ref = sp.csr_matrix(a_s) if matrix else a_s
        for op in ("max", "min"):
            a = si.from_scipy(a_s, fmt, matrix)
            for axis in (None, 0, 1, -1):
                got = getattr(_reduce, op)(a, axis=axis, explicit=explicit)
                want = getattr(ref.copy(), op)(axis=axis, explicit=explicit)
                if axis is None:
                    assert got.dtype == np.asarray(want).dtype
                elif matrix:
                    assert got.format == "coo" and got.shape == want.shape and type(got).is_matrix
                    assert not np.any(got.data == 0)
                else:
                    assert got.ndim == 1 and got.dtype == want.dtype
                _close(got, want)


def test_max_min_nan_full_rows_and_errors(host):
    d = np.array([[np.nan, 1.0, 2.0], [0.0, 0.0, 3.0], [-1.0, -2.0, -3.0], [0, 0, 0]])
    a_s = sp.csr_array(d)
    a = si.from_scipy(a_s)
    for op in ("max", "min"):
        for axis in (0, 1):
            _close(getattr(_reduce, op)(a, axis=axis), getattr(a_s, op)(axis=axis))
    e = si.from_scipy(sp.csr_array((0, 3)))
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        _reduce.max(e)
    with pytest.raises(ValueError, match="zero-size array"):
        _reduce.min(e, axis=0)
    assert _reduce.max(e, axis=1).shape == (0,)
    assert _reduce.max(si.from_scipy(sp.csr_array((2, 2)))) == 0
    z = np.array([[1 + 2j, 1 + 5j, -3j, 0], [2 - 1j, -2 + 9j, 0, 0], [-1j, 0, 0, 0], [0, 0, 0, 0]])
    z_s = sp.csr_array(z)
    for op in ("max", "min"):
        for axis in (0, 1):
            for explicit in (False, True):
                got = getattr(_reduce, op)(si.from_scipy(z_s), axis=axis, explicit=explicit)
                _close(got, getattr(z_s, op)(axis=axis, explicit=explicit))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_diagonal_and_count_nonzero_match_scipy(host, rng, fmt):
    for m, n in ((6, 4), (4, 6), (1, 1), (5, 5)):
        a_s = csr(rng, m, n, density=0.5, messy=True)
        for k in range(-m - 1, n + 2):
            _close(_reduce.diagonal(si.from_scipy(a_s, fmt), k), a_s.diagonal(k))
        assert _reduce.count_nonzero(si.from_scipy(a_s, fmt)) == a_s.copy().count_nonzero()
        for axis in (0, 1, -1, -2):
            _close(_reduce.count_nonzero(si.from_scipy(a_s, fmt), axis=axis), a_s.copy().count_nonzero(axis=axis))
        with pytest.raises(ValueError, match="axis out of bounds"):
            _reduce.count_nonzero(si.from_scipy(a_s, fmt), axis=2)


def test_sum_dtype_rule_is_scipys():
    from scipy.sparse._sputils import get_sum_dtype

    for dt in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float32", "float64",
               "complex64", "complex128"):
        assert _reduce.sum_dtype(dt) == get_sum_dtype(np.dtype(dt))


# ------------------------------------------------------------------------------------------
# CPU: indexing
# ------------------------------------------------------------------------------------------

KEYS = [(1, 2), (-1, -2), 1, -1, (2, slice(None)), (slice(None), 1), (slice(None), -1), slice(1, 4), slice(None, None, 2),
        slice(None, None, -1), slice(5, 1, -2), (slice(None), slice(1, 3)), (slice(None), slice(None, None, -2)),
        (slice(1, 5), slice(0, 4, 3)), [0, 2, 2], np.array([4, -1, 0]), [], np.array([True, False, True, False, True, True]),
        (slice(None), [3, 0, 0, 1]), ([0, 2], slice(1, 3)), ([0, 1], [1, 2]), (np.array([5, 0]), np.array([3, 3])),
        Ellipsis, (Ellipsis, 1), (1, Ellipsis), (slice(None), np.array([False, True, True, False])),
        ([0, 2, -1], 1), (1, [0, 3]), (-2, np.array([True, False, False, True])), ([3, 1], [2])]


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("matrix", [False, True])
@pytest.mark.parametrize("messy", [False, True])
@pytest.mark.parametrize("index", ["int32", "int64"])
def test_getitem_matches_scipy(host, rng, fmt, matrix, messy, index):
    a_s = csr(rng, 6, 4, density=0.5, messy=messy, index=index)
    # SciPy's coo_matrix has no indexing: its reference is the CSR matrix's result
    ref = (sp.csr_matrix(a_s) if matrix else a_s).asformat("csr" if matrix and fmt == "coo" else fmt)
    for key in KEYS:
        a = si.from_scipy(a_s, fmt, matrix)
        got, want = _index.getitem(a, key), ref[key]
        if sp.issparse(want) and want.ndim == 2:
            assert got.format == fmt, key
            assert got.shape == want.shape, key
            assert type(got).is_matrix == matrix
            assert got.dtype == want.dtype
            if got.has_canonical_format:
                assert got._check_canonical()
        else:
            assert np.shape(got) == np.shape(want) or (np.ndim(want) == 0 and np.ndim(got) == 0), key
        _close(got, want)


def test_getitem_errors_match_scipy(host, rng):
    a_s = csr(rng, 5, 4)
    with pytest.raises(IndexError, match="not supported"):
        _index.getitem(si.from_scipy(a_s), (None, 1))  # a documented limit: SciPy adds an axis
    for key in (5, -6, (1, 4), (1, -5), [7], [0, -6], (slice(None), [4]), np.array([True, False]), None,
                (1, 2, 3), (Ellipsis, Ellipsis), 1.5, "a"):
        with pytest.raises(IndexError) as want:
            a_s[key]
        with pytest.raises(IndexError) as got:
            _index.getitem(si.from_scipy(a_s), key)
        if not isinstance(key, (float, str)):
            assert str(got.value) == str(want.value), key


def test_row_gather_and_column_range_helpers(host):
    indptr = np.array([0, 2, 2, 5])
    indices = np.array([1, 3, 0, 2, 3])
    data = np.arange(5.0)
    p, i, d = _index.gather_rows(indptr, indices, data, np.array([2, 1, 0, 2]))
    np.testing.assert_array_equal(p, [0, 3, 3, 5, 8])
    np.testing.assert_array_equal(i, [0, 2, 3, 1, 3, 0, 2, 3])
    np.testing.assert_array_equal(d, [2, 3, 4, 0, 1, 2, 3, 4])
    p, i, d = _index.select_column_range(indptr, indices, data, range(3, 0, -2))
    np.testing.assert_array_equal(p, [0, 2, 2, 3])
    np.testing.assert_array_equal(i, [1, 0, 0])
    np.testing.assert_array_equal(d, [0, 1, 4])


def test_split_key_expands_ellipsis():
    assert _index.split_key(Ellipsis, "csr") == (slice(None), slice(None))
    assert _index.split_key((Ellipsis, 3), "csr") == (slice(None), 3)
    assert _index.split_key(3, "csr") == (3, slice(None))


# ------------------------------------------------------------------------------------------
# GPU: the real classes against SciPy
# ------------------------------------------------------------------------------------------

def _device(s, matrix=False):
    import rocarray.sparse as ras

    name = f"{s.format}_{'matrix' if matrix else 'array'}"
    return getattr(ras, name)(s)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("messy", [False, True])
def test_gpu_reductions_match_scipy(rng, dtype, index, messy):
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    for m, n, density in ((1, 1, 1.0), (1, 50, 0.2), (80, 60, 0.1), (2000, 300, 0.01), (40, 40, 0.0)):
        a_s = csr(rng, m, n, density, dtype, index, messy)
        for matrix in (False, True):
            ref = sp.csr_matrix(a_s) if matrix else a_s
            a = _device(a_s, matrix)
            for axis in (None, 0, 1):
                _close(a.sum(axis=axis), ref.sum(axis=axis), tol)
                _close(a.mean(axis=axis), ref.mean(axis=axis), tol)
                _close(a.max(axis=axis), ref.copy().max(axis=axis), tol)
                _close(a.min(axis=axis), ref.copy().min(axis=axis), tol)
            for k in (-1, 0, 2):
                _close(a.diagonal(k), a_s.diagonal(k), tol)
            _close(a.count_nonzero(axis=0), a_s.copy().count_nonzero(axis=0))
            assert int(a.count_nonzero()) == a_s.copy().count_nonzero()


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("messy", [False, True])
def test_gpu_getitem_matches_scipy(rng, fmt, index, messy):
    a_s = csr(rng, 6, 4, 0.5, "complex64", index, messy)
    for matrix in (False, True):
        ref = (sp.csr_matrix(a_s) if matrix else a_s).asformat("csr" if matrix and fmt == "coo" else fmt)
        for key in KEYS:
            got = _device(a_s.asformat(fmt), matrix)[key]
            _close(got, ref[key], 1e-6)
    big = csr(rng, 5000, 700, 0.01, "float32", index, messy)
    b = _device(big)
    for key in (slice(100, 4000, 3), np.arange(4999, 0, -7), (slice(None), slice(5, 600, 2)), (slice(None), 17)):
        _close(b[key], big[key], 1e-6)


# ------------------------------------------------------------------------------------------
# CPU: argument errors come before any device work (arrays over made-up addresses)
# ------------------------------------------------------------------------------------------

class _FakeCsr:
    """A CSR-shaped object over never-launched device arrays; any conversion is a failure."""

    format = "csr"
    has_canonical_format = True

    def __init__(self, m, n, nnz=4, dtype="float64"):
        from conftest import fake

        self.shape, self.nnz = (m, n), nnz
        self.data = fake((nnz,), dtype)
        self.indices = fake((nnz,), "int32", address=2 << 20)
        self.indptr = fake((m + 1,), "int32", address=3 << 20)
        self.dtype = self.data.dtype

    def tocsr(self):
        return self

    def _device_work(self, *args, **kwargs):
        raise AssertionError("device work before the argument check")

    tocsc = tocoo = toarray = copy = sum_duplicates = eliminate_zeros = _device_work


def test_argument_errors_come_before_device_work():
    from rocarray.sparse import _arith

    a = _FakeCsr(5, 4)
    for fn, args, err in ((_reduce.sum, dict(axis=2), ValueError), (_reduce.sum, dict(axis=1.5), TypeError),
                          (_reduce.mean, dict(axis=(0, 0)), ValueError), (_reduce.max, dict(axis=-3), ValueError),
                          (_reduce.count_nonzero, dict(axis=2), ValueError)):
        with pytest.raises(err):
            fn(a, **args)
    with pytest.raises(ValueError, match="zero-size"):
        _reduce.min(_FakeCsr(0, 4, 0))
    for key in (5, (1, 4), (-6, 0), None, (1, 2, 3), np.array([True, False]), [0, 9], 1.5):
        with pytest.raises(IndexError):
            _index.getitem(a, key)
    with pytest.raises(NotImplementedError):
        _arith.add(a, 3)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.add(a, _FakeCsr(4, 5))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.multiply(a, _FakeCsr(2, 7))
    with pytest.raises(TypeError, match="host"):
        _arith.subtract(a, np.ones((5, 4)))
    with pytest.raises(NotImplementedError, match="boolean"):
        _arith.negative(_FakeCsr(2, 2, dtype="bool"))
