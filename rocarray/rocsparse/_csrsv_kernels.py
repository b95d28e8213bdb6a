"""The kernels of ``rocarray/_kernels/rocsparse/csrsv.hip`` and the small device steps around them.

This is the one interface through which the triangular-solve drivers (:mod:`rocarray.rocsparse._csrsv`)
and the incomplete factorizations (:mod:`rocarray.rocsparse._ilu`) touch device memory: the kernel
launches, the few plain data movements (allocation, copies, gathers, casts; CuPy's array
operations) and the reads of single device values (the only host synchronizations). Functions
never check their arguments (the drivers have) and queue work on the current stream. The CPU tests
replace them with NumPy stand-ins of the same contracts to check the drivers' bookkeeping.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch

SOURCE = "rocsparse/csrsv.hip"

#: Threads per block of every launch (``RA_ROCSPARSE_CSRSV_BLOCK``).
BLOCK = 256
#: Largest grid y dimension (right-hand sides of one solve launch).
MAX_GRID_Y = 65535
#: Resident blocks per multiprocessor assumed for the occupancy bound.
BLOCKS_PER_MULTIPROCESSOR = 8

#: Value and index dtypes the kernels are instantiated for.
VALUE_DTYPES = tuple(numpy.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))
INDEX_DTYPES = tuple(numpy.dtype(d) for d in ("int32", "int64"))

_PATTERN = ("rows", "frontier")
_VALUED = ("level", "zero_pivot")


def kernel_name(kernel, index_dtype, value_dtype=None):
    """Name expression, e.g. ``'ra_rocsparse_csrsv_level<double, ra_i32>'``."""
    ci = dtypes.ctype(index_dtype)
    if value_dtype is None:
        return f"ra_rocsparse_csrsv_{kernel}<{ci}>"
    return f"ra_rocsparse_csrsv_{kernel}<{dtypes.ctype(value_dtype)}, {ci}>"


def instantiations():
    """Every name expression the triangular solve launches."""
    names = [kernel_name(k, i) for k in _PATTERN for i in INDEX_DTYPES]
    names += [kernel_name(k, i, v) for k in _VALUED for i in INDEX_DTYPES for v in VALUE_DTYPES]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)

#: Value of an unset pivot word (no row found).
NO_ROW = numpy.uint64(2 ** 64 - 1)


def _device(x):
    return x.data.device_id


def _i64(v):
    return numpy.int64(v)


def _blocks(threads):
    return -(-int(threads) // BLOCK)


# --------------------------------------------------------------------------------------------
# plain device steps
# --------------------------------------------------------------------------------------------

def warp_size(like):
    """Lanes of a warp (wavefront) on ``like``'s device."""
    return backend.device_info(_device(like)).warp_size


def empty(n, dtype, like):
    """A new uninitialized 1-D array on ``like``'s device."""
    with launch.on_device(_device(like)):
        return backend.cupy().empty(int(n), dtype)


def zeros(n, dtype, like):
    """A new zeroed 1-D array on ``like``'s device."""
    with launch.on_device(_device(like)):
        return backend.cupy().zeros(int(n), dtype)


def pivot_word(like):
    """A new one-element uint64 array holding :data:`NO_ROW`."""
    with launch.on_device(_device(like)):
        return backend.cupy().full(1, NO_ROW, numpy.uint64)


def positions(nnz, like):
    """``0, 1, ..., nnz-1`` as float64 (exact: nnz < 2^53): the values that, sent through a
    conversion, say where each converted element came from."""
    with launch.on_device(_device(like)):
        return backend.cupy().arange(int(nnz), dtype=numpy.float64)


def as_index(x, dtype):
    """``x`` cast to the index dtype (``x`` itself when it has it)."""
    if x.dtype == dtype:
        return x
    with launch.on_device(_device(x)):
        return x.astype(dtype)


def gather(data, perm, conj):
    """``data[perm]``, conjugated when ``conj``."""
    with launch.on_device(_device(data)):
        out = data.take(perm)
        return out.conj() if conj and out.dtype.kind == "c" else out


def copy(x):
    """A new copy of the 1-D array ``x``."""
    with launch.on_device(_device(x)):
        return x.copy()


def rhs_copy(b, dtype):
    """The solution buffer: a copy of ``b`` (1-D or 2-D) in ``dtype``, Fortran-ordered, so that
    each right-hand side is one contiguous column."""
    with launch.on_device(_device(b)):
        return backend.cupy().array(b, dtype=dtype, order="F", copy=True)


def read_word(words, index):
    """The value of ``words[index]`` on the host (one synchronization)."""
    with launch.on_device(_device(words)):
        return int(backend.cupy().asnumpy(words[index:index + 1])[0])


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------

def rows(m, indptr, indices, lower, deps, diag, level, order, counter, missing):
    """Dependency counts, diagonal positions and level 0 (``ra_rocsparse_csrsv_rows``): for each
    row i, ``deps[i]``, ``diag[i]``; rows without dependencies go to ``order[counter[0]++]``
    with ``level = 0``; ``missing[0] := min(missing[0], i)`` for rows without a diagonal."""
    if m == 0:
        return
    dev = _device(indptr)
    kernel = KERNELS[kernel_name("rows", indptr.dtype)]
    with launch.on_device(dev):
        kernel(dev, (_blocks(m),), (_i64(m), indptr, indices, numpy.int32(bool(lower)), deps, diag, level, order,
                                    counter, missing))


def frontier(count, order, start, end, dptr, dind, lower, deps, level, next_level, counters):
    """One step of the level construction (``ra_rocsparse_csrsv_frontier``): the ``count`` rows
    ``order[start:start+count]`` are finished; the rows they release go to ``order[end + c]``,
    ``c = counters[next_level]++``, with ``level = next_level``."""
    dev = _device(order)
    kernel = KERNELS[kernel_name("frontier", order.dtype)]
    with launch.on_device(dev):
        kernel(dev, (_blocks(count),), (_i64(count), order[start:], dptr, dind, numpy.int32(bool(lower)), deps, level,
                                        _i64(next_level), order[end:], counters[next_level:]))


def solve_levels(order, level_ptr, diag, index_dtype, dtype, ldx, col0, ncols, lower, unit, group):
    """The prepared launches of ``ra_rocsparse_csrsv_level``, one per level (the rows
    ``order[level_ptr[L]:level_ptr[L+1]]``, right-hand sides ``col0 .. col0+ncols-1`` of x, column
    c at ``x[c * ldx]``, ``group`` lanes per row): a plan for :func:`run_solve`. Everything but
    the matrix, x and alpha is fixed in it."""
    dev = _device(order)
    kernel = KERNELS[kernel_name("level", index_dtype, dtype)]
    isz = numpy.dtype(index_dtype).itemsize
    P = launch.POINTER
    tail = (numpy.int32(bool(lower)), numpy.int32(bool(unit)), numpy.int32(group))
    plan = []
    with launch.on_device(dev):
        for level in range(len(level_ptr) - 1):
            start, count = int(level_ptr[level]), int(level_ptr[level + 1] - level_ptr[level])
            args = (_i64(count), numpy.uint64(order.data.ptr + start * isz), P, P, P, numpy.uint64(diag.data.ptr), P,
                    _i64(ldx), _i64(col0), launch.scalar(dtype)) + tail
            plan.append(kernel.prepare(dev, (_blocks(count * group), int(ncols)), args))
    return plan


def run_solve(plan, indptr, indices, data, x, alpha):
    """Queue the launches of a :func:`solve_levels` plan, in order of levels, on A's
    ``indptr``/``indices``/``data`` (op(A)'s CSR), the solution buffer x (holding alpha's
    right-hand side, solved in place) and alpha."""
    with launch.on_device(_device(x)):
        p, q, d, xp = indptr.data.ptr, indices.data.ptr, data.data.ptr, x.data.ptr
        for prepared in plan:
            prepared(p, q, d, xp, alpha)


def factor_levels(kernels_family, name, order, level_ptr, diag, block):
    """The prepared launches of a level kernel ``name`` of ``kernels_family`` taking
    ``(count, rows, indptr, indices, data, diag, pivot)``, one per level, one thread per row:
    a plan for :func:`run_factor`."""
    dev = _device(order)
    kernel = kernels_family[name]
    isz = order.dtype.itemsize
    P = launch.POINTER
    plan = []
    with launch.on_device(dev):
        for level in range(len(level_ptr) - 1):
            start, count = int(level_ptr[level]), int(level_ptr[level + 1] - level_ptr[level])
            args = (_i64(count), numpy.uint64(order.data.ptr + start * isz), P, P, P, numpy.uint64(diag.data.ptr), P)
            plan.append(kernel.prepare(dev, (-(-count // block),), args))
    return plan


def run_factor(plan, indptr, indices, data, pivot):
    """Queue the launches of a :func:`factor_levels` plan in order of levels."""
    with launch.on_device(_device(data)):
        p, q, d, w = indptr.data.ptr, indices.data.ptr, data.data.ptr, pivot.data.ptr
        for prepared in plan:
            prepared(p, q, d, w)


def zero_pivot(m, diag, data, pivot):
    """``pivot[0] := min(pivot[0], i)`` over rows i whose diagonal is missing or zero
    (``ra_rocsparse_csrsv_zero_pivot``)."""
    if m == 0:
        return
    dev = _device(diag)
    kernel = KERNELS[kernel_name("zero_pivot", diag.dtype, data.dtype)]
    with launch.on_device(dev):
        kernel(dev, (_blocks(m),), (_i64(m), diag, data, pivot))
