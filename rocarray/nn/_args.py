"""Argument rules shared by every ``rocarray.nn`` function: tensors, dtypes, layouts, per-axis
sizes. Messages follow torch's where torch has one; exception types follow NumPy's habits
(``TypeError`` for a wrong type or dtype, ``ValueError`` for a wrong value or shape)."""

import functools
import operator

import numpy

from rocarray._core import args

#: Floating dtypes every ``rocarray.nn`` function takes (bfloat16 where ``ml_dtypes`` is installed,
#: see :func:`float_dtypes`); arithmetic runs in float32 for the 16-bit types.
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
LAYOUTS = ("NCHW", "NHWC")


@functools.lru_cache(maxsize=None)
def float_dtypes():
    """The floating dtypes this installation can hold on the device (looked up once: every call
    of an ``rocarray.nn`` function checks its dtype against them)."""
    found = [numpy.dtype(numpy.float16), numpy.dtype(numpy.float32), numpy.dtype(numpy.float64)]
    try:
        import ml_dtypes
    except ImportError:
        return tuple(found)
    return (found[0], numpy.dtype(ml_dtypes.bfloat16), *found[1:])


def tensor(x, name, fn, *, dtypes=None, ndim=None):
    """``x`` as a device array of a supported floating dtype (and one of the ``ndim`` values when
    given), else ``TypeError``/``ValueError`` naming ``fn`` and ``name``."""
    x = args.as_device_array(x, name)
    allowed = float_dtypes() if dtypes is None else tuple(numpy.dtype(d) for d in dtypes)
    if x.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"{fn}: '{name}' has dtype {x.dtype.name}; supported: {names}")
    if ndim is not None and x.ndim not in ((ndim,) if isinstance(ndim, int) else tuple(ndim)):
        raise ValueError(f"{fn}: '{name}' must have {ndim} dimensions, got shape {tuple(x.shape)}")
    return x


def same_dtype(fn, **tensors):
    """``TypeError`` unless every given tensor (None skipped) has one dtype."""
    given = {name: t.dtype for name, t in tensors.items() if t is not None}
    if len(set(given.values())) > 1:
        listed = ", ".join(f"'{name}' {dt.name}" for name, dt in given.items())
        raise TypeError(f"{fn}: tensors must share one dtype; got {listed}")


def layout(value, fn):
    """``'NCHW'`` or ``'NHWC'`` (the names stand for channels first/last at any number of spatial
    axes; ``'NCL'``/``'NCDHW'`` and ``'NLC'``/``'NDHWC'`` are accepted as their synonyms)."""
    synonyms = {"NCHW": "NCHW", "NCL": "NCHW", "NCW": "NCHW", "NCDHW": "NCHW",
                "NHWC": "NHWC", "NLC": "NHWC", "NWC": "NHWC", "NDHWC": "NHWC"}
    if not isinstance(value, str) or value.upper() not in synonyms:
        raise ValueError(f"{fn}: layout must be 'NCHW' (channels first) or 'NHWC' (channels last), got {value!r}")
    return synonyms[value.upper()]


def per_axis(value, nd, name, fn, *, minimum=0):
    """An int or a sequence of ``nd`` ints as a tuple of ``nd`` ints, each ``>= minimum``."""
    try:
        values = (operator.index(value),) * nd if not hasattr(value, "__len__") else tuple(
            operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"{fn}: '{name}' must be an int or a tuple of {nd} ints, got {value!r}") from None
    if len(values) != nd:
        raise ValueError(f"{fn}: '{name}' must be an int or a tuple of {nd} ints, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{fn}: '{name}' must be >= {minimum}, got {value!r}")
    return values


def channel_axis(layout_name, ndim):
    """The channel axis of an ``ndim``-D tensor in ``layout_name`` (1 first, last otherwise)."""
    return 1 if layout_name == "NCHW" else ndim - 1
