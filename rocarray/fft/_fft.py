"""``numpy.fft`` transforms on rocarray's rocFFT-style kernels.

Arguments are checked and normalized here, once, in NumPy's words (:func:`normalize` is the
pure-Python part: it needs no device and is unit-tested against NumPy); the work is one call of
:func:`rocarray.rocfft.c2c`, :func:`~rocarray.rocfft.r2c` or :func:`~rocarray.rocfft.c2r`, plus
CuPy zero-padding, cropping, ``conj`` and ``astype`` around it. A 1-D call without ``out`` keeps
its normalized :class:`Call` and prepared execution as a plan in rocarray's one plan cache
(:data:`rocarray._core.plans.cache`, key ``('fft.<name>', shape, dtype, n, axis, norm)``), so a
warm call skips the normalization.

NumPy 2.x semantics, kept on purpose:

* result dtypes: complex transforms give ``result_type(a.dtype, 1j)`` (float16/float32 ->
  complex64, bool/integers -> complex128); ``rfft*`` of complex input raises ``TypeError``;
  ``irfft*``/``hfft`` give ``result_type(a.real.dtype, 1.0)`` (so float16 stays float16, computed
  in single precision);
* ``s`` given with ``axes=None`` and ``None`` entries in ``s`` warn (``DeprecationWarning``) and act
  as NumPy does; an entry of ``-1`` in ``s`` means the input's length along that axis;
* ``fftn``/``ifftn``/``fft2``/``ifft2`` over no axes return the input itself, untouched;
* repeated axes transform once per occurrence, in NumPy's order (last axis first);
* ``out=``: the result must be castable to ``out.dtype`` under ``same_kind`` and ``out`` must pass
  NumPy's per-step shape checks, including its broadcasting of size-1 input axes into ``out``. With
  an ``out`` of higher precision than the natural result the transform runs in that precision (as
  NumPy's loop selection does).

Deliberate difference: NumPy 2.4 silently ignores ``out`` in ``hfft``, ``ifft2`` and ``irfft2``;
rocarray writes the result into it (with the same checks as ``irfft``, ``ifftn`` and ``irfftn``).

Host (NumPy) arrays raise ``TypeError`` (the project rule, see :mod:`rocarray._core.args`).
"""

import math
import operator
import warnings
from typing import NamedTuple

import numpy

from rocarray import rocfft as _rocfft
from rocarray._core import backend, plans
from rocarray._core.args import as_device_array, normalize_axis

_NORMS = ("backward", "ortho", "forward")
_NORM_MESSAGE = 'Invalid norm value {}; should be "backward", "ortho" or "forward".'

_S_AXES_WARNING = (
    "`axes` should not be `None` if `s` is not `None` (deprecated in NumPy 2.0): pass the axes "
    "explicitly, e.g. axes=[0, ..., k-1] for the current behaviour (which uses the last len(s) "
    "axes). A future NumPy raises an error here."
)
_S_NONE_WARNING = (
    "`None` entries in `s` are deprecated since NumPy 2.0 and will raise an error in a future "
    "version: pass the 1-D transform's default length instead, or omit `s`."
)

# --------------------------------------------------------------------------------------------
# argument normalization (pure Python, no device)
# --------------------------------------------------------------------------------------------

def check_norm(norm):
    """Raise NumPy's ``ValueError`` for a ``norm`` other than None/"backward"/"ortho"/"forward"."""
    if norm is not None and not (isinstance(norm, str) and norm in _NORMS):
        raise ValueError(_NORM_MESSAGE.format(norm))
    return norm


def check_n(n):
    """A transform length as a positive ``int``, with NumPy's error types.

    ``n < 1`` -> ``ValueError`` ("Invalid number of FFT data points"); a non-integer (a float,
    a bool) -> ``TypeError``; a value that cannot be compared with 1 -> ``TypeError``.
    """
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if isinstance(n, (bool, numpy.bool_)):
        raise TypeError("an integer is required")
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(f"'{type(n).__name__}' object cannot be interpreted as an integer") from None


def norm_scale(norm, n, forward):
    """The factor NumPy's ``norm`` applies to a transform of ``n`` points (``n`` the product of the
    lengths for an N-D transform); ``forward`` is the direction the norm is read in."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "forward") == forward:  # forward/"forward" or inverse/"backward"/None
        return 1.0 / n
    return 1.0


def complex_result(dtype):
    """Result dtype of a complex transform of ``dtype`` input (NumPy: ``result_type(dtype, 1j)``)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "biufc":
        raise TypeError(f"FFT not supported for input dtype {dtype}")
    return numpy.result_type(dtype, 1j)


def real_result(dtype):
    """Result dtype of an inverse real transform (``irfft``/``hfft``) of ``dtype`` input."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "biufc":
        raise TypeError(f"FFT not supported for input dtype {dtype}")
    if dtype.kind == "c":
        dtype = numpy.dtype(dtype.char.lower())
    return numpy.result_type(dtype, 1.0)


def _nd_args(shape, s, axes, invreal, stacklevel):
    """NumPy's ``s``/``axes`` rules: returns ``(sizes, axes)`` with axes normalized (repeats
    kept) and sizes a list of int or None (None: the 1-D transform's default)."""
    ndim = len(shape)
    if axes is not None:
        axes = [normalize_axis(ax, ndim) for ax in _as_list(axes, "axes")]
    if s is None:
        if axes is None:
            axes = list(range(ndim))
        sizes = [shape[ax] for ax in axes]
        if invreal and axes:
            sizes[-1] = (shape[axes[-1]] - 1) * 2
        return sizes, axes
    sizes = _as_list(s, "s")
    if axes is None:
        warnings.warn(_S_AXES_WARNING, DeprecationWarning, stacklevel=stacklevel + 1)
        axes = [normalize_axis(ax, ndim) for ax in range(-len(sizes), 0)]
    if len(sizes) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if any(v is None for v in sizes):
        warnings.warn(_S_NONE_WARNING, DeprecationWarning, stacklevel=stacklevel + 1)
    # NumPy (undocumented): -1 means the input's whole length along that axis
    sizes = [shape[ax] if v is not None and v == -1 else v for v, ax in zip(sizes, axes)]
    return sizes, axes


def _as_list(value, name):
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object is not iterable ({name!r} must be a "
                        f"sequence)") from None


class Step(NamedTuple):
    """One 1-D transform of NumPy's sequence: along ``axis``, ``n`` points, ``n_in`` inputs."""

    axis: int
    n: int
    n_in: int
    n_out: int


class Call(NamedTuple):
    """What a call computes, found from its arguments without touching the device.

    ``kind`` is ``"c2c"``, ``"r2c"`` or ``"c2r"`` (or ``"identity"``: return the input), ``steps``
    NumPy's 1-D transforms in NumPy's order (r2c: the real one first; c2r: the real one last),
    ``shape``/``dtype`` the result's, ``compute`` the dtype handed to the library (complex for
    c2c/c2r, real for r2c), ``scale`` the normalization factor, ``out_from`` the index of the first
    step NumPy hands ``out`` to, ``conj_in``/``conj_out`` the conjugations of ``hfft``/``ihfft``.
    """

    kind: str
    forward: bool
    steps: tuple
    shape: tuple
    dtype: numpy.dtype
    compute: numpy.dtype
    scale: float
    out_from: int
    conj_in: bool = False
    conj_out: bool = False

    @property
    def axes(self):
        return tuple(st.axis for st in self.steps)

    @property
    def distinct(self):
        return len(set(self.axes)) == len(self.axes)


def _steps(shape, sizes, axes, kinds):
    """Resolve each step's length in NumPy's order (``kinds[i]`` is "c" or "r2c" or "c2r"),
    tracking the shape so that a ``None`` size means the current length, as NumPy's 1-D call sees."""
    cur = list(shape)
    steps = []
    for v, ax, kind in zip(sizes, axes, kinds):
        m = cur[ax]
        if v is None:
            v = (m - 1) * 2 if kind == "c2r" else m
        n = check_n(v)
        n_in = n // 2 + 1 if kind == "c2r" else n
        n_out = n // 2 + 1 if kind == "r2c" else n
        steps.append(Step(ax, n, n_in, n_out))
        cur[ax] = n_out
    return tuple(steps), tuple(cur)


def _compute_dtype(kind, dtype, out_dtype):
    """The library's dtype: the natural precision, raised to ``out``'s when that is wider."""
    single = numpy.dtype(dtype).char in "eFf"
    if out_dtype is not None and out_dtype.kind in "fc" and out_dtype.itemsize // (
            2 if out_dtype.kind == "c" else 1) >= 8:
        single = False
    if kind == "r2c":
        return numpy.dtype(numpy.float32 if single else numpy.float64)
    return numpy.dtype(numpy.complex64 if single else numpy.complex128)


def normalize(func, shape, dtype, n=None, axis=-1, norm=None, *, s=None, axes=None, out=None,
         stacklevel=2):
    """Normalize the arguments of ``numpy.fft.<func>`` for an input of ``shape`` and ``dtype``.

    Pure Python (no device): raises what NumPy raises for bad arguments and returns a
    :class:`Call`. 1-D functions take ``n``/``axis``, the others ``s``/``axes``. ``out`` is
    anything with ``shape`` and ``dtype`` (only those are read).
    """
    shape = tuple(shape)
    dtype = numpy.dtype(dtype)
    nd = func.endswith("n") or func.endswith("2")
    base = func[:-1] if nd else func
    ndim = len(shape)
    if nd:
        invreal = base == "irfft"
        sizes, ax_list = _nd_args(shape, s, axes, invreal, stacklevel)
        if not ax_list:
            if base in ("rfft", "irfft"):
                raise IndexError(f"{func} needs at least one axis to transform")
            return Call("identity", True, (), shape, dtype, dtype, 1.0, 0)
        check_norm(norm)
        if base == "irfft":   # NumPy: complex steps in the given order, then the real one
            kinds = ["c"] * (len(ax_list) - 1) + ["c2r"]
            order = list(range(len(ax_list)))
        elif base == "rfft":  # the real step first, then the others last axis first
            kinds = ["r2c"] + ["c"] * (len(ax_list) - 1)
            order = [len(ax_list) - 1] + list(range(len(ax_list) - 2, -1, -1))
        else:
            kinds = ["c"] * len(ax_list)
            order = list(range(len(ax_list) - 1, -1, -1))
        steps, final = _steps(shape, [sizes[i] for i in order], [ax_list[i] for i in order], kinds)
        out_from = len(steps) - 1 if base == "irfft" else 0
    else:
        axis = normalize_axis(axis, ndim)
        kind = {"fft": "c", "ifft": "c", "rfft": "r2c", "irfft": "c2r", "hfft": "c2r", "ihfft": "r2c"}[base]
        steps, final = _steps(shape, [n], [axis], [kind])
        check_norm(norm)
        out_from = 0
    kind = {"fft": "c2c", "ifft": "c2c", "rfft": "r2c", "irfft": "c2r",
            "hfft": "c2r", "ihfft": "r2c"}[base]
    forward = base in ("fft", "rfft")
    norm_forward = base in ("fft", "rfft", "hfft")
    if kind == "r2c":
        if dtype.kind == "c":
            raise TypeError(f"{func} needs real input, got {dtype} (use fft for complex data)")
        result = complex_result(dtype)
    elif kind == "c2r":
        # NumPy's complex steps come first and hand the real step complex data (float16 -> complex64)
        result = real_result(complex_result(dtype) if len(steps) > 1 else dtype)
    else:
        result = complex_result(dtype)
    total = math.prod(st.n for st in steps)
    scale = norm_scale(norm, total, norm_forward)
    out_dtype = None
    if out is not None:
        _check_out_shape(shape, steps, out_from, tuple(out.shape))
        out_dtype = numpy.dtype(out.dtype)
        if not numpy.can_cast(result, out_dtype, "same_kind"):
            raise TypeError(f"Cannot cast {func} output from {result!r} to {out_dtype!r} with "
                            f"casting rule 'same_kind'")
    compute = _compute_dtype(kind, result, out_dtype)
    return Call(kind, forward, steps, final, result, compute, scale, out_from,
                conj_in=base == "hfft", conj_out=base == "ihfft")


def _check_out_shape(shape, steps, out_from, out_shape):
    """NumPy's checks of ``out`` for each 1-D step it is handed to: same rank, the step's output
    length along its axis, and every other axis equal to ``out``'s or 1 (broadcast)."""
    cur = tuple(shape)
    for i, st in enumerate(steps):
        if i < out_from:
            cur = cur[:st.axis] + (st.n_out,) + cur[st.axis + 1:]
            continue
        if len(out_shape) != len(cur) or out_shape[st.axis] != st.n_out:
            raise ValueError("output array has wrong shape.")
        for d, (c, o) in enumerate(zip(cur, out_shape)):
            if d != st.axis and c != o and c != 1:
                raise ValueError(f"non-broadcastable output operand with shape {out_shape} doesn't "
                                 f"match the broadcast shape {cur[:st.axis] + (o,) + cur[st.axis + 1:]}")
        cur = out_shape


# --------------------------------------------------------------------------------------------
# execution
# --------------------------------------------------------------------------------------------

def _resize(xp, x, target, dtype):
    """``x`` cropped (a view) or zero-padded at the end to ``target``, as ``dtype``."""
    if tuple(x.shape) == tuple(target):
        return x.astype(dtype, copy=False)
    common = tuple(slice(0, min(m, t)) for m, t in zip(x.shape, target))
    if all(t <= m for m, t in zip(x.shape, target)):
        return x[common].astype(dtype, copy=False)
    y = xp.zeros(target, dtype)
    y[common] = x[common]
    return y


def _final_shape(shape, steps):
    shape = list(shape)
    for st in steps:
        shape[st.axis] = st.n_out
    return tuple(shape)


def _library(p, x, steps, scale):
    """One library call for ``steps`` (distinct axes) on ``x`` already of the steps' input lengths."""
    if p.kind == "c2c":
        return _rocfft.c2c(x, tuple(sorted(st.axis for st in steps)), forward=p.forward, scale=scale)
    if p.kind == "r2c":  # the real axis is the library's last one
        return _rocfft.r2c(x, tuple(st.axis for st in steps[1:]) + (steps[0].axis,), scale=scale)
    return _rocfft.c2r(x, tuple(st.axis for st in steps), steps[-1].n, scale=scale)


def execute(p, a, out=None):
    """Run the call ``p`` on the device array ``a``; write into ``out`` when given."""
    if p.kind == "identity":
        return a
    xp = backend.cupy()
    steps = p.steps
    if out is not None and p.out_from == 0:
        # NumPy hands ``out`` to the first step: the input broadcasts to it on every other axis
        first = steps[0].axis
        target = tuple(a.shape[d] if d == first else out.shape[d] for d in range(a.ndim))
        if target != tuple(a.shape):
            a = xp.ascontiguousarray(xp.broadcast_to(a, target))
    in_dtype = p.compute
    result_dtype = p.compute
    if p.kind == "r2c":
        result_dtype = numpy.result_type(p.compute, 1j)
    elif p.kind == "c2r":
        result_dtype = numpy.dtype(p.compute.char.lower())
    final = _final_shape(a.shape, steps)
    transformed = set(p.axes)
    if any(a.shape[d] == 0 for d in range(a.ndim) if d not in transformed):
        res = xp.empty(final, result_dtype)
    elif p.distinct:
        target = list(a.shape)
        for st in steps:
            target[st.axis] = st.n_in
        x = _resize(xp, a, target, in_dtype)
        if p.conj_in:
            x = xp.conj(x)
        res = _library(p, x, steps, p.scale)
    else:  # repeated axes: NumPy's 1-D transforms one by one, the scale on the last
        x = a
        for i, st in enumerate(steps):
            scale = p.scale if i == len(steps) - 1 else 1.0
            target = list(x.shape)
            target[st.axis] = st.n_in
            if p.kind == "r2c" and i > 0 or p.kind == "c2r" and i < len(steps) - 1:
                sub = p._replace(kind="c2c", forward=p.kind == "r2c")
                dt = numpy.result_type(in_dtype, 1j)
            else:
                sub, dt = p, in_dtype
            x = _resize(xp, x, target, dt)
            if p.conj_in and i == 0:
                x = xp.conj(x)
            x = _library(sub, x, (st,), scale)
        res = x
    if p.conj_out:
        res = xp.conj(res, out=res)
    if out is None:
        return res if res.dtype == p.dtype else res.astype(p.dtype)
    out[...] = res
    return out


def _prepared(p, shape, dtype):
    """:func:`execute` of ``p`` without ``out`` for inputs of one ``shape`` and ``dtype``, with
    everything that depends only on those worked out once; ``None`` where :func:`execute` itself
    is as fast (identity) or the case is rare (empty batch axes, repeated axes)."""
    if p.kind == "identity" or not p.distinct:
        return None
    steps = p.steps
    transformed = set(p.axes)
    if any(shape[d] == 0 for d in range(len(shape)) if d not in transformed):
        return None
    target = list(shape)
    for st in steps:
        target[st.axis] = st.n_in
    target = tuple(target)
    in_dtype, dtype, scale, forward = p.compute, p.dtype, p.scale, p.forward
    direct = target == tuple(shape)  # no crop or pad: the input goes in as it is when its dtype fits
    if p.kind == "c2c":
        axes = tuple(sorted(st.axis for st in steps))

        def library(x):
            return _rocfft.c2c(x, axes, forward=forward, scale=scale)
    elif p.kind == "r2c":  # the arguments _library would work out on every call
        axes = tuple(st.axis for st in steps[1:]) + (steps[0].axis,)

        def library(x):
            return _rocfft.r2c(x, axes, scale=scale)
    else:
        axes, n = tuple(st.axis for st in steps), steps[-1].n

        def library(x):
            return _rocfft.c2r(x, axes, n, scale=scale)
    conj_in, conj_out = p.conj_in, p.conj_out

    def run(a):
        if direct and a.dtype == in_dtype:
            x = a
        else:
            x = _resize(backend.cupy(), a, target, in_dtype)
        if conj_in:
            x = backend.cupy().conj(x)
        res = library(x)
        if conj_out:
            res = backend.cupy().conj(res, out=res)
        return res if res.dtype == dtype else res.astype(dtype)

    return run


def _one_d(func, a, n, axis, norm, out):
    a = as_device_array(a, "a", allow_scalar=True)
    if out is not None:
        out = as_device_array(out, "out")
        return execute(normalize(func, a.shape, a.dtype, n, axis, norm, out=out, stacklevel=4), a, out)
    # the plan of a 1-D call: 1-D calls raise no warnings, so a warm call loses nothing by
    # skipping the normalization (types are part of the key: 2.0 == 2, but not for NumPy)
    key = ("fft." + func, a.shape, a.dtype.char, type(n), n, type(axis), axis, norm)
    try:
        entry = plans.cache.get(key)
    except TypeError:  # an unhashable argument: normalize() says what is wrong with it
        entry = key = None
    if entry is None:
        p = normalize(func, a.shape, a.dtype, n, axis, norm, stacklevel=4)
        entry = (p, _prepared(p, a.shape, a.dtype))
        if key is not None:
            plans.cache.put(key, entry)
    p, run = entry
    return run(a) if run is not None else execute(p, a)


def _n_d(func, a, s, axes, norm, out):
    a = as_device_array(a, "a", allow_scalar=True)
    if out is not None:
        out = as_device_array(out, "out")
    p = normalize(func, a.shape, a.dtype, norm=norm, s=s, axes=axes, out=out, stacklevel=4)
    return execute(p, a, out)


# --------------------------------------------------------------------------------------------
# the numpy.fft names
# --------------------------------------------------------------------------------------------

def fft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional discrete Fourier transform (``numpy.fft.fft``).

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex (float16/float32 -> complex64, others ->
        complex128).
    n : int, optional
        Transform length: ``a`` is cropped or zero-padded at the end along ``axis`` to ``n``
        points. Default ``a.shape[axis]``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling: "backward" (default, None too) none, "ortho" ``1/sqrt(n)``, "forward" ``1/n``.
    out : cupy.ndarray, optional
        Result array (complex, the result's shape; size-1 input axes broadcast into it).

    Returns
    -------
    cupy.ndarray
        The complex transform, ``n`` long along ``axis`` (``out`` when given).

    Examples
    --------
    >>> ra.fft.fft(ra.asarray([1.0, 0.0, 0.0, 0.0]))   # doctest: +SKIP
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    return _one_d("fft", a, n, axis, norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional inverse discrete Fourier transform (``numpy.fft.ifft``).

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex.
    n : int, optional
        Transform length (crop or zero-pad at the end along ``axis``); default ``a.shape[axis]``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling: "backward" (default) ``1/n``, "ortho" ``1/sqrt(n)``, "forward" none.
    out : cupy.ndarray, optional
        Result array (complex, the result's shape).

    Returns
    -------
    cupy.ndarray
        The complex inverse transform (``out`` when given).

    Examples
    --------
    >>> ra.fft.ifft(ra.asarray([4.0, 0.0, 0.0, 0.0]))   # doctest: +SKIP
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    return _one_d("ifft", a, n, axis, norm, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional discrete Fourier transform (``numpy.fft.fft2``): :func:`fftn` over ``axes``.

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex.
    s : sequence of int, optional
        Lengths along ``axes`` (crop or zero-pad); default the input's.
    axes : sequence of int, optional
        Axes to transform (default the last two); repeats transform again.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling by the product of the lengths, as :func:`fft`.
    out : cupy.ndarray, optional
        Result array (complex, the result's shape).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.fft.fft2(ra.ones((2, 2))).real   # doctest: +SKIP
    array([[4., 0.],
           [0., 0.]])
    """
    return _n_d("fft2", a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional inverse discrete Fourier transform (``numpy.fft.ifft2``).

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex.
    s : sequence of int, optional
        Lengths along ``axes`` (crop or zero-pad); default the input's.
    axes : sequence of int, optional
        Axes to transform (default the last two).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling by the product of the lengths, as :func:`ifft`.
    out : cupy.ndarray, optional
        Result array. (NumPy 2.4 ignores it here; rocarray fills it, checked like :func:`ifftn`.)

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.fft.ifft2(ra.fft.fft2(x))   # doctest: +SKIP  (x again, as complex)
    """
    return _n_d("ifft2", a, s, axes, norm, out)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional discrete Fourier transform (``numpy.fft.fftn``).

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex.
    s : sequence of int, optional
        Lengths along ``axes`` (crop or zero-pad at the end); default the input's. Without
        ``axes`` it names the last ``len(s)`` axes (deprecated by NumPy 2.0, warns).
    axes : sequence of int, optional
        Axes to transform (default all; repeats transform again). No axes returns ``a`` itself.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling by the product of the lengths, as :func:`fft`.
    out : cupy.ndarray, optional
        Result array (complex, the result's shape).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.fft.fftn(ra.ones((2, 2, 2))).real[0, 0, 0]   # doctest: +SKIP
    array(8.)
    """
    return _n_d("fftn", a, s, axes, norm, out)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional inverse discrete Fourier transform (``numpy.fft.ifftn``).

    Parameters
    ----------
    a : cupy.ndarray
        Input; real input is promoted to complex.
    s : sequence of int, optional
        Lengths along ``axes`` (crop or zero-pad); default the input's.
    axes : sequence of int, optional
        Axes to transform (default all). No axes returns ``a`` itself.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling by the product of the lengths, as :func:`ifft`.
    out : cupy.ndarray, optional
        Result array (complex, the result's shape).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.fft.ifftn(ra.fft.fftn(x))   # doctest: +SKIP  (x again, as complex)
    """
    return _n_d("ifftn", a, s, axes, norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional discrete Fourier transform of real input (``numpy.fft.rfft``).

    Parameters
    ----------
    a : cupy.ndarray
        Real input (complex raises ``TypeError``); float16/float32 give complex64.
    n : int, optional
        Number of input points (crop or zero-pad); default ``a.shape[axis]``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`fft`.
    out : cupy.ndarray, optional
        Result array (complex, ``n // 2 + 1`` long along ``axis``).

    Returns
    -------
    cupy.ndarray
        The non-negative frequency terms, ``n // 2 + 1`` along ``axis``.

    Examples
    --------
    >>> ra.fft.rfft(ra.asarray([1.0, 1.0, 1.0, 1.0]))   # doctest: +SKIP
    array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    return _one_d("rfft", a, n, axis, norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`rfft` (``numpy.fft.irfft``).

    Parameters
    ----------
    a : cupy.ndarray
        Non-negative frequency terms; the imaginary parts of the zero (and, for even ``n``, the
        Nyquist) term are ignored.
    n : int, optional
        Length of the real output; the input is cropped or zero-padded to ``n // 2 + 1`` along
        ``axis``. Default ``2 * (a.shape[axis] - 1)``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`ifft`.
    out : cupy.ndarray, optional
        Result array (``n`` long along ``axis``).

    Returns
    -------
    cupy.ndarray
        Real result: float32 for complex64/float32 input, float16 for float16, else float64.

    Examples
    --------
    >>> ra.fft.irfft(ra.asarray([4.0, 0.0, 0.0]))   # doctest: +SKIP
    array([1., 1., 1., 1.])
    """
    return _one_d("irfft", a, n, axis, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional FFT of real input (``numpy.fft.rfft2``): :func:`rfftn` over ``axes``.

    Parameters
    ----------
    a : cupy.ndarray
        Real input.
    s : sequence of int, optional
        Input lengths along ``axes`` (crop or zero-pad); default the input's.
    axes : sequence of int, optional
        Axes to transform (default the last two); the real transform runs along the last.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`fft`.
    out : cupy.ndarray, optional
        Result array (complex).

    Returns
    -------
    cupy.ndarray
        ``s[-1] // 2 + 1`` long along ``axes[-1]``.

    Examples
    --------
    >>> ra.fft.rfft2(ra.ones((2, 4))).shape   # doctest: +SKIP
    (2, 3)
    """
    return _n_d("rfft2", a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Inverse of :func:`rfft2` (``numpy.fft.irfft2``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (the half spectrum along ``axes[-1]``).
    s : sequence of int, optional
        Output lengths along ``axes``; default the input's, and ``2 * (m - 1)`` along the last.
    axes : sequence of int, optional
        Axes to transform (default the last two).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`ifft`.
    out : cupy.ndarray, optional
        Result array. (NumPy 2.4 ignores it here; rocarray fills it, checked like :func:`irfftn`.)

    Returns
    -------
    cupy.ndarray
        Real result.

    Examples
    --------
    >>> ra.fft.irfft2(ra.fft.rfft2(x), s=x.shape)   # doctest: +SKIP  (x again)
    """
    return _n_d("irfft2", a, s, axes, norm, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional FFT of real input (``numpy.fft.rfftn``).

    Parameters
    ----------
    a : cupy.ndarray
        Real input (complex raises ``TypeError``).
    s : sequence of int, optional
        Input lengths along ``axes`` (crop or zero-pad); default the input's.
    axes : sequence of int, optional
        Axes to transform (default all); the real transform runs along the last. An empty
        sequence raises ``IndexError`` as NumPy does.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`fft`.
    out : cupy.ndarray, optional
        Result array (complex).

    Returns
    -------
    cupy.ndarray
        ``s[-1] // 2 + 1`` long along ``axes[-1]``.

    Examples
    --------
    >>> ra.fft.rfftn(ra.ones((2, 2, 4))).shape   # doctest: +SKIP
    (2, 2, 3)
    """
    return _n_d("rfftn", a, s, axes, norm, out)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """Inverse of :func:`rfftn` (``numpy.fft.irfftn``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (the half spectrum along ``axes[-1]``).
    s : sequence of int, optional
        Output lengths along ``axes``; default the input's, and ``2 * (m - 1)`` along the last.
    axes : sequence of int, optional
        Axes to transform (default all); the real transform runs along the last.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`ifft`.
    out : cupy.ndarray, optional
        Result array (real or complex).

    Returns
    -------
    cupy.ndarray
        Real result.

    Examples
    --------
    >>> ra.fft.irfftn(ra.fft.rfftn(x), s=x.shape)   # doctest: +SKIP  (x again)
    """
    return _n_d("irfftn", a, s, axes, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """FFT of a Hermitian-symmetric signal given by its first half (``numpy.fft.hfft``).

    Parameters
    ----------
    a : cupy.ndarray
        The first ``n // 2 + 1`` points of the signal.
    n : int, optional
        Length of the real output; default ``2 * (a.shape[axis] - 1)``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`fft` ("backward": none).
    out : cupy.ndarray, optional
        Result array. (NumPy 2.4 ignores it; rocarray fills it, checked like :func:`irfft`.)

    Returns
    -------
    cupy.ndarray
        Real result, ``n`` long along ``axis``.

    Examples
    --------
    >>> ra.fft.hfft(ra.asarray([1.0, 0.0, 0.0]))   # doctest: +SKIP
    array([1., 1., 1., 1.])
    """
    return _one_d("hfft", a, n, axis, norm, out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`hfft` (``numpy.fft.ihfft``): ``conj(rfft(a)) / n``.

    Parameters
    ----------
    a : cupy.ndarray
        Real input (complex raises ``TypeError``).
    n : int, optional
        Number of input points (crop or zero-pad); default ``a.shape[axis]``.
    axis : int, optional
        Axis to transform (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling, as :func:`ifft` ("backward": ``1/n``).
    out : cupy.ndarray, optional
        Result array (complex, ``n // 2 + 1`` long along ``axis``).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.fft.ihfft(ra.asarray([1.0, 1.0, 1.0, 1.0]))   # doctest: +SKIP
    array([1.-0.j, 0.-0.j, 0.-0.j])
    """
    return _one_d("ihfft", a, n, axis, norm, out)
