"""Complex and real FFTs of device arrays along given axes, on cached schedules.

``c2c(x, axes, forward=..., scale=...)``
    complex64/complex128 ``x``; unnormalized transform along every axis in ``axes`` times ``scale``.
``r2c(x, axes, scale=...)``
    float32/float64 ``x``; real-to-complex along ``axes[-1]`` (``n // 2 + 1`` outputs), then
    forward complex transforms along the other axes.
``c2r(x, axes, n, scale=...)``
    complex ``x`` whose ``axes[-1]`` holds ``n // 2 + 1`` Hermitian coefficients; inverse complex
    transforms along the other axes, then complex-to-real of length ``n`` along ``axes[-1]``.

Results are new C-contiguous arrays. Arguments are assumed checked (the ``numpy.fft`` façade
does it); these functions raise ``ValueError``/``TypeError`` only for what they cannot take.

Real transforms of even length ``n`` view the real row as ``n/2`` complex pairs, transform those and
untangle the spectrum in one element-wise pass (``ra_rocfft_r2c_post``; ``ra_rocfft_c2r_pre`` is its
inverse), or in a transform kernel (``rocfft._schedule.build_real``). Odd lengths transform the row
as complex.

Plans: every schedule is a plan in the one plan cache (:data:`rocarray._core.plans.cache`), under
a key of its problem (``('rocfft.c2c', precision, forward, n, sizes, strides..., device)``,
``'rocfft.real_fused'``, ``'rocfft.r2c_post'``, ``'rocfft.c2r_pre'``) and, for the warm path, also
under a key of the arrays' layout (``'rocfft.c2c_layout'``; ``'rocfft.r2c_warm'`` and
``'rocfft.c2r_warm'`` for a 1-D real transform's whole call), so that a repeated call costs one
dictionary lookup before its launches. Schedules are built with their device current.
"""

import numpy

from rocarray._core import backend, launch, plans, workspace
from rocarray.rocfft import _schedule as S
from rocarray.rocfft._tables import tables

#: The one plan cache (:data:`rocarray._core.plans.cache`), which holds rocfft's schedules with
#: every library's plans.
plan_cache = plans.cache
#: Workspace name of a warm real transform's work row (distinct from the schedules' own
#: :data:`rocarray.rocfft._schedule.WORK`, which its schedules take while it is held).
ROWS = "rocfft.rows"

_PRECISION = {numpy.dtype(numpy.complex64): "single", numpy.dtype(numpy.complex128): "double",
              numpy.dtype(numpy.float32): "single", numpy.dtype(numpy.float64): "double"}
_REAL_DTYPE = {"single": numpy.dtype(numpy.float32), "double": numpy.dtype(numpy.float64)}


def _built(device_id, build):
    """``build()`` with ``device_id`` current (kernels are loaded and tables made there)."""
    with launch.on_device(device_id):
        return build()


def _element_strides(a):
    """Strides of ``a`` in elements, or None when a stride is not a whole number of elements."""
    item = a.dtype.itemsize
    if any(s % item for s in a.strides):
        return None
    return tuple(s // item for s in a.strides)


def _device_id(a):
    return a.data.device_id


def _sides(src, dst, axis):
    """``(sizes, src_side, dst_side)`` of the transforms along ``axis`` from ``src`` to ``dst``:
    the other axes' sizes and each side's strides in elements (whole elements assumed)."""
    ss, ds = _element_strides(src), _element_strides(dst)
    others = [d for d in range(src.ndim) if d != axis]
    sizes = tuple(src.shape[d] for d in others)
    return (sizes, S.Side(S.Ref("src"), ss[axis], tuple(ss[d] for d in others)),
            S.Side(S.Ref("dst"), ds[axis], tuple(ds[d] for d in others)))


def transform_axis(src, dst, axis, *, forward, scale=1.0):
    """One 1-D complex transform of ``src`` along ``axis`` into ``dst`` (same shape and dtype).

    ``dst`` may be ``src`` itself (in place); otherwise they must not overlap.

    Parameters
    ----------
    src : cupy.ndarray
        complex64 or complex128, any strides.
    dst : cupy.ndarray
        Destination of ``src``'s shape and dtype, any strides.
    axis : int
        The axis to transform (assumed valid).
    forward : bool
        Forward (``exp(-2 pi i jk / n)``) or inverse (``exp(+2 pi i jk / n)``, unnormalized).
    scale : float, optional
        Factor applied to the result.

    Returns
    -------
    cupy.ndarray
        ``dst``.
    """
    if src.size:
        _transform(src, dst, axis, forward, scale)
    return dst


def _transform(src, dst, axis, forward, scale):
    """:func:`transform_axis` of a non-empty ``src``; returns the schedule it ran, or None when it
    ran on a contiguous copy of ``src`` (strides that are not whole elements)."""
    # warm path: the layout key straight from the arrays (one dict lookup, no planning)
    key = ("rocfft.c2c_layout", src.dtype.char, src.shape, src.strides, dst.strides, axis, forward,
           src.data.device_id)
    schedule = plans.cache.get(key)
    if schedule is None:
        if _element_strides(src) is None:
            src = backend.cupy().ascontiguousarray(src)
            key = None
        schedule = _c2c_schedule(src, dst, axis, forward)
        if key is not None:
            plans.cache.put(key, schedule)
    schedule.run(src.data.ptr, dst.data.ptr, scale)
    return schedule if key is not None else None


def _c2c_schedule(src, dst, axis, forward):
    precision = _PRECISION[src.dtype]
    n = src.shape[axis]
    sizes, src_side, dst_side = _sides(src, dst, axis)
    device_id = _device_id(src)
    key = ("rocfft.c2c", precision, forward, n, sizes, src_side.stride, src_side.batch_strides,
           dst_side.stride, dst_side.batch_strides, device_id)
    return plans.cache.lookup(key, lambda: _built(device_id, lambda: S.build(
        n, sizes, src_side, dst_side, precision=precision, forward=forward, device_id=device_id, tables=tables)))


def c2c(x, axes, *, forward, scale=1.0):
    """Complex transform of ``x`` along ``axes`` (see the module docstring).

    Parameters
    ----------
    x : cupy.ndarray
        complex64 or complex128, any shape and strides.
    axes : sequence of int
        Distinct axes of ``x`` to transform (assumed checked); empty: ``x * scale``.
    forward : bool
        Forward (``exp(-2 pi i jk / n)``) or inverse (``exp(+2 pi i jk / n)``, unnormalized)
        transforms.
    scale : float, optional
        Factor applied to the result.

    Returns
    -------
    cupy.ndarray
        New C-contiguous array of ``x``'s shape and dtype.
    """
    cupy = backend.cupy()
    out = cupy.empty(x.shape, x.dtype)
    if x.size == 0:
        return out
    if not axes:
        out[...] = x * x.real.dtype.type(scale) if scale != 1 else x
        return out
    if len(axes) == 1:
        transform_axis(x, out, axes[0], forward=forward, scale=scale)
        return out
    src = x
    order = sorted(axes, key=lambda a: -a)  # the contiguous (last) axis first
    for i, axis in enumerate(order):
        transform_axis(src, out, axis, forward=forward, scale=scale if i == len(order) - 1 else 1.0)
        src = out
    return out


def _moved_last(shape, axis):
    return tuple(s for d, s in enumerate(shape) if d != axis) + (shape[axis],)


def _real_pairs(x, axis):
    """``x`` (real, even length along ``axis``) seen as complex pairs along ``axis`` without a copy
    when its layout allows, else after one."""
    cupy = backend.cupy()
    item = x.dtype.itemsize
    ok = (x.strides[axis] == item and x.data.ptr % (2 * item) == 0
          and all(s % (2 * item) == 0 for d, s in enumerate(x.strides) if d != axis))
    if not ok:  # a fresh copy with ``axis`` last and contiguous (n even keeps every stride even);
        # copy(), not ascontiguousarray(), which returns a contiguous but misaligned view as it is
        x = cupy.moveaxis(cupy.moveaxis(x, axis, -1).copy(order="C"), -1, axis)
    shape = list(x.shape)
    shape[axis] //= 2
    strides = list(x.strides)
    strides[axis] = 2 * item
    ctype = numpy.dtype(numpy.complex64 if item == 4 else numpy.complex128)
    return cupy.ndarray(tuple(shape), ctype, memptr=x.data, strides=tuple(strides))


def _pointwise_real(kind, src, dst, axis, n, precision, scale):
    """The r2c post-pass (``kind='post'``: ``src`` rows of ``n/2`` complex -> ``dst`` along ``axis``)
    or the c2r pre-pass (``kind='pre'``: ``src`` along ``axis`` -> ``dst`` rows)."""
    h = n // 2
    device_id = _device_id(src)
    strided = dst if kind == "post" else src
    st = _element_strides(strided)
    others = [d for d in range(strided.ndim) if d != axis]
    # rows are in C order of the other axes: the fastest batch dimension is the last other axis
    dims = [(strided.shape[d], st[d]) for d in reversed(others)]
    name = "r2c_post" if kind == "post" else "c2r_pre"
    key = ("rocfft." + name, precision, n, tuple(dims), st[axis], device_id)

    def make():
        hi, lo, split = tables.split_twiddles(precision, n, device_id)
        kernel = S.pointwise_kernel(name, precision)
        sched = S.Schedule(precision, device_id)
        sched.tables += [hi, lo]
        sizes = tuple(d[0] for d in dims)
        strides = tuple(d[1] for d in dims)
        pairs = h // 2 + 1  # one thread per pair of mirrored elements k, h - k
        row = 0
        for off, _, sz, ss, _ in S._host_loop(sizes, strides, strides, S.POINTWISE_DIMS):
            sz = tuple(sz) + (1,) * (S.POINTWISE_DIMS - len(sz))
            ss = tuple(ss) + (0,) * (S.POINTWISE_DIMS - len(ss))
            b = int(numpy.prod(sz))
            grid = max(1, min(S.POINTWISE_GRID, -(-b * pairs // S.BLOCK)))
            rows_ref = S.Ref("src" if kind == "post" else "dst", row * h)
            strided_ref = S.Ref("dst" if kind == "post" else "src", off)
            common = (numpy.uint64(hi.data.ptr), numpy.uint64(lo.data.ptr), numpy.int64(split),
                      numpy.int64(h), numpy.int64(b), numpy.int64(sz[0]), numpy.int64(ss[0]),
                      numpy.int64(ss[1]), numpy.int64(st[axis]))
            if kind == "post":
                args = (rows_ref, strided_ref) + common + (S.SCALE,)
            else:
                args = (strided_ref, rows_ref) + common
            sched.steps.append(S.Step(kernel, grid, 0, args))
            row += b
        return sched.prepare()

    schedule = plans.cache.lookup(key, lambda: _built(device_id, make))
    schedule.run(src.data.ptr, dst.data.ptr, scale)
    return schedule


def _fused_real(kind, src, dst, axis, h, precision):
    """The real-transform schedule with the untangling or folding fused into a transform kernel
    (``rocfft._schedule.build_real``) from ``src`` to ``dst`` (complex views, rows along
    ``axis``), or None when no such kernel takes them."""
    sizes, src_side, dst_side = _sides(src, dst, axis)
    device_id = _device_id(src)
    key = ("rocfft.real_fused", kind, precision, h, sizes, src_side.stride, src_side.batch_strides,
           dst_side.stride, dst_side.batch_strides, device_id)
    schedule = plans.cache.lookup(key, lambda: _built(device_id, lambda: S.build_real(
        kind, h, sizes, src_side, dst_side, precision=precision, device_id=device_id, tables=tables) or False))
    return schedule or None


class _WarmReal:
    """A 1-D real transform of one input layout on a fresh output (a warm call's host path):
    ``steps`` of ``(schedule, source, destination, scaled)`` over the buffers ``'x'`` (the
    input), ``'out'`` and, when ``work_bytes`` is given, a work row ``'work'`` (the workspace's
    :data:`ROWS`); the caller's scale goes to the scaled steps."""

    def __init__(self, out_shape, dtype, device_id, steps, work_bytes=None):
        self.out_shape, self.dtype, self.device_id = out_shape, dtype, device_id
        self.steps, self.work_bytes = steps, work_bytes

    def run(self, x, scale):
        out = backend.cupy().empty(self.out_shape, self.dtype)  # as the cold path: the current device
        ptrs = {"x": x.data.ptr, "out": out.data.ptr}
        if self.work_bytes is None:
            for schedule, src, dst, scaled in self.steps:
                schedule.run(ptrs[src], ptrs[dst], scale if scaled else 1.0)
            return out
        # the work row passes data between the steps, on the schedules' device
        with launch.on_device(self.device_id):
            work = workspace.workspaces.scratch(ROWS, self.work_bytes, self.device_id)
            ptrs["work"] = work.data.ptr
            for schedule, src, dst, scaled in self.steps:
                schedule.run(ptrs[src], ptrs[dst], scale if scaled else 1.0)
        return out  # ``work`` was held until the steps' launches were queued


def r2c(x, axes, *, scale=1.0):
    """Real-to-complex transform (see the module docstring).

    Parameters
    ----------
    x : cupy.ndarray
        float32 or float64, any shape and strides.
    axes : sequence of int
        Distinct axes of ``x`` to transform, at least one (assumed checked): real-to-complex along
        ``axes[-1]``, then forward complex transforms along the others.
    scale : float, optional
        Factor applied to the result.

    Returns
    -------
    cupy.ndarray
        New C-contiguous complex64 or complex128 array, ``x.shape[axes[-1]] // 2 + 1`` long along
        ``axes[-1]``.
    """
    cupy = backend.cupy()
    fast = None
    if len(axes) == 1 and x.size:
        # warm path: one dict lookup by layout, then the prepared schedules
        fast = ("rocfft.r2c_warm", x.dtype.char, x.shape, x.strides, axes[0], x.data.device_id,
                x.data.ptr % (2 * x.dtype.itemsize))
        warm = plans.cache.get(fast)
        if warm is not None:
            return warm.run(x, scale)
    precision = _PRECISION[x.dtype]
    ctype = S.complex_dtype(precision)
    axis = axes[-1]
    n = x.shape[axis]
    out_shape = x.shape[:axis] + (n // 2 + 1,) + x.shape[axis + 1:]
    rest = tuple(axes[:-1])
    last_scale = 1.0 if rest else scale
    if x.size == 0:
        return cupy.zeros(out_shape, ctype)
    if n % 2 == 0:
        pairs = _real_pairs(x, axis)
        out = cupy.empty(out_shape, ctype)
        warm = None
        device_id = _device_id(x)
        fused = _fused_real("r2c", pairs, out, axis, n // 2, precision)
        if fused is not None:
            fused.run(pairs.data.ptr, out.data.ptr, last_scale)
            warm = _WarmReal(out_shape, ctype, device_id, [(fused, "x", "out", True)])
        else:
            # the half-length transform, into rows contiguous along ``axis``, then the untangling
            rows = cupy.empty(_moved_last(pairs.shape, axis), ctype)
            rows_view = cupy.moveaxis(rows, -1, axis)
            first = _transform(pairs, rows_view, axis, True, 1.0)
            post = _pointwise_real("post", rows, out, axis, n, precision, last_scale)
            if first is not None:
                warm = _WarmReal(out_shape, ctype, device_id, [(first, "x", "work", False),
                                                              (post, "work", "out", True)], rows.nbytes)
        if fast is not None and warm is not None and pairs.data.ptr == x.data.ptr:  # a view: no copy
            plans.cache.put(fast, warm)
    else:
        full = c2c(x.astype(ctype), (axis,), forward=True, scale=last_scale)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, n // 2 + 1)
        out = cupy.ascontiguousarray(full[tuple(index)])
    if rest:
        for i, a in enumerate(sorted(rest, key=lambda a: -a)):
            transform_axis(out, out, a, forward=True, scale=scale if i == len(rest) - 1 else 1.0)
    return out


def c2r(x, axes, n, *, scale=1.0):
    """Complex-to-real transform (see the module docstring).

    Parameters
    ----------
    x : cupy.ndarray
        complex64 or complex128, any shape and strides, ``n // 2 + 1`` Hermitian coefficients
        along ``axes[-1]`` (else ``ValueError``).
    axes : sequence of int
        Distinct axes of ``x`` to transform, at least one (assumed checked): inverse complex
        transforms along all but the last, then complex-to-real along ``axes[-1]``.
    n : int
        Length of the real output along ``axes[-1]``.
    scale : float, optional
        Factor applied to the result.

    Returns
    -------
    cupy.ndarray
        New C-contiguous float32 or float64 array, ``n`` long along ``axes[-1]``.
    """
    cupy = backend.cupy()
    fast = None
    if len(axes) == 1 and x.size and n:
        fast = ("rocfft.c2r_warm", x.dtype.char, x.shape, x.strides, axes[0], n, x.data.device_id)
        warm = plans.cache.get(fast)
        if warm is not None:
            return warm.run(x, scale)
    precision = _PRECISION[x.dtype]
    rtype = _REAL_DTYPE[precision]
    axis = axes[-1]
    out_shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    if x.size == 0 or n == 0:
        return cupy.zeros(out_shape, rtype)
    if x.shape[axis] != n // 2 + 1:
        raise ValueError(f"c2r of length {n} needs {n // 2 + 1} coefficients along axis {axis}, "
                         f"got {x.shape[axis]}")
    rest = tuple(axes[:-1])
    if rest:
        x = c2c(x, rest, forward=False)
    if _element_strides(x) is None:  # strides that are not whole elements: the passes index elements
        x = cupy.ascontiguousarray(x)
        fast = None  # a warm call must not take this copy's layout for its input's
    h = n // 2
    if n % 2 == 0:
        rows = cupy.empty(_moved_last(x.shape[:axis] + (h,) + x.shape[axis + 1:], axis), x.dtype)
        rows_view = cupy.moveaxis(rows, -1, axis)
        device_id = _device_id(x)
        fused = _fused_real("c2r", x, rows_view, axis, h, precision)
        warm = None
        if fused is not None:
            fused.run(x.data.ptr, rows.data.ptr, scale)
            warm = _WarmReal(out_shape, rtype, device_id, [(fused, "x", "out", True)])
        else:
            pre = _pointwise_real("pre", x, rows, axis, n, precision, 1.0)
            inverse = _transform(rows, rows, rows.ndim - 1, False, scale)
            if inverse is not None:
                warm = _WarmReal(out_shape, rtype, device_id, [(pre, "x", "out", False),
                                                              (inverse, "out", "out", True)])
        if fast is not None and warm is not None and axis == x.ndim - 1:  # the rows are the output
            plans.cache.put(fast, warm)
        real_rows = rows.view(rtype)  # (..., n): interleaved even/odd samples
        out = cupy.moveaxis(real_rows, -1, axis)
        return cupy.ascontiguousarray(out)
    # odd n: rebuild the full Hermitian spectrum and transform it as complex
    head = cupy.moveaxis(x, axis, -1).copy()
    head[..., 0] = head[..., 0].real
    tail = cupy.conj(head[..., h:0:-1])
    full = cupy.concatenate([head, tail], axis=-1)
    res = c2c(full, (full.ndim - 1,), forward=False, scale=scale).real
    return cupy.ascontiguousarray(cupy.moveaxis(res, -1, axis))
