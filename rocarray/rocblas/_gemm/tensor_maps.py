"""TMA tensor maps (NVIDIA sm_90+) for the warpgroup gemm kernel (``rocblas/gemm_wgmma.hip``),
encoded by :mod:`rocarray._core.tensor_maps` (the driver's ``cuTensorMapEncodeTiled``).

One map describes one gemm operand of 16-bit elements (or 32-bit: the float32 path's operands
or their TF32 pieces) as a 3-D array (contiguous dimension, leading dimension, batch), with 128-byte
swizzling and zero fill outside the array, which is the shared-memory layout the kernel's wgmma
descriptors read. The three-TF32 kernel copies an mn-major float32 operand whose m (or n) is a
multiple of 32 through a 4-D map instead (:func:`blocked_operand_map`): one box a tile rather
than one per 32 rows.
"""

from rocarray._core.tensor_maps import TENSOR_MAP, TensorMapError, cached, encode_tiled

__all__ = ["TENSOR_MAP", "TensorMapError", "SWIZZLE_BYTES", "box_shape", "operand_geometry", "operand_map",
           "blocked_geometry", "blocked_operand_map"]

#: Bytes of the contiguous box edge: the 128-byte swizzle span.
SWIZZLE_BYTES = 128


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
    hit = cached(key)
    if hit is not None:
        return hit
    dims, strides = operand_geometry(kmajor, mn, k, ld, stride, batch, itemsize)
    box = box_shape(kmajor, rows, itemsize) + (1,)
    return encode_tiled(key, address, itemsize, dims, strides, box)


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
    hit = cached(key)
    if hit is not None:
        return hit
    dims, strides, box = blocked_geometry(mn, k, ld, stride, batch, rows)
    return encode_tiled(key, address, 4, dims, strides, box)
