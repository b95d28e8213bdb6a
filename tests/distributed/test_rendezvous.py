"""init/world and the unique-id exchange: the environment path over loopback TCP with threads as
ranks (bounded waits end in DistributedError), the single-rank path and the MPI path's imports,
over the fake transport."""

import socket
import threading
import time

import pytest

from fake_comm import Transport, installed
from rocarray.distributed import DistributedError, _rendezvous


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _exchange_in_threads(ranks, size, port, timeout):
    results = {}

    def run(rank):
        try:
            results[rank] = _rendezvous.exchange_id(rank, size, "127.0.0.1", port, time.monotonic() + timeout)
        except Exception as exc:  # checked by the test
            results[rank] = exc

    threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in ranks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout + 5)
        assert not thread.is_alive(), "exchange_id did not return within its timeout"
    return results


@pytest.mark.parametrize("size", [2, 3])
def test_every_rank_gets_rank_zeros_id_over_loopback(size):
    with installed(Transport()):
        results = _exchange_in_threads(range(size), size, _free_port(), timeout=10.0)
    ids = {results[r] for r in range(size)}
    assert len(ids) == 1 and isinstance(results[0], bytes) and len(results[0]) == 128


def test_rank_zero_waiting_for_a_missing_rank_times_out():
    with installed(Transport()):
        start = time.monotonic()
        results = _exchange_in_threads([0, 1], 3, _free_port(), timeout=0.5)
    assert isinstance(results[1], bytes)
    assert isinstance(results[0], DistributedError) and "rank 2 did not fetch" in str(results[0])
    assert time.monotonic() - start < 3.0


def test_a_rank_without_rank_zero_times_out():
    with installed(Transport()):
        start = time.monotonic()
        results = _exchange_in_threads([1], 2, _free_port(), timeout=0.4)
    assert isinstance(results[1], DistributedError) and "rank 0" in str(results[1])
    assert time.monotonic() - start < 3.0


def test_rank_outside_the_world_is_a_value_error():
    with pytest.raises(ValueError, match="RANK=2"):
        _rendezvous.exchange_id(2, 2, "127.0.0.1", 1, None)


def test_bounded_wait_gives_distributed_error():
    with pytest.raises(DistributedError, match="not formed"):
        _rendezvous._bounded(lambda: time.sleep(5), time.monotonic() + 0.1, "the test communicator")
    with pytest.raises(KeyError):
        _rendezvous._bounded(lambda: {}["missing"], None, "a failing init")


@pytest.fixture
def fresh_world(monkeypatch):
    monkeypatch.setattr(_rendezvous, "_world", [])
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK") + _rendezvous._MPI_SIZE:
        monkeypatch.delenv(name, raising=False)
    with installed(Transport()):
        yield monkeypatch


def test_single_rank_init_and_world(fresh_world):
    comm = _rendezvous.init(timeout=2.0)
    assert (comm.rank, comm.size, comm.timeout) == (0, 1, 2.0)
    assert _rendezvous.world() is comm and _rendezvous.init() is comm
    comm.close()
    with pytest.raises(DistributedError, match="init"):
        _rendezvous.world()


def test_env_init_of_a_one_rank_world(fresh_world):
    for name, value in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_PORT": str(_free_port())}.items():
        fresh_world.setenv(name, value)
    comm = _rendezvous.init("auto", timeout=2.0)
    assert (comm.rank, comm.size) == (0, 1)


def test_env_init_errors(fresh_world):
    fresh_world.setenv("RANK", "0")
    fresh_world.setenv("WORLD_SIZE", "two")
    with pytest.raises(ValueError, match="WORLD_SIZE"):
        _rendezvous.init("env")
    with pytest.raises(ValueError, match="backend"):
        _rendezvous.init("gloo")
    with pytest.raises(ValueError, match="timeout"):
        _rendezvous.init(timeout=0)


def test_world_before_init_is_a_distributed_error(fresh_world):
    with pytest.raises(DistributedError):
        _rendezvous.world()


def test_mpi_path_with_one_process(fresh_world):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py brings it and an MPI runtime)")
    comm = _rendezvous.init("mpi", timeout=5.0)
    assert comm.size >= 1
