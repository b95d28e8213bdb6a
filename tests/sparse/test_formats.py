"""rocarray.sparse format classes against SciPy.

Tests taking the ``mode`` fixture run twice: on the GPU (``gpu`` marker: real kernels, and the
spmv/spgemm owners' products) and on the CPU, where ``sparse_host`` makes NumPy play the device
and stands in for the kernels and the products (so constructors, flags, conversions, dispatch,
trans flags and dtype promotion are checked without a device).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import rocarray as ra
from rocarray import rocsparse
from rocarray.sparse import _arith, _index, _reduce
from sparse_data import (DENSE_SHAPES, FLOAT_DTYPES, INDEX_DTYPES, MODES, SHAPES, VALUE_DTYPES, csr_parts,
                         setup_mode, triplets)

rs = ra.sparse

FORMATS = ["csr", "csc", "coo"]
KINDS = ["array", "matrix"]


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    return setup_mode(request.param, monkeypatch)


@pytest.fixture
def host_mode(monkeypatch):
    """The CPU stand-ins only (call recording, patched library functions)."""
    import sparse_host

    setup_mode("host", monkeypatch)
    return sparse_host


def _cls(fmt, kind="array"):
    return getattr(rs, f"{fmt}_{kind}")


def _sp_cls(fmt, kind="array"):
    return getattr(sp, f"{fmt}_{kind}")


def _random_sp(rng, m, n, density=0.2, dtype="float64", fmt="csr", kind="array", **kw):
    row, col, data = triplets(rng, m, n, density, dtype=dtype, **kw)
    return _sp_cls(fmt, kind)((data, (row, col)), shape=(m, n))


def _ours(dev, s, cls=None):
    """Our array of the SciPy object's format and kind, built from its parts."""
    cls = cls or _cls(s.format, "array" if isinstance(s, sp.sparray) else "matrix")
    if s.format == "coo":
        return cls((dev(s.data), (dev(s.row), dev(s.col))), shape=s.shape)
    return cls((dev(s.data), dev(s.indices), dev(s.indptr)), shape=s.shape)


def _close(actual, expected, dtype=None):
    actual, expected = np.asarray(actual), np.asarray(expected)
    dtype = np.dtype(dtype or expected.dtype)
    assert actual.shape == expected.shape
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    if dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(actual, expected)


def _dense(x, host):
    return np.asarray(host(x.toarray()))


# ---- constructors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("unsorted, duplicates", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_compressed_from_parts_matches_scipy(mode, rng, fmt, idx, dtype, unsorted, duplicates):
    dev, host = mode
    row, col, data = triplets(rng, 50, 40, 0.1, dtype=dtype, unsorted=unsorted, duplicates=duplicates)
    if fmt == "csc":
        row, col = col, row
    indptr, indices, data = csr_parts(row, col, data, 50 if fmt == "csr" else 40, idx)
    shape = (50, 40)
    ref = _sp_cls(fmt)((data, indices, indptr), shape=shape, copy=True)
    a = _cls(fmt)((dev(data), dev(indices), dev(indptr)), shape=shape)
    assert a.format == fmt and a.shape == shape and a.dtype == np.dtype(dtype) and a.nnz == ref.nnz
    assert a.indices.dtype == np.dtype(idx) and a.indptr.dtype == np.dtype(idx)
    assert a.has_sorted_indices == ref.has_sorted_indices
    assert a.has_canonical_format == ref.has_canonical_format
    _close(_dense(a, host), ref.toarray())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("idx", INDEX_DTYPES)
def test_from_coords_matches_scipy(mode, rng, fmt, kind, idx):
    dev, host = mode
    row, col, data = triplets(rng, 30, 70, 0.05, dtype="complex128", unsorted=True, duplicates=True)
    ref = _sp_cls(fmt, kind)((data, (row, col)), shape=(30, 70))
    a = _cls(fmt, kind)((dev(data), (dev(row.astype(idx)), dev(col.astype(idx)))), shape=(30, 70))
    assert a.nnz == ref.nnz                       # csr/csc sum duplicates, coo keeps them
    if fmt != "coo":
        assert a.has_canonical_format
    _close(_dense(a, host), ref.toarray())


def test_coo_flags_follow_the_order(mode):
    dev, _ = mode
    data = dev(np.ones(3))

    def coo(r, c):
        return rs.coo_array((data, (dev(np.array(r)), dev(np.array(c)))), shape=(3, 3))

    assert coo([0, 0, 2], [0, 1, 0]).has_canonical_format
    assert not coo([0, 2, 0], [0, 0, 1]).has_canonical_format
    assert not coo([0, 0, 2], [1, 1, 0]).has_canonical_format


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_from_dense_matches_scipy(mode, rng, fmt, order, dtype):
    dev, host = mode
    a = np.asarray(_random_sp(rng, 20, 13, 0.3, dtype).toarray(), order=order)
    ref = _sp_cls(fmt)(a)
    ours = _cls(fmt)(dev(a))
    assert ours.has_canonical_format and ours.nnz == ref.nnz and ours.dtype == ref.dtype
    _close(_dense(ours, host), a)
    got = ours.get()
    assert type(got) is type(ref)
    _close(got.toarray(), a)


def test_from_host_dense_and_lists(mode):
    dev, host = mode
    a = np.array([[0.0, 1.0], [2.0, 0.0]])
    _close(_dense(rs.csr_array(a), host), a)
    _close(_dense(rs.csc_array(a.tolist()), host), a)
    _close(_dense(rs.csr_matrix([1.0, 0.0, 3.0]), host), [[1.0, 0.0, 3.0]])   # matrices take 1-D as a row


@pytest.mark.parametrize("src", ["csr", "csc", "coo", "lil", "dia", "bsr", "dok"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_from_scipy_objects(mode, rng, src, fmt, kind):
    _, host = mode
    s = _random_sp(rng, 25, 31, 0.2, "float32").asformat(src)
    a = _cls(fmt, kind)(s)
    assert a.format == fmt and a.dtype == np.float32 and a.shape == (25, 31)
    _close(_dense(a, host), s.toarray())
    assert type(a.get()) is _sp_cls(fmt, kind)


@pytest.mark.gpu
@pytest.mark.parametrize("src", ["csr", "csc", "coo"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_from_cupyx_objects(rng, src, fmt):
    import cupyx.scipy.sparse as csp

    s = _random_sp(rng, 25, 31, 0.2, "complex64")
    c = getattr(csp, f"{src}_matrix")(s.asformat(src))
    a = _cls(fmt)(c)
    assert a.format == fmt and a.dtype == np.complex64
    _close(a.toarray().get(), s.toarray())


@pytest.mark.parametrize("fmt", FORMATS)
def test_from_sparse_shares_unless_copy(mode, rng, fmt):
    dev, host = mode
    a = _ours(dev, _random_sp(rng, 10, 12, 0.3, fmt=fmt))
    same = _cls(fmt)(a)
    assert same.data is a.data
    copied = _cls(fmt)(a, copy=True)
    assert copied.data is not a.data
    _close(_dense(copied, host), _dense(a, host))
    other = _cls("csc" if fmt != "csc" else "csr")(a)
    _close(_dense(other, host), _dense(a, host))


@pytest.mark.parametrize("fmt", FORMATS)
def test_shape_tuple_and_dtype(mode, fmt):
    _, host = mode
    a = _cls(fmt)((3, 4), dtype=np.int8)
    assert a.shape == (3, 4) and a.nnz == 0 and a.dtype == np.int8
    _close(_dense(a, host), np.zeros((3, 4), np.int8))
    b = _cls(fmt)(np.eye(3), dtype=np.complex64)
    assert b.dtype == np.complex64


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_shape_is_inferred_like_scipy(mode, fmt):
    dev, _ = mode
    data, indices, indptr = np.ones(3), np.array([0, 4, 1]), np.array([0, 2, 3])
    ref = _sp_cls(fmt)((data, indices, indptr))
    assert _cls(fmt)((dev(data), dev(indices), dev(indptr))).shape == ref.shape
    row, col = np.array([0, 5, 1]), np.array([2, 0, 1])
    assert rs.coo_array((dev(data), (dev(row), dev(col)))).shape == sp.coo_array((data, (row, col))).shape


def test_index_dtypes_are_unified(mode):
    dev, _ = mode
    data = dev(np.ones(3))
    a = rs.csr_array((data, dev(np.array([0, 2, 1], np.int16)), dev(np.array([0, 2, 3], np.int64))), shape=(2, 3))
    assert a.indices.dtype == a.indptr.dtype == np.int32
    b = rs.csr_array((data, dev(np.array([0, 2, 1], np.float64)), dev(np.array([0, 2, 3]))), shape=(2, 3))
    assert b.indices.dtype == np.int32
    _close(np.asarray(mode[1](b.toarray())), sp.csr_array((np.ones(3), [0, 2, 1], [0, 2, 3]), shape=(2, 3)).toarray())


# ---- errors (SciPy's types and messages) ------------------------------------------------------------

def _raises_like_scipy(build_ours, build_scipy, match=None):
    with pytest.raises(Exception) as expected:
        build_scipy()
    with pytest.raises(type(expected.value), match=match) as got:
        build_ours()
    return got


BAD_COMPRESSED = [
    ("indices must be < 3", [1.0, 2.0, 3.0], [0, 3, 1], [0, 2, 3]),
    ("indices must be >= 0", [1.0, 2.0, 3.0], [0, -1, 1], [0, 2, 3]),
    ("indptr must be a non-decreasing sequence", [1.0, 2.0, 3.0], [0, 2, 1], [0, 3, 2]),
    ("index pointer size 4 should be 3", [1.0, 2.0, 3.0], [0, 2, 1], [0, 2, 3, 3]),
    ("indices and data should have the same size", [1.0, 2.0], [0, 2, 1], [0, 2, 3]),
    ("index pointer should start with 0", [1.0, 2.0, 3.0], [0, 2, 1], [1, 2, 3]),
    ("Last value of index pointer should be less", [1.0, 2.0, 3.0], [0, 2, 1], [0, 2, 4]),
]


@pytest.mark.parametrize("message, data, indices, indptr", BAD_COMPRESSED)
def test_bad_csr_raises_like_scipy_full_check(mode, message, data, indices, indptr):
    dev, _ = mode
    parts = (np.array(data), np.array(indices), np.array(indptr))

    def scipy_full_check():
        sp.csr_array(parts, shape=(2, 3)).check_format(full_check=True)

    _raises_like_scipy(lambda: rs.csr_array(tuple(dev(p) for p in parts), shape=(2, 3)), scipy_full_check, message)


@pytest.mark.parametrize("row, col", [([0, 1, 5], [0, 1, 2]), ([0, -1, 1], [0, 1, 2]), ([0, 1, 1], [0, 9, 2]),
                                      ([0, 1, 1], [0, -9, 2]), ([0, 1], [0, 1, 2])])
@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_coords_raise_like_scipy(mode, fmt, row, col):
    dev, _ = mode
    data = np.ones(3)
    r, c = np.array(row), np.array(col)
    got = _raises_like_scipy(lambda: _cls(fmt)((dev(data), (dev(r), dev(c))), shape=(2, 3)),
                             lambda: sp.coo_array((data, (r, c)), shape=(2, 3)))
    with pytest.raises(ValueError) as expected:
        sp.coo_array((data, (r, c)), shape=(2, 3))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("build", [
    lambda dev: rs.csr_array((dev(np.ones(3, np.float16)), dev(np.array([0, 1, 2])), dev(np.array([0, 3]))),
                             shape=(1, 3), dtype=np.float16),
    lambda dev: rs.csr_array((2, 3), dtype=object),
    lambda dev: rs.csr_array(dev(np.eye(2)), dtype="float16"),
    lambda dev: rs.csr_array((-2, 3)),
    lambda dev: rs.csr_array(dev(np.ones((2, 3))), shape=(3, 3)),
    lambda dev: rs.csr_array(dev(np.ones((2, 3, 4)))),
    lambda dev: rs.csr_array(dev(np.ones(3))),
    lambda dev: rs.coo_array(3.0),
    lambda dev: rs.csr_array((dev(np.ones((3, 1))), dev(np.array([0, 1, 2])), dev(np.array([0, 3]))), shape=(1, 3)),
    lambda dev: rs.csr_array((dev(np.ones(3)), dev(np.array([0, 1, 2])), dev(np.array([0, 3])), 4), shape=(1, 3)),
    lambda dev: rs.coo_array((dev(np.ones(0)), (dev(np.zeros(0, int)), dev(np.zeros(0, int))))),
])
def test_bad_input_is_value_error(mode, build):
    dev, _ = mode
    with pytest.raises(ValueError):
        build(dev)


def test_float_shape_is_type_error(mode):
    with pytest.raises(TypeError):
        rs.csr_array((np.ones(1), np.zeros(1, int), np.array([0, 1])), shape=(1.5, 3))


def test_len_bool_and_repr_like_scipy(mode, rng):
    dev, _ = mode
    s = _random_sp(rng, 4, 5, 0.4)
    for fmt in FORMATS:
        for kind in KINDS:
            ref = _sp_cls(fmt, kind)(s)
            ours = _cls(fmt, kind)(s)
            assert repr(ours) == repr(ref)
            with pytest.raises(TypeError, match="sparse array length is ambiguous"):
                len(ours)
            with pytest.raises(ValueError, match="truth value"):
                bool(ours)
            assert ours.ndim == 2 and ours.size == ref.size and ours.format == fmt
    assert bool(rs.csr_array(dev(np.ones((1, 1)))))
    assert not bool(rs.csr_array((1, 1)))


# ---- the checks switch -------------------------------------------------------------------------------

def _out_of_range(dev):
    return rs.csr_array((dev(np.ones(2)), dev(np.array([0, 7])), dev(np.array([0, 2]))), shape=(1, 3))


def test_sparse_checks_switch(mode, monkeypatch):
    dev, _ = mode
    with pytest.raises(ValueError):
        _out_of_range(dev)
    with ra.config.sparse_checks(False):
        a = _out_of_range(dev)
        assert not a.has_sorted_indices and not a.has_canonical_format
        rs.coo_array((dev(np.ones(1)), (dev(np.array([9])), dev(np.array([0])))), shape=(2, 2))
    with pytest.raises(ValueError):
        _out_of_range(dev)
    monkeypatch.setenv("ROCARRAY_SPARSE_CHECKS", "0")
    assert not ra.config.sparse_checks_enabled()
    _out_of_range(dev)
    with ra.config.sparse_checks(True):
        with pytest.raises(ValueError):
            _out_of_range(dev)
    monkeypatch.setenv("ROCARRAY_SPARSE_CHECKS", "1")
    assert ra.config.sparse_checks_enabled()


def test_sparse_checks_plain_call_and_bad_argument():
    before = ra.config.sparse_checks_enabled()
    state = ra.config.sparse_checks(not before)
    try:
        assert ra.config.sparse_checks_enabled() == (not before)
        assert "sparse_checks" in repr(state)
    finally:
        state.__exit__(None, None, None)
    assert ra.config.sparse_checks_enabled() == before
    with pytest.raises(TypeError):
        ra.config.sparse_checks("no")


def test_unchecked_construction_reads_nothing(host_mode, monkeypatch):
    # with checks off no check kernel runs and no scalar is read back
    def fail(*args):
        raise AssertionError("checked with checks off")

    monkeypatch.setattr(rocsparse, "check_matrix_csr", fail)
    monkeypatch.setattr(rocsparse, "check_matrix_coo", fail)
    with ra.config.sparse_checks(False):
        rs.csr_array((np.ones(2), np.array([0, 1]), np.array([0, 2])), shape=(1, 3))
        rs.coo_array((np.ones(2), (np.array([0, 0]), np.array([0, 1]))), shape=(1, 3))


# ---- conversions and methods ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("src", FORMATS)
def test_conversions_match_scipy(mode, rng, src, dtype):
    dev, host = mode
    s = _random_sp(rng, 40, 30, 0.1, dtype, fmt=src, unsorted=True, duplicates=True)
    a = _ours(dev, s)
    dense = s.toarray()
    for dst in FORMATS:
        b = getattr(a, "to" + dst)()
        assert b.format == dst and b.dtype == s.dtype and type(b) is _cls(dst)
        _close(_dense(b, host), dense)
        assert b.asformat(src).format == src
    c = a.tocsr()
    assert c.has_canonical_format or src == "csr"
    _close(np.asarray(host(a.toarray(order="F"))), dense)
    assert a.toarray(order="F").flags.f_contiguous  # on the device: a device-to-host copy is C order
    out = dev(np.full(s.shape, 7, dtype))
    assert a.toarray(out=out) is out
    _close(np.asarray(host(out)), dense)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_transpose_conj_astype_copy(mode, rng, fmt, kind):
    dev, host = mode
    s = _random_sp(rng, 17, 23, 0.2, "complex128", fmt=fmt, kind=kind)
    a = _ours(dev, s)
    t = a.T
    assert t.shape == (23, 17) and t.format == {"csr": "csc", "csc": "csr", "coo": "coo"}[fmt]
    assert type(t) is _cls(t.format, kind)
    _close(_dense(t, host), s.toarray().T)
    _close(_dense(a.transpose(copy=True), host), s.toarray().T)
    with pytest.raises(ValueError, match="axes"):
        a.transpose(axes=(0, 1))
    _close(_dense(a.conj(), host), s.toarray().conj())
    _close(_dense(a.conjugate(), host), s.toarray().conj())
    _close(_dense(a.real, host), s.toarray().real)
    _close(_dense(a.imag, host), s.toarray().imag)
    f = a.astype(np.complex64)
    assert f.dtype == np.complex64 and type(f) is type(a)
    assert a.astype(a.dtype, copy=False) is a
    with pytest.raises(ValueError):
        a.astype(np.float16)
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        a.astype(np.float64, casting="same_kind")  # complex to real, as SciPy's (NumPy's) check
    assert a.astype(np.complex64, casting="same_kind").dtype == np.complex64
    c = a.copy()
    assert c.data is not a.data and type(c) is type(a)
    _close(_dense(c, host), s.toarray())
    assert a.asformat(None) is a and a.asformat(fmt) is a
    with pytest.raises(ValueError, match="Format lil is unknown"):
        a.asformat("lil")
    g = a.get()
    assert type(g) is _sp_cls(fmt, kind)
    _close(g.toarray(), s.toarray())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_in_place_canonicalization_matches_scipy(mode, rng, fmt, dtype):
    dev, host = mode
    s = _random_sp(rng, 40, 30, 0.1, dtype, fmt="coo", unsorted=True, duplicates=True)
    s.data[rng.random(s.nnz) < 0.3] = 0
    a = _ours(dev, s.asformat(fmt) if fmt != "coo" else s)
    ref = s.asformat(fmt) if fmt != "coo" else s.copy()
    if fmt != "coo":
        ref = _sp_cls(fmt)((ref.data, ref.indices, ref.indptr), shape=ref.shape, copy=True)
        srt = a.sorted_indices()
        assert srt.has_sorted_indices and srt is not a
        _close(_dense(srt, host), ref.toarray())
    a.sort_indices()
    a.sum_duplicates()
    ref.sum_duplicates()
    assert a.has_canonical_format and a.nnz == ref.nnz
    if fmt != "coo":
        np.testing.assert_array_equal(np.asarray(host(a.indices)), ref.indices)
        np.testing.assert_array_equal(np.asarray(host(a.indptr)), ref.indptr)
    a.eliminate_zeros()
    ref.eliminate_zeros()
    assert a.nnz == ref.nnz
    _close(_dense(a, host), ref.toarray())


# ---- every shape and structure -------------------------------------------------------------------------

@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
@pytest.mark.parametrize("m, n, density, kind", SHAPES)
def test_every_shape_round_trips_and_multiplies(mode, rng, m, n, density, kind, dtype, idx):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype, unsorted=True, duplicates=True)
    ref = sp.coo_array((data, (row, col)), shape=(m, n)).tocsr()
    a = rs.coo_array((dev(data), (dev(row.astype(idx)), dev(col.astype(idx)))), shape=(m, n))
    csr, csc = a.tocsr(), a.tocsc()
    assert csr.nnz == csc.nnz == ref.nnz and csr.has_canonical_format and csc.has_canonical_format
    np.testing.assert_array_equal(np.asarray(host(csr.indptr)), ref.indptr)
    np.testing.assert_array_equal(np.asarray(host(csr.indices)), ref.indices)
    _close(host(csr.data), ref.data)
    back = csc.tocsr()
    np.testing.assert_array_equal(np.asarray(host(back.indices)), ref.indices)
    if (m, n, density, kind) in DENSE_SHAPES:
        _close(_dense(csc, host), ref.toarray())
        _close(_dense(a, host), ref.toarray())
    x, xt = _operand(rng, n, dtype), _operand(rng, m, dtype)
    for ours in (csr, csc):
        _close(host(ours @ dev(x)), ref @ x)
        _close(host(dev(xt) @ ours), xt @ ref)


# ---- products -------------------------------------------------------------------------------------------

def _operand(rng, shape, dtype, order="C"):
    dtype = np.dtype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if dtype.kind in "iub":
        x = rng.integers(0, 3, shape)
    return np.asarray(x.astype(dtype), order=order)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_products_with_dense_match_scipy(mode, rng, fmt, kind, dtype):
    dev, host = mode
    s = _random_sp(rng, 37, 29, 0.15, dtype, fmt=fmt, kind=kind)
    a = _ours(dev, s)
    x, xt = _operand(rng, 29, dtype), _operand(rng, 37, dtype)
    X, XT = _operand(rng, (29, 5), dtype, "F"), _operand(rng, (4, 37), dtype)
    _close(host(a @ dev(x)), s @ x)
    _close(host(a.dot(dev(x))), s.dot(x))
    _close(host(a @ dev(X)), s @ X)
    _close(host(a @ dev(x.reshape(-1, 1))), s @ x.reshape(-1, 1))
    _close(host(dev(xt) @ a), xt @ s)
    _close(host(dev(XT) @ a), XT @ s)
    _close(host(a.T @ dev(xt)), s.T @ xt)
    _close(host(a.T @ dev(XT.T)), s.T @ XT.T)
    if kind == "matrix":
        _close(host(a * dev(x)), s * x)
        _close(host(dev(XT) * a), XT * s)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("other", FORMATS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sparse_products_match_scipy(mode, rng, fmt, other, dtype):
    dev, host = mode
    s = _random_sp(rng, 30, 20, 0.2, dtype, fmt=fmt)
    t = _random_sp(rng, 20, 25, 0.2, "float32", fmt=other)
    c = _ours(dev, s) @ _ours(dev, t)
    ref = s @ t
    assert c.format == "csr" and c.shape == (30, 25) and c.dtype == ref.dtype and c.has_canonical_format
    _close(_dense(c, host), ref.toarray())


@pytest.mark.parametrize("adtype, xdtype", [("float32", "float64"), ("float32", "complex128"), ("int8", "int8"),
                                            ("bool", "bool"), ("int32", "float32"), ("complex64", "float64"),
                                            ("uint16", "int8")])
def test_product_dtypes_follow_scipy(mode, rng, adtype, xdtype):
    dev, host = mode
    s = _random_sp(rng, 12, 9, 0.3, adtype)
    x, X = _operand(rng, 9, xdtype), _operand(rng, (9, 3), xdtype)
    a = _ours(dev, s)
    for got, ref in ((a @ dev(x), s @ x), (a @ dev(X), s @ X), (a @ _ours(dev, sp.csr_array(X)), s @ sp.csr_array(X))):
        assert got.dtype == ref.dtype
        _close(host(got.toarray() if rs.issparse(got) else got), ref.toarray() if sp.issparse(ref) else ref)


def test_product_errors_like_scipy(mode, rng):
    dev, _ = mode
    s = _random_sp(rng, 4, 3, 0.5)
    a = _ours(dev, s)
    for bad in (dev(np.ones(4)), dev(np.ones((4, 2)))):
        _raises_like_scipy(lambda: a @ bad, lambda: s @ np.ones(bad.shape), "dimension mismatch")
    _raises_like_scipy(lambda: a @ _ours(dev, s), lambda: s @ s, "dimension mismatch")
    _raises_like_scipy(lambda: a @ 2, lambda: s @ 2, "Scalar operands")
    _raises_like_scipy(lambda: a @ dev(np.ones((3, 1, 2))), lambda: s @ np.ones((3, 1, 2)))
    _raises_like_scipy(lambda: dev(np.ones(3)) @ a, lambda: np.ones(3) @ s, "dimension mismatch")


@pytest.mark.gpu
def test_host_operands_are_type_errors(rng):
    a = rs.csr_array(np.eye(3))
    with pytest.raises(TypeError):
        a @ np.ones(3)


# ---- CPU: dispatch, transpose trick, analysis cache, delegations -----------------------------------------

def test_csc_and_transposed_products_use_trans_flags(host_mode, monkeypatch, rng):
    def no_conversion(*args):
        raise AssertionError("converted for a product")

    s = _random_sp(rng, 8, 6, 0.4)
    a, c = rs.csr_array(s), rs.csc_array(s)
    monkeypatch.setattr(rocsparse, "csr2csc", no_conversion)
    x6, x8 = np.ones(6), np.ones(8)
    cases = [(lambda: a @ x6, "csrmv", "N"), (lambda: a.T @ x8, "csrmv", "T"), (lambda: x8 @ a, "csrmv", "T"),
             (lambda: c @ x6, "csrmv", "T"), (lambda: c.T @ x8, "csrmv", "N"), (lambda: x8 @ c, "csrmv", "N"),
             (lambda: a @ np.ones((6, 2)), "csrmm", "N"), (lambda: c @ np.ones((6, 2)), "csrmm", "T"),
             (lambda: np.ones((2, 8)) @ a, "csrmm", "T")]
    for product, routine, trans in cases:
        host_mode.calls.clear()
        product()
        assert [c[:2] for c in host_mode.calls if c[0] != "csrmv_analysis"] == [(routine, trans)]


def test_spmv_analysis_is_cached_and_dropped(host_mode, rng):
    row, col, data = triplets(rng, 8, 6, 0.4, unsorted=True, duplicates=True)
    a = rs.csr_array(csr_parts(row, col, data, 8)[::-1], shape=(8, 6))
    assert not a.has_canonical_format

    def analyses():
        return [c for c in host_mode.calls if c[0] == "csrmv_analysis"]

    a @ np.ones(6)
    a @ np.ones((6, 3))
    assert len(analyses()) == 1
    first = [c[2] for c in host_mode.calls if c[0] == "csrmv"][0]
    assert first is not None and (first.m, first.n) == (8, 6)
    a.sum_duplicates()
    a @ np.ones(6)
    assert len(analyses()) == 2
    a.indices = a.indices.copy()
    a @ np.ones(6)
    assert len(analyses()) == 3
    a.T @ np.ones(8)                          # the transpose shares the stored parts and their analysis
    a.T @ np.ones(8)
    assert len(analyses()) == 3
    a.T.sum_duplicates()                      # a structure change of the view leaves a's analysis alone
    a @ np.ones(6)
    assert len(analyses()) == 3
    at = a.transpose(copy=True)               # a copy analyses its own arrays
    at @ np.ones(8)
    assert len(analyses()) == 4


def test_products_upcast_operands_before_the_library(host_mode, rng):
    a = rs.csr_array(_random_sp(rng, 5, 4, 0.5, "float32"))
    y = a @ np.ones(4, np.complex128)
    assert y.dtype == np.complex128
    assert host_mode.calls[-1][3:] == (np.complex128, np.complex128)
    b = rs.csr_array(_random_sp(rng, 5, 4, 0.5, "int8"))
    assert (b @ np.ones(4, np.int8)).dtype == np.int8
    assert host_mode.calls[-1][3:] == (np.float64, np.float64)


def _recorder(log, name):
    def record(*args, **kwargs):
        log.append(name)
        return name
    return record


def test_operators_delegate(host_mode, monkeypatch, rng):
    log = []
    for mod, names in ((_arith, ("add", "subtract", "rsubtract", "multiply", "divide", "negative")),
                       (_reduce, ("sum", "mean", "max", "min", "diagonal", "count_nonzero")),
                       (_index, ("getitem",))):
        for name in names:
            monkeypatch.setattr(mod, name, _recorder(log, name))
    s = _random_sp(rng, 3, 3, 0.5)
    arr, mat = rs.csr_array(s), rs.csr_matrix(s)
    cases = [(lambda: arr + 1, "add"), (lambda: 1 + arr, "add"), (lambda: arr - arr, "subtract"),
             (lambda: 2 - arr, "rsubtract"), (lambda: arr.multiply(arr), "multiply"), (lambda: arr * arr, "multiply"),
             (lambda: arr * 2, "multiply"), (lambda: 2 * arr, "multiply"), (lambda: mat * 2, "multiply"),
             (lambda: 2 * mat, "multiply"), (lambda: arr.dot(2), "multiply"), (lambda: arr / 2, "divide"),
             (lambda: -arr, "negative"), (lambda: arr.sum(axis=0), "sum"), (lambda: arr.mean(), "mean"),
             (lambda: arr.max(), "max"), (lambda: arr.min(axis=1), "min"), (lambda: arr.diagonal(1), "diagonal"),
             (lambda: arr.count_nonzero(), "count_nonzero"), (lambda: arr[0, 1], "getitem")]
    for call, name in cases:
        log.clear()
        assert call() == name and log == [name]
    with pytest.raises(ValueError, match="out"):
        arr.max(out=np.zeros(1))
    host_mode.calls.clear()
    mat * mat                                  # matrix '*' is the product
    assert host_mode.calls and host_mode.calls[-1][0] == "csrgemm"


def test_predicates_and_kinds(host_mode):
    arr, mat = rs.csr_array(np.eye(2)), rs.csr_matrix(np.eye(2))
    assert rs.issparse(arr) and rs.issparse(mat) and not rs.issparse(np.eye(2))
    assert isinstance(arr, rs.sparray) and not isinstance(arr, rs.spmatrix)
    assert isinstance(mat, rs.spmatrix) and not isinstance(mat, rs.sparray)
    assert rs.isspmatrix(mat) and not rs.isspmatrix(arr)
    assert rs.isspmatrix_csr(mat) and not rs.isspmatrix_csr(arr) and not rs.isspmatrix_csc(mat)
    assert rs.isspmatrix_csc(mat.tocsc()) and rs.isspmatrix_coo(mat.tocoo())
    assert type(mat.T) is rs.csc_matrix and type(arr.tocoo()) is rs.coo_array
    for cls in (rs.csr_array, rs.csc_array, rs.csr_matrix, rs.csc_matrix):
        x = cls._from_parts(np.ones(1), np.zeros(1, np.int32), np.array([0, 1, 1], np.int32), (2, 2), canonical=True)
        assert type(x) is cls and x.has_canonical_format and x.nnz == 1
    for cls in (rs.coo_array, rs.coo_matrix):
        x = cls._from_parts(np.ones(1), np.zeros(1, np.int32), np.zeros(1, np.int32), (2, 2))
        assert type(x)._from_parts is not None and type(x) is cls and not x.has_canonical_format
