"""Self-check and benchmark cases of rocarray.distributed (walked by ``python -m rocarray``).

The self-check makes a one-rank communicator on the current GPU and checks that every collective
returns its input (the identity of a one-rank world) against NumPy. The benchmark cases, registered
only where two GPUs are visible, drive both through :meth:`Communicator.local` (one process, one
NCCL group per call, validation and watchdog off, as raw NCCL) against the same calls made
directly on ``cupy.cuda.nccl`` communicators in the same run: all_reduce, all_gather and all_to_all
of 1 GiB of float32 and all_reduce of 1 MiB. Bytes moved are NCCL's bus bytes of one call (all_reduce
``2 (n-1)/n`` of the buffer, all_gather and all_to_all ``(n-1)/n``), so GB/s is bus bandwidth.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "distributed"


@harness.self_check(_LIB, "one_rank_identities")
def check_one_rank(rng):
    from rocarray.distributed import _rendezvous

    cupy = backend.cupy()
    host = harness.standard_normal(rng, (64, 8), "float32")
    x = cupy.asarray(host)
    previous = list(_rendezvous._world)
    _rendezvous._world.clear()
    comm = _rendezvous.init("single")
    try:
        results = {"all_reduce": comm.all_reduce(x), "reduce": comm.reduce(x), "broadcast": comm.broadcast(x.copy()),
                   "all_gather": comm.all_gather(x), "reduce_scatter": comm.reduce_scatter(x),
                   "all_to_all": comm.all_to_all(x)}
        for name, got in results.items():
            if not numpy.array_equal(cupy.asnumpy(got), host):
                raise AssertionError(f"distributed.{name}: a one-rank call changed its input")
    finally:
        comm.close()
        _rendezvous._world[:] = previous


def _pair(count):
    """Per-GPU float32 buffers of ``count`` elements, our communicators and raw NCCL ones."""
    from rocarray.distributed import Communicator

    cupy = backend.cupy()
    comms = Communicator.local([0, 1], validate=False)
    raw = cupy.cuda.nccl.NcclCommunicator.initAll([0, 1])
    buffers = []
    for device in (0, 1):
        with cupy.cuda.Device(device):
            buffers.append((cupy.random.standard_normal(count, dtype=numpy.float32),
                            cupy.empty(count, numpy.float32)))
    return comms, raw, buffers


def _ours(kind):
    from rocarray.distributed import group

    def run(comms, raw, buffers):
        with group():
            for comm, (x, out) in zip(comms, buffers):
                if kind == "all_gather":
                    comm.all_gather(x[:x.size // 2], out=out)
                else:
                    getattr(comm, kind)(x, out=out)
    return run


def _raw(kind):
    def run(comms, raw, buffers):
        cupy = backend.cupy()
        nccl = cupy.cuda.nccl
        nccl.groupStart()
        for device, (comm, (x, out)) in enumerate(zip(raw, buffers)):
            with cupy.cuda.Device(device):
                stream = cupy.cuda.get_current_stream().ptr
                if kind == "all_reduce":
                    comm.allReduce(x.data.ptr, out.data.ptr, x.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, stream)
                elif kind == "all_gather":
                    comm.allGather(x.data.ptr, out.data.ptr, x.size // 2, nccl.NCCL_FLOAT32, stream)
                else:
                    half = x.size // 2 * x.itemsize
                    for peer in (0, 1):
                        comm.send(x.data.ptr + peer * half, half, nccl.NCCL_UINT8, peer, stream)
                        comm.recv(out.data.ptr + peer * half, half, nccl.NCCL_UINT8, peer, stream)
        nccl.groupEnd()
    return run


def _register_benchmarks():
    if backend.device_count() < 2:
        return  # the cases need two GPUs of one host
    cases = [("all_reduce", 1 << 28, 1.0), ("all_gather", 1 << 28, 0.5), ("all_to_all", 1 << 28, 0.5),
             ("all_reduce", 1 << 18, 1.0)]
    for kind, count, bus in cases:
        nbytes = count * 4
        harness.bench_case(BenchCase(name=f"{_LIB}.{kind}_{nbytes >> 20}MiB_float32_2gpu", library=_LIB,
                                     setup=lambda count=count: _pair(count), rocarray=_ours(kind), vendor=_raw(kind),
                                     bytes_moved=int(bus * nbytes), memory_bound=False))


_register_benchmarks()
