"""``ra_fft_layout``: the launch layout of the Stockham kernels, passed by value.

One Stockham launch's layout (length, radices, batch sizes, strides, twiddle split) travels as a
single kernel argument of type ``ra_fft_layout`` (``rocfft/stockham.hip``). The host builds it when
a schedule is built, as a size-one NumPy array of :data:`LAYOUT`, and hands it to the launch as a
fixed argument (:class:`rocarray._core.launch.Launch`): a size-one array, never a ``numpy.void``
scalar, because CuPy's own kernel call (the launch path of stand-in kernels) copies a scalar into
a fixed 64-byte buffer and the layout is larger.

:data:`LAYOUT_FIELDS` is the one description of the fields. ``stockham.hip`` asserts the size and
every field offset (checked by NVRTC and hipcc in the compile matrix); CPU tests compare the
declaration order and the offsets (through the host compiler) with this dtype.
"""

import numpy

#: ``ra_fft_layout`` field by field: name and NumPy type, in declaration order (8-byte fields
#: first, so the natural C layout has no padding).
LAYOUT_FIELDS = (
    ("radices", "<u8"), ("batch", "<i8"), ("first_batch", "<i8"), ("d0", "<i8"), ("d1", "<i8"),
    ("is0", "<i8"), ("is1", "<i8"), ("is2", "<i8"), ("isn", "<i8"),
    ("os0", "<i8"), ("os1", "<i8"), ("os2", "<i8"), ("osn", "<i8"),
    ("tw_n", "<i8"), ("tw_split", "<i8"),
    ("n", "<i4"), ("passes", "<i4"), ("per_block", "<i4"), ("tw_dim", "<i4"),
)
#: The structured dtype (C alignment rules: every field at a multiple of its size).
LAYOUT = numpy.dtype([(name, fmt) for name, fmt in LAYOUT_FIELDS], align=True)
#: ``sizeof(ra_fft_layout)``, asserted in ``stockham.hip``.
LAYOUT_BYTES = 136

if LAYOUT.itemsize != LAYOUT_BYTES:  # pragma: no cover (an edit of LAYOUT_FIELDS)
    raise ImportError(f"LAYOUT is {LAYOUT.itemsize} bytes, ra_fft_layout {LAYOUT_BYTES}")


def layout(**values):
    """A size-one ``LAYOUT`` array with every field set (a missing or unknown field raises
    ``ValueError``, a value its field cannot hold ``OverflowError``)."""
    if set(values) != set(LAYOUT.names):
        missing = sorted(set(LAYOUT.names) - set(values))
        extra = sorted(set(values) - set(LAYOUT.names))
        raise ValueError(f"layout fields: missing {missing}, unknown {extra}")
    out = numpy.zeros(1, LAYOUT)
    for name, value in values.items():
        out[name] = int(value)
        if int(out[name][0]) != int(value):
            raise OverflowError(f"layout field {name} = {value} does not fit {LAYOUT[name]}")
    return out
