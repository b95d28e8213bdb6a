"""The TMA tensor maps of the warpgroup kernels (``_gemm/tensor_maps.py``)."""



from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray.rocblas._gemm import tensor_maps as _tensor_maps

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


def test_tma_operand_geometry():
    # k-major A ('T', stored k x m, lda >= k): dims (k, m, batch), one box of 64 k x 128 rows
    assert _tensor_maps.operand_geometry(True, 300, 70, 72, 0, 1) == ((70, 300, 1), (144, 144 * 300))
    assert _tensor_maps.box_shape(True, 256) == (64, 256)
    # mn-major ('N', stored m x k): dims (m, k, batch); boxes of 64 x 64
    assert _tensor_maps.operand_geometry(False, 300, 70, 304, 304 * 70, 3) == ((300, 70, 3), (608, 608 * 70))
    assert _tensor_maps.box_shape(False, 128) == (64, 64)
    # one matrix: a batch stride of one whole matrix rounded up to 16 bytes
    assert _tensor_maps.operand_geometry(False, 8, 3, 8, 0, 1) == ((8, 3, 1), (16, 48))
    assert _tensor_maps.TENSOR_MAP.itemsize == 128
