"""TMA tensor maps (NVIDIA sm_90+) for the warpgroup gemm kernel (``rocblas/gemm_wgmma.hip``).

A tensor map (the driver's ``CUtensorMap``, 128 opaque bytes) tells the tensor memory accelerator
how to copy a box of a strided array into shared memory. The driver builds it
(``cuTensorMapEncodeTiled``, CUDA driver API 12.0+); CuPy does not wrap that entry point, so it is
called through ``ctypes`` on the driver library CuPy already loaded. The kernel takes the map by
value (``__grid_constant__``): :func:`operand_map` returns it as a size-one NumPy array of
:data:`TENSOR_MAP` (128 bytes), the form CuPy passes by value.

One map describes one gemm operand of 16-bit elements (or 32-bit: the float32 path's operands
or their TF32 pieces) as a 3-D array (contiguous dimension, leading dimension, batch), with 128-byte
swizzling and zero fill outside the array, which is the shared-memory layout the kernel's wgmma
descriptors read. The three-TF32 kernel copies an mn-major float32 operand whose m (or n) is a
multiple of 32 through a 4-D map instead (:func:`blocked_operand_map`): one box a tile rather
than one per 32 rows.
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
#: Bytes of the contiguous box edge: the 128-byte swizzle span.
SWIZZLE_BYTES = 128
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


def box_shape(kmajor, rows, itemsize=2):
    """``(inner, outer)`` box of one copy: one 128-byte row of k (64 two-byte or 32 four-byte
    elements, the swizzle span) x ``rows`` (k-major operand), or one 128-byte row of mn x as many
    k (mn-major operand: 64 x 64 two-byte or 32 x 32 four-byte elements, ``rows / inner`` copies
    per tile)."""
    inner = SWIZZLE_BYTES // int(itemsize)
    return (inner, int(rows)) if kmajor else (inner, inner)


def operand_geometry(kmajor, mn, k, ld, stride, batch, itemsize=2):
    """``(dims, strides in bytes)`` of one operand as a 3-D array of ``itemsize``-byte elements.

    ``dims`` = (contiguous, leading, batch): (k, mn, batch) for a k-major operand, (mn, k, batch)
    otherwise. ``strides`` are those of dimensions 1 and 2 (TMA needs multiples of 16 bytes, so
    a single matrix gets a batch stride that is one whole matrix, rounded up).
    """
    inner, outer = (k, mn) if kmajor else (mn, k)
    row = int(itemsize) * int(ld)
    if batch > 1:
        step = int(itemsize) * int(stride)
    else:
        step = -(-row * max(1, outer) // 16) * 16
    return (int(inner), int(outer), int(batch)), (row, step)


def operand_map(address, kmajor, mn, k, ld, stride, batch, rows, itemsize=2):
    """The tensor map of one gemm operand, as a size-one :data:`TENSOR_MAP` array.

    Parameters
    ----------
    address : int
        Device address of element (0, 0) of the first batch entry (16-byte aligned).
    kmajor : bool
        ``op(X)`` has k contiguous in memory.
    mn, k : int
        Rows of ``op(X)`` along m (or n) and along k (both >= 1).
    ld, stride : int
        Leading dimension and batch stride in elements (multiples of 16 bytes; ``stride`` unused
        when ``batch == 1``).
    batch : int
        Batch entries.
    rows : int
        Rows of the kernel's tile along m or n (the k-major box height).
    itemsize : int
        Bytes per element: 2 (float16, bfloat16) or 4 (the float32 path's operands or pieces).

    Raises
    ------
    TensorMapError
        When the driver refuses the description (the caller takes another kernel).
    """
    key = (int(address), bool(kmajor), int(mn), int(k), int(ld), int(stride) if batch > 1 else 0, int(batch),
           int(rows), int(itemsize))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    dims, strides = operand_geometry(kmajor, mn, k, ld, stride, batch, itemsize)
    box = box_shape(kmajor, rows, itemsize) + (1,)
    return _encoded(key, address, itemsize, dims, strides, box)


def blocked_geometry(mn, k, ld, stride, batch, rows):
    """``(dims, strides in bytes, box)`` of an mn-major float32 operand as a 4-D array
    (32 mn, k, mn / 32, batch), ``mn`` a multiple of 32: one box of 32 x 32 x ``rows / 32`` is
    the ``rows`` x 32 tile the 3-D map of :func:`operand_map` copies as ``rows / 32`` boxes, in the
    same layout (block h of 32 mn at 4 KiB h)."""
    (_, _, batch), (row, step) = operand_geometry(False, mn, k, ld, stride, batch, 4)
    return (32, int(k), int(mn) // 32, batch), (row, 32 * 4, step), (32, 32, int(rows) // 32, 1)


def blocked_operand_map(address, mn, k, ld, stride, batch, rows):
    """The 4-D tensor map of an mn-major float32 operand whose ``mn`` is a multiple of 32
    (:func:`blocked_geometry`), the three-TF32 kernel's one copy a tile; arguments and errors as
    :func:`operand_map`."""
    if int(mn) % 32:
        raise ValueError(f"a blocked map needs mn a multiple of 32, got {mn}")
    key = ("blocked", int(address), int(mn), int(k), int(ld), int(stride) if batch > 1 else 0, int(batch), int(rows))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    dims, strides, box = blocked_geometry(mn, k, ld, stride, batch, rows)
    return _encoded(key, address, 4, dims, strides, box)


def _encoded(key, address, itemsize, dims, strides, box):
    """Encodes the map of ``dims`` (elements, contiguous first), ``strides`` (bytes, of dimensions
    1 ..) and ``box``, and remembers it under ``key``."""
    if any(v <= 0 or v % 16 for v in strides):
        raise TensorMapError(f"tensor map strides {strides} are not positive multiples of 16 bytes")
    rank = len(dims)
    out = numpy.zeros(1, TENSOR_MAP)
    rc = _encoder()(out.ctypes.data, _DATA_BY_ITEMSIZE[int(itemsize)], rank, ctypes.c_void_p(int(address)),
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
