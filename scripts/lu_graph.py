"""How fast the large LU solve runs with the host off its chain: one warm ``getrf`` + ``getrs``
captured into a CUDA/HIP graph and replayed, against the same calls queued from Python.

    python scripts/lu_graph.py                 # order 8192, float64
    python scripts/lu_graph.py 4096 float32

Everything runs on a private stream (capture needs one that is not the legacy default). The
grid-barrier check, a host read, is skipped while capturing (the panels here are cluster panels;
the script says so if any barrier was used). Each run first copies the saved input into the
factored buffer, so eager, captured and replayed runs factor the same matrix: their X must agree
bit for bit. A measurement, not a library path: buffers freed inside the capture go back to
CuPy's pool while the graph still holds their addresses.
"""

import sys
import time

import cupy
import numpy

import rocarray as ra
from rocarray.rocsolver import _lu_kernels


def main(argv):
    n = int(argv[0]) if argv and argv[0].isdigit() else 8192
    dtype = numpy.dtype(next((a for a in argv if a.startswith(("float", "complex"))), "float64"))
    rng = numpy.random.default_rng(3)
    saved = cupy.asarray(rng.standard_normal((n, n)).astype(dtype), order="F")
    rhs = cupy.asarray(rng.standard_normal((n, 1)).astype(dtype), order="F")
    A, B = cupy.empty_like(saved, order="F"), cupy.empty_like(rhs, order="F")
    ipiv, info = cupy.empty(n, cupy.int32), cupy.zeros(1, cupy.int32)
    barriers_seen = []
    check = _lu_kernels.check_grid_barrier

    def solve():
        A[...] = saved
        B[...] = rhs
        info.fill(0)
        ra.rocsolver.getrf(n, n, A, n, ipiv, info)
        ra.rocsolver.getrs("N", n, 1, A, n, ipiv, B, n)

    stream = cupy.cuda.Stream(non_blocking=True)
    rows = []
    with stream:
        for _ in range(2):
            solve()
        stream.synchronize()
        eager = []
        for _ in range(3):
            start, end = stream.record(), None
            t0 = time.perf_counter()
            solve()
            t1 = time.perf_counter()
            end = stream.record()
            end.synchronize()
            eager.append((cupy.cuda.get_elapsed_time(start, end), (t1 - t0) * 1e3))
        x_eager = B.copy()
        stream.synchronize()
        _lu_kernels.check_grid_barrier = lambda sync: barriers_seen.append(sync)
        try:
            t0 = time.perf_counter()
            stream.begin_capture()
            solve()
            graph = stream.end_capture()
            capture_ms = (time.perf_counter() - t0) * 1e3
        finally:
            _lu_kernels.check_grid_barrier = check
        B.fill(0)
        t0 = time.perf_counter()
        graph.launch(stream)   # the first launch uploads the graph
        stream.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        replay = []
        for _ in range(5):
            start = stream.record()
            t0 = time.perf_counter()
            graph.launch(stream)
            t1 = time.perf_counter()
            end = stream.record()
            end.synchronize()
            replay.append((cupy.cuda.get_elapsed_time(start, end), (t1 - t0) * 1e3))
        x_graph = B.copy()
    same = bool(cupy.array_equal(x_eager, x_graph))
    a64 = saved.astype(numpy.complex128 if dtype.kind == "c" else numpy.float64)
    resid = float(cupy.linalg.norm(a64 @ x_graph.astype(a64.dtype) - rhs)) / (
        float(cupy.linalg.norm(a64)) * float(cupy.linalg.norm(x_graph)) * n * numpy.finfo(dtype).eps)
    with stream:
        t = []
        for _ in range(3):
            start = stream.record()
            cupy.linalg.solve(saved, rhs)
            end = stream.record()
            end.synchronize()
            t.append(cupy.cuda.get_elapsed_time(start, end))
    rows.append(("eager (GPU / host ms)", min(e[0] for e in eager), min(e[1] for e in eager)))
    rows.append(("graph replay (GPU / host ms)", min(r[0] for r in replay), min(r[1] for r in replay)))
    print(f"LU solve {n} {dtype}: capture {capture_ms:.1f} ms, first launch {first_ms:.1f} ms, "
          f"grid barriers in the capture: {len(barriers_seen)}, X graph == X eager: {same}, "
          f"backward error / (n eps) {resid:.3g}")
    for name, gpu, host in rows:
        print(f"  {name:30s} {gpu:8.2f} {host:8.2f}")
    print(f"  {'cupy.linalg.solve (GPU ms)':30s} {min(t):8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
