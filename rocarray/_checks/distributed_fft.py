"""Self-checks and benchmark cases of the distributed FFT (walked by ``python -m rocarray``).

Registered only where they can run: the one-rank self-check where a GPU is visible, the two-rank
self-check and the benchmark cases where two are. The ranks are driven from one process
(``Communicator.local``), one thread per rank (``run_threads``).

The benchmark's "vendor" column is the bound the issue sets, run as work: on every rank the local
rocFFT passes of the same blocks plus ``comm.all_to_all`` of the same bytes as many times as the
distributed transform exchanges (one with ``transposed_out=True``, two for the natural layout).
Its speed-up column is therefore the fraction of the bound reached (the target is 0.8); packing,
the argument agreement and the host's thread hand-offs are what separates the two. The
communicators run with ``validate=False`` (the distributed FFT still compares its own arguments
across ranks once per call).
"""

import functools
import math

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "distributed"
_CUBE = 1024
_TOL_FACTOR = 4.5  # rocfft's self-check tolerance: 4.5 eps log2(N)


def _distributed():
    import rocarray.distributed

    return rocarray.distributed


@functools.cache
def _comms(ranks, validate=True):
    return _distributed().Communicator.local(list(range(ranks)), validate=validate)


def _on_ranks(fn, comms, per_rank):
    """``fn(comm, per_rank[rank])`` on every rank at once (``run_threads``: one thread each, the
    collectives meeting in one group); every device synchronized after."""
    cupy = backend.cupy()

    def body(comm):
        out = fn(comm, per_rank[comm.rank])
        cupy.cuda.Device().synchronize()
        return out

    return _distributed().run_threads(body, comms)


def _check(ranks, rng):
    """fftn/ifftn of a few shapes on ``ranks`` ranks (slab and pencil, even and uneven) against NumPy."""
    cupy, dfft = backend.cupy(), _distributed().fft
    comms = _comms(ranks)
    for dtype in ("complex64", "complex128"):
        for shape, decomposition in (((16, 12, 10), "slab"), ((9, 7, 5), "slab"), ((8, 6, 10), "pencil"),
                                     ((31, 4), "slab")):
            x = harness.standard_normal(rng, shape, dtype)
            points = math.prod(shape)
            for name, ours, theirs in (("fftn", dfft.fftn, numpy.fft.fftn), ("ifftn", dfft.ifftn, numpy.fft.ifftn)):
                def run(comm, _, ours=ours, x=x, decomposition=decomposition):
                    where = dfft.local_slices(x.shape, comm, decomposition=decomposition)
                    return where, cupy.asnumpy(ours(cupy.asarray(x[where]), comm, decomposition=decomposition))

                got = numpy.empty(shape, numpy.complex128)
                for where, block in _on_ranks(run, comms, [None] * ranks):
                    got[where] = block
                want = theirs(x.astype(numpy.complex128))
                err = numpy.linalg.norm(got - want) / numpy.linalg.norm(want)
                limit = harness.tolerance(dtype, points, factor=_TOL_FACTOR, growth="log2")
                if not err <= limit:
                    raise AssertionError(f"distributed {name} {dtype} {shape} {decomposition} on {ranks} ranks: "
                                         f"relative L2 error {err:.3g} > {limit:.3g}")


def _random_block(shape, dtype):
    cupy = backend.cupy()
    part = numpy.float32 if numpy.dtype(dtype) == numpy.complex64 else numpy.float64
    out = cupy.random.standard_normal(shape, dtype=part).astype(dtype)
    out += cupy.random.standard_normal(shape, dtype=part).astype(dtype) * numpy.dtype(dtype).type(1j)
    return out


def _setup(shape, dtype, ranks):
    cupy, dfft = backend.cupy(), _distributed().fft
    comms = _comms(ranks, validate=False)  # the communicator's speed setting: raw NCCL calls
    blocks = []
    for comm in comms:
        with cupy.cuda.Device(comm.device):
            where = dfft.local_slices(shape, comm)
            blocks.append(_random_block(tuple(s.stop - s.start for s in where), dtype))
    return comms, blocks


def _distributed_fftn(transposed_out):
    def run(comms, blocks):
        dfft = _distributed().fft
        _on_ranks(lambda comm, x: dfft.fftn(x, comm, transposed_out=transposed_out), comms, blocks)
    return run


def _bound(shape, exchanges):
    """The bound as work: the local passes of the slab algorithm and ``exchanges`` all_to_alls of
    each rank's bytes (the blocks' shapes are the distributed transform's, the data not moved)."""
    from rocarray import rocfft

    rest = tuple(shape[2:])

    def rank(comm, x):
        y = rocfft.c2c(x, tuple(range(1, x.ndim)), forward=True)
        flat = y.reshape(-1).view(numpy.uint8)
        for _ in range(exchanges):
            flat = comm.all_to_all(flat, out=backend.cupy().empty_like(flat))
        transposed = (shape[0], x.size // (shape[0] * math.prod(rest))) + rest
        return rocfft.c2c(flat.view(x.dtype).reshape(transposed), (0,), forward=True)

    def run(comms, blocks):
        _on_ranks(rank, comms, blocks)
    return run


def _register(ranks):
    if backend.device_count() < ranks:
        return
    if ranks == 1:
        harness.self_check(_LIB, "fftn_one_rank")(lambda rng: _check(1, rng))
        return
    harness.self_check(_LIB, f"fftn_{ranks}_ranks")(lambda rng: _check(ranks, rng))
    dtype = "complex64"
    shape = (_CUBE,) * 3
    volume = math.prod(shape) * numpy.dtype(dtype).itemsize * (ranks - 1) // ranks  # bytes crossing per exchange
    for transposed_out, exchanges in ((True, 1), (False, 2)):
        layout = "transposed" if transposed_out else "natural"
        harness.bench_case(BenchCase(
            name=f"{_LIB}.fftn_{_CUBE}x{_CUBE}x{_CUBE}_{dtype}_{ranks}gpu_{layout}", library=_LIB,
            setup=lambda: _setup(shape, dtype, ranks), rocarray=_distributed_fftn(transposed_out),
            vendor=_bound(shape, exchanges), bytes_moved=volume * exchanges, memory_bound=False))


_register(1)
_register(2)
