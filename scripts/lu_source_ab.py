"""Source variants of ``rocsolver/lu_block.hip`` timed against each other on the batched solve bench
stack, in one process: for the A/B of a kernel change before it lands (docs/performance/rocsolver.md).

    python scripts/lu_source_ab.py base=HEAD new=-                 # the committed file against the tree's
    python scripts/lu_source_ab.py old=b425120 new=- wide384=-:384   # a revision; float64 on 384 threads
    python scripts/lu_source_ab.py a=/tmp/variant.hip b=- --cases float64:128,float32:100
    python scripts/lu_source_ab.py base=HEAD new=- --compact         # the compact kernel's too
    python scripts/lu_source_ab.py base=- warp=+warp_u12 --compact   # a candidate patch (lu_variants.py)
    python scripts/lu_source_ab.py base=- back=+backsub_pipeline --compact-only   # the compact kernel alone

Each variant is ``NAME=SOURCE[:THREADS]``: SOURCE is ``-`` (the working tree's file), a file, a
git revision (its ``rocarray/_kernels/rocsolver/lu_block.hip``), or ``+NAME[+NAME...]``: the tree's
file with candidate patches of ``scripts/lu_variants.py`` applied; THREADS sets float64's split-kernel
block (``_lu_block.SPLIT_THREADS``). The variant reaches the compiler through a patched
``rocarray._core.compile.read_text`` (the package's file is not touched; the binary cache keys each
text apart). For each case (dtype:order, 10^4 systems, one right-hand side): the wide kernel (the
reference for the bits), then every variant's split kernel in mirrored order (the best of 5 timed
calls after one untimed call, device events), each line printed as it is measured, whether its X
is the wide kernel's bit for bit, and cuSOLVER through ``cupy.linalg.solve``. With ``--compact``,
each variant's compact kernel (``_lu_block.COMPACT``, routed for both dtypes) is timed next to its
split kernel; with ``--compact-only``, the compact kernel alone.
"""

import subprocess
import sys

import numpy

import rocarray as ra
from rocarray._core import backend, compile as _compile, kernels
from rocarray.rocsolver import _lu_block

import lu_variants  # this script's folder is on the path
from linalg_profile import event_times_ms

PATH = "rocarray/_kernels/rocsolver/lu_block.hip"


def _text(source):
    """The source text a variant names: the tree's, a file's or a revision's, or the tree's with
    candidate patches (``+NAME+NAME``, :mod:`lu_variants`)."""
    if source == "-":
        return _compile.read_text(_lu_block.SOURCE)
    if source.startswith("+"):
        return lu_variants.apply(_compile.read_text(_lu_block.SOURCE), source[1:].split("+"))
    try:
        return open(source).read()
    except FileNotFoundError:
        return subprocess.run(["git", "show", f"{source}:{PATH}"], check=True, capture_output=True,
                              text=True).stdout


def _use(text, threads, read_text, default_threads):
    """Route the split and wide kernels through ``text``, float64's split block on ``threads``."""
    _compile.read_text = lambda path: text if path == _lu_block.SOURCE else read_text(path)
    _lu_block.SPLIT_THREADS = {**default_threads, numpy.dtype(numpy.float64): threads}
    _lu_block.SPLIT_KERNELS = {d: kernels.Family(_lu_block.SOURCE, t, 1) for d, t in _lu_block.SPLIT_THREADS.items()}
    for family in (_lu_block.WIDE_KERNELS, _lu_block.KERNELS, _lu_block.COMPACT_KERNELS):
        family._kernels.clear()
    _compile._modules.clear()


def best_ms(cupy, call, repeat=5):
    """The fastest of ``repeat`` timed calls after one untimed call (device events)."""
    call()
    return min(event_times_ms(cupy, call, repeat))


def main(argv):
    cupy = backend.cupy()
    cases = [("float64", 128), ("float32", 128)]
    compact_only = "--compact-only" in argv
    compact = compact_only or "--compact" in argv
    argv = [a for a in argv if a not in ("--compact", "--compact-only")]
    if "--cases" in argv:
        at = argv.index("--cases")
        cases = [(c.split(":")[0], int(c.split(":")[1])) for c in argv[at + 1].split(",")]
        argv = argv[:at] + argv[at + 2:]
    read_text = _compile.read_text
    default_threads = dict(_lu_block.SPLIT_THREADS)
    variants = {}
    for arg in argv:
        name, spec = arg.split("=", 1)
        source, _, threads = spec.partition(":")
        variants[name] = (_text(source), int(threads) if threads else default_threads[numpy.dtype(numpy.float64)])
    if not variants:
        print(__doc__)
        return 1
    first = next(iter(variants.values()))
    for dtype, n in cases:
        rs = cupy.random.RandomState(1)
        a = rs.standard_normal((10_000, n, n)).astype(dtype)
        b = rs.standard_normal((10_000, n, 1)).astype(dtype)
        _lu_block.SPLIT = False
        _use(*first, read_text, default_threads)
        ref = cupy.asnumpy(ra.linalg.solve(a, b))
        print(f"{dtype} {n}: wide {best_ms(cupy, lambda: ra.linalg.solve(a, b)):.3f} ms", flush=True)
        _lu_block.SPLIT = True
        saved = _lu_block.COMPACT, _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER
        _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER = _lu_block.SPLIT_DTYPES, _lu_block.SPLIT_ORDER
        try:
            for name in list(variants) + list(variants)[::-1]:
                _use(*variants[name], read_text, default_threads)
                has_compact = "ra_rocsolver_getrf_block_compact" in variants[name][0]
                if compact_only and has_compact:
                    kinds = ("compact",)
                else:
                    kinds = ("split", "compact") if compact and has_compact else ("split",)
                for kind in kinds:
                    _lu_block.COMPACT = kind == "compact"
                    ms = best_ms(cupy, lambda: ra.linalg.solve(a, b))
                    same = numpy.array_equal(cupy.asnumpy(ra.linalg.solve(a, b)), ref)
                    print(f"{dtype} {n}: {name} {kind} {ms:.3f} ms, X bit for bit with the wide kernel's: {same}",
                          flush=True)
        finally:
            _lu_block.COMPACT, _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER = saved
        print(f"{dtype} {n}: cuSOLVER {best_ms(cupy, lambda: cupy.linalg.solve(a, b)):.3f} ms", flush=True)
    _compile.read_text = read_text
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
