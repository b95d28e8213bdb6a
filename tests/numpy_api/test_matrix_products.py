"""``ra.matmul``, ``ra.dot`` (N-D), ``ra.tensordot``, ``ra.outer``, ``ra.kron``, ``ra.trace`` against NumPy.

CPU tests: the pure-Python rules (shapes, broadcasting, dtypes, errors — NumPy is run to get its
exact exception), the zero-copy layout mapping (``gemm_route``), and the whole routing on host
memory (``hostdev``: CuPy arrays over host buffers, NumPy stand-ins for ``rocblas.gemm`` and
``gemm_strided_batched`` that check their arguments), which proves operands, trans flags, leading
dimensions and batch strides before a GPU run. GPU tests compare with NumPy in float64 on fresh
random data: every float dtype, an integer dtype and bool, 1-D/2-D/N-D broadcast, transposed and
non-contiguous views, empty and 1x1, ``out=`` poisoned with NaN.
"""

import itertools

import numpy as np
import pytest

import hostdev
from launchfake import fake_device  # noqa: F401  (the fixture)
from conftest import assert_close, random_array, to_device, to_host, wide

import rocarray as ra
from rocarray._core import plans
from rocarray._numpy import gemm_route as route
from rocarray._numpy import matrix_products as mm

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
ALL = FLOATS + ["int32", "bool"]


def numpy_error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - we want NumPy's exact type and message
        return type(e), str(e)
    return None


# --------------------------------------------------------------------------------------------
# CPU: shape, dtype and error rules
# --------------------------------------------------------------------------------------------

SHAPE_CASES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
               ((2, 1, 3, 4), (5, 4, 2)), ((2, 3), (4, 5)), ((3,), (4,)), ((2, 2, 3), (3, 3, 2)),
               ((), (3,)), ((3,), ()), ((0, 4), (4, 2)), ((3, 0), (0, 2)), ((5, 1, 4), (4,))]


@pytest.mark.parametrize("sa,sb", SHAPE_CASES)
def test_matmul_shapes_and_errors_match_numpy(sa, sb):
    a, b = np.ones(sa), np.ones(sb)
    err = numpy_error(np.matmul, a, b)
    if err is not None:
        with pytest.raises(err[0]) as info:
            mm.matmul_shapes(sa, sb)
        if "broadcast" not in err[1]:
            assert str(info.value) == err[1]
        return
    assert mm.matmul_shapes(sa, sb)[-1] == np.matmul(a, b).shape


@pytest.mark.parametrize("sa,sb,so", [((2, 3), (3, 2), (5, 2, 2)), ((2, 3), (3, 2), (2, 3)),
                                      ((2, 3), (3,), (5, 2)), ((3,), (3,), (4,)), ((3,), (3,), ()),
                                      ((5, 2, 3), (3, 2), (1, 2, 2)), ((2, 3), (3, 2), (2,))])
def test_matmul_out_shapes_match_numpy(sa, sb, so):
    err = numpy_error(np.matmul, np.ones(sa), np.ones(sb), out=np.empty(so))
    if err is None:
        assert mm.matmul_shapes(sa, sb, so)[-1] == so
    else:
        with pytest.raises(err[0]):
            mm.matmul_shapes(sa, sb, so)


DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


def test_matmul_result_dtypes_are_numpys():
    for da, db in itertools.product(DTYPES, repeat=2):
        want = np.matmul(np.ones((1, 1), da), np.ones((1, 1), db)).dtype
        assert mm.ufunc_dtype("matmul", (np.dtype(da), np.dtype(db))) == want


@pytest.mark.parametrize("kw", [dict(dtype="int64"), dict(dtype="float32"), dict(dtype="float16"),
                                dict(casting="safe", out_dtype="float32"), dict(out_dtype="int64"),
                                dict(out_dtype="float32")])
def test_matmul_casting_errors_are_numpys(kw):
    kw = dict(kw)
    out_dtype = kw.pop("out_dtype", None)
    extra = {} if out_dtype is None else {"out": np.empty((2, 2), out_dtype)}
    err = numpy_error(np.matmul, np.ones((2, 3)), np.ones((3, 2)), **extra, **kw)
    if err is None:
        mm.ufunc_dtype("matmul", (np.dtype("float64"),) * 2, out_dtype=out_dtype, **kw)
    else:
        with pytest.raises(err[0], match=err[1].split("(")[0]):
            mm.ufunc_dtype("matmul", (np.dtype("float64"),) * 2, out_dtype=out_dtype, **kw)


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((2, 3), (4, 5)), ((2, 3), (2, 4, 5)),
                                   ((2, 3, 4), (5, 4, 6)), ((3,), (2, 3, 4)), ((2, 3), (3,))])
def test_dot_shapes_and_errors_match_numpy(sa, sb):
    err = numpy_error(np.dot, np.ones(sa), np.ones(sb))
    if err is None:
        assert mm.dot_shapes(sa, sb)[1] == np.dot(np.ones(sa), np.ones(sb)).shape
    else:
        with pytest.raises(err[0], match=err[1].replace("(", r"\(").replace(")", r"\)")):
            mm.dot_shapes(sa, sb)


@pytest.mark.parametrize("axes", [2, 1, 0, ([1, 0], [0, 1]), (1, 0), ([0], [0, 1]), 3, ([2], [0])])
def test_tensordot_axes_match_numpy(axes):
    a, b = np.ones((3, 4, 5)), np.ones((4, 3, 2))
    err = numpy_error(np.tensordot, a, b, axes)
    if err is not None and err[0] is ValueError:
        with pytest.raises(err[0]):
            axes_a, axes_b = mm.tensordot_axes(axes, 3, 3)
            if any(a.shape[i] != b.shape[j] for i, j in zip(axes_a, axes_b)):
                raise ValueError("shape-mismatch for sum")
    elif err is None:
        axes_a, axes_b = mm.tensordot_axes(axes, 3, 3)
        assert np.tensordot(a, b, (axes_a, axes_b)).shape == np.tensordot(a, b, axes).shape


# --------------------------------------------------------------------------------------------
# CPU: layout mapping
# --------------------------------------------------------------------------------------------

def test_transposed_operand_layouts():
    # C-ordered (r, c): X^T is the column-major buffer with ld = c
    assert route.transposed_operand(3, 4, 4, 1) == ("N", 4)
    # row-sliced / padded rows: ld = row stride
    assert route.transposed_operand(3, 4, 10, 1) == ("N", 10)
    # transposed view (Fortran-ordered): X itself is column-major, op = 'T'
    assert route.transposed_operand(3, 4, 1, 3) == ("T", 3)
    # unit stride on neither axis, reversed or broadcast axes: copy
    assert route.transposed_operand(3, 4, 8, 2) is None
    assert route.transposed_operand(3, 4, -4, 1) is None
    assert route.transposed_operand(3, 4, 0, 1) is None
    # size-1 axes carry any stride
    assert route.transposed_operand(1, 4, 0, 1) == ("N", 4)
    assert route.transposed_operand(3, 1, 5, 0) == ("N", 5)
    assert route.transposed_operand(1, 1, 0, 0) == ("N", 1)


def test_merge_loops_and_batch_choice():
    # contiguous stack: one loop of 6
    assert route.merge_loops((2, 3), (36, 12), (24, 8), (18, 6)) == [(6, (12, 8, 6))]
    # a broadcast in the middle: two loops, the largest runs batched
    merged = route.merge_loops((2, 5), (12, 0), (0, 8), (30, 6))
    assert merged == [(2, (12, 0, 30)), (5, (0, 8, 6))]
    assert route.split_batch(merged) == ((5, (0, 8, 6)), [(2, (12, 0, 30))])
    assert route.merge_loops((1, 1), (0, 0), (0, 0), (0, 0)) == []


def test_gemm_takes_the_dtypes_rocblas_gemm_takes():
    from rocarray.rocblas._gemm import api

    for d in ("float16", "float32", "float64", "complex64", "complex128"):
        assert route.gemm_takes(d)
        assert api.check_dtype("gemm", np.dtype(d)) == np.dtype(d)   # the library takes them too
    for d in ("int32", "bool", "int8"):
        assert not route.gemm_takes(d)


# --------------------------------------------------------------------------------------------
# CPU: the routing on host memory (reference gemms)
# --------------------------------------------------------------------------------------------

def _check(got, want, dtype="float64"):
    g = hostdev.host(got)
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, want.shape, g.dtype, want.dtype)
    np.testing.assert_allclose(g, want, rtol=1e-5 if np.dtype(dtype).itemsize <= 8 else 1e-12, atol=1e-5)


VIEW_CASES = {
    "C": lambda x: x,
    "T": lambda x: x.swapaxes(-1, -2),
    "rows": lambda x: x[..., ::2, :],
    "cols": lambda x: x[..., :, 1:],
    "both": lambda x: x[..., ::2, ::2],
    "rev": lambda x: x[..., ::-1, :],
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("va,vb", [("C", "C"), ("T", "C"), ("C", "T"), ("T", "T"), ("rows", "cols"),
                                   ("both", "T"), ("rev", "C")])
def test_matmul_routing_on_host(monkeypatch, rng, dtype, va, vb):
    calls = hostdev.install(monkeypatch)
    ta, tb = VIEW_CASES[va], VIEW_CASES[vb]
    for la, lb in [((), ()), ((3,), ()), ((2, 1), (4,)), ((1, 3), (2, 1))]:
        a = random_array(rng, la + (10, 12), dtype)
        b = random_array(rng, lb + (12, 9), dtype)
        av, bv = ta(a), tb(b)
        k = min(av.shape[-1], bv.shape[-2])
        av, bv = av[..., :k], bv[..., :k, :]
        got = ra.matmul(ta(hostdev.dev(a))[..., :k], tb(hostdev.dev(b))[..., :k, :])
        _check(got, np.matmul(av, bv), dtype)
    assert calls


def test_matmul_maps_layouts_without_copies(monkeypatch, rng):
    calls = hostdev.install(monkeypatch)
    a = rng.standard_normal((5, 3))
    b = rng.standard_normal((4, 5))
    # a^T (Fortran-ordered 3 x 5) @ b^T (Fortran-ordered 5 x 4): C^T = b a with op = 'T', 'T'
    _check(ra.matmul(hostdev.dev(a).T, hostdev.dev(b).T), a.T @ b.T)
    assert calls[-1] == ("gemm", "T", "T", 4, 3, 5, 5, 3, 4)
    # C-ordered: op 'N', 'N', ld = row lengths
    _check(ra.matmul(hostdev.dev(a.T.copy()), hostdev.dev(b.T.copy())), a.T @ b.T)
    assert calls[-1] == ("gemm", "N", "N", 4, 3, 5, 4, 5, 4)
    # a stack against one broadcast matrix: one batched call, stride 0 for the matrix
    s = rng.standard_normal((6, 3, 5))
    _check(ra.matmul(hostdev.dev(s), hostdev.dev(b.T.copy())), s @ b.T)
    assert calls[-1] == ("batched", "N", "N", 4, 3, 5, 4, 5, 4, 0, 15, 12, 6)
    # (2, 1) x (1, 3) loops: 2 launches of batch 3 (largest merged loop), nothing materialized
    calls.clear()
    x, y = rng.standard_normal((2, 1, 3, 5)), rng.standard_normal((1, 3, 5, 4))
    _check(ra.matmul(hostdev.dev(x), hostdev.dev(y)), x @ y)
    assert [c[0] for c in calls] == ["batched", "batched"] and all(c[-1] == 3 for c in calls)


def test_layout_memo_keys_on_strides_and_walks_long_loops(monkeypatch, rng):
    """The memoized layout of a product is keyed on strides as well as shapes (a transposed view
    of the same shape gets its own launches), and a loop with more launches than a layout keeps
    is walked the same way, launch for launch."""
    calls = hostdev.install(monkeypatch)
    a, b = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    ad, bd = hostdev.dev(a), hostdev.dev(b)
    for x, y, want in ((ad, bd, a @ b), (ad.T, bd, a.T @ b), (ad, bd.T, a @ b.T), (ad, bd, a @ b)):
        _check(ra.matmul(x, y), want)
    assert [c[1:3] for c in calls] == [("N", "N"), ("N", "T"), ("T", "N"), ("N", "N")]
    x, y = rng.standard_normal((3, 1, 2, 4, 5)), rng.standard_normal((1, 4, 1, 5, 3))
    runs = []
    for kept in (route._KEPT_OFFSETS, 2):
        monkeypatch.setattr(route, "_KEPT_OFFSETS", kept)
        monkeypatch.setattr(plans, "cache", plans.PlanCache())
        calls.clear()
        _check(ra.matmul(hostdev.dev(x), hostdev.dev(y)), x @ y)
        runs.append(list(calls))
    assert runs[0] == runs[1] and len(runs[0]) > 2   # 3 x 2 launches of batch 4


def test_a_repeated_matmul_runs_its_plans(fake_device):
    """A warm ``matmul`` (same shapes, dtypes and layout) builds nothing: NumPy's rules, the layout
    and gemm's launches are plans of the one cache, and the second call makes the same launches."""
    a, b = fake_device.array((64, 32), "float32"), fake_device.array((32, 16), "float32")
    ra.matmul(a, b)
    first, misses = fake_device.names(), plans.cache.misses
    assert first == ["ra_rocblas_gemm<float, 64, 64, 16, 4, 4, 1>"]
    ra.matmul(a, b)
    assert plans.cache.misses == misses and fake_device.names() == first * 2
    ops = {key[0] for key in plans.cache._entries}
    assert {"numpy.matmul", "numpy.matmul.layout", "rocblas.gemm.checked"} <= ops
    ra.matmul(b.T, a.T)   # another signature: planned anew
    assert plans.cache.misses > misses


def test_matmul_writes_into_out_directly(monkeypatch, rng):
    hostdev.install(monkeypatch)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 2))
    out = hostdev.dev(np.full((3, 4, 2), np.nan))
    r = ra.matmul(hostdev.dev(a), hostdev.dev(b), out=out)
    assert r is out
    _check(out, a @ b)
    # out adds a leading loop dimension (NumPy broadcasts the result into it): still one direct write
    out = hostdev.dev(np.full((2, 3, 4, 2), np.nan))
    assert ra.matmul(hostdev.dev(a), hostdev.dev(b), out=out) is out
    _check(out, np.broadcast_to(a @ b, (2, 3, 4, 2)))
    v = rng.standard_normal(5)
    out = hostdev.dev(np.full((3, 4), np.nan))
    assert ra.matmul(hostdev.dev(a), hostdev.dev(v), out=out) is out
    _check(out, a @ v)


def test_vector_cases_on_host(monkeypatch, rng):
    hostdev.install(monkeypatch)
    m, v, w = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(3)
    _check(ra.matmul(hostdev.dev(v), hostdev.dev(m.T)), v @ m.T)
    _check(ra.matmul(hostdev.dev(m), hostdev.dev(v)), m @ v)
    _check(ra.matmul(hostdev.dev(w), hostdev.dev(m)), w @ m)
    s = rng.standard_normal((2, 3, 4))
    _check(ra.matmul(hostdev.dev(s), hostdev.dev(v)), s @ v)
    _check(ra.matmul(hostdev.dev(v[::2]), hostdev.dev(m[:, ::2].T)), v[::2] @ m[:, ::2].T)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (6, 4, 5)),
                                   ((3,), (2, 3, 4)), ((2, 3, 4), (4,))])
def test_dot_and_tensordot_on_host(monkeypatch, rng, sa, sb):
    hostdev.install(monkeypatch)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    _check(ra.dot(hostdev.dev(a), hostdev.dev(b)), np.dot(a, b))
    _check(ra.dot(hostdev.dev(a.T.copy()).T, hostdev.dev(b)), np.dot(a, b))
    if len(sa) == 3 and len(sb) == 3:
        _check(ra.tensordot(hostdev.dev(a), hostdev.dev(b), axes=([2], [1])), np.tensordot(a, b, ([2], [1])))
    x, y = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 3, 2))
    _check(ra.tensordot(hostdev.dev(x), hostdev.dev(y), axes=([1, 0], [0, 1])), np.tensordot(x, y, ([1, 0], [0, 1])))
    z = rng.standard_normal((2, 5, 3))
    _check(ra.tensordot(hostdev.dev(x), hostdev.dev(z).transpose(1, 0, 2), axes=1),
           np.tensordot(x, z.transpose(1, 0, 2), axes=1))


def test_host_arrays_and_scalars_are_rejected():
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        ra.matmul(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(TypeError, match="host"):
        ra.tensordot(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(TypeError, match="host"):
        ra.trace(np.ones((2, 2)))


def test_matmul_scalar_is_value_error(monkeypatch):
    hostdev.install(monkeypatch)
    err = numpy_error(np.matmul, 2.0, np.ones((2, 2)))
    with pytest.raises(ValueError) as info:
        ra.matmul(hostdev.dev(np.float64(2.0)), hostdev.dev(np.ones((2, 2))))
    assert str(info.value) == err[1]


def test_trace_errors_match_numpy(monkeypatch):
    hostdev.install(monkeypatch)
    for args, kw in [((np.ones(3),), {}), ((np.ones((3, 3)),), dict(axis1=1, axis2=-1)),
                     ((np.ones((3, 3)),), dict(axis1=2))]:
        err = numpy_error(np.trace, *args, **kw)
        with pytest.raises(err[0], match=err[1]):
            ra.trace(hostdev.dev(args[0]), **kw)


# --------------------------------------------------------------------------------------------
# GPU: against NumPy (float64 reference)
# --------------------------------------------------------------------------------------------

def _ref(fn, *arrays, **kw):
    """NumPy's result dtype, and the float64/complex128 (or exact integer) reference."""
    want = fn(*arrays, **kw)
    if np.asarray(want).dtype.kind in "fc":
        return np.asarray(want).dtype, fn(*[wide(x) for x in arrays], **kw)
    return np.asarray(want).dtype, want


def _compare(got, dtype, want, k, precision=None):
    """``got`` has ``dtype`` and matches ``want`` to the tolerance of ``precision`` (the dtype the
    product is computed in; default ``dtype``: a wider ``out`` only receives a cast result)."""
    got = to_host(got)
    assert got.dtype == dtype, (got.dtype, dtype)
    assert got.shape == np.shape(want)
    if dtype.kind in "fc":
        tol_dtype = dtype if precision is None else precision
        assert_close(got, want, tol_dtype, max(k, 1), atol_scale=max(1.0, float(np.max(np.abs(want), initial=0))))
    else:
        np.testing.assert_array_equal(got, want)


GPU_SHAPES = [((1, 1), (1, 1)), ((7,), (7,)), ((7,), (7, 5)), ((65, 33), (33,)), ((63, 65), (65, 64)),
              ((3, 17, 9), (9, 20)), ((2, 1, 5, 8), (3, 8, 6)), ((0, 4), (4, 3)), ((4, 0), (0, 3)),
              ((2, 0, 3), (3, 5)), ((130, 70), (70, 129))]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("sa,sb", GPU_SHAPES)
def test_matmul_matches_numpy(rng, dtype, sa, sb):
    a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
    rdt, want = _ref(np.matmul, a, b)
    _compare(ra.matmul(to_device(a), to_device(b)), rdt, want, sa[-1])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("va,vb", [("T", "C"), ("C", "T"), ("T", "T"), ("rows", "cols"), ("both", "T"),
                                   ("rev", "C")])
def test_matmul_views_match_numpy(rng, dtype, va, vb):
    a, b = random_array(rng, (3, 40, 50), dtype), random_array(rng, (50, 45), dtype)
    fa, fb = VIEW_CASES[va], VIEW_CASES[vb]
    av, bv = fa(a), fb(b)
    k = min(av.shape[-1], bv.shape[-2])
    rdt, want = _ref(np.matmul, av[..., :k], bv[..., :k, :])
    got = ra.matmul(fa(to_device(a))[..., :k], fb(to_device(b))[..., :k, :])
    _compare(got, rdt, want, k)


@pytest.mark.gpu
@pytest.mark.parametrize("da,db", [("float32", "float64"), ("int8", "float32"), ("int32", "complex64"),
                                   ("bool", "int16"), ("float16", "float32")])
def test_matmul_mixed_dtypes(rng, da, db):
    a, b = random_array(rng, (4, 6, 5), da), random_array(rng, (5, 3), db)
    rdt, want = _ref(np.matmul, a, b)
    _compare(ra.matmul(to_device(a), to_device(b)), rdt, want, 5)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
@pytest.mark.parametrize("out_kind", ["same", "wider_loop", "cast", "strided"])
def test_matmul_out_poisoned(rng, dtype, out_kind):
    a, b = random_array(rng, (3, 9, 7), dtype), random_array(rng, (7, 5), dtype)
    rdt, want = _ref(np.matmul, a, b)
    odt = np.dtype(dtype) if out_kind != "cast" else np.result_type(rdt, np.complex128)
    shape = (2, 3, 9, 5) if out_kind == "wider_loop" else (3, 9, 5)
    poison = np.nan if odt.kind in "fc" else -7
    if out_kind == "strided":
        base = to_device(np.full((3, 9, 10), poison, odt))
        out = base[..., ::2]
    else:
        out = to_device(np.full(shape, poison, odt))
    r = ra.matmul(to_device(a), to_device(b), out=out)
    assert r is out
    want_full = np.broadcast_to(want, shape)
    _compare(out, odt, want_full.astype(np.result_type(want_full.dtype, odt)), 7, precision=rdt if rdt.kind in "fc" else None)
    if out_kind == "strided":
        rest = to_host(base)[..., 1::2]
        assert np.all(np.isnan(rest)) if odt.kind in "fc" else np.all(rest == poison)


@pytest.mark.gpu
def test_matmul_dtype_argument(rng):
    a, b = random_array(rng, (5, 6), "int16"), random_array(rng, (6, 4), "int16")
    got = ra.matmul(to_device(a), to_device(b), dtype=np.float32)
    _compare(got, np.dtype(np.float32), wide(a) @ wide(b), 6)
    with pytest.raises(TypeError):
        ra.matmul(to_device(wide(a)), to_device(wide(b)), dtype=np.int64)


@pytest.mark.gpu
def test_matmul_core_mismatch_error():
    with pytest.raises(ValueError, match="core dimension 0"):
        ra.matmul(to_device(np.ones((2, 3))), to_device(np.ones((4, 5))))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "bool"])
@pytest.mark.parametrize("sa,sb", [((5,), (5,)), ((4, 5), (5, 3)), ((2, 4, 5), (3, 5, 6)), ((5,), (3, 5, 2)),
                                   ((2, 3, 5), (5,)), ((), (3, 4)), ((0, 5), (5, 2))])
def test_dot_matches_numpy(rng, dtype, sa, sb):
    a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
    rdt, want = _ref(np.dot, a, b)
    _compare(ra.dot(to_device(a), to_device(b)), rdt, want, sa[-1] if sa else 1)


@pytest.mark.gpu
def test_dot_out_rules(rng):
    a, b = random_array(rng, (4, 5), "float64"), random_array(rng, (5, 3), "float64")
    out = to_device(np.full((4, 3), np.nan))
    assert ra.dot(to_device(a), to_device(b), out=out) is out
    assert_close(to_host(out), a @ b, "float64", 5)
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ra.dot(to_device(a), to_device(b), out=to_device(np.empty((4, 3), np.float32)))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
@pytest.mark.parametrize("axes", [2, 1, ([1, 0], [0, 1]), ([2], [2]), 0])
def test_tensordot_matches_numpy(rng, dtype, axes):
    a, b = random_array(rng, (3, 4, 5), dtype), random_array(rng, (4, 3, 5), dtype)
    if axes in (2, 1):
        b = random_array(rng, (4, 5, 2) if axes == 2 else (5, 3), dtype)
    rdt, want = _ref(np.tensordot, a, b, axes=axes)
    _compare(ra.tensordot(to_device(a), to_device(b), axes=axes), rdt, want, 20)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int16", "bool"])
def test_outer_and_kron_match_numpy(rng, dtype):
    a, b = random_array(rng, (3, 4), dtype), random_array(rng, (5,), dtype)
    rdt, want = _ref(np.outer, a, b)
    _compare(ra.outer(to_device(a), to_device(b)), rdt, want, 1)
    for sa, sb in [((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2))]:
        x, y = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        rdt, want = _ref(np.kron, x, y)
        _compare(ra.kron(to_device(x), to_device(y)), rdt, want, 1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("offset,axes", [(0, (0, 1)), (1, (0, 1)), (-2, (1, 2)), (0, (2, 0))])
def test_trace_matches_numpy(rng, dtype, offset, axes):
    a = random_array(rng, (5, 6, 7), dtype)
    rdt, want = _ref(np.trace, a, offset=offset, axis1=axes[0], axis2=axes[1])
    _compare(ra.trace(to_device(a), offset=offset, axis1=axes[0], axis2=axes[1]), rdt, want, 7)
    got = ra.trace(to_device(a[:, :, 0]), dtype=np.float64)
    assert got.dtype == np.float64


# --------------------------------------------------------------------------------------------
# CPU: the same routing through the real rocblas argument checks (only the launch is replaced)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("va,vb", [("C", "C"), ("T", "T"), ("rows", "cols"), ("both", "rev")])
def test_unchecked_launches_equal_the_checked_ones(monkeypatch, rng, dtype, va, vb):
    """The façade launches stacks and single products without the public calls' checks (host
    time): the launches it makes are exactly those the checked ``gemm_strided_batched`` and
    ``gemm`` make, and the products right."""
    fa, fb = VIEW_CASES[va], VIEW_CASES[vb]
    for la, lb in [((), ()), ((4,), ()), ((2, 1), (3,)), ((), (5,)), ((3,), (3,))]:
        a = random_array(rng, la + (10, 12), dtype)
        b = random_array(rng, lb + (12, 9), dtype)
        k = min(fa(a).shape[-1], fb(b).shape[-2])
        launches = []
        for public in (True, False):
            with monkeypatch.context() as mp:
                calls = hostdev.install_checked(mp, public=public)
                ad, bd = hostdev.dev(a), hostdev.dev(b)
                got = ra.matmul(fa(ad)[..., :k], fb(bd)[..., :k, :])
                _check(got, np.matmul(fa(a)[..., :k], fb(b)[..., :k, :]), dtype)
                launches.append(list(calls))   # options, sizes, leading dims, strides, batch
        assert launches[0] == launches[1] and launches[0]
        assert all(c[-1] == 1 for c in launches[0]) if la == lb == () else any(c[-1] > 1 for c in launches[0])


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("va,vb", [("C", "C"), ("T", "T"), ("rows", "cols"), ("both", "rev")])
def test_routing_passes_rocblas_argument_checks(monkeypatch, rng, dtype, va, vb):
    calls = hostdev.install_checked(monkeypatch)
    fa, fb = VIEW_CASES[va], VIEW_CASES[vb]
    for la, lb in [((), ()), ((4,), ()), ((2, 1), (3,)), ((), (5,))]:
        a = random_array(rng, la + (10, 12), dtype)
        b = random_array(rng, lb + (12, 9), dtype)
        k = min(fa(a).shape[-1], fb(b).shape[-2])
        got = ra.matmul(fa(hostdev.dev(a))[..., :k], fb(hostdev.dev(b))[..., :k, :])
        _check(got, np.matmul(fa(a)[..., :k], fb(b)[..., :k, :]), dtype)
    assert any(c[-1] > 1 for c in calls)  # batched launches happened
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((6, 4, 5))
    _check(ra.dot(hostdev.dev(x), hostdev.dev(y)), np.dot(x, y))
