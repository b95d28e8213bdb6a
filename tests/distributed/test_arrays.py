"""rocarray.distributed's scatter, gather, sum, dot and norm against NumPy on the whole array.

CPU: the stand-in communicator of ``dfft_standin`` (threads as ranks, NumPy buffers) with the
NumPy twin of the local operations; 1 to 4 ranks, even and uneven splits. GPU: one rank on the
device when the Communicator class exists.
"""

import numpy as np
import pytest

import rocarray.distributed as rd
from rocarray._core import backend
from rocarray.distributed import _local

from dfft_standin import NumpyOps, run_ranks, run_ranks_errors

RANKS = [1, 2, 3, 4]
DEVICE_OPS = _local.ops  # the real operations, which the GPU test puts back


@pytest.fixture
def numpy_ops(monkeypatch):
    monkeypatch.setattr(_local, "ops", NumpyOps)


def _blocks(x, n, axis=0):
    return np.array_split(x, n, axis=axis)


pytestmark = pytest.mark.usefixtures("numpy_ops")


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((10, 3), 0), ((4, 9), 1), ((3, 5, 2), -1), ((2, 3), 0)])
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16", "bool"])
def test_scatter_gives_array_split_blocks_and_gather_undoes_it(rng, n, shape, axis, dtype):
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    root = n - 1

    def body(comm):
        block = rd.scatter(x if comm.rank == root else None, comm, axis=axis, root=root)
        return block, rd.gather(block, comm, axis=axis, root=0), rd.gather(block, comm, axis=axis, all=True)

    results = run_ranks(n, body)
    for (block, at_root, everywhere), want in zip(results, _blocks(x, n, axis)):
        assert block.dtype == x.dtype and block.flags.c_contiguous
        np.testing.assert_array_equal(block, want)
        np.testing.assert_array_equal(everywhere, x)
    np.testing.assert_array_equal(results[0][1], x)
    assert all(r[1] is None for r in results[1:])


def test_gather_of_blocks_of_any_lengths(rng):
    parts = [rng.standard_normal((k, 3)) for k in (0, 4, 1)]
    results = run_ranks(3, lambda c: rd.gather(parts[c.rank], c, all=True))
    for got in results:
        np.testing.assert_array_equal(got, np.concatenate(parts))


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int8", "uint16", "bool"])
def test_sum_over_everything(rng, n, dtype):
    x = (rng.standard_normal((9, 4)) * 20).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * x[::-1]
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    for got in run_ranks(n, lambda c: rd.sum(_blocks(x, n)[c.rank], c)):
        want = np.sum(x)
        assert got.shape == () and got.dtype == want.dtype
        # sums cancel: the error is relative to the sum of magnitudes
        np.testing.assert_allclose(got, np.sum(wide).astype(want.dtype), rtol=0, atol=1e-6 * np.abs(wide).sum())


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("axis", [0, (0, 1), -3, (1, 0, 2)])
def test_sum_over_the_split_axis_reaches_every_rank(rng, n, axis):
    x = rng.standard_normal((7, 3, 2)) + 1j * rng.standard_normal((7, 3, 2))
    for got in run_ranks(n, lambda c: rd.sum(_blocks(x, n)[c.rank], c, axis=axis)):
        np.testing.assert_allclose(got, np.sum(x, axis=axis), rtol=1e-12)


def test_sum_over_other_axes_stays_split_and_is_local(rng):
    x = rng.standard_normal((7, 3, 2))
    results = run_ranks(3, lambda c: (rd.sum(_blocks(x, 3, 1)[c.rank], c, axis=(0, 2), split_axis=1), c.calls))
    np.testing.assert_allclose(np.concatenate([r[0] for r in results]), np.sum(x, axis=(0, 2)))
    assert all(r[1] == [] for r in results)


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"), ("complex64", "float32"),
                                    ("int32", "int64")])
def test_dot(rng, n, dtypes):
    x = (rng.standard_normal(11) * 10).astype(dtypes[0])
    y = (rng.standard_normal(11) * 10).astype(dtypes[1])
    scale = np.abs(x.astype(np.complex128) * y).sum()  # dot products cancel: the error is relative to this
    for got in run_ranks(n, lambda c: rd.dot(_blocks(x, n)[c.rank], _blocks(y, n)[c.rank], c)):
        want = np.dot(x, y)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, np.dot(x.astype(np.complex128), y), rtol=0, atol=1e-6 * scale)


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("ord", [None, 2, 1, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
def test_vector_norms(rng, n, ord, dtype):
    x = (rng.standard_normal(6) * 10).astype(dtype)
    for got in run_ranks(n, lambda c: rd.norm(_blocks(x, n)[c.rank], c, ord=ord)):
        want = np.linalg.norm(x, ord)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("ord", [None, "fro"])
def test_frobenius_norm_of_a_split_matrix(rng, ord):
    x = rng.standard_normal((7, 5))
    for got in run_ranks(3, lambda c: rd.norm(_blocks(x, 3)[c.rank], c, ord=ord)):
        np.testing.assert_allclose(got, np.linalg.norm(x, ord), rtol=1e-12)


def test_a_distributed_conjugate_gradient_converges(rng):
    n, ranks = 40, 3
    a = rng.standard_normal((n, n))
    a = a @ a.T + n * np.eye(n)
    b = rng.standard_normal(n)

    def cg(comm):
        rows = _blocks(np.arange(n), ranks)[comm.rank]
        a_rows, x = a[rows], np.zeros(len(rows))
        r = b[rows].copy()
        p, rr = r.copy(), rd.dot(r, r, comm)
        for _ in range(n):
            ap = a_rows @ rd.gather(p, comm, all=True)
            alpha = rr / rd.dot(p, ap, comm)
            x, r = x + alpha * p, r - alpha * ap
            rr_new = rd.dot(r, r, comm)
            if rd.norm(r, comm) < 1e-10 * np.linalg.norm(b):
                break
            p, rr = r + rr_new / rr * p, rr_new
        return rd.gather(x, comm)

    want = np.linalg.solve(a, b)
    # the stopping rule bounds the error in norm, not per component: a component near zero may
    # carry the error of the large ones
    np.testing.assert_allclose(run_ranks(ranks, cg)[0], want, rtol=1e-8, atol=1e-8 * np.abs(want).max())


# ------------------------------------------------------------------------------------------------
# errors, raised on every rank
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda c: rd.scatter(np.zeros(4) if c.rank == 0 else None, c, root=5),
    lambda c: rd.gather(np.zeros(2), c, root=-1),
    lambda c: rd.scatter(np.zeros(4) if c.rank == 0 else None, c, axis=1),
])
def test_bad_root_or_axis_raises_on_every_rank(fn):
    errors = run_ranks_errors(2, fn)
    assert all(isinstance(e, ValueError) for e in errors), errors


@pytest.mark.parametrize("fn,message", [
    (lambda c: rd.gather(np.zeros((2, 2 + c.rank)), c), "shapes differ"),
    (lambda c: rd.gather(np.zeros(2, "f4" if c.rank else "f8"), c), "disagree"),
    (lambda c: rd.gather(np.zeros(2), c, all=c.rank == 1), "disagree"),
    (lambda c: rd.sum(np.zeros(2, "f4" if c.rank else "f8"), c), "different dtypes"),
    (lambda c: rd.sum(np.zeros((2, 2 + c.rank)), c, axis=0), "differ in shape"),
    (lambda c: rd.dot(np.zeros(2), np.zeros(3 if c.rank else 2), c), "rank(s) [1]"),
    (lambda c: rd.norm(np.zeros((2, 2)), c, ord=1), "not supported"),
    (lambda c: rd.norm(np.zeros(2), c, ord="fro"), "not supported"),
    (lambda c: rd.sum("x" if c.rank else np.zeros(2), c), "rank(s) [1]"),
])
def test_disagreeing_ranks_raise_on_every_rank(fn, message):
    errors = run_ranks_errors(2, fn)
    assert all(e is not None for e in errors), errors
    assert any(message in str(e) for e in errors), errors


def test_a_non_communicator_is_a_type_error():
    for call in (lambda: rd.scatter(np.zeros(2), None), lambda: rd.gather(np.zeros(2), 3),
                 lambda: rd.sum(np.zeros(2), "comm"), lambda: rd.dot(np.zeros(2), np.zeros(2), 1),
                 lambda: rd.norm(np.zeros(2), [])):
        with pytest.raises(TypeError, match="comm"):
            call()


@pytest.mark.gpu
def test_one_rank_on_the_device(rng, monkeypatch):
    import cupy

    monkeypatch.setattr(_local, "ops", DEVICE_OPS)
    comm = rd.Communicator.local([0])[0]
    x = rng.standard_normal((9, 4)).astype(np.float32)
    try:
        block = rd.scatter(cupy.asarray(x), comm)
        np.testing.assert_array_equal(cupy.asnumpy(rd.gather(block, comm, all=True)), x)
        np.testing.assert_allclose(float(rd.sum(block, comm)), x.sum(), rtol=1e-5)
        np.testing.assert_allclose(cupy.asnumpy(rd.sum(block, comm, axis=0)), x.sum(axis=0), rtol=1e-5)
        np.testing.assert_allclose(float(rd.dot(block[:, 0].copy(), block[:, 1].copy(), comm)),
                                   x[:, 0] @ x[:, 1], rtol=1e-5)
        np.testing.assert_allclose(float(rd.norm(block, comm)), np.linalg.norm(x), rtol=1e-5)
    finally:
        comm.close()


@pytest.mark.gpu
def test_one_rank_clique_makes_every_collective_an_identity(rng, monkeypatch):
    # what notebooks/06_distributed.ipynb does on a machine with one GPU: a one-rank
    # Communicator.local clique driven by run_threads; all_to_all of bytes, in-place all_reduce
    # 'avg', the transposed-layout FFT round trip, scatter/gather and the reductions
    import cupy

    from rocarray.distributed import fft as dfft

    monkeypatch.setattr(_local, "ops", DEVICE_OPS)
    comms = rd.Communicator.local([0])
    x = rng.standard_normal((12, 10, 6)) + 1j * rng.standard_normal((12, 10, 6))
    g = rng.standard_normal(33).astype(np.float32)

    def body(comm):
        flat = cupy.asarray(x).reshape(-1).view(np.uint8)
        moved = comm.all_to_all(flat, out=cupy.empty_like(flat))
        grad = cupy.asarray(g)
        comm.all_reduce(grad, op="avg", out=grad)
        spectrum = dfft.fftn(cupy.asarray(x), comm, transposed_out=True)
        back = dfft.ifftn(spectrum, comm, transposed_in=True)
        whole = rd.gather(rd.scatter(cupy.asarray(x), comm), comm)
        total = float(rd.sum(cupy.abs(cupy.asarray(x)) ** 2, comm))
        cupy.cuda.Device().synchronize()
        return (comm.size, cupy.asnumpy(moved), cupy.asnumpy(grad), cupy.asnumpy(spectrum), cupy.asnumpy(back),
                cupy.asnumpy(whole), total)

    try:
        [(size, moved, grad, spectrum, back, whole, total)] = rd.run_threads(body, comms)
    finally:
        for comm in comms:
            comm.close()
    assert size == 1
    np.testing.assert_array_equal(moved, x.reshape(-1).view(np.uint8))
    np.testing.assert_array_equal(grad, g)
    want = np.fft.fftn(x)
    assert np.linalg.norm(spectrum - want) <= 1e-12 * np.linalg.norm(want)
    assert np.linalg.norm(back - x) <= 1e-12 * np.linalg.norm(x)
    np.testing.assert_array_equal(whole, x)
    np.testing.assert_allclose(total, np.sum(np.abs(x) ** 2), rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.skipif(backend.device_count() < 2, reason="two ranks need two GPUs (NCCL refuses two ranks on one)")
def test_two_gpus(rng, monkeypatch):
    import cupy

    monkeypatch.setattr(_local, "ops", DEVICE_OPS)
    comms = rd.Communicator.local([0, 1])
    x = rng.standard_normal((11, 3)).astype(np.float64)
    v = rng.standard_normal(11) + 1j * rng.standard_normal(11)

    def body(comm):  # one thread per rank (run_threads), its GPU current
        block = rd.scatter(cupy.asarray(x) if comm.rank == 0 else None, comm)
        vb = rd.scatter(cupy.asarray(v) if comm.rank == 1 else None, comm, root=1)
        return (cupy.asnumpy(block), cupy.asnumpy(rd.gather(block, comm, all=True)), float(rd.sum(block, comm)),
                cupy.asnumpy(rd.sum(block, comm, axis=0)), complex(rd.dot(vb, vb, comm)),
                float(rd.norm(vb, comm, ord=np.inf)))

    try:
        results = rd.run_threads(body, comms)
    finally:
        for c in comms:
            c.close()
    for r, (block, everything, total, column_sums, vv, vmax) in enumerate(results):
        np.testing.assert_array_equal(block, np.array_split(x, 2)[r])
        np.testing.assert_array_equal(everything, x)
        np.testing.assert_allclose(total, x.sum(), rtol=1e-12)
        np.testing.assert_allclose(column_sums, x.sum(axis=0), rtol=1e-12)
        np.testing.assert_allclose(vv, np.dot(v, v), rtol=1e-12)
        np.testing.assert_allclose(vmax, np.linalg.norm(v, np.inf), rtol=1e-12)
