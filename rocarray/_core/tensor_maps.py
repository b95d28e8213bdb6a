"""Encoding TMA tensor maps (NVIDIA sm_90+) through the driver, shared by the kernels fed by the
tensor memory accelerator (rocblas's warpgroup gemm, miopen's warpgroup convolution).

A tensor map (the driver's ``CUtensorMap``, 128 opaque bytes) tells the tensor memory accelerator
how to copy a box of a strided array into shared memory. The driver builds it
(``cuTensorMapEncodeTiled``, CUDA driver API 12.0+); CuPy does not wrap that entry point, so it is
called through ``ctypes`` on the driver library CuPy already loaded. A kernel takes the map by
value (``__grid_constant__``): :func:`encode_tiled` returns it as a size-one NumPy array of
:data:`TENSOR_MAP` (128 bytes), the form CuPy passes by value. Every map here has 128-byte
swizzling and zero fill outside the array.
"""

import ctypes
import threading

import numpy

from rocarray._core import driver

#: The NumPy twin of ``ra_tensor_map`` (``CUtensorMap``: 16 64-bit words).
TENSOR_MAP = numpy.dtype([("words", "<u8", (16,))])

# CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
# CUtensorMapFloatOOBfill (cuda.h, CUDA 12): the values used here.
_DATA_UINT16 = 1
_DATA_UINT32 = 2
#: Data type of the map by element size in bytes (the copies move raw bits).
_DATA_BY_ITEMSIZE = {2: _DATA_UINT16, 4: _DATA_UINT32}
_INTERLEAVE_NONE = 0
_SWIZZLE_128B = 3
_L2_PROMOTION_256B = 3
_OOB_FILL_ZERO = 0

_lock = threading.Lock()  # guards _cache
#: Encoded maps by description, a bounded memo (oldest dropped first) outside the plan cache:
#: a map holds an address, which plans leave to the call, and repeated calls reuse their buffers.
#: A map holds only an address and a geometry, so it stays valid for any buffer later allocated
#: at that address.
_cache = {}
CACHE_SIZE = 256


class TensorMapError(RuntimeError):
    """The driver refused to encode a tensor map (the caller falls back to another kernel)."""


_ENCODE_ARGS = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)


def _encoder():
    return driver.cuda_entry("cuTensorMapEncodeTiled", _ENCODE_ARGS)


def cached(key):
    """The map remembered under ``key`` by :func:`encode_tiled`, or None."""
    return _cache.get(key)


def tiled(key, address, itemsize, dims, strides, box):
    """The map remembered under ``key``, else :func:`encode_tiled`'s (remembered from then on)."""
    hit = _cache.get(key)
    return hit if hit is not None else encode_tiled(key, address, itemsize, dims, strides, box)


def encode_tiled(key, address, itemsize, dims, strides, box):
    """Encodes the tiled-mode map of an array at ``address`` and remembers it under ``key``.

    Parameters
    ----------
    key : hashable
        The description the caller looks the map up by (:func:`cached`).
    address : int
        Device address of the array's first element (16-byte aligned).
    itemsize : int
        Bytes per element: 2 or 4.
    dims : tuple of int
        Extent of each dimension in elements, contiguous first (rank 1 to 5).
    strides : tuple of int
        Strides in bytes of dimensions 1 .. rank - 1 (positive multiples of 16).
    box : tuple of int
        Elements of one copy along each dimension (the contiguous edge at most 128 bytes).

    Returns
    -------
    numpy.ndarray
        A size-one :data:`TENSOR_MAP` array.

    Raises
    ------
    TensorMapError
        When a stride is not a positive multiple of 16 bytes, the driver refuses the description or
        has no tensor maps.
    """
    if any(v <= 0 or v % 16 for v in strides):
        raise TensorMapError(f"tensor map strides {strides} are not positive multiples of 16 bytes")
    try:
        encoder = _encoder()
    except (OSError, AttributeError) as exc:  # no CUDA driver, or one older than 12.0
        raise TensorMapError(f"the CUDA driver cannot encode tensor maps ({exc})") from None
    rank = len(dims)
    out = numpy.zeros(1, TENSOR_MAP)
    rc = encoder(out.ctypes.data, _DATA_BY_ITEMSIZE[int(itemsize)], rank, ctypes.c_void_p(int(address)),
                    (ctypes.c_uint64 * rank)(*dims), (ctypes.c_uint64 * (rank - 1))(*strides),
                    (ctypes.c_uint32 * rank)(*box), (ctypes.c_uint32 * rank)(*([1] * rank)), _INTERLEAVE_NONE,
                    _SWIZZLE_128B, _L2_PROMOTION_256B, _OOB_FILL_ZERO)
    if rc != 0:
        raise TensorMapError(f"cuTensorMapEncodeTiled returned {rc} for dims {dims}, strides {strides}, box {box}")
    with _lock:
        if len(_cache) >= CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = out
    return out
