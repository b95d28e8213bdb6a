"""``python -m rocarray``: device report, self-checks, vendor-ratio table, warm-up, compile check, hipify.

Commands
--------
(none)          With a GPU: report, one self-check and one headline benchmark row per library.
                Without one: the report, a message saying no device was found and what to
                install, then the offline compile check of one small source per library for the
                targets whose compilers are present.
report          The device and configuration report (works without a GPU).
self-check      One self-check per library on fresh random data (``--all``: every registered one;
                ``--filter``: those matching), one PASS/FAIL line each.
bench           The vendor-ratio table of the headline cases (``--all``, ``--filter``, ``--repeat``,
                ``--json``).
warmup          Compile every kernel (``warmup rocblas prim``: of those libraries) for this device
                into the binary cache, in parallel worker processes (progress per module).
cache           ``cache info`` (default) / ``cache clear``: rocarray's kernel binary cache.
prebuild        ``prebuild --arch sm_90 [--families sum matmul_f16 ...] [--check]``: compile the
                kernels the first calls of common families load into the package's shipped
                binaries (``rocarray/_data/kernels/<arch>/``) with the installed NVRTC (no GPU
                needed); ``--check`` only lists the shipped entries that no longer match the sources.
                ``prebuild --arch gfx90a`` (or ``gfx940``): the offline compile check's objects of
                every source, built with hipcc (``rocarray/_data/offline/<arch>/``); ``--changed``:
                compile only the sources whose shipped object is not current (also with ``--offline``).
tune            Time the candidates of every bench case's problem into the tuning DB (``--filter``);
                ``tune --export FILE [--arch ARCH]`` / ``tune --import FILE`` move a DB.
compile-check   Offline compile of every source (``--filter``: those whose name contains it):
                NVRTC ``sm_90``, hipcc ``gfx90a``/``gfx940``; unchanged compiles are answered from
                the offline cache (``--no-cache``: compile everything again).
hipify          ``hipify FILE [-o OUT] [--check]``: rewrite a CUDA source into rocarray's portable
                form (printed, or written to OUT), the warnings on standard error; ``--check``
                compiles the result offline (``--targets``).

Exit status
-----------
0  success (also the no-GPU default run when every present compiler succeeds)
1  a self-check failed, a benchmark case raised, or a kernel failed to compile
2  bad command line (argparse), or a file ``hipify`` cannot read or write
3  the command needs a GPU and none is usable (``self-check``, ``bench``, ``warmup``); the
   message says what is missing. A CPU-only CI should run ``python -m rocarray`` or
   ``compile-check``, which never need a device.
"""

import argparse
import sys

from rocarray._cli import bench as _bench
from rocarray._cli import checks as _checks
from rocarray._cli import compile_check as _cc
from rocarray._cli import hipify as _hipify
from rocarray._core import backend, report
from rocarray._core.errors import KernelCompileError, NoDeviceError
from rocarray._version import __version__

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_NO_DEVICE = 0, 1, 2, 3

_INSTALL = f"to use a GPU, {backend.INSTALL_HINT}, with a working NVIDIA or ROCm driver"


def _out(line=""):
    print(line, flush=True)


def _err(line=""):
    print(line, file=sys.stderr, flush=True)


def _device_problem():
    """``None`` when a GPU is usable, else the :class:`NoDeviceError` message."""
    try:
        backend.device_info()
    except NoDeviceError as exc:
        return str(exc)
    return None


def _no_device(command, why):
    _out(f"{command}: no GPU device found: {why}")
    if "install" not in why:
        _out(_INSTALL)
    return EXIT_NO_DEVICE


def _targets(args, parser):
    try:
        return _cc.parse_targets(getattr(args, "targets", None))
    except ValueError as exc:
        parser.error(str(exc))


def _print_report():
    for line in report.report_lines():
        _out(line)


# --------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------

#: The self-check of each library that ``python -m rocarray`` and ``self-check`` run (``--all``: every one).
QUICK_CHECKS = ("prim.searchsorted", "rocblas.dot", "rocfft.fft_ifft", "rocsolver.lu_solve", "rocsparse.csrmv_csrmm",
                "distributed.one_rank_identities", "miopen.convolution")
#: The headline benchmark row of each library (``bench --all``: every registered case).
HEADLINE_CASES = ("prim.sum_float32_2^28", "rocblas.gemm_8192_float32", "rocfft.fft_1d_16777216_complex64",
                  "rocsolver.solve_8192_float64", "rocsparse.spmv_uniform_4M_x16",
                  "miopen.conv3x3_n64_c256_56_f16_nhwc")


def _chosen(items, args, quick):
    """The registered checks or cases a command runs: those matching ``--filter``, else every one
    with ``--all``, else the ``quick`` names."""
    if getattr(args, "filter", None) or getattr(args, "all", False):
        return items
    return [item for item in items if item.name in quick]


def cmd_default(args, parser):
    """Everything this machine can check quickly: with a GPU, one self-check and one headline
    benchmark row per library; without one, the offline compile check of one small source per
    library for each compiler present."""
    targets = _targets(args, parser)
    _print_report()
    why = _device_problem()
    if why is not None:
        _out("")
        _out(f"no GPU device found: {why}")
        if "install" not in why:
            _out(_INSTALL)
        _out("self-check and bench need a GPU; compiling one kernel source per library offline instead")
        _out("")
        if getattr(args, "filter", None):
            return _cc.run_compile_check(targets, _out, getattr(args, "jobs", None), getattr(args, "filter", None),
                                         use_cache=_use_cache(args))
        rc = _cc.run_compile_check(targets, _out, getattr(args, "jobs", None), sources=_cc.representative_sources(),
                                   use_cache=_use_cache(args))
        _out("the whole matrix (every source and instantiation): python -m rocarray compile-check")
        return rc
    _out("")
    _, failed = _checks.run_self_checks(_chosen(_checks.registered_checks(getattr(args, "filter", None)), args,
                                                QUICK_CHECKS), _out)
    _out("")
    rc = _bench.run_bench(_chosen(_bench.registered_cases(getattr(args, "filter", None)), args, HEADLINE_CASES), _out,
                          repeat=getattr(args, "repeat", 7), json_path=getattr(args, "json", None))
    if not getattr(args, "all", False):
        _out("every check and case: python -m rocarray self-check --all; python -m rocarray bench --all")
    return EXIT_FAIL if failed or rc else EXIT_OK


def cmd_report(args, parser):
    """Print the device and configuration report."""
    _print_report()
    return EXIT_OK


def cmd_self_check(args, parser):
    """Run the registered self-checks; non-zero if any fails."""
    why = _device_problem()
    if why is not None:
        return _no_device("self-check", why)
    _, failed = _checks.run_self_checks(_chosen(_checks.registered_checks(getattr(args, "filter", None)), args,
                                                QUICK_CHECKS), _out)
    return EXIT_FAIL if failed else EXIT_OK


def cmd_bench(args, parser):
    """Print the vendor-ratio table; non-zero if a case raised."""
    why = _device_problem()
    if why is not None:
        return _no_device("bench", why)
    return _bench.run_bench(_chosen(_bench.registered_cases(getattr(args, "filter", None)), args, HEADLINE_CASES),
                            _out, repeat=getattr(args, "repeat", 7), json_path=getattr(args, "json", None))


def cmd_warmup(args, parser):
    """Compile every kernel (of the named libraries) for the current device into the caches."""
    why = _device_problem()
    if why is not None:
        return _no_device("warmup", why)
    try:
        return _cc.run_warmup(_out, getattr(args, "libraries", None) or None, getattr(args, "jobs", None))
    except ValueError as exc:
        parser.error(str(exc))


def cmd_tune(args, parser):
    """Tune the problems of the bench cases into the tuning DB; or export / import a DB."""
    from rocarray._core import tuning

    if getattr(args, "import_file", None):
        try:
            arch, count = tuning.import_db(args.import_file)
        except ValueError as exc:
            _out(f"tune: {exc}")
            return EXIT_FAIL
        _out(f"tune: imported {count} entr{'y' if count == 1 else 'ies'} into {tuning.db_path(arch)}")
        return EXIT_OK
    if getattr(args, "export_file", None):
        arch = getattr(args, "arch", None)
        if arch is None:
            why = _device_problem()
            if why is not None:
                _out("tune --export: give --arch without a GPU")
                return EXIT_USAGE
        count = tuning.export_db(args.export_file, arch=arch)
        _out(f"tune: exported {count} entr{'y' if count == 1 else 'ies'} of "
             f"{arch or backend.device_info().arch} to {args.export_file}")
        return EXIT_OK
    why = _device_problem()
    if why is not None:
        return _no_device("tune", why)
    return _bench.run_tuning(_bench.registered_cases(getattr(args, "filter", None)), _out)


def cmd_cache(args, parser):
    """Show or clear rocarray's caches (kernel binaries, tuning DB)."""
    from rocarray._core import kernel_cache

    if args.action == "clear":
        removed = kernel_cache.clear()
        _out(f"kernel cache: removed {removed} file(s) under {kernel_cache.root()}")
        return EXIT_OK
    entries = kernel_cache.info()
    _out(f"kernel cache  {kernel_cache.root()}")
    if not entries:
        _out("  empty")
    for arch, (count, nbytes) in entries.items():
        _out(f"  {arch:10s} {count:6d} binaries  {nbytes / 2**20:8.1f} MiB")
    from rocarray._core import prebuilt

    for arch, (count, nbytes) in prebuilt.info().items():
        _out(f"shipped       {prebuilt.folder(arch)} (read only, used when the cache lacks a module)")
        _out(f"  {arch:10s} {count:6d} binaries  {nbytes / 2**20:8.1f} MiB")
    return EXIT_OK


def cmd_prebuild(args, parser):
    """Build (or, with --check, check) the kernel binaries shipped for an architecture."""
    from rocarray._core import offline, prebuild, prebuilt

    offline.import_all_libraries()
    families = args.families or None
    if args.arch.startswith("gfx") or args.offline:
        return _prebuild_offline(args, parser)
    try:
        if args.check:
            lines = prebuild.problems(args.arch, families)
            for line in lines:
                _out(f"  {line}")
            _out(f"prebuilt {args.arch}: " + (f"{len(lines)} problem(s); rebuild with "
                                              f"{prebuilt.COMMAND.format(arch=args.arch)}" if lines else "current"))
            return EXIT_FAIL if lines else EXIT_OK
        _out(f"prebuild {args.arch}: {len(prebuilt.modules(families))} module(s) into {prebuilt.folder(args.arch)}")
        done = prebuild.build(args.arch, families, getattr(args, "jobs", None), _out)
    except ValueError as exc:
        parser.error(str(exc))
    except (RuntimeError, KernelCompileError) as exc:
        _err(f"prebuild: {exc}")
        return EXIT_FAIL
    _out(f"prebuild {args.arch}: {done['modules']} module(s) built in {done['seconds']:.1f} compile s; shipped total "
         f"{done['bytes'] / 2**20:.2f} MiB")
    return EXIT_OK


def _prebuild_offline(args, parser):
    """prebuild for an AMD architecture: the offline compile check's shipped objects."""
    from rocarray._core import offline_shipped, prebuild

    try:
        if args.check:
            lines = prebuild.offline_problems(args.arch)
            for line in lines:
                _out(f"  {line}")
            flag = "--offline " if args.arch.startswith("sm_") else ""
            _out(f"offline objects {args.arch}: " + (f"{len(lines)} not current; rebuild with python -m rocarray "
                                                     f"prebuild {flag}--arch {args.arch}" if lines else "current"))
            return EXIT_FAIL if lines else EXIT_OK
        _out(f"prebuild {args.arch}: the offline check's objects into {offline_shipped.folder(args.arch)}")
        done = prebuild.build_offline(args.arch, getattr(args, "jobs", None), _out,
                                      changed_only=getattr(args, "changed", False))
    except ValueError as exc:
        parser.error(str(exc))
    except (RuntimeError, KernelCompileError) as exc:
        _err(f"prebuild: {exc}")
        return EXIT_FAIL
    _out(f"prebuild {args.arch}: {done['modules']} object(s) in {done['seconds']:.1f} compile s; shipped "
         f"{done['bytes'] / 2**20:.2f} MiB (xz)")
    return EXIT_OK


def cmd_compile_check(args, parser):
    """Offline compile of every source for the targets whose compilers are present."""
    return _cc.run_compile_check(_targets(args, parser), _out, getattr(args, "jobs", None),
                                 getattr(args, "filter", None), use_cache=_use_cache(args))


def _use_cache(args):
    """False with ``--no-cache``, else None (the environment's setting)."""
    return False if getattr(args, "no_cache", False) else None


def cmd_hipify(args, parser):
    """Rewrite a CUDA source into rocarray's portable form; with --check, compile it offline."""
    targets = _targets(args, parser) if getattr(args, "targets", None) else None
    return _hipify.run_hipify(args.file, _out, _err, output=args.output, check=args.check, targets=targets)


# --------------------------------------------------------------------------------------------
# parser
# --------------------------------------------------------------------------------------------

def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser():
    """The ``argparse`` parser of ``python -m rocarray``.

    Options are declared with ``default=SUPPRESS`` so they may be given before or after the
    command (``python -m rocarray --filter dot`` filters the default run); commands read them
    with ``getattr(args, name, default)``.
    """
    S = argparse.SUPPRESS
    compile_opts = argparse.ArgumentParser(add_help=False)
    compile_opts.add_argument("--targets", default=S, metavar="LIST",
                              help="offline targets, comma-separated: sm_90,gfx90a,gfx940 or all (default)")
    compile_opts.add_argument("--jobs", type=_positive_int, default=S, metavar="N",
                              help="parallel offline compiles (default: cores + 1)")
    compile_opts.add_argument("--no-cache", dest="no_cache", action="store_true", default=S,
                              help="compile everything again instead of answering unchanged compiles from "
                                   "the offline cache (also ROCARRAY_OFFLINE_CACHE=0)")
    filter_opts = argparse.ArgumentParser(add_help=False)
    filter_opts.add_argument("--filter", default=S, metavar="SUBSTR",
                             help="only checks/cases (for the compile check: kernel sources) "
                                  "whose name contains SUBSTR")
    bench_opts = argparse.ArgumentParser(add_help=False)
    bench_opts.add_argument("--repeat", type=_positive_int, default=S, metavar="N",
                            help="timed samples per function, median reported (default 7)")
    bench_opts.add_argument("--json", default=S, metavar="PATH", help="write the bench numbers to PATH")
    all_opts = argparse.ArgumentParser(add_help=False)
    all_opts.add_argument("--all", action="store_true", default=S,
                          help="every registered self-check / benchmark case (default: one per library)")

    parser = argparse.ArgumentParser(
        prog="python -m rocarray",
        description="rocarray device report, self-checks, vendor-ratio benchmarks and compile checks. "
                    "Without a command: everything this machine can run (with a GPU: report, "
                    "self-check, bench; without: report and the offline compile check).",
        epilog="exit status: 0 ok; 1 a check, case or compile failed; 2 bad usage; "
               "3 the command needs a GPU and none is usable",
        parents=[compile_opts, filter_opts, bench_opts, all_opts],
    )
    parser.add_argument("--version", action="version", version=f"rocarray {__version__}")
    parser.set_defaults(func=cmd_default)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("report", help="device and configuration report").set_defaults(func=cmd_report)
    sub.add_parser("self-check", parents=[filter_opts, all_opts],
                   help="run every registered self-check (needs a GPU)").set_defaults(func=cmd_self_check)
    sub.add_parser("bench", parents=[filter_opts, bench_opts, all_opts],
                   help="rocarray vs vendor ratio table (needs a GPU)").set_defaults(func=cmd_bench)
    warm = sub.add_parser("warmup", help="compile every kernel (of the named libraries) for this device into the "
                                         "binary cache (needs a GPU)")
    warm.add_argument("libraries", nargs="*", metavar="LIBRARY", help="e.g. rocblas prim rocfft (default: all)")
    warm.add_argument("--jobs", type=_positive_int, default=S, metavar="N",
                      help="parallel compiler processes (default: the CPU count)")
    warm.set_defaults(func=cmd_warmup)
    tune = sub.add_parser("tune", parents=[filter_opts],
                          help="time the candidates of the bench cases' problems into the tuning DB (needs a "
                               "GPU); --export/--import move a DB between machines")
    tune.add_argument("--export", dest="export_file", metavar="FILE", help="write the tuning DB to FILE")
    tune.add_argument("--import", dest="import_file", metavar="FILE", help="merge FILE into the tuning DB")
    tune.add_argument("--arch", metavar="ARCH", help="the DB to export without a GPU (e.g. sm_90)")
    tune.set_defaults(func=cmd_tune)
    cache = sub.add_parser("cache", help="show or clear rocarray's kernel binary cache")
    cache.add_argument("action", choices=["info", "clear"], nargs="?", default="info")
    cache.set_defaults(func=cmd_cache)
    pre = sub.add_parser("prebuild", help="compile the kernels of common first calls into the package's shipped "
                                          "binaries (no GPU needed)")
    pre.add_argument("--arch", default="sm_90", help="the architecture (default sm_90; gfx90a or gfx940: the "
                                                     "offline compile check's objects, built with hipcc)")
    pre.add_argument("--offline", action="store_true", help="with --arch sm_90: the offline compile check's "
                                                            "CUBINs (NVRTC's fast mode) instead of the runtime binaries")
    pre.add_argument("--families", nargs="*", metavar="FAMILY", help="only these families (default: all)")
    pre.add_argument("--changed", action="store_true",
                     help="offline objects (--offline, or an AMD --arch): compile only the sources whose shipped "
                          "object is not current, keep the others")
    pre.add_argument("--check", action="store_true", help="list shipped entries that no longer match the sources")
    pre.add_argument("--jobs", type=_positive_int, default=S, metavar="N",
                     help="parallel compiler processes (default: the CPU count)")
    pre.set_defaults(func=cmd_prebuild)
    sub.add_parser("compile-check", parents=[compile_opts, filter_opts],
                   help="offline compile for sm_90 / gfx90a / gfx940 (no GPU needed)"
                   ).set_defaults(func=cmd_compile_check)
    hip = sub.add_parser("hipify", help="rewrite a CUDA source into rocarray's portable form (no GPU needed)")
    hip.add_argument("file", metavar="FILE", help="the CUDA source ('-': standard input)")
    hip.add_argument("-o", "--output", metavar="OUT", help="write the rewritten source to OUT (default: print it)")
    hip.add_argument("--check", action="store_true",
                     help="compile the result offline for sm_90 / gfx90a / gfx940 and print the table")
    hip.add_argument("--targets", default=S, metavar="LIST",
                     help="the targets of --check, comma-separated (default: all)")
    hip.set_defaults(func=cmd_hipify)
    return parser


def main(argv=None):
    """Run ``python -m rocarray`` with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (see the module docstring).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args, parser)
    except NoDeviceError as exc:  # a device vanished mid-run, or a check needed one unexpectedly
        _out(f"no GPU device: {exc}")
        return EXIT_NO_DEVICE
    except KeyboardInterrupt:
        _out("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
