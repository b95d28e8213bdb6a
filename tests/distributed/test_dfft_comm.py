"""The distributed FFT and the split-array helpers over the real Communicator (CPU).

``fake_comm.run_ranks`` runs the real :class:`~rocarray.distributed.Communicator` (its planning,
uneven all_to_all, cross-rank validation and watchdog) over an in-process fake transport, threads
as ranks and NumPy buffers; the NumPy twin of the local operations does the transforms. A subset
of ``test_dfft.py``/``test_arrays.py``: the contract between the two, exercised end to end.
"""

import numpy as np
import pytest

import rocarray.distributed as rd
from rocarray.distributed import _local
from rocarray.distributed import fft as dfft

from dfft_standin import NumpyOps
from fake_comm import run_ranks


@pytest.fixture(autouse=True)
def numpy_ops(monkeypatch):
    monkeypatch.setattr(_local, "ops", NumpyOps)


def _random(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _close(got, want, dtype):
    limit = 1e-5 if np.dtype(dtype) in (np.complex64, np.float32) else 1e-12
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < limit


def _run(n, x, fn, decomposition="slab", transposed_in=False, transposed_out=False, out_shape=None):
    out_shape = out_shape or x.shape

    def body(comm):
        mine = dfft.local_slices(x.shape, comm, decomposition=decomposition, transposed=transposed_in)
        there = dfft.local_slices(out_shape, comm, decomposition=decomposition, transposed=transposed_out)
        return fn(np.ascontiguousarray(x[mine]), comm), there

    results = run_ranks(n, body)
    out = None
    for block, where in results:
        if out is None:
            out = np.zeros(out_shape, block.dtype)
        out[where] = block
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("decomposition,shape", [("slab", (8, 6, 4)), ("slab", (7, 5)), ("slab", (5, 7, 3)),
                                                 ("pencil", (4, 6, 8)), ("pencil", (5, 7, 3))])
@pytest.mark.parametrize("transposed_out", [False, True])
def test_fftn_and_back(rng, n, decomposition, shape, transposed_out):
    x = _random(rng, shape, "complex64")
    spectrum = np.fft.fftn(x.astype(np.complex128), norm="ortho")
    got = _run(n, x, lambda xl, c: dfft.fftn(xl, c, norm="ortho", decomposition=decomposition,
                                             transposed_out=transposed_out),
               decomposition, transposed_out=transposed_out)
    _close(got, spectrum, "complex64")
    back = _run(n, spectrum.astype(np.complex64),
                lambda xl, c: dfft.ifftn(xl, c, norm="ortho", decomposition=decomposition, transposed_in=transposed_out),
                decomposition, transposed_in=transposed_out)
    _close(back, x, "complex64")


@pytest.mark.parametrize("n", [2, 3])
def test_rfftn_and_irfftn(rng, n):
    x = rng.standard_normal((6, 5, 7))
    want = np.fft.rfftn(x)
    got = _run(n, x, lambda xl, c: dfft.rfftn(xl, c, transposed_out=True), transposed_out=True, out_shape=want.shape)
    _close(got, want, "complex128")
    back = _run(n, want, lambda xl, c: dfft.irfftn(xl, c, n=7, transposed_in=True), transposed_in=True,
                out_shape=x.shape)
    _close(back, x, "float64")


def test_bad_blocks_raise_on_every_rank():
    def body(comm):
        dfft.fftn(np.zeros((2 + comm.rank, 4), np.complex64), comm)
    errors = run_ranks(3, body, return_exceptions=True)
    assert all(isinstance(e, ValueError) and "array_split" in str(e) for e in errors), errors


@pytest.mark.parametrize("n", [1, 2, 3])
def test_split_array_helpers(rng, n):
    x = rng.standard_normal((7, 3))
    v = rng.standard_normal(10) + 1j * rng.standard_normal(10)

    def body(comm):
        block = rd.scatter(x if comm.rank == 0 else None, comm)
        vb = rd.scatter(v if comm.rank == n - 1 else None, comm, root=n - 1)
        return (block, rd.gather(block, comm, all=True), rd.gather(block, comm, root=n - 1), rd.sum(block, comm),
                rd.sum(block, comm, axis=0), rd.dot(vb, vb, comm), rd.norm(vb, comm), rd.norm(block, comm, "fro"))

    results = run_ranks(n, body)
    for r, (block, everything, at_root, total, columns, vv, vnorm, fro) in enumerate(results):
        np.testing.assert_array_equal(block, np.array_split(x, n)[r])
        np.testing.assert_array_equal(everything, x)
        assert (at_root is None) == (r != n - 1)
        np.testing.assert_allclose(total, x.sum(), rtol=1e-12)
        np.testing.assert_allclose(columns, x.sum(axis=0), rtol=1e-12)
        np.testing.assert_allclose(vv, np.dot(v, v), rtol=1e-12)
        np.testing.assert_allclose(vnorm, np.linalg.norm(v), rtol=1e-12)
        np.testing.assert_allclose(fro, np.linalg.norm(x), rtol=1e-12)
    np.testing.assert_array_equal(results[n - 1][2], x)
