"""Sparse construction functions (:mod:`rocarray.sparse._construct`).

CPU tests run them on NumPy with the contract's stand-in classes (``sparse_standin``) and compare
with SciPy: values, shapes, dtypes, result kinds (array vs matrix) and formats, SciPy's errors;
the random positions are distinct, canonical, of the exact count and uniform (a chi-square
bound on the per-cell frequencies). GPU tests compare the real classes with SciPy.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import sparse_standin as si
from ops_data import VALUE_DTYPES, csr, dense

from rocarray.sparse import _construct as c


@pytest.fixture
def host(monkeypatch):
    si.install(monkeypatch)
    return si


def _close(x, y, rtol=1e-12):
    np.testing.assert_allclose(dense(x), dense(y), rtol=rtol, atol=rtol)


def _kind(x):
    return "matrix" if type(x).is_matrix else "array"


# ------------------------------------------------------------------------------------------
# CPU
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("m,n,k", [(4, 4, 0), (3, 5, 1), (5, 3, -2), (3, 3, 2), (1, 1, 0), (0, 3, 0), (4, 6, -3)])
def test_eye_identity_match_scipy(host, m, n, k):
    got = c.eye_array(m, n, k=k, dtype=np.complex64)
    _close(got, sp.eye_array(m, n, k=k))
    assert got.dtype == np.complex64 and got.format == "csr" and _kind(got) == "array"
    assert got.has_canonical_format
    got = c.eye(m, n, k, format="coo")
    assert got.format == "coo" and _kind(got) == "matrix"
    _close(got, sp.eye(m, n, k))
    _close(c.identity(3, format="csc"), sp.identity(3))
    assert _kind(c.identity(2)) == "matrix"
    with pytest.raises(ValueError, match="format"):
        c.eye_array(3, format="dia")
    for args in ((3, 3, 5), (4, 6, -5)):
        with pytest.raises(ValueError, match="out of bounds"):
            sp.eye_array(args[0], args[1], k=args[2])
        with pytest.raises(ValueError, match="out of bounds"):
            c.eye_array(args[0], args[1], k=args[2])


def test_diags_match_scipy(host, rng):
    cases = [([[1, 2, 3], [4, 5], [6]], [0, 1, -2], None),
             ([1.5, 2.5], 0, None),
             ([[1, 2, 3, 4], [1]], [0, 3], (4, 6)),
             ([np.arange(1, 5.0) * 1j], [-1], (5, 4)),
             ([[0, 1, 0]], [0], None)]
    for diagonals, offsets, shape in cases:
        want = sp.diags_array(diagonals, offsets=offsets, shape=shape, dtype=None)
        got = c.diags_array(diagonals, offsets=offsets, shape=shape, dtype=None)
        assert got.dtype == want.dtype and got.shape == want.shape
        _close(got, want)
        assert not np.any(got.data == 0)
        with pytest.warns(FutureWarning) if want.dtype.kind in "iu" else _nothing():
            want_m = sp.diags(diagonals, offsets=offsets, shape=shape)
        got_m = c.diags(diagonals, offsets=offsets, shape=shape)
        assert got_m.dtype == want_m.dtype and _kind(got_m) == "matrix"
        _close(got_m, want_m)
    for diagonals, offsets, shape, msg in (([[1, 2], [3]], [0], None, "Different number"),
                                           ([[1, 2, 3]], [5], (3, 3), "out of bounds"),
                                           ([[1, 2]], [0], (3, 3), "does not agree")):
        with pytest.raises(ValueError, match=msg):
            sp.diags_array(diagonals, offsets=offsets, shape=shape)
        with pytest.raises(ValueError, match=msg):
            c.diags_array(diagonals, offsets=offsets, shape=shape)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_spdiags_matches_scipy(host):
    data = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12.0]])
    for offsets, m, n in (([0, -1, 2], 4, 4), ([1, 0, -3], 3, 5), ([0, 1, 2], 6, 3)):
        _close(c.spdiags(data, offsets, m, n), sp.spdiags(data, offsets, m, n))
    _close(c.spdiags(data, [0, 1, -1]), sp.spdiags(data, [0, 1, -1]))


@pytest.mark.parametrize("shape,density", [((50, 40), 0.1), ((7, 9), 1.0), ((30, 30), 0.5), ((1000, 900), 1e-3),
                                           ((5, 5), 0.0), ((0, 4), 0.3), ((1, 1), 1.0)])
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16"])
def test_random_array_exact_count_distinct_canonical(host, shape, density, dtype):
    a = c.random_array(shape, density=density, dtype=dtype, rng=1, format="csr")
    assert a.format == "csr" and a.dtype == np.dtype(dtype) and a.shape == shape
    assert a.nnz == int(round(density * shape[0] * shape[1]))
    assert a._check_canonical()
    b = c.random_array(shape, density=density, dtype=dtype, rng=1)
    assert b.format == "coo" and b.has_canonical_format
    np.testing.assert_array_equal(dense(a), dense(b))  # same rng, same array
    if dtype == "float32" and a.nnz:
        assert 0 <= a.data.min() and a.data.max() < 1
    assert _kind(c.random(*shape, density=density)) == "matrix"
    assert _kind(c.rand(*shape, density=density)) == "matrix"


def test_random_positions_are_uniform(host):
    """Every cell of a 6 x 5 array chosen with probability density: chi-square over 600 draws."""
    counts = np.zeros((6, 5))
    for seed in range(600):
        counts += dense(c.random_array((6, 5), density=0.2, rng=seed)) != 0
    expected = 600 * 0.2
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 70, chi2  # 29 degrees of freedom: p < 1e-4 beyond 70


def test_random_arguments(host):
    with pytest.raises(ValueError, match="density expected to be 0 <= density <= 1"):
        c.random_array((3, 3), density=1.5)
    with pytest.raises(ValueError, match="2-D"):
        c.random_array((3, 3, 3))
    a = c.random_array((20, 20), density=0.3, data_sampler=lambda size: np.full(size, 7.0))
    assert np.all(a.data == 7)
    assert c.random_array((4, 4), density=0.5, rng=np.random.default_rng(3)).nnz == 8


@pytest.mark.parametrize("messy", [False, True])
def test_kron_kronsum_match_scipy(host, rng, messy):
    a_s, b_s = csr(rng, 4, 3, 0.5, messy=messy), csr(rng, 2, 5, 0.5, dtype="complex64", messy=messy)
    got = c.kron(si.from_scipy(a_s), si.from_scipy(b_s, "csc"))
    assert got.dtype == np.complex128 and got.format == "csr" and _kind(got) == "array"
    _close(got, sp.kron(a_s, b_s), 1e-6)  # complex64 operand: products rounded on either side
    got = c.kron(si.from_scipy(a_s, matrix=True), rng.standard_normal((2, 2)), format="coo")
    assert _kind(got) == "matrix" and got.format == "coo"
    s_s, t_s = csr(rng, 3, 3, 0.6, messy=messy), csr(rng, 4, 4, 0.6, messy=messy)
    got = c.kronsum(si.from_scipy(s_s), si.from_scipy(t_s))
    _close(got, sp.kronsum(s_s, t_s))
    assert got.format == "csr"
    with pytest.raises(ValueError, match="A is not square"):
        c.kronsum(si.from_scipy(a_s), si.from_scipy(t_s))


def test_stacks_and_blocks_match_scipy(host, rng):
    a_s, b_s, d_s = csr(rng, 3, 4), csr(rng, 2, 4, dtype="float32"), csr(rng, 3, 2)
    a, b, d = si.from_scipy(a_s), si.from_scipy(b_s), si.from_scipy(d_s)
    got = c.vstack([a, b])
    assert got.format == "csr" and got.dtype == np.float64
    _close(got, sp.vstack([a_s, b_s]))
    got = c.hstack([si.from_scipy(a_s, "csc"), si.from_scipy(d_s, "csc")])
    assert got.format == "csc"
    _close(got, sp.hstack([a_s, d_s]))
    got = c.block_array([[a, d], [b, None]])
    assert got.format == "coo" and _kind(got) == "array"
    _close(got, sp.block_array([[a_s, d_s], [b_s, None]]))
    got = c.bmat([[si.from_scipy(a_s, matrix=True), None], [None, si.from_scipy(b_s, matrix=True)]],
                 format="csr", dtype=np.complex64)
    assert _kind(got) == "matrix" and got.dtype == np.complex64
    _close(got, sp.bmat([[a_s, None], [None, b_s]]), 1e-6)
    assert _kind(c.vstack([si.from_scipy(a_s, matrix=True), b])) == "array"
    with pytest.raises(ValueError, match=r"blocks\[1,:\] has incompatible row dimensions"):
        c.block_array([[a, d], [b, d]])
    with pytest.raises(ValueError, match=r"blocks\[:,0\] has incompatible column dimensions"):
        c.vstack([a, d])
    with pytest.raises(ValueError, match="blocks must be 2-D"):
        c.block_array([[a, d], [b]])


def test_block_diag_tril_triu_find_match_scipy(host, rng):
    a_s, b_s = csr(rng, 3, 4, messy=True), csr(rng, 2, 2)
    got = c.block_diag([si.from_scipy(a_s), si.from_scipy(b_s), np.array([[5.0]])])
    assert got.format == "coo" and _kind(got) == "array"
    _close(got, sp.block_diag([a_s, b_s, np.array([[5.0]])]))
    m_s = csr(rng, 6, 5, 0.6, messy=True)
    for k in (-2, 0, 1, 7):
        for mine, ref in ((c.tril, sp.tril), (c.triu, sp.triu)):
            got = mine(si.from_scipy(m_s, "csc"), k)
            assert got.format == "coo"
            _close(got, ref(m_s, k))
    assert _kind(c.tril(si.from_scipy(m_s, matrix=True), format="csr")) == "matrix"
    r, col, v = c.find(si.from_scipy(m_s))
    rr, cc, vv = sp.find(m_s)
    order = np.lexsort((cc, rr))
    np.testing.assert_array_equal(r, rr[order])
    np.testing.assert_array_equal(col, cc[order])
    _close(v, vv[order])


# ------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------

def _device(s, matrix=False):
    import rocarray.sparse as ras

    return getattr(ras, f"{s.format}_{'matrix' if matrix else 'array'}")(s)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_gpu_construction_matches_scipy(rng, dtype):
    import rocarray.sparse as ras

    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    _close(ras.eye_array(70, 50, k=3, dtype=dtype), sp.eye_array(70, 50, k=3, dtype=dtype))
    diagonals = [rng.standard_normal(100).astype(dtype), rng.standard_normal(99).astype(dtype)]
    _close(ras.diags_array(diagonals, offsets=[0, -1]), sp.diags_array(diagonals, offsets=[0, -1]), tol)
    a_s, b_s = csr(rng, 30, 20, 0.1, dtype, messy=True), csr(rng, 7, 9, 0.3, dtype)
    a, b = _device(a_s), _device(b_s)
    _close(ras.kron(a, b), sp.kron(a_s, b_s), tol)
    e_s = csr(rng, 5, 20, 0.2, dtype)
    _close(ras.vstack([a, _device(e_s)]), sp.vstack([a_s, e_s]), tol)
    _close(ras.hstack([a, a]), sp.hstack([a_s, a_s]), tol)
    _close(ras.block_array([[a, None], [None, b]]), sp.block_array([[a_s, None], [None, b_s]]), tol)
    _close(ras.block_diag([a, b]), sp.block_diag([a_s, b_s]), tol)
    _close(ras.tril(a, -1), sp.tril(a_s, -1), tol)
    _close(ras.triu(a, 2, format="csr"), sp.triu(a_s, 2), tol)
    s_s = csr(rng, 12, 12, 0.3, dtype)
    _close(ras.kronsum(_device(s_s), _device(s_s)), sp.kronsum(s_s, s_s), tol)
    r, col, v = ras.find(a)
    back = sp.coo_array((v.get(), (r.get(), col.get())), shape=a_s.shape)
    _close(back, a_s, tol)


@pytest.mark.gpu
@pytest.mark.parametrize("shape,density", [((1000, 1000), 1e-4), ((300, 200), 0.1), ((40, 40), 0.9), ((1, 1), 1.0)])
def test_gpu_random_array_is_exact_and_canonical(shape, density):
    import rocarray.sparse as ras

    a = ras.random_array(shape, density=density, format="csr", rng=5, dtype="complex64")
    s = a.get()
    assert s.nnz == int(round(density * shape[0] * shape[1]))
    s2 = s.copy()
    s2.sum_duplicates()
    assert s2.nnz == s.nnz and np.all(np.diff(s.indices[s.indptr[0]:s.indptr[1]]) > 0)
    assert a.has_canonical_format


def test_construct_argument_errors_come_before_device_work(monkeypatch):
    from rocarray.sparse import _opsdev

    def no_device():
        raise AssertionError("device work before the argument check")

    monkeypatch.setattr(_opsdev, "xp", no_device)
    for fn, args, kwargs, match in (
            (c.random_array, ((3, 3),), dict(density=1.5), "density"),
            (c.random_array, ((3, 3, 3),), {}, "2-D"),
            (c.eye_array, (3,), dict(format="lil"), "format"),
            (c.eye_array, (3, 3), dict(k=4), "out of bounds"),
            (c.diags_array, ([[1, 2], [3]],), dict(offsets=[0]), "Different number"),
            (c.diags_array, ([[1, 2, 3]],), dict(offsets=[5], shape=(3, 3)), "out of bounds"),
            (c.diags_array, ([[1, 2]],), dict(offsets=[0], shape=(3, 3)), "does not agree"),
            (c.block_array, ([[None], []],), {}, "2-D")):
        with pytest.raises(ValueError, match=match):
            fn(*args, **kwargs)
