"""``ra.einsum`` against ``numpy.einsum``.

CPU tests: subscript parsing (``'...'``, ``'->'``, implicit output, interleaved sublists) and its
errors against NumPy's exact ones, label sizes and broadcasting, pairwise step classification and
the greedy path, and the whole GEMM routing on host memory (``hostdev``). GPU tests: contractions of
every float dtype, an integer dtype and bool, ellipsis broadcasting, views, ``out=`` and ``dtype=``.
"""

import numpy as np
import pytest

import hostdev
from conftest import assert_close, random_array, to_device, to_host, wide

import rocarray as ra
from rocarray._numpy import einsum as es


def numpy_error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


PARSE_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ba", [(2, 3)]), ("Ba", [(2, 3)]),
    ("bA,Ac", [(2, 3), (3, 4)]), ("...ij,...jk", [(5, 2, 3), (3, 4)]), ("...i,...i->...", [(2, 3), (3,)]),
    ("ij->...", [(2, 3)]), ("...ij->...ji", [(2, 3)]), ("i j , jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    # errors
    ("ij,jk->iz", [(2, 3), (3, 4)]), ("ij,jk->ii", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3)]), ("ij", [(2, 3), (3,)]),
    ("i..j", [(2, 3)]), ("i.j", [(2, 3)]), ("...i,...i->i", [(2, 3), (3,)]), ("ij->i", [(2, 3, 4)]),
    ("i1", [(3,)]), ("ijk", [(2, 3)]), ("i", [(2, 3)]), ("ij->i->j", [(2, 3)]), ("ii", [(2, 3)]),
    ("ij,jk", [(2, 3), (4, 5)]),
]


@pytest.mark.parametrize("subscripts,shapes", PARSE_CASES)
def test_parse_matches_numpy(subscripts, shapes):
    arrays = [np.ones(s) for s in shapes]
    err = numpy_error(np.einsum, subscripts, *arrays)

    def ours():
        inputs, output = es.parse(subscripts, shapes)
        sizes = es.label_sizes(inputs, shapes)
        return tuple(sizes[x] for x in output)

    if err is None:
        assert ours() == np.einsum(subscripts, *arrays).shape
    else:
        with pytest.raises(err[0]) as info:
            ours()
        if "broadcast" not in err[1]:
            assert str(info.value) == err[1]


def test_parse_labels_ellipsis_and_implicit_order():
    inputs, output = es.parse("...ij,j...->...i", [(5, 2, 3), (3, 4, 5)])
    assert inputs == [[0, "i", "j"], ["j", 0, 1]] or inputs[1] == ["j", 0, 1]
    inputs, output = es.parse("Ba,aC", [(2, 3), (3, 4)])
    assert output == ["B", "C"]


def test_interleaved_form_matches_numpy():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    sub, ops = es._interleaved((a, [0, 1], b, [1, 2], [0, 2]))
    assert np.einsum(sub, *ops).shape == np.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape
    c = np.ones((3, 2))
    sub, ops = es._interleaved((a, [Ellipsis, 1], c, [1, Ellipsis]))
    assert np.einsum(sub, *ops).shape == np.einsum(a, [Ellipsis, 1], c, [1, Ellipsis]).shape
    with pytest.raises(TypeError, match="integer or an ellipsis"):
        es._interleaved((a, ["x", 1]))


def test_size_one_labels_broadcast_like_numpy():
    inputs, _ = es.parse("ij,jk->ik", [(2, 1), (3, 4)])
    assert es.label_sizes(inputs, [(2, 1), (3, 4)]) == {"i": 2, "j": 3, "k": 4}


def test_classify_and_greedy_path():
    assert es.classify(list("bij"), list("bjk"), {"b", "i", "k"}) == (["b"], ["j"], ["i"], ["k"])
    # a chain whose cheap end is on the right: greedy contracts (1, 2) first
    inputs, output = es.parse("ij,jk,kl->il", [(100, 100), (100, 100), (100, 2)])
    sizes = es.label_sizes(inputs, [(100, 100), (100, 100), (100, 2)])
    assert es.plan_path(inputs, output, sizes, "greedy")[0] == (1, 2)
    assert es.plan_path(inputs, output, sizes, False) == [(0, 1), (0, 1)]
    assert es.plan_path(inputs, output, sizes, ["einsum_path", (1, 2), (0, 1)]) == [(1, 2), (0, 1)]


EINSUM_CASES = [
    ("ij,jk->ik", [(6, 7), (7, 5)]), ("ij,kj->ik", [(6, 7), (5, 7)]), ("ji,jk", [(7, 6), (7, 5)]),
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 6)]), ("bij,bkj->bki", [(3, 4, 5), (3, 6, 5)]),
    ("...ij,...jk", [(2, 3, 4, 5), (5, 6)]), ("...ij,...jk", [(2, 1, 4, 5), (3, 5, 6)]),
    ("i,i", [(9,), (9,)]), ("i,ij,j", [(4,), (4, 5), (5,)]), ("ij,ij->i", [(4, 5), (4, 5)]),
    ("abc,cda->bd", [(2, 3, 4), (4, 5, 2)]), ("ii,ij->j", [(4, 4), (4, 5)]), ("ij,kl->ijkl", [(2, 3), (4, 5)]),
    ("ijk,jl->kil", [(2, 3, 4), (3, 6)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ab,bc,cd,de->ae", [(3, 8), (8, 2), (2, 9), (9, 4)]), ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("ijk,ikl->", [(2, 3, 4), (2, 4, 5)]), ("ij,->ij", [(2, 3), ()]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
    ("ij,jk->ik", [(0, 3), (3, 4)]), ("ij,jk->ik", [(2, 0), (0, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES)
@pytest.mark.parametrize("optimize", [False, "greedy"])
def test_einsum_routing_on_host(monkeypatch, rng, subscripts, shapes, optimize):
    hostdev.install(monkeypatch)
    ops = [rng.standard_normal(s) for s in shapes]
    got = hostdev.host(ra.einsum(subscripts, *[hostdev.dev(x) for x in ops], optimize=optimize))
    want = np.einsum(subscripts, *ops)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_einsum_views_on_host(monkeypatch, rng):
    calls = hostdev.install(monkeypatch)
    a, b = rng.standard_normal((5, 8, 6)), rng.standard_normal((7, 8))
    got = ra.einsum("bji,kj->bik", hostdev.dev(a)[:, :, ::2], hostdev.dev(b.T.copy()).T[1:])
    # an absolute floor too: an element that nearly cancels has a large relative error
    np.testing.assert_allclose(hostdev.host(got), np.einsum("bji,kj->bik", a[:, :, ::2], b[1:]), rtol=1e-12,
                               atol=1e-12)
    assert calls and calls[-1][0] in ("batched", "gemm")


def test_host_arrays_are_rejected():
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        ra.einsum("ij,jk", np.ones((2, 2)), np.ones((2, 2)))


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _compare(got, want_dtype, want, k):
    got = to_host(got)
    assert got.dtype == want_dtype and got.shape == np.shape(want)
    if want_dtype.kind in "fc":
        assert_close(got, want, want_dtype, max(k, 1), atol_scale=max(1.0, float(np.max(np.abs(want), initial=0))))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128", "int32", "bool"])
@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES[:16])
def test_einsum_matches_numpy(rng, dtype, subscripts, shapes):
    ops = [random_array(rng, s, dtype) for s in shapes]
    want_dtype = np.einsum(subscripts, *ops).dtype
    want = np.einsum(subscripts, *[wide(x) for x in ops]) if want_dtype.kind in "fc" else np.einsum(subscripts, *ops)
    _compare(ra.einsum(subscripts, *[to_device(x) for x in ops], optimize="greedy"), want_dtype, want, 64)


@pytest.mark.gpu
@pytest.mark.parametrize("subscripts", ["ii", "ii->i", "ij->ji", "ij->i", "ij->"])
def test_single_operand_cases(rng, subscripts):
    x = random_array(rng, (5, 5), "float64")
    _compare(ra.einsum(subscripts, to_device(x)), np.dtype(np.float64), np.einsum(subscripts, x), 25)


@pytest.mark.gpu
def test_einsum_out_dtype_and_casting(rng):
    a, b = random_array(rng, (4, 5), "float32"), random_array(rng, (5, 3), "float32")
    out = to_device(np.full((4, 3), np.nan, np.float64))
    assert ra.einsum("ij,jk", to_device(a), to_device(b), out=out) is out
    # computed in float32 (NumPy's einsum too: the operands' result type), cast into out
    np.testing.assert_allclose(to_host(out), wide(a) @ wide(b), rtol=1e-5, atol=1e-5)
    assert out.dtype == np.float64
    with pytest.raises(TypeError):
        ra.einsum("ij,jk", to_device(a), to_device(b), out=to_device(np.empty((4, 3), np.float16)))
    got = ra.einsum("ij,jk", to_device(a), to_device(b), dtype=np.float64)
    _compare(got, np.dtype(np.float64), wide(a) @ wide(b), 5)
    with pytest.raises(TypeError):
        ra.einsum("ij,jk", to_device(wide(a)), to_device(wide(b)), dtype=np.float32)


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES[::2])
def test_einsum_passes_rocblas_argument_checks(monkeypatch, rng, subscripts, shapes):
    hostdev.install_checked(monkeypatch)
    ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got = hostdev.host(ra.einsum(subscripts, *[hostdev.dev(x) for x in ops], optimize=True))
    np.testing.assert_allclose(got, np.einsum(subscripts, *[x.astype(np.float64) for x in ops]), rtol=1e-5,
                               atol=1e-5)
