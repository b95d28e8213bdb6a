"""The Communicator on real GPUs: one rank on one GPU (every collective is the identity or a copy),
two ranks driven from one process (Communicator.local([0, 1])) and two processes launched with
torchrun-style environment variables (env_ranks.py). Two-rank tests skip with fewer than 2 GPUs."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rocarray._core import backend

pytestmark = pytest.mark.gpu
two_gpus = pytest.mark.skipif(backend.device_count() < 2, reason="needs 2 GPUs (NCCL refuses two ranks on one GPU)")
DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    values = rng.integers(1, 4, size=shape)
    if dtype.kind == "c":
        return (values + 1j * rng.integers(1, 4, size=shape)).astype(dtype)
    return values.astype(dtype)


@pytest.fixture
def one_rank():
    from rocarray.distributed import _rendezvous

    _rendezvous._world.clear()
    comm = _rendezvous.init("single", timeout=60.0)
    yield comm
    comm.close()


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_rank_collectives_are_identities(one_rank, dtype, rng):
    import cupy

    host = _random(rng, (4, 6), dtype)
    x = cupy.asarray(host)
    ops = ["sum", "avg"] if np.dtype(dtype).kind == "c" else ["sum", "prod", "min", "max"]
    for op in ops + (["avg"] if np.dtype(dtype).kind == "f" else []):
        np.testing.assert_array_equal(one_rank.all_reduce(x, op=op).get(), host)
        np.testing.assert_array_equal(one_rank.reduce(x, op=op).get(), host)
        np.testing.assert_array_equal(one_rank.reduce_scatter(x, op=op).get(), host)
    np.testing.assert_array_equal(one_rank.broadcast(x).get(), host)
    np.testing.assert_array_equal(one_rank.all_gather(x, axis=1).get(), host)
    np.testing.assert_array_equal(one_rank.all_to_all(x).get(), host)
    np.testing.assert_array_equal(one_rank.all_to_all(x, send_counts=[4], recv_counts=[4]).get(), host)
    y = x.copy()
    assert one_rank.all_reduce(y, out=y) is y
    one_rank.barrier()


def test_one_rank_on_a_side_stream(one_rank, rng):
    import cupy

    host = _random(rng, (1000,), "float32")
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        x = cupy.asarray(host)
    got = one_rank.all_reduce(x, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(got.get(), host)


@two_gpus
@pytest.mark.parametrize("dtype", DTYPES)
def test_local_two_gpus_match_numpy(dtype, rng):
    import cupy

    from rocarray.distributed import Communicator, group

    comms = Communicator.local([0, 1], timeout=60.0)
    hosts = [_random(rng, (4, 3), dtype) for _ in comms]
    xs = []
    for comm, host in zip(comms, hosts):
        with cupy.cuda.Device(comm.device):
            xs.append(cupy.asarray(host))
    with group():
        sums = [c.all_reduce(x) for c, x in zip(comms, xs)]
        gathered = [c.all_gather(x) for c, x in zip(comms, xs)]
        scattered = [c.reduce_scatter(x) for c, x in zip(comms, xs)]
        swapped = [c.all_to_all(x) for c, x in zip(comms, xs)]
    total = hosts[0] + hosts[1]
    for rank, comm in enumerate(comms):
        with cupy.cuda.Device(comm.device):
            np.testing.assert_allclose(sums[rank].get(), total, rtol=1e-3)
            np.testing.assert_array_equal(gathered[rank].get(), np.concatenate(hosts))
            np.testing.assert_allclose(scattered[rank].get(), total[2 * rank:2 * rank + 2], rtol=1e-3)
            np.testing.assert_array_equal(swapped[rank].get(), np.concatenate([h[2 * rank:2 * rank + 2] for h in hosts]))
    for comm in comms:
        comm.close()


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@two_gpus
def test_two_processes_launched_with_environment_variables():
    script = Path(__file__).with_name("env_ranks.py")
    port = str(_free_port())
    root = str(Path(__file__).resolve().parents[2])
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=port, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    for rank, (proc, output) in enumerate(zip(procs, outputs)):
        assert proc.returncode == 0 and f"ok {rank}" in output, output
