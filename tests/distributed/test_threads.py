"""run_threads: per-rank code on one thread per rank of a Communicator.local clique (CPU, over the
fake transport of ``fake_comm``: the real Communicator, its group() and clique checks)."""

import threading

import numpy as np
import pytest

import rocarray.distributed as rd
from rocarray.distributed import _local
from rocarray.distributed import fft as dfft

from dfft_standin import NumpyOps
from fake_comm import Transport, installed


@pytest.fixture
def clique(monkeypatch):
    monkeypatch.setattr(_local, "ops", NumpyOps)

    def make(n, **kwargs):
        return rd.Communicator.local(list(range(n)), **kwargs)

    with installed(Transport()):
        yield make


def test_local_communicators_refuse_calls_outside_a_group(clique):
    comms = clique(2)
    with pytest.raises(ValueError, match="group"):
        comms[0].all_gather(np.zeros(2))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_distributed_fft_runs_on_a_local_clique(rng, clique, n):
    x = rng.standard_normal((7, 6, 5)) + 1j * rng.standard_normal((7, 6, 5))

    def rank(comm):
        out = dfft.fftn(np.ascontiguousarray(x[dfft.local_slices(x.shape, comm)]), comm, transposed_out=True)
        return out, dfft.local_slices(x.shape, comm, transposed=True)

    got = np.zeros_like(x)
    for block, where in rd.run_threads(rank, clique(n)):
        got[where] = block
    np.testing.assert_allclose(got, np.fft.fftn(x), rtol=1e-12, atol=1e-12 * np.abs(x).sum())


def test_split_arrays_and_barrier_on_a_local_clique(rng, clique):
    x = rng.standard_normal(9)

    def rank(comm):
        block = rd.scatter(x if comm.rank == 0 else None, comm)
        comm.barrier()
        total = comm.all_reduce(np.array([block.sum()]))
        return rd.norm(block, comm), rd.gather(block, comm, all=True), total

    for norm, everything, total in rd.run_threads(rank, clique(3)):
        np.testing.assert_allclose(norm, np.linalg.norm(x), rtol=1e-12)
        np.testing.assert_array_equal(everything, x)
        np.testing.assert_allclose(total, [x.sum()], rtol=1e-12)


def test_a_failing_rank_releases_the_others_and_its_error_is_raised(clique):
    seen = []

    def rank(comm):
        if comm.rank == 1:
            raise KeyError("rank 1 broke")
        try:
            comm.all_gather(np.zeros(2))
        except rd.DistributedError as exc:
            seen.append(exc)
            raise

    with pytest.raises(KeyError, match="rank 1 broke"):
        rd.run_threads(rank, clique(3))
    assert len(seen) == 2


def test_ranks_making_different_calls_raise_on_every_rank(clique):
    errors = []

    def rank(comm):
        try:
            (comm.all_gather if comm.rank else comm.all_reduce)(np.zeros(2))
        except ValueError as exc:
            errors.append(exc)
            raise

    with pytest.raises(ValueError, match="same calls"):
        rd.run_threads(rank, clique(2))
    assert len(errors) == 2


def test_each_rank_runs_on_its_own_thread(clique):
    names = rd.run_threads(lambda comm: threading.current_thread().name, clique(2))
    assert len(set(names)) == 2 and threading.current_thread().name not in names


def test_bad_arguments_are_type_errors():
    with pytest.raises(TypeError, match="fn"):
        rd.run_threads(3, [])
    with pytest.raises(TypeError, match="comms"):
        rd.run_threads(print, [1, 2])
