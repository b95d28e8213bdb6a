"""The argument checks and tables shared by the rocBLAS routines (``rocblas/_arguments.py``)."""

import numpy as np
import pytest

from conftest import fake
from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray.rocblas import _arguments

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

WITH_HALF = ["float16", "float32", "float64", "complex64", "complex128"]


def test_gemm_transpose_options():
    assert _arguments.option("n", "transA", "gemm") == "N"
    assert _arguments.option("c", "transB", "gemm") == "C"
    for value, name in [("X", "transA"), ("", "transB"), ("H", "transB"), (None, "transA"), (1, "transB")]:
        with pytest.raises(ValueError, match=f"rocblas.gemm: {name} must be one of 'N', 'T', 'C'"):
            _arguments.option(value, name, "gemm")


def test_level2_options():
    assert _arguments.option("n", "trans", "gemv") == "N"
    assert _arguments.option("C", "transA", "trsv") == "C"
    assert _arguments.option("l", "uplo", "symv") == "L"
    for value, name in [("X", "trans"), ("", "transA"), ("upper", "uplo"), (1, "diag"), (None, "uplo")]:
        with pytest.raises(ValueError, match=f"rocblas.f: {name} must be one of"):
            _arguments.option(value, name, "f")


def test_side_uplo_diag_options():
    assert _arguments.option("l", "side", "trsm") == "L"
    assert _arguments.option("u", "uplo", "trsm") == "U"
    assert _arguments.option("n", "diag", "trsm") == "N"
    for value, name, allowed in [("X", "side", "'L', 'R'"), ("N", "uplo", "'U', 'L'"), ("T", "diag", "'N', 'U'"),
                                 (None, "side", "'L', 'R'"), (1, "uplo", "'U', 'L'")]:
        with pytest.raises(ValueError, match=f"rocblas.trsm: {name} must be one of {allowed}"):
            _arguments.option(value, name, "trsm")


def test_scalar_arguments_match_kernel_types():
    assert type(_arguments.scalar_arg(2, np.float16)) is np.float32
    assert type(_arguments.scalar_arg(2, np.float32)) is np.float32
    assert type(_arguments.scalar_arg(2, np.float64)) is np.float64
    assert type(_arguments.scalar_arg(1j, np.complex64)) is np.complex64
    assert type(_arguments.scalar_arg(1j, np.complex128)) is np.complex128
    assert type(_arguments.scalar_arg(2.0, np.complex64, real=True)) is np.float32
    assert type(_arguments.scalar_arg(2.0, np.complex128, real=True)) is np.float64


def blas_index(n, inc):
    """Buffer positions of BLAS elements 0..n-1 (a negative inc walks from the far end)."""
    i = np.arange(max(n, 0))
    return i * inc if inc >= 0 else (n - 1 - i) * (-inc)


@needs_cupy
@pytest.mark.parametrize("layout", ["plain", "offset", "view2", "reversed", "view3r"])
@pytest.mark.parametrize("inc", [1, 2, 3, -1, -2, 0])
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_vector_addresses_follow_blas_and_view_strides(dtype, inc, layout):
    """Element i of the kernel's (pointer, step) is the view's element blas_index(n, inc)[i]."""
    dtype = np.dtype(dtype)
    parent = fake((200,), dtype, address=1 << 24)
    view = {"plain": parent, "offset": parent[1:], "view2": parent[1::2], "reversed": parent[::-1],
            "view3r": parent[-2::-3]}[layout]
    n = 7
    v = _arguments.vector(view, n, inc, "x", "test")
    base = view.data.ptr
    for i, k in enumerate(blas_index(n, inc)):
        assert v.address + i * v.step * dtype.itemsize == base + k * view.strides[0]
    r = v.reversed()
    for i in range(n):
        assert r.address + i * r.step * dtype.itemsize == v.address + (n - 1 - i) * v.step * dtype.itemsize
