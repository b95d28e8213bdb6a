"""Sparse arithmetic (:mod:`rocarray.sparse._arith`): ``+ - * /``, ``multiply``, negation.

CPU tests run the façade logic on NumPy with the contract's stand-in classes and library calls
(``sparse_standin``) and compare with SciPy: result kinds, formats, dtypes, values, explicit zeros
cleaned after ``csrgeam``, SciPy's errors for scalars and shapes, host arrays rejected. GPU tests
compare the real classes with SciPy on random canonical and messy inputs, every value dtype and
both index widths.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import sparse_standin as si
from ops_data import INDEX_DTYPES, VALUE_DTYPES, csr, dense, values

from rocarray.sparse import _arith


@pytest.fixture
def host(monkeypatch):
    si.install(monkeypatch)
    return si


def _close(x, y, dtype="float64"):
    tol = 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(dense(x), dense(y), rtol=tol, atol=tol)


# ------------------------------------------------------------------------------------------
# CPU: logic on stand-ins
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("matrix", [False, True])
@pytest.mark.parametrize("messy", [False, True])
def test_add_subtract_sparse_match_scipy_and_drop_cancelled_zeros(host, rng, fmt, matrix, messy):
    a_s = csr(rng, 7, 5, messy=messy)
    b_s = csr(rng, 7, 5, messy=messy)
    a, b = si.from_scipy(a_s, fmt, matrix), si.from_scipy(b_s, "csr", matrix)
    for got, want in ((_arith.add(a, b), a_s + b_s), (_arith.subtract(a, b), a_s - b_s)):
        assert got.format == (fmt if fmt != "coo" else "csr")
        assert type(got).is_matrix == matrix
        assert got.has_canonical_format
        assert not np.any(got.data == 0), "cancelled entries must not be stored"
        _close(got, want)
    d = _arith.subtract(a, a)
    assert d.nnz == 0 or messy  # duplicates summed in another order may leave a rounding residue
    _close(d, np.zeros(a.shape))
    assert any(c[0] == "csrgeam" and c[4] == -1 for c in si.calls)


def test_add_promotes_dtype_and_common_index_width(host, rng):
    a = si.from_scipy(csr(rng, 6, 6, dtype="float32", index="int32"))
    b = si.from_scipy(csr(rng, 6, 6, dtype="complex128", index="int64"))
    c = _arith.add(a, b)
    assert c.dtype == np.complex128
    assert c.indptr.dtype == np.int64  # SciPy's rule: an int64 operand gives int64
    a32 = si.from_scipy(csr(rng, 6, 6, index="int32"))
    assert _arith.add(a32, a32).indptr.dtype == np.int32
    assert si.calls[-1][-1] is True  # canonical inputs: the library is told to skip sorting


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "bool"])
def test_add_integer_and_bool_through_coo_merge(host, rng, dtype):
    a_s, b_s = csr(rng, 6, 4, dtype=dtype), csr(rng, 6, 4, dtype=dtype)
    a, b = si.from_scipy(a_s), si.from_scipy(b_s)
    got = _arith.add(a, b)
    assert got.dtype == (a_s + b_s).dtype and got.format == "csr"
    np.testing.assert_array_equal(dense(got), dense(a_s + b_s))
    if dtype != "bool":
        np.testing.assert_array_equal(dense(_arith.subtract(a, b)), dense(a_s - b_s))
        assert _arith.subtract(a, a).nnz == 0
    else:
        with pytest.raises(TypeError, match="bool"):
            _arith.subtract(a, b)


def test_scalar_add_subtract_follow_scipy(host, rng):
    a_s = csr(rng, 4, 3)
    a = si.from_scipy(a_s)
    _close(_arith.add(a, 0), a_s)
    _close(_arith.subtract(a, np.float32(0)), a_s)
    _close(_arith.rsubtract(a, 0), -a_s)
    for fn, other, msg in ((_arith.add, 1, "adding a nonzero scalar to a sparse array is not supported"),
                           (_arith.subtract, 2.5, "subtracting a nonzero scalar from a sparse array"),
                           (_arith.rsubtract, 1j, "subtracting a sparse array from a nonzero scalar")):
        with pytest.raises(NotImplementedError, match=msg):
            fn(a, other)
        with pytest.raises(NotImplementedError):
            scipy_op = {"add": lambda: a_s + other, "subtract": lambda: a_s - other,
                        "rsubtract": lambda: other - a_s}[fn.__name__]
            scipy_op()


def test_dense_operands_give_dense_results(host, rng):
    a_s = csr(rng, 5, 4, messy=True)
    a = si.from_scipy(a_s)
    d = rng.standard_normal((5, 4))
    row = rng.standard_normal(4)
    col = rng.standard_normal((5, 1))
    for other in (d, row, col):
        _close(_arith.add(a, other), a_s + other)
        _close(_arith.subtract(a, other), a_s - other)
        _close(_arith.rsubtract(a, other), other - a_s)
    with pytest.raises(ValueError):
        _arith.add(a, np.ones((2, 4)))
    assert _arith.add(a, [1, 2]) is NotImplemented


@pytest.mark.parametrize("matrix", [False, True])
def test_multiply_by_scalar_keeps_format_and_numpy_dtype_rule(host, rng, matrix):
    for fmt in ("csr", "csc", "coo"):
        a_s = csr(rng, 5, 4, dtype="float32", messy=True)
        a = si.from_scipy(a_s, fmt, matrix)
        for s in (2, 2.5, np.float64(2), 1j, np.array(3.0)):
            got = _arith.multiply(a, s)
            want = a_s * s
            assert got.format == fmt and type(got).is_matrix == matrix
            assert got.dtype == want.dtype, (s, got.dtype, want.dtype)
            assert got.nnz == a.nnz  # structure kept, like SciPy
            _close(got, want, "float32")
    i8 = si.from_scipy(csr(rng, 3, 3, dtype="int8"))
    with pytest.raises(OverflowError):
        _arith.multiply(i8, 300)
    assert _arith.multiply(i8, np.int64(300)).dtype == np.int64


@pytest.mark.parametrize("messy", [False, True])
def test_multiply_sparse_and_broadcast_match_scipy(host, rng, messy):
    a_s, b_s = csr(rng, 6, 5, messy=messy), csr(rng, 6, 5, messy=messy)
    a, b = si.from_scipy(a_s), si.from_scipy(b_s, "csc")
    got = _arith.multiply(a, b)
    assert got.format == "csr" and not np.any(got.data == 0)
    _close(got, a_s.multiply(b_s))
    for shape in ((1, 5), (6, 1), (1, 1)):
        v_s = sp.csr_array(rng.standard_normal(shape))
        got = _arith.multiply(a, si.from_scipy(v_s))
        _close(got, a_s.multiply(v_s))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.multiply(a, si.from_scipy(sp.csr_array((2, 5))))
    si.calls.clear()
    for dtype in ("int32", "uint8", "bool"):
        i_s, j_s = csr(rng, 7, 6, 0.5, dtype=dtype, messy=dtype != "bool"), csr(rng, 7, 6, 0.5, dtype=dtype)
        got = _arith.multiply(si.from_scipy(i_s, "csc"), si.from_scipy(j_s))
        want = i_s.multiply(j_s)
        assert got.format == "csc" and got.dtype == want.dtype and got.has_canonical_format
        np.testing.assert_array_equal(dense(got), dense(want))
        assert not any(c[0] == "csr_multiply" for c in si.calls)


@pytest.mark.parametrize("shape", [(6, 5), (5,), (1, 5), (6, 1), (2, 6, 5)])
def test_multiply_by_dense_matches_scipy(host, rng, shape):
    a_s = csr(rng, 6, 5, messy=True)
    a = si.from_scipy(a_s)
    d = rng.standard_normal(shape)
    got = _arith.multiply(a, d)
    want = a_s.multiply(d)
    if len(shape) == 3:
        assert isinstance(got, np.ndarray) and got.shape == want.shape
    else:
        assert got.format == want.format == "coo"
        assert got.nnz == a.nnz  # explicit zeros kept, as SciPy
    _close(got, want)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.multiply(a, np.ones((4, 5)))


@pytest.mark.parametrize("sshape,dshape", [((1, 5), (3, 5)), ((1, 5), (3, 1)), ((6, 1), (6, 4)), ((6, 1), (1, 4))])
def test_multiply_sparse_vector_by_larger_dense_expands_as_scipy(host, rng, sshape, dshape):
    a_s = sp.csr_array(rng.standard_normal(sshape) * (rng.random(sshape) < 0.6))
    d = rng.standard_normal(dshape)
    got, want = _arith.multiply(si.from_scipy(a_s), d), a_s.multiply(d)
    assert got.format == "coo" and got.shape == want.shape and got.nnz == want.nnz
    _close(got, want)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.multiply(si.from_scipy(a_s), np.ones((2, 7)))


def test_scipy_operands_are_rejected(host, rng):
    a_s = csr(rng, 3, 3)
    with pytest.raises(TypeError, match="SciPy"):
        _arith.add(si.from_scipy(a_s), a_s)


def test_divide_matches_scipy(host, rng):
    a_s = csr(rng, 5, 4, dtype="float32")
    a = si.from_scipy(a_s)
    got = _arith.divide(a, 2)
    assert got.dtype == (a_s / 2).dtype == np.float64
    _close(got, a_s / 2)
    c = si.from_scipy(csr(rng, 3, 3, dtype="complex64"))
    assert _arith.divide(c, 2).dtype == np.complex64
    i_s = csr(rng, 3, 3, dtype="int32")
    assert _arith.divide(si.from_scipy(i_s), 2).dtype == (i_s / 2).dtype
    with pytest.raises(ZeroDivisionError):
        _arith.divide(a, 0)
    d = rng.standard_normal((5, 4)) + 3
    _close(_arith.divide(a, d), a_s / d)
    b_s = csr(rng, 5, 4, density=0.6)
    with np.errstate(divide="ignore", invalid="ignore"):
        got = _arith.divide(si.from_scipy(a_s), si.from_scipy(b_s))
        want = a_s / b_s
    np.testing.assert_allclose(dense(got), dense(want), rtol=1e-6, equal_nan=True)


def test_negative_and_bool(host, rng):
    a_s = csr(rng, 4, 4, messy=True)
    _close(_arith.negative(si.from_scipy(a_s)), -a_s)
    with pytest.raises(NotImplementedError, match="negating a boolean sparse array is not supported"):
        _arith.negative(si.from_scipy(csr(rng, 3, 3, dtype="bool")))


def test_shape_mismatch_is_scipys_value_error(host, rng):
    a, b = si.from_scipy(csr(rng, 3, 4)), si.from_scipy(csr(rng, 4, 3))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.add(a, b)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _arith.divide(a, b)


def test_host_arrays_are_rejected_on_the_device_path(rng):
    """Without the NumPy stand-in, a NumPy operand is a host array: TypeError before device work."""
    from rocarray.sparse import _opsutil

    with pytest.raises(TypeError, match="host"):
        _opsutil.reject_host_array(np.ones(3), "other")


# ------------------------------------------------------------------------------------------
# GPU: the real classes against SciPy
# ------------------------------------------------------------------------------------------

def _device(s, matrix=False):
    import rocarray.sparse as ras

    cls = {("csr", False): ras.csr_array, ("csc", False): ras.csc_array, ("coo", False): ras.coo_array,
           ("csr", True): ras.csr_matrix, ("csc", True): ras.csc_matrix, ("coo", True): ras.coo_matrix}
    return cls[(s.format, matrix)](s)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("messy", [False, True])
def test_gpu_add_subtract_multiply_match_scipy(rng, dtype, index, messy):
    for m, n, density in ((1, 1, 1.0), (1, 40, 0.3), (60, 45, 0.1), (300, 200, 0.01), (50, 50, 0.0)):
        a_s = csr(rng, m, n, density, dtype, index, messy)
        b_s = csr(rng, m, n, density, dtype, index, messy)
        a, b = _device(a_s), _device(b_s)
        _close(a + b, a_s + b_s, dtype)
        _close(a - b, a_s - b_s, dtype)
        _close(a.multiply(b), a_s.multiply(b_s), dtype)
        _close(a * 3, a_s * 3, dtype)
        _close(-a, -a_s, dtype)
        if not messy:
            assert (a - a).nnz == 0


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_gpu_dense_operands_and_division(rng, dtype):
    import cupy

    a_s = csr(rng, 40, 30, 0.2, dtype, messy=True)
    a = _device(a_s)
    d = values(rng, 40 * 30, dtype).reshape(40, 30)
    row = values(rng, 30, dtype)
    for other in (d, row, d[:, :1]):
        _close(a + cupy.asarray(other), a_s + other, dtype)
        _close(a - cupy.asarray(other), a_s - other, dtype)
        _close(a.multiply(cupy.asarray(other)), a_s.multiply(other), dtype)
    _close(a / 2, a_s / 2, dtype)
    b_s = csr(rng, 40, 30, 0.5, dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = dense(a_s / b_s)
    np.testing.assert_allclose(dense(a / _device(b_s)), want, rtol=1e-4, equal_nan=True)


@pytest.mark.gpu
def test_gpu_matrix_kind_and_csc_results(rng):
    a_s = csr(rng, 30, 20, 0.2, messy=True)
    a = _device(a_s, matrix=True)
    c = _device(a_s.tocsc())
    assert (a + a).format == "csr"
    assert (c + c).format == "csc"
    _close(c + _device(a_s), a_s.tocsc() + a_s)
    _close(c.multiply(c), a_s.multiply(a_s))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "bool"])
def test_gpu_integer_and_bool_add_multiply_match_scipy(rng, dtype):
    a_s, b_s = csr(rng, 50, 40, 0.2, dtype, messy=dtype != "bool"), csr(rng, 50, 40, 0.2, dtype)
    a, b = _device(a_s), _device(b_s)
    np.testing.assert_array_equal(dense(a + b), dense(a_s + b_s))
    np.testing.assert_array_equal(dense(a.multiply(b)), dense(a_s.multiply(b_s)))
    assert (a + b).dtype == (a_s + b_s).dtype
