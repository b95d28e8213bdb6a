"""``rocarray`` as a Python Array API 2024.12 namespace, checked on the CPU.

Every name of the standard is reachable from ``rocarray``, ``rocarray.linalg`` and ``rocarray.fft``;
the façade functions of :mod:`rocarray._numpy.array_api` and :mod:`rocarray.linalg._array_api` have
the standard's positional-only / keyword-only parameters (by the rule of the standard's own test
suite: a parameter the standard makes positional-or-keyword has its name and kind, a keyword-only
one exists and may be passed by keyword); ``__array_namespace_info__`` answers without a GPU.
The façade logic runs on NumPy stand-ins (``backend.cupy()`` is NumPy) against NumPy 2.x's own
functions. When the standard's signature stubs are present (``.cache-api-tests/``, fetched for
``scripts/array_api_tests.sh``), every function's signature is checked against them as well.
The behaviour on a GPU is measured by the standard's test suite: ``scripts/array_api_tests.sh``.
"""

import inspect
import pathlib
import sys

import numpy as np
import pytest

import rocarray as ra
import rocarray._numpy.sorting as sorting
from rocarray._core import backend
from rocarray._numpy import array_api
from rocarray.linalg import _array_api as linalg_api

#: The names the 2024.12 standard specifies, by namespace.
SPEC_NAMES = {
    "rocarray": """
        e inf nan newaxis pi
        bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128
        arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones
        ones_like tril triu zeros zeros_like
        astype can_cast finfo iinfo isdtype result_type
        abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
        bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp
        expm1 floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less
        less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor
        maximum minimum multiply negative nextafter not_equal positive pow real reciprocal remainder
        round sign signbit sin sinh square sqrt subtract tan tanh trunc
        take take_along_axis
        matmul matrix_transpose tensordot vecdot
        broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape
        roll squeeze stack tile unstack
        argmax argmin count_nonzero nonzero searchsorted where
        unique_all unique_counts unique_inverse unique_values
        argsort sort
        cumulative_sum cumulative_prod max mean min prod std sum var
        all any diff
        __array_api_version__ __array_namespace_info__ linalg fft
    """.split(),
    "rocarray.linalg": """
        cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank
        matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm
    """.split(),
    "rocarray.fft": """
        fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift
    """.split(),
}

#: The standard's signatures of the functions rocarray defines for it (parameter kinds only).
SPEC_SIGNATURES = """
def arange(start, /, stop=None, step=1, *, dtype=None, device=None): ...
def asarray(obj, /, *, dtype=None, device=None, copy=None): ...
def empty(shape, *, dtype=None, device=None): ...
def empty_like(x, /, *, dtype=None, device=None): ...
def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None): ...
def from_dlpack(x, /, *, device=None, copy=None): ...
def full(shape, fill_value, *, dtype=None, device=None): ...
def full_like(x, /, fill_value, *, dtype=None, device=None): ...
def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True): ...
def meshgrid(*arrays, indexing="xy"): ...
def ones(shape, *, dtype=None, device=None): ...
def ones_like(x, /, *, dtype=None, device=None): ...
def zeros(shape, *, dtype=None, device=None): ...
def zeros_like(x, /, *, dtype=None, device=None): ...
def astype(x, dtype, /, *, copy=True, device=None): ...
def clip(x, /, min=None, max=None): ...
def take_along_axis(x, indices, /, *, axis=-1): ...
def vecdot(x1, x2, /, *, axis=-1): ...
def repeat(x, repeats, /, *, axis=None): ...
def reshape(x, /, shape, *, copy=None): ...
def unstack(x, /, *, axis=0): ...
def argsort(x, /, *, axis=-1, descending=False, stable=True): ...
def sort(x, /, *, axis=-1, descending=False, stable=True): ...
def std(x, /, *, axis=None, correction=0.0, keepdims=False): ...
def var(x, /, *, axis=None, correction=0.0, keepdims=False): ...
def linalg_diagonal(x, /, *, offset=0): ...
def linalg_matrix_norm(x, /, *, keepdims=False, ord="fro"): ...
def linalg_matmul(x1, x2, /): ...
def linalg_outer(x1, x2, /): ...
def linalg_tensordot(x1, x2, /, *, axes=2): ...
def linalg_trace(x, /, *, offset=0, dtype=None): ...
def linalg_vecdot(x1, x2, /, *, axis=-1): ...
def linalg_vector_norm(x, /, *, axis=None, keepdims=False, ord=2): ...
def fft_fftfreq(n, /, *, d=1.0, dtype=None, device=None): ...
def fft_rfftfreq(n, /, *, d=1.0, dtype=None, device=None): ...
"""

P = inspect.Parameter


def signature_problems(sig, spec):
    """Where ``sig`` cannot be called the ways ``spec`` (the standard's signature) allows."""
    params = list(sig.parameters.values())
    spec_params = list(spec.parameters.values())
    positional = [p for p in spec_params if p.kind is not P.KEYWORD_ONLY]
    problems = []
    for i, want in enumerate(positional):
        if i >= len(params):
            problems.append(f"parameter {want.name!r} missing")
            continue
        got = params[i]
        if got.kind is P.VAR_POSITIONAL and want.kind is P.POSITIONAL_ONLY:
            break  # *args takes the remaining positional arguments
        if want.kind in (P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL, P.VAR_KEYWORD):
            if want.kind is P.POSITIONAL_OR_KEYWORD and got.name != want.name:
                problems.append(f"parameter {i} is {got.name!r}, the standard's is {want.name!r}")
            if got.kind is not want.kind:
                problems.append(f"{got.name!r} is {got.kind.description}, not {want.kind.description}")
        elif got.kind not in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            problems.append(f"{got.name!r} cannot be passed by position")
    for want in spec_params[len(positional):]:
        got = sig.parameters.get(want.name)
        if got is None:
            problems.append(f"keyword {want.name!r} missing")
        elif got.kind not in (P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD):
            problems.append(f"{want.name!r} is {got.kind.description}")
    return problems


def _spec_functions():
    namespace = {}
    exec(SPEC_SIGNATURES, namespace)  # noqa: S102 - the literal stubs above
    out = []
    for name, stub in namespace.items():
        if not callable(stub) or name.startswith("__"):
            continue
        module, _, short = name.partition("_") if name.startswith(("linalg_", "fft_")) else ("", "", name)
        out.append((module, short, stub))
    return out


@pytest.fixture
def numpy_device(monkeypatch):
    """The façade on host arrays: ``backend.cupy()`` is NumPy and a device is 'there'."""
    monkeypatch.setattr(backend, "_cupy", [np])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)


def test_version_is_2024_12():
    assert ra.__array_api_version__ == "2024.12"
    assert "__array_api_version__" in ra.__all__ and "__array_namespace_info__" in ra.__all__


@pytest.mark.parametrize("module", sorted(SPEC_NAMES))
def test_every_name_of_the_standard_is_reachable(module):
    pytest.importorskip("cupy")  # names without a rocarray kernel fall through to CuPy
    namespace = {"rocarray": ra, "rocarray.linalg": ra.linalg, "rocarray.fft": ra.fft}[module]
    missing = [n for n in SPEC_NAMES[module] if not hasattr(namespace, n)]
    assert not missing, f"{module} lacks {missing}"


def test_dtypes_are_numpys_and_bool_is_the_dtype_not_the_builtin():
    pytest.importorskip("cupy")
    assert ra.bool is np.bool_ and ra.float64 is np.float64
    assert ra.finfo is np.finfo and ra.iinfo is np.iinfo  # NumPy's own (they accept device arrays)


@pytest.mark.parametrize("module, name, stub", _spec_functions(), ids=lambda v: getattr(v, "__name__", v))
def test_facade_signature_follows_the_standard(module, name, stub):
    namespace = {"": ra, "linalg": ra.linalg, "fft": ra.fft}[module]
    function = getattr(namespace, name)
    assert "__wrapped__" not in vars(function), f"{name} should be rocarray's own function"
    assert not signature_problems(inspect.signature(function), inspect.signature(stub))


def test_signature_rule_catches_the_disagreements_it_is_for():
    def spec(x, /, shape, *, copy=None): ...

    def cupy_like(a, newshape, order="C"): ...

    assert signature_problems(inspect.signature(cupy_like), inspect.signature(spec)) == [
        "parameter 1 is 'newshape', the standard's is 'shape'", "keyword 'copy' missing"]


def _stub_root():
    root = pathlib.Path(__file__).resolve().parents[2] / ".cache-api-tests" / "array-api-tests"
    return root / "array-api" / "src"


@pytest.mark.skipif(not (_stub_root() / "array_api_stubs" / "_2024_12").is_dir(),
                    reason="the standard's stubs are fetched with the array-api-tests snapshot "
                           "(.cache-api-tests/, see scripts/array_api_tests.sh)")
def test_every_inspectable_function_matches_the_standards_stubs(monkeypatch):
    pytest.importorskip("cupy")
    import importlib

    monkeypatch.syspath_prepend(str(_stub_root()))
    problems = {}
    for stub_module, namespace in [("creation_functions", ra), ("data_type_functions", ra),
                                   ("elementwise_functions", ra), ("indexing_functions", ra),
                                   ("linear_algebra_functions", ra), ("manipulation_functions", ra),
                                   ("searching_functions", ra), ("set_functions", ra),
                                   ("sorting_functions", ra), ("statistical_functions", ra),
                                   ("utility_functions", ra), ("linalg", ra.linalg), ("fft", ra.fft)]:
        stubs = importlib.import_module(f"array_api_stubs._2024_12.{stub_module}")
        for name in stubs.__all__:
            try:
                sig = inspect.signature(getattr(namespace, name))
            except ValueError:  # a CuPy ufunc: the suite calls it instead of inspecting it
                continue
            found = signature_problems(sig, inspect.signature(getattr(stubs, name)))
            if found:
                problems[f"{stub_module}.{name}"] = found
    sys.modules.pop("array_api_stubs", None)
    assert not problems


# ------------------------------------------------------------------------------------------------
# the inspection namespace
# ------------------------------------------------------------------------------------------------

def test_namespace_info_structure_without_a_device():
    info = ra.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True,
                                   "max dimensions": 64}
    assert info.default_dtypes() == {"real floating": np.float64, "complex floating": np.complex128,
                                     "integral": np.intp, "indexing": np.intp}
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64", "complex64", "complex128"]
    assert info.dtypes() == {n: np.dtype(n) for n in names}
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64", "complex128"]
    assert list(info.dtypes(kind="integral")) == names[1:9]
    assert list(info.dtypes(kind="numeric")) == names[1:]
    if not backend.is_available():
        assert info.devices() == []
        with pytest.raises(ra.NoDeviceError):
            info.default_device()


def test_namespace_info_matches_numpys_keys_and_signatures():
    ours, numpys = ra.__array_namespace_info__(), np.__array_namespace_info__()
    for name in ("capabilities", "default_device", "default_dtypes", "dtypes", "devices"):
        want = inspect.signature(getattr(numpys, name))
        assert list(inspect.signature(getattr(ours, name)).parameters) == list(want.parameters)
    assert set(ours.capabilities()) <= set(numpys.capabilities()) | {"max dimensions"}
    assert set(ours.default_dtypes()) == set(numpys.default_dtypes())
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric"):
        assert set(ours.dtypes(kind=kind)) == set(numpys.dtypes(kind=kind)) - {"float16"}


@pytest.mark.parametrize("bad", [{"kind": "floating"}, {"kind": ("bool", 3)}, {"device": "gpu"}])
def test_namespace_info_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        ra.__array_namespace_info__().dtypes(**bad)


def test_device_scope():
    assert array_api.device_scope(None).__enter__() is None
    assert array_api.device_scope("cpu").__enter__() is None
    for bad in ("cuda", 0, object()):
        with pytest.raises(ValueError, match="device"):
            array_api.device_scope(bad)


# ------------------------------------------------------------------------------------------------
# façade logic on NumPy stand-ins, against NumPy 2.x
# ------------------------------------------------------------------------------------------------

@pytest.mark.usefixtures("numpy_device")
def test_creation_functions_follow_numpy():
    np.testing.assert_array_equal(array_api.arange(2, 9, 3, dtype=np.int32), np.arange(2, 9, 3, dtype=np.int32))
    np.testing.assert_array_equal(array_api.arange(4), np.arange(4))
    for name in ("zeros", "ones", "empty"):
        got = getattr(array_api, name)((2, 3), device="cpu")
        assert got.shape == (2, 3) and got.dtype == np.float64
    assert array_api.full(3, 2.5).dtype == np.float64 and array_api.full(3, 7).dtype == np.int64
    np.testing.assert_array_equal(array_api.eye(3, 4, k=1), np.eye(3, 4, k=1))
    np.testing.assert_array_equal(array_api.linspace(0, 1, 5, endpoint=False), np.linspace(0, 1, 5, endpoint=False))
    x = np.arange(3.0)
    a, b = array_api.meshgrid(x, x[:2], indexing="ij")
    want = np.meshgrid(x, x[:2], indexing="ij")
    np.testing.assert_array_equal(a, want[0])
    np.testing.assert_array_equal(b, want[1])
    assert isinstance(array_api.meshgrid(x, x), tuple)
    with pytest.raises(ValueError):
        array_api.meshgrid(x, indexing="yx")


@pytest.mark.usefixtures("numpy_device")
def test_clip_takes_min_max_and_numpys_names():
    x = np.array([-3.0, 0.5, 4.0, np.nan])
    np.testing.assert_array_equal(array_api.clip(x, -1, 1), np.clip(x, -1, 1))
    np.testing.assert_array_equal(array_api.clip(x, max=1), np.clip(x, max=1))
    np.testing.assert_array_equal(array_api.clip(x, a_min=0, a_max=2), np.clip(x, a_min=0, a_max=2))
    got = array_api.clip(x)
    np.testing.assert_array_equal(got, x)
    assert not np.shares_memory(got, x)
    with pytest.raises(TypeError):
        array_api.clip(x, 0, a_min=1)


@pytest.mark.usefixtures("numpy_device")
def test_reshape_std_var_repeat_take_along_axis_follow_numpy():
    x = np.arange(12.0).reshape(3, 4)
    assert array_api.reshape(x, (4, 3)).shape == (4, 3)
    assert array_api.reshape(x, shape=-1).shape == (12,)
    with pytest.raises(ValueError):
        array_api.reshape(x.T, 12, copy=False)  # a view is impossible
    for name in ("std", "var"):
        ours, numpys = getattr(array_api, name), getattr(np, name)
        np.testing.assert_allclose(ours(x, axis=0, correction=1), numpys(x, axis=0, correction=1))
        np.testing.assert_allclose(ours(x, ddof=1.5, keepdims=True), numpys(x, ddof=1.5, keepdims=True))
        with pytest.raises(ValueError):
            ours(x, ddof=1, correction=1)
    np.testing.assert_array_equal(array_api.repeat(x, np.array([1, 0, 2]), axis=0),
                                  np.repeat(x, [1, 0, 2], axis=0))
    np.testing.assert_array_equal(array_api.repeat(x, np.array(2)), np.repeat(x, 2))
    idx = np.argsort(x, axis=-1)[:, ::-1]
    np.testing.assert_array_equal(array_api.take_along_axis(x, idx), np.take_along_axis(x, idx, -1))


@pytest.mark.usefixtures("numpy_device")
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128])
@pytest.mark.parametrize("shapes, axis", [(((5,), (5,)), -1), (((2, 3, 4), (4,)), -1),
                                          (((3, 1, 4), (1, 2, 4)), -1), (((3, 4), (2, 3, 4)), -2),
                                          (((4, 3), (4, 3)), 0)])
def test_vecdot_matches_numpy(monkeypatch, dtype, shapes, axis):
    import rocarray._numpy.reductions as reductions

    monkeypatch.setattr(reductions, "sum", np.sum)
    rng = np.random.default_rng(0)
    x1, x2 = (rng.integers(-5, 5, s).astype(dtype) * (1 + 1j if dtype == np.complex128 else 1)
              for s in shapes)
    got, want = array_api.vecdot(x1, x2, axis=axis), np.vecdot(x1, x2, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(linalg_api.vecdot(x1, x2, axis=axis), want)


@pytest.mark.usefixtures("numpy_device")
def test_vecdot_and_unstack_errors():
    with pytest.raises(ValueError):
        array_api.vecdot(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        array_api.vecdot(np.ones(()), np.ones(3))
    with pytest.raises(np.exceptions.AxisError):
        array_api.vecdot(np.ones(3), np.ones(3), axis=-2)
    with pytest.raises(ValueError):
        array_api.unstack(np.ones(()))


@pytest.mark.usefixtures("numpy_device")
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_matches_numpy(axis):
    x = np.arange(24).reshape(2, 3, 4)
    got, want = array_api.unstack(x, axis=axis), np.unstack(x, axis=axis)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _numpy_stable_sort(a, axis, indices):
    return np.argsort(a, axis=axis, kind="stable") if indices else np.sort(a, axis=axis, kind="stable")


@pytest.mark.parametrize("axis", [0, 1])
def test_descending_sort_is_stable_and_puts_nan_first(monkeypatch, axis):
    monkeypatch.setattr(sorting, "backend", type("B", (), {"cupy": staticmethod(lambda: np)}))
    monkeypatch.setattr(sorting, "_sort_along", _numpy_stable_sort)
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, (6, 7)).astype(np.float64)
    x[2, 3] = np.nan
    idx = sorting._sort_descending(x, axis, True)
    values = sorting._sort_descending(x, axis, False)
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis), values)
    key = np.where(np.isnan(x), np.inf, x)  # NaN counts as the largest
    # stable: among equal keys the positions increase
    for lane in range(x.shape[1 - axis]):
        i = idx[:, lane] if axis == 0 else idx[lane]
        k = key[:, lane][i] if axis == 0 else key[lane][i]
        assert np.all(np.diff(k) <= 0)
        assert all(i[j] < i[j + 1] for j in range(len(i) - 1) if k[j] == k[j + 1])


@pytest.mark.usefixtures("numpy_device")
def test_linalg_views_follow_numpy_linalg():
    x = np.arange(24.0).reshape(2, 3, 4)
    for offset in (-1, 0, 2):
        np.testing.assert_array_equal(linalg_api.diagonal(x, offset=offset), np.linalg.diagonal(x, offset=offset))
    with pytest.raises(ValueError):
        linalg_api.diagonal(np.ones(3))
    with pytest.raises(ValueError):
        linalg_api.outer(np.ones((2, 2)), np.ones(2))


@pytest.mark.usefixtures("numpy_device")
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (2, 0), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", [2, 1, np.inf, -np.inf, 0, 3])
def test_vector_norm_axes_follow_numpy(monkeypatch, axis, keepdims, ord):
    monkeypatch.setattr(linalg_api, "_norm", np.linalg.norm)
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    got = linalg_api.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    want = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    assert np.shape(got) == want.shape
    np.testing.assert_allclose(got, want)


@pytest.mark.usefixtures("numpy_device")
def test_matrix_norm_follows_numpy(monkeypatch):
    monkeypatch.setattr(linalg_api, "_norm", np.linalg.norm)
    x = np.random.default_rng(3).standard_normal((2, 3, 4))
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        for keepdims in (False, True):
            np.testing.assert_allclose(linalg_api.matrix_norm(x, ord=ord, keepdims=keepdims),
                                       np.linalg.matrix_norm(x, ord=ord, keepdims=keepdims))


# ------------------------------------------------------------------------------------------------
# GPU: the fixes on device arrays, against NumPy 2.x
# ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_namespace_info_and_device_keywords_on_the_gpu():
    import cupy

    info = ra.__array_namespace_info__()
    device = info.default_device()
    assert isinstance(device, cupy.cuda.Device) and device in info.devices()
    for make in (lambda: ra.zeros((2, 3), device=device), lambda: ra.arange(4, device=device),
                 lambda: ra.full(3, 1.5, device=device), lambda: ra.eye(3, k=1, device=device),
                 lambda: ra.linspace(0, 1, 5, device=device), lambda: ra.asarray([1, 2], device=device),
                 lambda: ra.fft.fftfreq(8, d=0.5, dtype=np.float32, device=device)):
        assert make().device == device
    x = ra.ones(4, dtype=ra.int32)
    assert ra.zeros_like(x).device == x.device and ra.astype(x, ra.float32, device=device).dtype == np.float32
    assert ra.fft.fftfreq(8, dtype=np.float32).dtype == np.float32
    y = ra.from_dlpack(x, device=device, copy=True)
    y[0] = 7
    assert int(x[0]) == 1
    with pytest.raises(ValueError):
        ra.asarray([1.0], copy=False)  # a host list must be copied to the device


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "complex64"])
def test_vecdot_and_linalg_extras_match_numpy_on_the_gpu(rng, dtype):
    a = rng.integers(-3, 4, (3, 4, 5)).astype(dtype)
    b = rng.integers(-3, 4, (4, 5)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * a[::-1]
    da, db = ra.asarray(a), ra.asarray(b)
    for axis in (-1, -2):
        got, want = ra.vecdot(da, db, axis=axis), np.vecdot(a, b, axis=axis)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(ra.asnumpy(got), want, rtol=1e-6)
    np.testing.assert_array_equal(ra.asnumpy(ra.linalg.diagonal(da, offset=1)), np.linalg.diagonal(a, offset=1))
    got, want = ra.linalg.trace(da, offset=-1), np.linalg.trace(a, offset=-1)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(ra.asnumpy(got), want, rtol=1e-6)
    if np.dtype(dtype).kind in "fc":
        for axis, ord in ((None, 2), (-1, 1), ((0, 2), np.inf), (1, 0), (-1, -np.inf)):
            got = ra.linalg.vector_norm(da, axis=axis, ord=ord, keepdims=True)
            want = np.linalg.vector_norm(a, axis=axis, ord=ord, keepdims=True)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(ra.asnumpy(got), want, rtol=1e-5)
        for ord in ("fro", "nuc", 1, 2, -np.inf):
            np.testing.assert_allclose(ra.asnumpy(ra.linalg.matrix_norm(da, ord=ord)),
                                       np.linalg.matrix_norm(a, ord=ord), rtol=1e-5)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int16", "uint8", "float32", "float64"])
@pytest.mark.parametrize("axis", [0, -1, None])
def test_descending_sort_matches_numpys_stable_order_on_the_gpu(rng, dtype, axis):
    a = rng.integers(0, 5, (7, 33)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[1, 2] = np.nan
    d = ra.asarray(a)
    flat = a.reshape(-1) if axis is None else a
    ax = 0 if axis is None else axis
    # NumPy's stable ascending order of the reversed array, reversed: the stable descending order
    rev = np.flip(flat, ax)
    want_idx = np.flip(flat.shape[ax] - 1 - np.argsort(rev, axis=ax, kind="stable"), ax)
    np.testing.assert_array_equal(ra.asnumpy(ra.argsort(d, axis=axis, descending=True)), want_idx)
    np.testing.assert_array_equal(ra.asnumpy(ra.sort(d, axis=axis, descending=True)),
                                  np.take_along_axis(flat, want_idx, ax))


@pytest.mark.gpu
def test_clip_std_var_reshape_unstack_on_the_gpu(rng):
    a = rng.standard_normal((4, 6))
    d = ra.asarray(a)
    np.testing.assert_array_equal(ra.asnumpy(ra.clip(d, max=0.5)), np.clip(a, max=0.5))
    np.testing.assert_array_equal(ra.asnumpy(ra.clip(d, ra.asarray(a[0]), None)), np.clip(a, a[0], None))
    np.testing.assert_allclose(ra.asnumpy(ra.std(d, axis=1, correction=1)), np.std(a, axis=1, correction=1))
    np.testing.assert_allclose(ra.asnumpy(ra.var(d, correction=0.5)), np.var(a, correction=0.5))
    assert ra.reshape(d, shape=(6, 4)).shape == (6, 4)
    with pytest.raises(ValueError):
        ra.reshape(d.T, (24,), copy=False)
    parts = ra.unstack(d, axis=1)
    assert len(parts) == 6 and all(p.shape == (4,) for p in parts)
    np.testing.assert_array_equal(ra.asnumpy(ra.repeat(d, ra.asarray([1, 0, 2, 1]), axis=0)),
                                  np.repeat(a, [1, 0, 2, 1], axis=0))


@pytest.mark.parametrize("host", [[1.0, 2.0], (1,), 3, 2.5, np.float32(1), np.ones(2)])
def test_asarray_copy_false_refuses_host_data(monkeypatch, host):
    pytest.importorskip("cupy")
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)
    with pytest.raises(ValueError, match="copy=False"):
        ra.asarray(host, copy=False)


def _plus_zero(v):
    """``v`` with +0.0 wherever it is zero (the scalar's type kept), as CuPy's memset fill makes it."""
    if isinstance(v, (complex, np.complexfloating)):
        return type(v)(complex(v.real if v.real != 0 else 0.0, v.imag if v.imag != 0 else 0.0))
    return abs(v) if isinstance(v, (float, np.floating)) and v == 0 else v


class _MemsetZeroNumpy:
    """NumPy, except that a zero scalar fills as +0.0, as CuPy's memset fill makes it."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def full(shape, fill_value, dtype=None, order="C"):
        return np.full(shape, _plus_zero(fill_value), dtype=dtype, order=order)

    @staticmethod
    def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
        return np.full_like(a, _plus_zero(fill_value), dtype=dtype, order=order, shape=shape)

    @staticmethod
    def asarray(a, dtype=None, order=None, copy=None):
        if isinstance(a, (float, complex, np.generic)):
            a = _plus_zero(a)
        return np.asarray(a, dtype=dtype, order=order, copy=copy)

    @staticmethod
    def array(a, dtype=None, order="K", copy=True):
        if isinstance(a, (float, complex, np.generic)):
            a = _plus_zero(a)
        return np.array(a, dtype=dtype, order=order, copy=copy)


@pytest.mark.parametrize("value", [-0.0, np.float32(-0.0), complex(-0.0, 1.0), complex(2.0, -0.0)])
def test_full_and_asarray_keep_the_sign_of_zero(monkeypatch, value):
    monkeypatch.setattr(backend, "_cupy", [_MemsetZeroNumpy()])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)
    want = np.full(3, value)
    for got in (array_api.full(3, value), array_api.full_like(np.zeros(3, want.dtype), value)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
        np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag))
    if not isinstance(value, complex):
        assert np.signbit(ra.asarray(value, dtype=np.float64))
        assert np.signbit(ra.asarray(value, copy=True))


@pytest.mark.usefixtures("numpy_device")
@pytest.mark.parametrize("s1,s2,axis", [((3,), (3,), -1), ((4, 3), (3,), -1), ((1, 0, 0, 3), (0, 3), -1),
                                        ((3, 5), (3, 1), 0), ((2, 1, 3), (4, 3), -1)])
def test_linalg_cross_broadcasts_as_numpy(s1, s2, axis):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    got, want = linalg_api.cross(a, b, axis=axis), np.linalg.cross(a, b, axis=axis)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


@pytest.mark.usefixtures("numpy_device")
@pytest.mark.parametrize("s1,s2", [((2,), (3,)), ((3, 4), (3, 4)), ((), (3,))])
def test_linalg_cross_refuses_other_sizes(s1, s2):
    with pytest.raises(ValueError, match="cross"):
        linalg_api.cross(np.ones(s1), np.ones(s2))


@pytest.mark.gpu
def test_signed_zero_survives_creation_on_the_gpu():
    import cupy

    for x in (ra.asarray(-0.0), ra.asarray(-0.0, dtype=ra.float32), ra.full(4, -0.0), ra.full_like(ra.ones(2), -0.0)):
        assert bool(cupy.all(cupy.signbit(x)))
    assert float(ra.divide(ra.asarray(1.0), ra.asarray(-0.0))) == -np.inf
    y = ra.from_dlpack(ra.ones(3), copy=True)
    assert y.shape == (3,)
