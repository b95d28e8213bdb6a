"""The one table from NumPy dtypes to the element types kernels are instantiated with.

Kernel sources name element types by the typedefs of ``_kernels/include/ra_prelude.cuh`` and
``ra_types.cuh`` (``ra_i32``, ``ra_half``, ``ra_c64``, ...) or by C's own names (``bool``,
``float``, ``double``). A CPU test checks every entry against those headers.
"""

import numpy

_D = numpy.dtype

#: Kernel element type of each NumPy dtype rocarray's kernels take.
CTYPES = {
    _D("bool"): "bool",
    _D("int8"): "ra_i8", _D("int16"): "ra_i16", _D("int32"): "ra_i32", _D("int64"): "ra_i64",
    _D("uint8"): "ra_u8", _D("uint16"): "ra_u16", _D("uint32"): "ra_u32", _D("uint64"): "ra_u64",
    _D("float16"): "ra_half", _D("float32"): "float", _D("float64"): "double",
    _D("complex64"): "ra_c64", _D("complex128"): "ra_c128",
}

#: Kernel element type of bfloat16 data (a dtype that NumPy itself lacks: ``ml_dtypes.bfloat16``),
#: matched by name.
BFLOAT16 = "ra_bfloat16"

#: Unsigned kernel type of each element size: the type kernels that move or compare raw bits use.
UNSIGNED = {1: "ra_u8", 2: "ra_u16", 4: "ra_u32", 8: "ra_u64"}

#: Every NumPy dtype of :data:`CTYPES`, by name, in NumPy's order of kinds (bool, signed, unsigned,
#: floating, complex).
ALL_DTYPES = tuple(d.name for d in CTYPES)


def ctype(dtype):
    """The kernel element type of ``dtype`` (a NumPy dtype, type or name; bfloat16 by name).

    Raises
    ------
    TypeError
        For a dtype no kernel takes.

    Examples
    --------
    >>> ctype("float32"), ctype(numpy.int8), ctype(numpy.dtype("complex128"))
    ('float', 'ra_i8', 'ra_c128')
    """
    try:
        return CTYPES[dtype]
    except (KeyError, TypeError):
        pass
    try:
        dtype = _D(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype") from None
    if dtype.name == "bfloat16":
        return BFLOAT16
    try:
        return CTYPES[dtype]
    except KeyError:
        raise TypeError(f"no kernel element type for dtype {dtype}") from None


def real_dtype(dtype):
    """The real dtype of ``dtype`` (``complex64`` -> ``float32``; others map to themselves)."""
    dtype = _D(dtype)
    return _D(dtype.char.lower()) if dtype.kind == "c" else dtype
