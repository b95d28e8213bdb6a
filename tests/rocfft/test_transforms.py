"""The host path of ``rocarray.rocfft``'s transforms on the CPU: schedules are plans in the one
plan cache, found again by the arrays' layout; a warm call builds nothing and queues the same
launches with the new data's addresses.

Kernels are stand-ins (real :class:`rocarray._core.kernels.Kernel` handles whose compiled function
records CuPy-style calls), the device tables are stand-ins, and ``backend.cupy()`` is a namespace
whose arrays are ``cupy.ndarray`` views of made-up device addresses (metadata only, never read).
"""

import itertools
import types

import cupy
import numpy as np
import pytest

from rocarray._core import backend, kernels, plans, workspace
from rocarray._core import compile as _compile
from rocarray.rocfft import _schedule as S
from rocarray.rocfft import _transforms as T

H200_OPTIN = 232448


class _Function:
    def __init__(self, name):
        self.name = name
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, grid, block, args, shared_mem=0):
        launched.append((self.name, grid, block, shared_mem, args))


launched = []
_addresses = itertools.count(1 << 32, 1 << 24)


def _array(shape, dtype=np.float64, order="C", address=None):
    dtype = np.dtype(dtype)
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    nbytes = max(int(np.prod(shape)) * dtype.itemsize, 1)
    mem = cupy.cuda.UnownedMemory(next(_addresses) if address is None else address, nbytes, None, device_id=0)
    return cupy.ndarray(shape, dtype, memptr=cupy.cuda.MemoryPointer(mem, 0), order=order)


class _Tables:
    """Device tables as arrays at made-up addresses (never read)."""

    def twiddles(self, precision, n, device_id):
        return _array(1)

    pass_twiddles = twiddles

    def split_twiddles(self, precision, n, device_id):
        return _array(1), _array(1), 1 << (n.bit_length() // 2)

    def chirp(self, precision, n, device_id):
        return _array(1)

    def bluestein_filter(self, precision, n, m, forward, device_id):
        return _array(1)


def _contiguous(a):
    assert a.flags.c_contiguous  # the layouts here need no copy (a copy would launch CuPy's kernel)
    return a


@pytest.fixture
def host(monkeypatch):
    """Stand-in kernels, tables, device facts and CuPy; an empty plan cache before and after."""
    launched.clear()
    monkeypatch.setattr(_compile, "get_kernel", lambda source, name, device_id=None: _Function(name))
    monkeypatch.setattr(S, "_stockham", kernels.Family(S.STOCKHAM, S.BLOCK, 8))
    monkeypatch.setattr(S, "_pointwise", kernels.Family(S.POINTWISE, S.BLOCK, 8))
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id: H200_OPTIN)
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: types.SimpleNamespace(multiprocessors=132))
    monkeypatch.setattr(T, "tables", _Tables())
    fake = types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=lambda: 0),
                                   get_current_stream=lambda: types.SimpleNamespace(ptr=0, is_capturing=lambda: False)),
        empty=lambda shape, dtype=np.float64, order="C": _array(shape, dtype, order),
        ndarray=cupy.ndarray, moveaxis=cupy.moveaxis, ascontiguousarray=_contiguous)
    monkeypatch.setattr(backend, "_cupy", [fake])
    monkeypatch.setattr(workspace, "workspaces", workspace.Workspaces())
    plans.cache.clear()
    yield
    plans.cache.clear()


def _pointers(call):
    return [int(a) for a in call[4] if isinstance(a, np.uint64)]


@pytest.mark.parametrize("n", [64, 1000, 4096, 1 << 16, 97])
def test_a_warm_transform_builds_nothing_and_launches_the_same_kernels(host, n):
    x, y = _array((3, n), np.complex64), _array((3, n), np.complex64)
    T.transform_axis(x, y, 1, forward=True)
    first, misses, size = list(launched), plans.cache.misses, plans.cache.get_curr_size()
    assert first and size >= 2  # the problem's key and the layout's key
    launched.clear()
    x2, y2 = _array((3, n), np.complex64), _array((3, n), np.complex64)  # same layout, new data
    T.transform_axis(x2, y2, 1, forward=True, scale=0.5)
    assert (plans.cache.misses, plans.cache.get_curr_size()) == (misses, size)
    assert [c[:4] for c in launched] == [c[:4] for c in first]

    def moved(p):  # pointers into x and y follow the new arrays; work buffers and tables stay
        for a, b in ((x, x2), (y, y2)):
            if a.data.ptr <= p < a.data.ptr + a.nbytes:
                return p - a.data.ptr + b.data.ptr
        return p

    assert [[moved(p) for p in _pointers(c)] for c in first] == [_pointers(c) for c in launched]


def test_the_layout_key_and_the_problem_key_hold_one_schedule(host):
    x, y = _array((5, 256), np.complex128), _array((5, 256), np.complex128)
    T.transform_axis(x, y, 1, forward=False)
    entries = [(key, plan) for key, plan in plans.cache._entries.items() if key[0].startswith("rocfft.c2c")]
    assert sorted(key[0] for key, _ in entries) == ["rocfft.c2c", "rocfft.c2c_layout"]
    assert entries[0][1] is entries[1][1] and isinstance(entries[0][1], S.Schedule)
    # another layout of the same problem (the same element strides) shares the schedule
    assert all(isinstance(go, type(entries[0][1].launches[0])) for go in entries[0][1].launches)


@pytest.mark.parametrize("n", [64, 200, 1 << 14])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_warm_real_transforms_are_one_lookup(host, n, dtype):
    ctype = np.result_type(dtype, 1j)
    T.r2c(_array((4, n), dtype), (1,))
    T.c2r(_array((4, n // 2 + 1), ctype), (1,), n)
    misses, size, count = plans.cache.misses, plans.cache.get_curr_size(), len(launched)
    launched.clear()
    out = T.r2c(_array((4, n), dtype), (1,), scale=0.25)
    back = T.c2r(_array((4, n // 2 + 1), ctype), (1,), n, scale=2.0)
    assert (plans.cache.misses, plans.cache.get_curr_size()) == (misses, size)
    assert len(launched) == count
    assert out.shape == (4, n // 2 + 1) and out.dtype == ctype and back.shape == (4, n) and back.dtype == dtype
    warm = {key[0] for key in plans.cache._entries if key[0].endswith("_warm")}
    assert warm == {"rocfft.r2c_warm", "rocfft.c2r_warm"}
    scales = [a for call in launched for a in call[4] if isinstance(a, (np.float32, np.float64))]
    assert 0.25 in scales and 2.0 in scales


def test_a_size_zero_cache_keeps_nothing_and_still_transforms(host):
    size = plans.cache.get_size()
    try:
        plans.cache.set_size(0)
        x, y = _array((2, 128), np.complex64), _array((2, 128), np.complex64)
        T.transform_axis(x, y, 1, forward=True)
        T.transform_axis(x, y, 1, forward=True)
        T.r2c(_array((2, 256), np.float32), (1,))
        assert plans.cache.get_curr_size() == 0 and len(launched) >= 3
    finally:
        plans.cache.set_size(size)
