"""Memory-bound operations of every library past 2^31 elements on the GPU: 64-bit indexing end
to end, checked at the elements on both sides of 2^31 and at the end, against references that
do not depend on the order of the adds (exact integer counts, closed forms, NumPy on copied rows).

Each test skips with the memory it needs when the device has less free. The other > 2^31 tests
live with their libraries: sort and argsort (``tests/numpy_api/test_sorting.py``,
``tests/prim/test_sort.py``), ``flatnonzero`` (``test_searching.py``), ``sum``/``count_nonzero``
(``test_reductions.py``), ``cumsum`` (``test_scans.py``), rocblas ``iamax``/``iamin``/``asum``/
``axpy``/``dot`` (``tests/rocblas/test_level1.py``) and ``csr2coo``
(``tests/rocsparse/test_convert.py``).
"""

import numpy as np
import pytest

from large import need

import rocarray as ra

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

EDGE = 1 << 31
N = EDGE + 4099  # past 2^31 by more than a block of any kernel
ROW = 1024
ROWS = EDGE // ROW + 1  # ROWS x ROW = 2^31 + 1024 elements; the last row starts at 2^31


def _far(rng, n=None):
    """An index past 2^31 (and below ``n``, default :data:`N`) that is not a multiple of 2, 3 or 5."""
    n = N if n is None else n
    while True:
        i = int(rng.integers(EDGE, n))
        if i % 2 and i % 3 and i % 5:
            return i


# ------------------------------------------------------------------------------------------- prim

def test_argmax_argmin_min_max_past_2_31_int8(rng):
    import cupy

    need(3 * N)
    x = cupy.zeros(N, np.int8)
    hi, lo = _far(rng), 1000
    x[hi], x[lo] = 7, -3
    assert int(ra.argmax(x)) == hi and int(ra.argmin(x)) == lo
    assert int(ra.max(x)) == 7 and int(ra.min(x)) == -3
    x[lo] = 0
    x[N - 1] = -4  # the very last element
    assert int(ra.argmin(x)) == N - 1


def test_unique_with_counts_and_index_past_2_31_int8(rng):
    import cupy

    need(4 * N)
    x = cupy.zeros(N, np.int8)
    x[::5] = 1
    far = _far(rng)
    x[far] = 3
    values, index, counts = ra.unique(x, return_index=True, return_counts=True)
    ones = len(range(0, N, 5))
    np.testing.assert_array_equal(cupy.asnumpy(values), [0, 1, 3])
    np.testing.assert_array_equal(cupy.asnumpy(counts), [N - ones - 1, ones, 1])  # a count past 2^31
    np.testing.assert_array_equal(cupy.asnumpy(index), [1, 0, far])


def test_bincount_and_histogram_past_2_31_uint8(rng):
    import cupy

    need(3 * N)
    x = cupy.zeros(N, np.uint8)
    x[::3] = 2
    far = _far(rng)
    x[far] = 200
    threes = len(range(0, N, 3))
    counts = cupy.asnumpy(ra.bincount(x))
    assert counts.shape == (201,) and counts.dtype == np.int64
    assert counts[0] == N - threes - 1 and counts[2] == threes and counts[200] == 1 and counts.sum() == N
    hist, edges = ra.histogram(x, bins=4, range=(0, 256))
    np.testing.assert_array_equal(cupy.asnumpy(hist), [N - 1, 0, 0, 1])


def test_cumsum_float32_rows_past_2_31():
    import cupy

    need(10 * ROWS * ROW)
    x = cupy.ones((ROWS, ROW), np.float32)
    x[-1, -1] = 5.0
    out = ra.cumsum(x, axis=1)
    for r in (0, ROWS // 2, ROWS - 1):  # the last row starts at 2^31
        want = np.arange(1, ROW + 1, dtype=np.float32)
        if r == ROWS - 1:
            want[-1] += 4
        np.testing.assert_array_equal(cupy.asnumpy(out[r]), want)


# ----------------------------------------------------------------------------------------- rocblas

def test_rocblas_nrm2_scal_copy_past_2_31(rng):
    import cupy

    from rocarray import rocblas

    need(9 * N)
    x = cupy.full(N, 0.5, np.float32)
    far = _far(rng)
    x[far] = 3.0
    np.testing.assert_allclose(float(rocblas.nrm2(N, x, 1)), np.sqrt(0.25 * (N - 1) + 9.0), rtol=1e-5)
    rocblas.scal(N, 2.0, x, 1)
    for i in (0, EDGE - 1, EDGE, far, N - 1):
        assert float(x[i]) == (6.0 if i == far else 1.0), i
    y = cupy.zeros(N, np.float32)
    rocblas.copy(N, x, 1, y, 1)
    for i in (EDGE - 1, EDGE, far, N - 1):
        assert float(y[i]) == float(x[i]), i


# ------------------------------------------------------------------------------------------ rocfft

def test_fft_batch_past_2_31_elements(rng):
    import cupy

    need(24 * ROWS * ROW)  # input and output complex64 (8 bytes an element each), workspace
    x = cupy.random.standard_normal((ROWS, ROW), dtype=np.float32).astype(np.complex64)
    x.imag[...] = 0.5
    out = ra.fft.fft(x, axis=1)
    for r in (0, ROWS // 2, ROWS - 1):  # the last row starts at element 2^31
        want = np.fft.fft(cupy.asnumpy(x[r]).astype(np.complex128))
        np.testing.assert_allclose(cupy.asnumpy(out[r]), want, rtol=0, atol=1e-4 * np.abs(want).max())


def test_rfft_batch_past_2_31_input_elements(rng):
    import cupy

    need(16 * ROWS * ROW)
    x = cupy.random.standard_normal((ROWS, ROW), dtype=np.float32)
    out = ra.fft.rfft(x, axis=1)
    assert out.shape == (ROWS, ROW // 2 + 1)
    for r in (0, ROWS // 2, ROWS - 1):
        want = np.fft.rfft(cupy.asnumpy(x[r]).astype(np.float64))
        np.testing.assert_allclose(cupy.asnumpy(out[r]), want, rtol=0, atol=1e-4 * np.abs(want).max())


# --------------------------------------------------------------------------------------- rocsparse

def test_spmv_with_more_than_2_31_stored_entries():
    """ROWS x 4099 CSR with ROW entries a row (2^31 + 1024 in all, int64 indices): row r holds
    columns (r * ROW + j) mod 4099; A @ x at rows on both sides of entry 2^31 against the sum
    over those columns. A size the library does not take must be a clear error, not a wrong y."""
    import cupy

    cols = 4099
    nnz = ROWS * ROW
    need(20 * nnz)  # int64 indices, float32 values, room for one copy of the indices
    indices = cupy.arange(nnz, dtype=np.int64)
    indices %= cols
    indptr = cupy.arange(ROWS + 1, dtype=np.int64) * ROW
    data = cupy.ones(nnz, np.float32)
    xh = (np.arange(cols) % 13).astype(np.float32)
    try:
        a = ra.sparse.csr_matrix((data, indices, indptr), shape=(ROWS, cols))
        y = cupy.asnumpy(a @ cupy.asarray(xh))
    except (ValueError, NotImplementedError) as exc:
        assert any(word in str(exc) for word in ("2**31", "2^31", "2147483647", "too large", "int32")), exc
        pytest.skip(f"not supported, with a clear error: {exc}")
    for r in (0, ROWS - 2, ROWS - 1):
        want = xh[(r * ROW + np.arange(ROW)) % cols].astype(np.float64).sum()
        assert float(y[r]) == want, (r, float(y[r]), want)  # integers below 2^24: exact


# ------------------------------------------------------------------------------------------ miopen

def test_softmax_and_relu_past_2_31_elements_float16(rng):
    import cupy

    need(12 * ROWS * ROW)
    x = cupy.random.standard_normal((ROWS, ROW), dtype=np.float32).astype(np.float16)
    y = ra.nn.softmax(x, dim=1)
    for r in (0, ROWS // 2, ROWS - 1):
        h = cupy.asnumpy(x[r]).astype(np.float64)
        e = np.exp(h - h.max())
        want = e / e.sum()
        np.testing.assert_allclose(cupy.asnumpy(y[r]).astype(np.float64), want, rtol=0, atol=2e-3 * want.max())
    del y
    flat = x.reshape(-1)
    r = ra.nn.relu(flat)
    for i in (0, EDGE - 1, EDGE, flat.size - 1):
        assert float(r[i]) == max(float(flat[i]), 0.0), i
