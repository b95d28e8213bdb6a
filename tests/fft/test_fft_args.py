"""``rocarray.fft`` argument logic against ``numpy.fft`` on the CPU (no device needed).

The whole façade runs on host arrays here: the CuPy accessor (``backend.cupy()``) answers NumPy, so
the array module and the device-array check take host arrays, and the three library entry points
(``rocfft.c2c``/``r2c``/``c2r``) are swapped for NumPy-backed doubles that also assert the
library's contract (dtypes, distinct non-negative axes, the c2r input length, a float scale). Results, dtypes, shapes, warnings and exception types are compared with
``numpy.fft`` for many argument combinations. Without the swap, host arrays must raise TypeError
(the project rule) and bad arguments on fake device arrays must raise before any device work.
"""

import operator
import types
import warnings

import numpy as np
import pytest

from conftest import fake, random_array

import rocarray as ra
import rocarray.fft._fft as _fft
from rocarray import rocfft
from rocarray._core import backend, plans
from rocarray.fft import config

# The façade follows NumPy 2.x (out=, the s/axes deprecations, fftfreq's device=): compare with 2.x only.
pytestmark = pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0",
                                reason="rocarray.fft mirrors NumPy 2.x semantics")

CDTYPES = (np.dtype(np.complex64), np.dtype(np.complex128))
RDTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# --------------------------------------------------------------------------------------------
# the host doubles
# --------------------------------------------------------------------------------------------

class Library:
    """NumPy-backed stand-ins for rocfft.c2c/r2c/c2r that check the library's contract."""

    def __init__(self):
        self.calls = []

    @staticmethod
    def _check_axes(x, axes):
        assert isinstance(axes, tuple), axes
        assert all(isinstance(a, int) and 0 <= a < x.ndim for a in axes), (axes, x.ndim)
        assert len(set(axes)) == len(axes), axes

    def c2c(self, x, axes, *, forward, scale=1.0):
        assert isinstance(x, np.ndarray) and x.dtype in CDTYPES, x.dtype
        assert isinstance(forward, bool) and isinstance(scale, float)
        self._check_axes(x, axes)
        self.calls.append(("c2c", axes, x.shape, forward, scale))
        if not axes:
            res = x.copy()
        elif forward:
            res = np.fft.fftn(x, axes=axes)
        else:
            res = np.fft.ifftn(x, axes=axes, norm="forward")  # unnormalized
        return np.ascontiguousarray((res * scale).astype(x.dtype))

    def r2c(self, x, axes, *, scale=1.0):
        assert isinstance(x, np.ndarray) and x.dtype in RDTYPES, x.dtype
        assert isinstance(scale, float) and len(axes) >= 1
        self._check_axes(x, axes)
        self.calls.append(("r2c", axes, x.shape, True, scale))
        res = np.fft.rfftn(x, axes=axes) * scale
        return np.ascontiguousarray(res.astype(np.result_type(x.dtype, np.complex64)))

    def c2r(self, x, axes, n, *, scale=1.0):
        assert isinstance(x, np.ndarray) and x.dtype in CDTYPES, x.dtype
        assert isinstance(scale, float) and isinstance(n, int) and n >= 1
        self._check_axes(x, axes)
        assert x.shape[axes[-1]] == n // 2 + 1, (x.shape, axes, n)
        self.calls.append(("c2r", axes, x.shape, False, scale))
        sizes = [x.shape[a] for a in axes[:-1]] + [n]
        res = np.fft.irfftn(x, s=sizes, axes=axes, norm="forward") * scale
        return np.ascontiguousarray(res.astype(x.real.dtype))


@pytest.fixture
def lib(monkeypatch):
    """Run the façade on host arrays with the NumPy doubles; yields the doubles (their calls)."""
    doubles = Library()
    monkeypatch.setattr(backend, "_cupy", [np])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)  # a device is there
    monkeypatch.setattr(_fft, "_rocfft", types.SimpleNamespace(c2c=doubles.c2c, r2c=doubles.r2c,
                                                               c2r=doubles.c2r))
    plans.cache.clear()  # no plan of another test's doubles
    yield doubles
    plans.cache.clear()


data = random_array


def rtol_for(dtype):
    return 2e-5 if np.dtype(dtype).char in "efF" else 1e-12


def same(got, want, half=False):
    """Same type, dtype and shape; values to the result precision (relative to the max).

    ``half``: float16 input, where NumPy rounds its norm factor to float16 (rocarray does not).
    """
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.size:
        scale = max(float(np.max(np.abs(want))), 1.0)
        tol = 2e-3 if half or want.dtype == np.float16 else rtol_for(want.dtype)
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128),
                                   rtol=tol, atol=tol * scale)


def both(name, a, *args, **kwargs):
    """Call ``numpy.fft.<name>`` and ``ra.fft.<name>``; compare results and warnings."""
    with warnings.catch_warnings(record=True) as w_np:
        warnings.simplefilter("always")
        want = getattr(np.fft, name)(a, *args, **kwargs)
    with warnings.catch_warnings(record=True) as w_ra:
        warnings.simplefilter("always")
        got = getattr(ra.fft, name)(a, *args, **kwargs)
    assert [w.category for w in w_ra] == [w.category for w in w_np], (w_ra, w_np)
    for w in w_ra:  # the warning points at the caller (this file), as NumPy's does
        assert w.filename == __file__, w.filename
    same(got, want, half=getattr(a, "dtype", None) == np.float16)
    return got


# --------------------------------------------------------------------------------------------
# results against numpy.fft
# --------------------------------------------------------------------------------------------

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn"}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "float16", "int32",
                                   "bool", "uint8"])
def test_one_d_dtypes(lib, rng, name, dtype):
    if name in REAL_IN and np.dtype(dtype).kind == "c":
        pytest.skip("complex input: an error case")
    both(name, data(rng, (3, 10), dtype))


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 1, 2, 3, 7, 8, 9, 16, 17])
@pytest.mark.parametrize("axis", [-1, 0, 1, -3])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_one_d_n_axis_norm(lib, rng, name, n, axis, norm):
    dtype = "float64" if name in REAL_IN else "complex128"
    a = data(rng, (5, 8, 3), dtype)
    both(name, a, n, axis, norm)
    both(name, a, n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn"])
@pytest.mark.parametrize("s, axes", [
    (None, None), (None, (0,)), (None, (-1, 0)), (None, (2, 0, 1)), ((3, 4), (0, 2)), ((7, 1), (1, -1)),
    ((2, 9, 5), (0, 1, 2)), ((6,), (1,)), (None, (1, 1)), ((4, 6), (2, 2)), ((3, 5, 7), (1, 0, 1)),
    ((5, 2, 9), (2, 0, 2)), ((-1, 4), (0, 1)), ((4, -1), (0, 2)), ((3, None), (0, 1)),
    ((None, None), (1, 2)), ((4, 6), None), ((3, 5, 4), None), ((5,), None), (None, (-2, -1)),
])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_n_d_s_axes_norm(lib, rng, name, s, axes, norm):
    if name.endswith("2") and s is not None and axes is None:
        pytest.skip("the 2-D functions have default axes")
    dtype = "float64" if name in REAL_IN else "complex128"
    a = data(rng, (4, 6, 5), dtype)
    if name.endswith("2") and axes is None:
        both(name, a, s=s, norm=norm)
    else:
        both(name, a, s=s, axes=axes, norm=norm)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "rfft2"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "int64", "bool"])
def test_n_d_dtypes(lib, rng, name, dtype):
    if name in REAL_IN and np.dtype(dtype).kind == "c":
        pytest.skip("complex input: an error case")
    both(name, data(rng, (4, 6), dtype))


def test_distinct_axes_take_one_library_call(lib, rng):
    a = data(rng, (4, 6, 5), "complex64")
    both("fftn", a, s=(3, 8, 5), axes=(0, 1, 2))
    assert [c[:2] for c in lib.calls] == [("c2c", (0, 1, 2))]
    assert lib.calls[0][2] == (3, 8, 5)
    lib.calls.clear()
    both("rfftn", a.real.copy(), s=(3, 8), axes=(2, 0))
    assert [c[:2] for c in lib.calls] == [("r2c", (2, 0))]      # the real axis last
    lib.calls.clear()
    both("irfftn", a, s=(3, 8), axes=(2, 0), norm="ortho")
    assert [c[:2] for c in lib.calls] == [("c2r", (2, 0))]
    assert lib.calls[0][2] == (5, 6, 3)                        # 8 // 2 + 1 inputs along axis 0
    assert lib.calls[0][4] == pytest.approx(1 / np.sqrt(24))


def test_repeated_axes_transform_once_per_occurrence(lib, rng):
    a = data(rng, (4, 6), "complex128")
    both("fftn", a, axes=(1, 0, 1))
    assert [c[:2] for c in lib.calls] == [("c2c", (1,)), ("c2c", (0,)), ("c2c", (1,))]
    assert [c[4] for c in lib.calls] == [1.0, 1.0, 1.0]
    lib.calls.clear()
    both("ifftn", a, axes=(1, 1))
    assert [c[4] for c in lib.calls] == [1.0, pytest.approx(1 / 36)]   # the scale on the last call


@pytest.mark.parametrize("name", ["fftn", "ifftn", "fft2", "ifft2"])
def test_no_axes_returns_the_input_itself(lib, rng, name):
    a = data(rng, (3, 4), "int32")
    assert getattr(ra.fft, name)(a, axes=()) is a
    assert getattr(np.fft, name)(a, axes=()) is a
    assert ra.fft.fftn(a, axes=(), norm="bad") is a    # NumPy checks nothing more
    s0 = np.float64(2.5)
    assert ra.fft.fftn(np.asarray(s0)).shape == ()
    with pytest.warns(DeprecationWarning):
        assert ra.fft.fftn(a, s=()) is a
    assert not lib.calls


@pytest.mark.parametrize("name, shape, kwargs", [
    ("fft", (0, 4), {}), ("fft", (4, 0), {"axis": 0}), ("ifft", (3, 0), {"axis": 0, "n": 5}),
    ("rfft", (0, 6), {}), ("irfft", (0, 3), {"axis": 1}), ("hfft", (0, 3), {}), ("ihfft", (2, 0, 4), {}),
    ("fftn", (0, 3), {"axes": (1,)}), ("fftn", (0, 3), {"s": (2, 3), "axes": (0, 1)}),
    ("rfftn", (0, 3), {"axes": (1,)}), ("irfftn", (0, 3), {"axes": (1,)}),
    ("rfftn", (2, 0, 3), {"s": (4, 3), "axes": (1, 2)}), ("irfftn", (2, 0, 3), {"axes": (0, 2)}),
])
def test_empty_inputs(lib, name, shape, kwargs):
    dtype = "float64" if name in REAL_IN else "complex64"
    both(name, np.ones(shape, dtype), **kwargs)


def test_non_contiguous_inputs(lib, rng):
    a = data(rng, (6, 8, 5), "complex128")
    for view in (a.T, a[::2, ::-1], a[:, 1:7:3, ::-2], np.moveaxis(a, 0, -1)):
        both("fft", view)
        both("fftn", view, axes=(0, 2))
        both("ifft2", view, s=(4, 9))
        both("irfftn", view, axes=(1, 0))
        both("rfftn", view.real, axes=(0, 1))
        both("hfft", view, 7, 0)


# --------------------------------------------------------------------------------------------
# out=
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shape, args, kwargs, out_shape, out_dtype", [
    ("fft", (3, 8), (), {}, (3, 8), "complex128"),
    ("fft", (3, 8), (5,), {}, (3, 5), "complex64"),
    ("fft", (1, 8), (), {}, (4, 8), "complex128"),                       # broadcast into out
    ("ifft", (3, 8), (), {"axis": 0}, (3, 8), "complex64"),
    ("fft", (3, 8), (), {"out_src": "float32"}, (3, 8), "complex128"),   # single input, double out
    ("rfft", (3, 8), (), {}, (3, 5), "complex128"),
    ("rfft", (1, 6), (), {}, (3, 4), "complex64"),
    ("irfft", (3, 5), (), {}, (3, 8), "float64"),
    ("irfft", (3, 5), (), {}, (3, 8), "complex128"),                     # real into complex: safe
    ("irfft", (3, 5), (), {}, (3, 8), "float16"),                        # same kind
    ("irfft", (1, 3), (), {}, (3, 4), "float64"),
    ("ihfft", (2, 4), (), {}, (2, 3), "complex128"),
    ("ihfft", (2, 4), (), {}, (2, 3), "complex64"),
    ("fftn", (2, 3), (), {}, (2, 3), "complex128"),
    ("fftn", (2, 3), (), {"s": (2, 2), "axes": (0, 1)}, (2, 2), "complex128"),
    ("fftn", (1, 4), (), {"axes": (1,)}, (3, 4), "complex128"),
    ("fftn", (1, 4), (), {"s": (3, 4), "axes": (0, 1)}, (3, 4), "complex128"),  # NumPy broadcasts first
    ("fft2", (4, 6), (), {"norm": "ortho"}, (4, 6), "complex64"),
    ("rfftn", (2, 2), (), {}, (2, 2), "complex128"),
    ("rfftn", (1, 8), (), {"s": (3, 8), "axes": (0, 1)}, (3, 5), "complex128"),
    ("rfft2", (4, 6), (), {}, (4, 4), "complex128"),
    ("irfftn", (2, 2), (), {}, (2, 2), "float64"),
    ("irfftn", (2, 2), (), {"s": (3, 2), "axes": (0, 1)}, (3, 2), "float32"),
    ("irfftn", (1, 4, 3), (), {"axes": (1, 2)}, (5, 4, 4), "float64"),      # broadcast at the end
])
def test_out(lib, rng, name, shape, args, kwargs, out_shape, out_dtype):
    kwargs = dict(kwargs)
    src = kwargs.pop("out_src", "float64" if name in REAL_IN else "complex128")
    a = data(rng, shape, src)
    want_out = np.zeros(out_shape, out_dtype)
    want = getattr(np.fft, name)(a, *args, out=want_out, **kwargs)
    assert want is want_out
    out = np.zeros(out_shape, out_dtype)
    got = getattr(ra.fft, name)(a, *args, out=out, **kwargs)
    assert got is out
    same(got, want)


@pytest.mark.parametrize("name, shape, kwargs, out_shape, out_dtype, ref", [
    ("hfft", (2, 3), {}, (2, 4), "float64", "irfft"),
    ("ifft2", (3, 4), {"norm": "forward"}, (3, 4), "complex64", "ifftn"),
    ("irfft2", (3, 4), {}, (3, 6), "float64", "irfftn"),
])
def test_out_where_numpy_ignores_it(lib, rng, name, shape, kwargs, out_shape, out_dtype, ref):
    """NumPy 2.4 drops ``out`` in hfft/ifft2/irfft2; rocarray fills it (checked like the siblings)."""
    a = data(rng, shape, "complex128")
    want = getattr(np.fft, name)(a, **kwargs)
    out = np.zeros(out_shape, out_dtype)
    got = getattr(ra.fft, name)(a, out=out, **kwargs)
    assert got is out
    same(got, want.astype(out_dtype))
    with pytest.raises(ValueError):
        getattr(ra.fft, name)(a, out=np.zeros((9, 9), out_dtype), **kwargs)
    with pytest.raises(ValueError):
        getattr(np.fft, ref)(a, out=np.zeros((9, 9), out_dtype), **({"axes": (-2, -1)} if name.endswith("2") else {}))


def test_out_precision_follows_numpy_loop_choice(lib, rng):
    a = data(rng, (1000,), "float32")
    out = np.empty(1000, np.complex128)
    ra.fft.fft(a, out=out)
    assert lib.calls[-1][0] == "c2c"
    np.testing.assert_allclose(out, np.fft.fft(a.astype(np.float64)), rtol=1e-12, atol=1e-12)
    p = _fft.normalize("irfft", (3, 5), np.complex64, out=np.empty((3, 8), np.float64))
    assert p.compute == np.complex128 and p.dtype == np.float32
    p = _fft.normalize("rfft", (3, 8), np.float32, out=np.empty((3, 5), np.complex128))
    assert p.compute == np.float64


# --------------------------------------------------------------------------------------------
# errors: the same exception type as NumPy
# --------------------------------------------------------------------------------------------

def _a(shape, dtype="complex128"):
    return np.ones(shape, dtype)


ERRORS = [
    # n
    (ValueError, "fft", (_a(4),), {"n": 0}),
    (ValueError, "fft", (_a(4),), {"n": -1}),
    (TypeError, "fft", (_a(4),), {"n": 2.0}),
    (TypeError, "fft", (_a(4),), {"n": 2.5}),
    (ValueError, "fft", (_a(4),), {"n": 0.5}),
    (TypeError, "fft", (_a(4),), {"n": True}),
    (ValueError, "fft", (_a(4),), {"n": False}),
    (TypeError, "fft", (_a(4),), {"n": "3"}),
    (ValueError, "fft", (_a(0),), {}),
    (ValueError, "fft", (_a((4, 0)),), {}),
    (ValueError, "irfft", (_a(1),), {}),
    (ValueError, "irfft", (_a(0),), {}),
    (ValueError, "hfft", (_a(1),), {}),
    (ValueError, "ihfft", (_a(3, "float64"),), {"n": 0}),
    (ValueError, "rfft", (_a(3, "float64"),), {"n": -4}),
    # axis
    (IndexError, "fft", (_a(4),), {"axis": 1}),
    (IndexError, "fft", (_a(4),), {"axis": -2}),
    (IndexError, "fft", (np.complex128(3),), {}),
    (IndexError, "rfft", (_a((2, 3), "float32"),), {"axis": 2}),
    (IndexError, "hfft", (_a((2, 3)),), {"axis": 5}),
    (TypeError, "fft", (_a(4),), {"axis": 1.0}),
    # norm
    (ValueError, "fft", (_a(4),), {"norm": "bad"}),
    (ValueError, "ifft", (_a(4),), {"norm": 1}),
    (ValueError, "rfft", (_a(4, "float64"),), {"norm": "Ortho"}),
    (ValueError, "irfft", (_a(4),), {"norm": "x"}),
    (ValueError, "hfft", (_a(4),), {"norm": "x"}),
    (ValueError, "ihfft", (_a(4, "float64"),), {"norm": "x"}),
    (ValueError, "fftn", (_a((2, 3)),), {"norm": "x"}),
    (ValueError, "irfftn", (_a((2, 3)),), {"norm": "x"}),
    # dtype
    (TypeError, "rfft", (_a(4, "complex64"),), {}),
    (TypeError, "ihfft", (_a(4, "complex128"),), {}),
    (TypeError, "rfftn", (_a((2, 4), "complex64"),), {}),
    (TypeError, "rfft2", (_a((2, 4), "complex128"),), {}),
    # s / axes
    (ValueError, "fftn", (_a((4, 4)),), {"s": (3,), "axes": (0, 1)}),
    (ValueError, "fft2", (_a((4, 4)),), {"s": (3, 4, 5)}),
    (ValueError, "rfft2", (_a((4, 4), "float64"),), {"s": (3, 4, 5)}),
    (ValueError, "irfftn", (_a((4, 4)),), {"s": (3, 4), "axes": (0,)}),
    (ValueError, "fftn", (_a((4, 4)),), {"s": (3, 0), "axes": (0, 1)}),
    (ValueError, "rfft2", (_a((2, 3), "float64"),), {"s": (2, 0)}),
    (ValueError, "rfft2", (_a((2, 3), "float64"),), {"s": (0, 2)}),
    (ValueError, "irfft2", (_a((2, 3)),), {"s": (0, 2)}),
    (ValueError, "irfft2", (_a((2, 3)),), {"s": (2, 0)}),
    (ValueError, "fftn", (_a((4, 4)),), {"s": (3, -2), "axes": (0, 1)}),
    (ValueError, "fftn", (_a((0, 3)),), {}),
    (IndexError, "fftn", (_a((4, 4)),), {"axes": (0, 2)}),
    (IndexError, "fftn", (_a((4, 4)),), {"axes": (0, -3)}),
    (IndexError, "fft2", (_a(4),), {}),
    (IndexError, "rfftn", (_a((4, 4), "float64"),), {"axes": ()}),
    (IndexError, "irfftn", (_a((4, 4)),), {"axes": ()}),
    (IndexError, "rfftn", (_a((4, 4), "float64"),), {"s": (), "axes": ()}),
    (TypeError, "fftn", (_a((4, 4)),), {"axes": 0}),
    (TypeError, "fftn", (_a((4, 4)),), {"s": 3}),
    (TypeError, "fftn", (_a((4, 4)),), {"axes": (0.0, 1)}),
    (TypeError, "fftn", (_a((4, 4)),), {"s": [3.0, 2], "axes": (0, 1)}),
    (TypeError, "fftn", (_a(4),), {"s": (True,), "axes": (0,)}),
    (TypeError, "fftn", (_a(4),), {"s": ("3",), "axes": (0,)}),
    # out
    (TypeError, "fft", (_a(4),), {"out": np.empty(4)}),
    (TypeError, "fft", (_a(4),), {"out": np.empty(4, np.int32)}),
    (TypeError, "irfft", (_a((2, 4)),), {"out": np.empty((2, 6), np.int32)}),
    (TypeError, "ihfft", (_a((2, 4), "float64"),), {"out": np.empty((2, 3))}),
    (ValueError, "fft", (_a(4),), {"out": np.empty(5, np.complex128)}),
    (ValueError, "fft", (_a((2, 4)),), {"out": np.empty(4, np.complex128)}),
    (ValueError, "fft", (_a((2, 4)),), {"out": np.empty((1, 4), np.complex128)}),
    (ValueError, "fft", (_a(4),), {"out": np.empty((1, 4), np.complex128)}),
    (ValueError, "irfft", (_a((1, 3)),), {"out": np.empty(4)}),
    (ValueError, "fftn", (_a((2, 3)),), {"s": (4, 5), "axes": (0, 1), "out": np.empty((4, 5), complex)}),
    (ValueError, "fftn", (_a((3, 3)),), {"s": (2, 2), "axes": (0, 1), "out": np.empty((2, 2), complex)}),
    (ValueError, "rfftn", (_a((3, 3), "float64"),), {"s": (2, 2), "axes": (0, 1),
                                                    "out": np.empty((2, 2), complex)}),
    (ValueError, "fftn", (_a((1, 4)),), {"out": np.empty((3, 4), complex)}),
    (ValueError, "fftn", (_a((2, 3)),), {"s": (4, 5), "axes": (1, 1), "out": np.empty((2, 5), complex)}),
]


@pytest.mark.parametrize("error, name, args, kwargs", ERRORS,
                         ids=[f"{e[1]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_like_numpy(lib, error, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(error):
            getattr(np.fft, name)(*args, **kwargs)
        with pytest.raises(error):
            getattr(ra.fft, name)(*args, **kwargs)
    assert not lib.calls  # raised before any library work


def test_deprecated_s_forms_warn_and_act_like_numpy(lib, rng):
    a = data(rng, (3, 4, 5), "complex128")
    both("fftn", a, s=(3,))                          # the last len(s) axes
    both("fftn", a, s=(2, 6, 4))
    both("irfftn", a, s=(None, 6), axes=(0, 2))      # None: the 1-D default (2 * (m - 1) last)
    both("irfftn", a, s=(None, None))                # both warnings
    both("rfftn", a.real.copy(), s=(None, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(IndexError):
            np.fft.fftn(a, s=(3, 5, 6, 7))
        with pytest.raises(IndexError):
            ra.fft.fftn(a, s=(3, 5, 6, 7))


def test_minus_one_in_s_means_the_input_length(lib, rng):
    a = data(rng, (3, 4), "complex128")
    both("fftn", a, s=(-1, 6), axes=(0, 1))
    both("irfftn", a, s=(5, -1), axes=(0, 1))        # the input length, not 2 * (m - 1)
    both("rfftn", a.real.copy(), s=(-1, -1), axes=(1, 0))


def test_scalars_and_integer_types_in_arguments(lib, rng):
    a = data(rng, (4, 6), "complex128")
    both("fft", a, n=np.int64(5), axis=np.int32(0))
    both("fftn", a, s=np.array([3, 7]), axes=np.array([1, 0]))
    both("fftn", a, s=[3, 7], axes=[-1, 0])
    both("rfftn", a.real.copy(), s=(np.int16(3), 7), axes=(1, 0))


# --------------------------------------------------------------------------------------------
# plan (pure Python) and the numbers it carries
# --------------------------------------------------------------------------------------------

def test_plan_steps_scale_and_dtypes():
    p = _fft.normalize("fftn", (4, 6, 5), np.float32, s=(3, 8), axes=(0, 2), norm="ortho")
    assert p.kind == "c2c" and p.forward and p.dtype == np.complex64 and p.compute == np.complex64
    assert p.steps == (_fft.Step(2, 8, 8, 8), _fft.Step(0, 3, 3, 3))   # NumPy's order: last axis first
    assert p.shape == (3, 6, 8) and p.scale == pytest.approx(1 / np.sqrt(24))
    p = _fft.normalize("irfft", (3, 5), np.float16, norm=None)
    assert p.kind == "c2r" and p.dtype == np.float16 and p.compute == np.complex64
    assert p.steps == (_fft.Step(1, 8, 5, 8),) and p.scale == pytest.approx(1 / 8)
    p = _fft.normalize("rfftn", (4, 7), np.int8, axes=(1, 0), norm="forward")
    assert p.kind == "r2c" and p.dtype == np.complex128 and p.compute == np.float64
    assert p.steps == (_fft.Step(0, 4, 4, 3), _fft.Step(1, 7, 7, 7)) and p.scale == pytest.approx(1 / 28)
    p = _fft.normalize("hfft", (3, 5), np.complex128)
    assert p.conj_in and p.scale == 1.0
    p = _fft.normalize("ihfft", (3, 8), np.float64, norm="forward")
    assert p.conj_out and p.scale == 1.0
    p = _fft.normalize("ihfft", (3, 8), np.float64)
    assert p.scale == pytest.approx(1 / 8)
    assert _fft.normalize("fftn", (3, 4), np.int32, axes=()).kind == "identity"


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float32", "float64",
                                   "complex64", "complex128"])
def test_result_dtypes_match_numpy(dtype):
    a = np.ones(8, dtype)
    assert _fft.complex_result(dtype) == np.fft.fft(a).dtype
    assert _fft.real_result(dtype) == np.fft.irfft(a).dtype
    assert _fft.real_result(dtype) == np.fft.hfft(a).dtype
    if np.dtype(dtype).kind != "c":
        assert _fft.complex_result(dtype) == np.fft.rfft(a).dtype


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_norm_scale(norm, n):
    x = np.zeros(n, complex)
    x[0] = 1
    assert _fft.norm_scale(norm, n, True) == pytest.approx(np.fft.fft(x, norm=norm)[0].real)
    assert _fft.norm_scale(norm, n, False) == pytest.approx(np.fft.ifft(x, norm=norm)[0].real)


def test_check_n_types():
    assert _fft.check_n(np.int64(3)) == 3 and type(_fft.check_n(np.int64(3))) is int
    for bad, error in ((0, ValueError), (-3, ValueError), (1.5, TypeError), (True, TypeError),
                       (np.True_, TypeError), ("4", TypeError)):
        with pytest.raises(error):
            _fft.check_n(bad)
    assert operator.index(_fft.check_n(7)) == 7


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 100, 101, np.int64(6)])
@pytest.mark.parametrize("d", [1.0, 0.1, 3, np.float32(0.3), 2.5j, np.float64(0.7)])
def test_fftfreq_rfftfreq(lib, n, d):
    for name in ("fftfreq", "rfftfreq"):
        want = getattr(np.fft, name)(n, d)
        got = getattr(ra.fft, name)(n, d)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)   # one multiply, as NumPy: bitwise
    np.testing.assert_array_equal(ra.fft.fftfreq(n, d, device="cpu"), np.fft.fftfreq(n, d, device="cpu"))


@pytest.mark.parametrize("error, name, args, kwargs", [
    (ZeroDivisionError, "fftfreq", (0,), {}), (ZeroDivisionError, "rfftfreq", (0,), {}),
    (ZeroDivisionError, "fftfreq", (4,), {"d": 0}), (ValueError, "fftfreq", (-3,), {}),
    (ValueError, "fftfreq", (4.0,), {}), (ValueError, "rfftfreq", (4.0,), {}),
    (TypeError, "fftfreq", (True,), {}), (ValueError, "fftfreq", (4,), {"device": "gpu"}),
    (ValueError, "rfftfreq", (4,), {"device": "cuda"}),
])
def test_freq_errors_like_numpy(lib, error, name, args, kwargs):
    with pytest.raises(error):
        getattr(np.fft, name)(*args, **kwargs)
    with pytest.raises(error):
        getattr(ra.fft, name)(*args, **kwargs)


def test_rfftfreq_negative_n_is_empty_like_numpy(lib):
    assert ra.fft.rfftfreq(-3).shape == np.fft.rfftfreq(-3).shape == (0,)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4), (2, 5, 7), (1,), (0, 3)])
@pytest.mark.parametrize("axes", [None, 0, -1, (0,), (-1, 0), (0, 0)])
def test_shifts(lib, rng, shape, axes):
    if axes is not None and len(shape) == 1 and axes not in (0, -1, (0,), (0, 0)):
        pytest.skip("axis out of range")
    x = data(rng, shape, "float64")
    for name in ("fftshift", "ifftshift"):
        want = getattr(np.fft, name)(x, axes)
        got = getattr(ra.fft, name)(x, axes)
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ra.fft.ifftshift(ra.fft.fftshift(x, axes), axes), x)


def test_shift_errors_like_numpy(lib):
    x = np.ones((3, 4))
    for error, axes in ((IndexError, 2), (TypeError, 1.0)):
        with pytest.raises(error):
            np.fft.fftshift(x, axes)
        with pytest.raises(error):
            ra.fft.fftshift(x, axes)


# --------------------------------------------------------------------------------------------
# without the swap: the host-array rule, errors before device work, names, config
# --------------------------------------------------------------------------------------------

FUNCS = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
         "irfftn", "hfft", "ihfft"]


@pytest.mark.parametrize("name", FUNCS + ["fftshift", "ifftshift"])
def test_host_arrays_raise_type_error(name):
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        getattr(ra.fft, name)(np.ones((4, 4)))


@pytest.mark.parametrize("name", ["fft", "fftn", "irfft", "irfftn"])
def test_host_out_raises_type_error(name):
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        getattr(ra.fft, name)(fake((4, 4), "complex64"), out=np.empty((4, 4), np.complex64))


def test_errors_on_device_arrays_come_before_device_work():
    pytest.importorskip("cupy")
    c = fake((4, 6), "complex64")
    r = fake((4, 6), "float32")
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        ra.fft.fft(c, n=0)
    with pytest.raises(ValueError, match="Invalid norm value"):
        ra.fft.fftn(c, norm="bad")
    with pytest.raises(np.exceptions.AxisError):
        ra.fft.ifft(c, axis=2)
    with pytest.raises(TypeError):
        ra.fft.rfft(c)
    with pytest.raises(ValueError, match="Shape and axes"):
        ra.fft.rfftn(r, s=(3,), axes=(0, 1))
    with pytest.raises(ValueError, match="wrong shape"):
        ra.fft.fft(c, out=fake((4, 5), "complex64"))
    with pytest.raises(TypeError, match="same_kind"):
        ra.fft.fft(c, out=fake((4, 6), "float32"))
    assert ra.fft.fftn(r, axes=()) is r


def test_names_match_numpy_fft():
    public = {n for n in dir(np.fft) if not n.startswith("_") and callable(getattr(np.fft, n))} - {"test"}
    assert public <= set(ra.fft.__all__), public - set(ra.fft.__all__)
    assert ra.fft is ra.__dict__["fft"] and "fft" in ra.__all__
    import inspect

    # keyword-only parameters the Array API standard adds to NumPy's signature
    array_api_extras = {"fftfreq": ["dtype"], "rfftfreq": ["dtype"]}
    for name in public:
        want = inspect.signature(getattr(np.fft, name))
        got = inspect.signature(getattr(ra.fft, name))
        extras = array_api_extras.get(name, [])
        assert list(got.parameters) == list(want.parameters) + extras, name
        assert all(got.parameters[p].kind is inspect.Parameter.KEYWORD_ONLY for p in extras), name
        for p in want.parameters.values():
            assert got.parameters[p.name].default == p.default, (name, p.name)
        doc = getattr(ra.fft, name).__doc__
        assert "Parameters" in doc and "Returns" in doc and "Examples" in doc, name


def test_config_is_cupys_plan_cache_api():
    cupy = pytest.importorskip("cupy")
    want = {"get_plan_cache", "set_plan_cache_size", "get_plan_cache_size", "show_plan_cache_info",
            "clear_plan_cache", "get_plan_cache_max_memsize", "set_plan_cache_max_memsize"}
    assert want <= set(dir(cupy.fft.config)) and want <= set(config.__all__)
    cache = config.get_plan_cache()
    assert cache is rocfft.plan_cache is plans.cache  # the one plan cache of every library
    size = config.get_plan_cache_size()
    try:
        config.set_plan_cache_size(3)
        assert config.get_plan_cache_size() == cache.get_size() == 3
        with pytest.raises(ValueError):
            config.set_plan_cache_size(-1)
    finally:
        config.set_plan_cache_size(size)
    assert config.get_plan_cache_max_memsize() == -1
    config.set_plan_cache_max_memsize(-1)
    with pytest.raises(NotImplementedError):
        config.set_plan_cache_max_memsize(1 << 20)
    assert cache.get_curr_size() >= 0


def test_show_and_clear_plan_cache(capsys):
    from rocarray.rocfft._tables import tables

    config.show_plan_cache_info()
    assert "plan cache" in capsys.readouterr().out
    tables._get(("test", "double", 1, 0), lambda: np.zeros(2))
    assert tables.nbytes
    config.clear_plan_cache()
    assert config.get_plan_cache().get_curr_size() == 0
    assert tables.nbytes == 0  # rocfft's device twiddle tables go with the plans


def test_warm_one_d_calls_reuse_the_plan_but_still_reject_bad_arguments(lib, rng):
    import rocarray.fft as rfft

    x = data(rng, (3, 8), np.complex128)
    same(rfft.fft(x, n=4), np.fft.fft(x, n=4))
    misses, calls = plans.cache.misses, len(lib.calls)
    same(rfft.fft(x, n=4), np.fft.fft(x, n=4))  # from the plan cache: nothing built
    assert plans.cache.misses == misses and len(lib.calls) == calls + 1
    assert plans.cache.get(("fft.fft", x.shape, x.dtype.char, int, 4, int, -1, None)) is not None
    for kwargs in ({"n": 4.0}, {"n": True}, {"axis": 1.0}):  # equal to a plan's key, still NumPy's errors
        with pytest.raises(TypeError):
            np.fft.fft(x, **kwargs)
        with pytest.raises(TypeError):
            rfft.fft(x, **kwargs)


@pytest.mark.parametrize("func", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int64, np.complex64, np.complex128])
def test_warm_one_d_calls_match_the_cold_path(lib, rng, func, n, dtype):
    import rocarray.fft as rfft

    if func in ("rfft", "ihfft") and np.dtype(dtype).kind == "c":
        pytest.skip("real transforms take real input")
    x = data(rng, (3, 8), dtype)
    for norm in (None, "ortho", "forward"):
        want = getattr(np.fft, func)(x, n=n, axis=0, norm=norm)
        cold = getattr(rfft, func)(x, n=n, axis=0, norm=norm)
        key = ("fft." + func, x.shape, x.dtype.char, type(n), n, int, 0, norm)
        assert plans.cache.get(key)[1] is not None  # a prepared warm path exists
        calls, misses = len(lib.calls), plans.cache.misses
        warm = getattr(rfft, func)(x, n=n, axis=0, norm=norm)
        assert plans.cache.misses == misses  # a warm call builds nothing
        assert lib.calls[calls:] == lib.calls[calls - (len(lib.calls) - calls):calls]  # the same library call
        assert warm.dtype == cold.dtype and warm.shape == cold.shape
        np.testing.assert_array_equal(warm, cold)
        same(warm, want, half=np.dtype(dtype) == np.float16)
