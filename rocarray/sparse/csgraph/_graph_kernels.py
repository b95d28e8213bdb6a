"""The kernels of ``rocarray/_kernels/rocsparse/graph.hip``: registration, launches, and the few
device steps around them (allocation, prefix sum, sort).

The graph algorithms (:mod:`._components`, :mod:`._traversal`) reach the device only through
these functions; the CPU tests replace them with NumPy stand-ins of the same contracts. Vertex
arrays are int32; ``indptr``/``indices`` are a CSR adjacency of int32 or int64. Functions that
return a host value (a progress flag, a count) synchronize; the others only queue work.
"""

import numpy

from rocarray._core import backend, compile as _compile, kernels, launch

SOURCE = "rocsparse/graph.hip"

#: Threads per block.
BLOCK = 256
#: Resident blocks per multiprocessor aimed for.
BLOCKS_PER_MULTIPROCESSOR = 8
#: Unclaimed key of the breadth-first search.
NO_KEY = numpy.uint64(0xFFFFFFFFFFFFFFFF)

_TEMPLATED = ("cc_hook", "scc_trim", "scc_propagate", "scc_backward", "bfs_expand")
_INDEX_CTYPES = {numpy.dtype(numpy.int32): "int", numpy.dtype(numpy.int64): "long long"}


def kernel_name(kernel, index_dtype=None):
    """Name expression, e.g. ``'ra_rocsparse_cc_hook<long long>'`` (plain name for vertex kernels)."""
    if kernel in _TEMPLATED:
        return f"ra_rocsparse_{kernel}<{_INDEX_CTYPES[numpy.dtype(index_dtype)]}>"
    return f"ra_rocsparse_{kernel}"


def instantiations():
    """Every template name expression the graph algorithms launch."""
    return sorted(kernel_name(k, d) for k in _TEMPLATED for d in _INDEX_CTYPES)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _launch(kernel, count, *args):
    """One grid-stride launch over ``count`` items (at most one full wave of blocks)."""
    k = KERNELS[kernel]
    dev = next(a for a in args if hasattr(getattr(a, "data", None), "device_id")).data.device_id
    with launch.on_device(dev):
        grid = max(1, min(k.wave(dev), -(-int(count) // BLOCK)))
        k(dev, (grid,), args)


def _i64(v):
    return numpy.int64(v)


def int_array(n, fill):
    """A new int32 device array of ``n`` elements equal to ``fill``."""
    return backend.cupy().full(n, fill, dtype=numpy.int32)


def _read(x):
    """``x`` on the host (synchronizes)."""
    return backend.cupy().asnumpy(x)


def _flag():
    return backend.cupy().zeros(1, dtype=numpy.int32)


def cc_hook(indptr, indices, labels):
    """Hook along every edge; whether any label changed."""
    flag = _flag()
    n = labels.size
    _launch(kernel_name("cc_hook", indptr.dtype), n, _i64(n), indptr, indices, labels, flag)
    return bool(_read(flag)[0])


def cc_compress(labels):
    """Point every label at its root."""
    _launch(kernel_name("cc_compress"), labels.size, _i64(labels.size), labels)


def relabel(labels):
    """``(count, out)``: roots numbered 0, 1, ... in vertex order; ``out[v]`` the number of v's root."""
    from rocarray import prim

    n = labels.size
    if n == 0:
        return 0, int_array(0, 0)
    flags = int_array(n, 0)
    _launch(kernel_name("cc_roots"), n, _i64(n), labels, flags)
    ids = prim.exclusive_scan(flags, axis=0, dtype=numpy.int32)
    out = int_array(n, 0)
    _launch(kernel_name("cc_relabel"), n, _i64(n), labels, ids, out)
    return int(_read(ids[-1:])[0]) + int(_read(flags[-1:])[0]), out


def scc_trim(indptr, indices, scc):
    """Give every active vertex without active in- or out-neighbours its own component; whether any did."""
    n = scc.size
    has_in, has_out, flag = int_array(n, 0), int_array(n, 0), _flag()
    _launch(kernel_name("scc_trim", indptr.dtype), n, _i64(n), indptr, indices, scc, has_in, has_out)
    _launch(kernel_name("scc_trim_apply"), n, _i64(n), scc, has_in, has_out, flag)
    return bool(_read(flag)[0])


def scc_color_init(colors):
    """``colors[v] = v``."""
    _launch(kernel_name("scc_color_init"), colors.size, _i64(colors.size), colors)


def scc_propagate(indptr, indices, scc, colors):
    """One round of forward propagation of color minima; whether any color changed."""
    flag = _flag()
    n = scc.size
    _launch(kernel_name("scc_propagate", indptr.dtype), n, _i64(n), indptr, indices, scc, colors, flag)
    return bool(_read(flag)[0])


def scc_roots(scc, colors, mark):
    """``mark[v] = 1`` for active v with ``colors[v] == v``, else 0."""
    _launch(kernel_name("scc_roots"), scc.size, _i64(scc.size), scc, colors, mark)


def scc_backward(indptr, indices, scc, colors, mark):
    """One round of backward marking within colors; whether any vertex was marked."""
    flag = _flag()
    n = scc.size
    _launch(kernel_name("scc_backward", indptr.dtype), n, _i64(n), indptr, indices, scc, colors, mark, flag)
    return bool(_read(flag)[0])


def scc_assign(scc, colors, mark):
    """Marked vertices take their color as label; whether active vertices remain."""
    flag = _flag()
    _launch(kernel_name("scc_assign"), scc.size, _i64(scc.size), scc, colors, mark, flag)
    return bool(_read(flag)[0])


def bfs_init(n, start):
    """``(state, keys, order, pred)`` of a search from ``start``: start claimed (tag 1) and first
    in the order, its predecessor -9999 like every unreached vertex."""
    cupy = backend.cupy()
    state = int_array(n, 0)
    state[start] = 1
    keys = cupy.full(n, NO_KEY, dtype=numpy.uint64)
    order = int_array(n, 0)
    order[0] = start
    pred = int_array(n, -9999)
    return state, keys, order, pred


def bfs_level(graphs, state, keys, order, pred, base, count, tag):
    """Expand ``order[base:base + count]`` (one level) and append the next level, in queue order,
    at ``order[base + count:]``; predecessors set. ``graphs`` is a list of ``(indptr, indices,
    before)``: the adjacencies searched in turn (``before``: the indptr of the adjacency whose
    edges of a vertex come first, or None). Returns the next level's size."""
    from rocarray import prim

    cupy = backend.cupy()
    n = state.size
    frontier = order[base:base + count]
    nxt = cupy.empty(n - base - count, dtype=numpy.int32)  # written up to the count before it is read
    counter = _flag()
    for indptr, indices, before in graphs:
        _launch(kernel_name("bfs_expand", indptr.dtype), count, _i64(count), frontier, _i64(base), indptr, indices,
                before if before is not None else numpy.uint64(0), state, numpy.int32(tag), keys, nxt, counter)
    found = int(_read(counter)[0])
    if found == 0:
        return 0
    nxt = nxt[:found]
    level_keys = cupy.empty(found, dtype=numpy.uint64)
    _launch(kernel_name("bfs_keys"), found, _i64(found), nxt, keys, level_keys)
    sorted_keys, sorted_next = prim.radix_sort_pairs(level_keys, nxt)
    start = base + count
    order[start:start + found] = sorted_next
    _launch(kernel_name("bfs_pred"), found, _i64(found), sorted_next, sorted_keys, order, pred)
    return found
