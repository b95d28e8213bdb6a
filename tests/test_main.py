"""``python -m rocarray``: commands, output format, exit codes (CPU), plus a few GPU-only runs.

The subprocess tests hide every device (``CUDA_VISIBLE_DEVICES=-1``, ``HIP_VISIBLE_DEVICES=-1``), so
they exercise the no-GPU paths on the GPU machine too. The default-run test compiles only the
``sm_90`` target (NVRTC is the fastest); the full offline matrix is tests/core's job.
"""

import dataclasses
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import rocarray as ra
from rocarray._cli import bench as cli_bench
from rocarray._cli import checks as cli_checks
from rocarray._cli import compile_check as cli_cc
from rocarray._cli import main as cli_main
from rocarray._core import backend, harness, offline
from rocarray._core.errors import KernelCompileError, NoDeviceError
from rocarray._version import __version__

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ["report", "self-check", "bench", "warmup", "compile-check", "cache", "tune", "hipify", "prebuild"]


def run_cli(*args, hide_gpu=True, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    if hide_gpu:
        env["CUDA_VISIBLE_DEVICES"] = "-1"
        env["HIP_VISIBLE_DEVICES"] = "-1"
    proc = subprocess.run([sys.executable, "-m", "rocarray", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def lines_of(capsys):
    return capsys.readouterr().out.splitlines()


def summary_of(lines):
    """The compile check's summary: its output without the start line and the progress lines."""
    return [line for line in lines if not line.startswith("  [") and not line.endswith(" ...")]


# --------------------------------------------------------------------------------------------
# subprocess: the real entry point, no GPU
# --------------------------------------------------------------------------------------------

def test_default_run_without_gpu_says_so_and_runs_the_compile_check():
    # One small source keeps this a test of the entry point; every source is tests/core's job.
    rc, out = run_cli("--targets", "sm_90", "--filter", "prim/search.hip")
    assert rc == 0, out
    assert f"rocarray      {__version__}" in out
    assert "no GPU device found" in out
    assert "install" in out
    assert "offline compile check: 1 source(s)" in out
    assert ("prim/search.hip" in out and "sm_90" in out) or "skipped sm_90" in out
    assert "rocblas/gemm.hip" not in out


def test_report_command_works_without_gpu():
    rc, out = run_cli("report")
    assert rc == 0, out
    assert "rocarray" in out and "cache dir" in out and "device" in out


@pytest.mark.parametrize("command", ["self-check", "bench", "warmup"])
def test_gpu_commands_without_gpu_exit_3_with_the_reason(command):
    rc, out = run_cli(command)
    assert rc == cli_main.EXIT_NO_DEVICE, out
    assert f"{command}: no GPU device found" in out
    assert "Traceback" not in out


def test_version_flag():
    rc, out = run_cli("--version")
    assert rc == 0 and out.strip() == f"rocarray {__version__}"


# --------------------------------------------------------------------------------------------
# argparse
# --------------------------------------------------------------------------------------------

def test_parser_has_every_command():
    parser = cli_main.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)
    assert "COMMAND" in parser.format_help()


def test_options_go_before_or_after_the_command():
    parser = cli_main.build_parser()
    a = parser.parse_args(["bench", "--filter", "dot", "--repeat", "3", "--json", "x.json"])
    b = parser.parse_args(["--filter", "dot", "--repeat", "3", "--json", "x.json", "bench"])
    for args in (a, b):
        assert (args.filter, args.repeat, args.json, args.func) == ("dot", 3, "x.json", cli_main.cmd_bench)
    assert parser.parse_args([]).func is cli_main.cmd_default
    assert not hasattr(parser.parse_args(["bench"]), "repeat")  # default filled in by the command


@pytest.mark.parametrize("argv", [["compile-check", "--targets", "sm_9"], ["bench", "--repeat", "0"],
                                  ["nope"]])
def test_bad_usage_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        cli_main.main(argv)
    assert info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_parse_targets():
    assert cli_cc.parse_targets(None) == list(offline.OFFLINE_TARGETS)
    assert cli_cc.parse_targets("all") == list(offline.OFFLINE_TARGETS)
    assert [t.arch for t in cli_cc.parse_targets("gfx940, sm_90,gfx940")] == ["gfx940", "sm_90"]
    with pytest.raises(ValueError, match="unknown target"):
        cli_cc.parse_targets("gfx942")


# --------------------------------------------------------------------------------------------
# compile-check output (compile_all faked: fast, deterministic)
# --------------------------------------------------------------------------------------------

def fake_compile_all(fail=False, skip_hip=False, seen=None):
    """A fast ``offline.compile_all``; ``seen``, a dict, records the targets and sources asked for."""
    def compile_all(targets, sources=None, workers=None, progress=None, use_cache=None):
        if seen is not None:
            seen.update(targets=targets, sources=sources, use_cache=use_cache)
        skipped = [(t, "hipcc not found") for t in targets if t.is_hip and skip_hip]
        used = [t for t in targets if not (t.is_hip and skip_hip)]
        results, failures = [], []
        for t in used:
            for s in sources:
                if fail and s == "demo/b.hip" and t.is_hip:
                    failures.append((s, t, KernelCompileError("ra_demo_b", t.arch, "error: bad thing\nline 2")))
                else:
                    results.append(offline.CompileResult(s, t, (), seconds=0.25))
                if progress is not None:
                    progress(s, t, 0.25, failures == [] or failures[-1][:2] != (s, t))
        return results, failures, skipped

    return compile_all


@pytest.fixture
def two_sources(monkeypatch):
    monkeypatch.setattr(cli_cc._compile, "source_files", lambda: ["demo/a.hip", "demo/b.hip"])


def test_compile_check_table(monkeypatch, capsys, two_sources):
    monkeypatch.setattr(offline, "compile_all", fake_compile_all())
    assert cli_main.main(["compile-check"]) == 0
    lines = lines_of(capsys)
    progress = [line for line in lines if line.startswith("  [")]
    assert len(progress) == 6 and progress[-1].startswith("  [6/6] ")     # one line per source and target
    out = summary_of(lines)
    assert out[0].startswith("offline compile check: 2 source(s) x 3 target(s)")
    assert out[1].split() == ["source", "templates", "sm_90", "gfx90a", "gfx940"]
    assert out[2].split() == ["demo/a.hip", "0", "ok", "0.2s", "ok", "0.2s", "ok", "0.2s"]
    assert out[-1] == "compile check: all compiled for sm_90, gfx90a, gfx940"


def test_compile_check_failure_is_exit_1_with_the_log(monkeypatch, capsys, two_sources):
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(fail=True))
    assert cli_main.main(["compile-check"]) == 1
    out = "\n".join(lines_of(capsys))
    assert "FAIL demo/b.hip for gfx90a:" in out and "error: bad thing" in out
    assert out.endswith("compile check: 2 failure(s)")


def test_compile_check_says_which_targets_are_skipped(monkeypatch, capsys, two_sources):
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(skip_hip=True))
    assert cli_main.main(["compile-check"]) == 0
    out = summary_of(lines_of(capsys))
    assert out[1].split() == ["source", "templates", "sm_90"]
    assert "  skipped gfx90a: hipcc not found" in out and "  skipped gfx940: hipcc not found" in out
    assert out[-1] == "compile check: all compiled for sm_90; not checked: gfx90a, gfx940 (no compiler, see above)"


def test_compile_check_with_no_sources(monkeypatch, capsys):
    monkeypatch.setattr(cli_cc._compile, "source_files", lambda: [])
    monkeypatch.setattr(offline, "compile_all",
                        lambda targets, sources=None, workers=None, progress=None, use_cache=None: ([], [], []))
    assert cli_main.main(["compile-check"]) == 0
    assert any("nothing to compile" in line for line in lines_of(capsys))


def test_compile_check_filter_compiles_only_the_matching_sources(monkeypatch, capsys, two_sources):
    seen = {}
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(seen=seen))
    assert cli_main.main(["compile-check", "--filter", "b.hip"]) == 0
    out = summary_of(lines_of(capsys))
    assert seen["sources"] == ["demo/b.hip"]
    assert out[0].startswith("offline compile check: 1 source(s) x 3 target(s)")
    assert not any(line.strip().startswith("demo/a.hip") for line in out)


def test_compile_check_no_cache_reaches_the_compiles_and_cached_cells_say_so(monkeypatch, capsys, two_sources):
    seen = {}
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(seen=seen))
    assert cli_main.main(["compile-check", "--no-cache"]) == 0
    assert seen["use_cache"] is False
    cli_main.main(["compile-check"])
    assert seen["use_cache"] is None  # the environment's setting (ROCARRAY_OFFLINE_CACHE)

    def from_cache(*args, **kwargs):
        results, failures, skipped = fake_compile_all()(*args, **kwargs)
        results[0].cached = True
        return results, failures, skipped
    monkeypatch.setattr(offline, "compile_all", from_cache)
    capsys.readouterr()
    assert cli_main.main(["compile-check", "--targets", "sm_90"]) == 0
    out = summary_of(lines_of(capsys))
    assert "(1 unchanged compile(s) from the offline cache; --no-cache compiles them again)" in out[0]
    assert any(line.split()[0] == "demo/a.hip" and line.split()[-1] == "cached" for line in out if line.strip())


def test_compile_check_filter_that_matches_nothing_fails(monkeypatch, capsys, two_sources):
    monkeypatch.setattr(offline, "compile_all", fake_compile_all())
    assert cli_main.main(["--filter", "nope.hip", "compile-check"]) == 1
    assert lines_of(capsys) == ["offline compile check: no kernel source matches 'nope.hip'"]


def test_default_run_without_gpu_compiles_all_targets_by_default(monkeypatch, capsys, two_sources):
    seen = {}
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(seen=seen))
    monkeypatch.setattr(cli_cc, "representative_sources", lambda: ["demo/a.hip"])
    monkeypatch.setattr(cli_main, "_device_problem", lambda: "no GPU is visible")
    assert cli_main.main([]) == 0
    assert seen["targets"] == offline.OFFLINE_TARGETS
    out = "\n".join(lines_of(capsys))
    assert "no GPU device found: no GPU is visible" in out and "pip install cupy-cuda13x" in out


# --------------------------------------------------------------------------------------------
# hipify
# --------------------------------------------------------------------------------------------

CUDA = ("#include <cuda_runtime.h>\n"
        "extern \"C\" __global__ void k(float* x) {\n"
        "    x[threadIdx.x] += __shfl_down_sync(0xffffffff, x[threadIdx.x], 1) + warpSize;\n"
        "}\n")


@pytest.fixture
def cuda_file(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(CUDA, encoding="utf-8")
    return path


def test_hipify_prints_the_source_and_the_warnings_apart(cuda_file, capsys):
    assert cli_main.main(["hipify", str(cuda_file)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "// hipify: removed #include <cuda_runtime.h>", 'extern "C" __global__ void k(float* x) {',
        "    x[threadIdx.x] += ra_shfl_down(x[threadIdx.x], 1) + RA_WARP_SIZE;", "}"]
    err = captured.err.splitlines()
    assert err[0].startswith(f"{cuda_file}:1: warning: #include <cuda_runtime.h> removed") and err[0].endswith(
        "[include]")
    assert err[-1] == "hipify: 1 warning(s)"


def test_hipify_writes_the_output_file(cuda_file, tmp_path, capsys):
    out = tmp_path / "k.hip"
    assert cli_main.main(["hipify", str(cuda_file), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines()[-1] == f"hipify: 1 warning(s); wrote {out}"
    assert out.read_text(encoding="utf-8") == ra.hipify(CUDA)[0]


def test_hipify_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("__syncwarp();\n"))
    assert cli_main.main(["hipify", "-"]) == 0
    assert capsys.readouterr().out == "ra_warp_sync();\n"


def test_hipify_a_file_it_cannot_read_exits_2(tmp_path, capsys):
    assert cli_main.main(["hipify", str(tmp_path / "missing.cu")]) == 2
    assert "hipify: cannot read" in capsys.readouterr().err


def test_hipify_check_compiles_the_result(cuda_file, capsys):
    if offline.missing_compiler(offline.OFFLINE_TARGETS[0]):
        pytest.skip("sm_90: compiler absent")
    assert cli_main.main(["hipify", str(cuda_file), "--check", "--targets", "sm_90"]) == 0
    err = capsys.readouterr().err
    assert "compile check of k.cu: ok: sm_90" in err
    cuda_file.write_text("int broken(\n", encoding="utf-8")
    assert cli_main.main(["hipify", str(cuda_file), "--check", "--targets", "sm_90"]) == 1
    assert "sm_90 error:" in capsys.readouterr().err


def test_hipify_through_the_real_entry_point(cuda_file):
    rc, out = run_cli("hipify", str(cuda_file))
    assert rc == 0, out
    assert "ra_shfl_down(x[threadIdx.x], 1)" in out and f"{cuda_file}:1: warning:" in out


# --------------------------------------------------------------------------------------------
# self-check (checks faked; no device needed)
# --------------------------------------------------------------------------------------------

def _ok(rng):
    rng.standard_normal(3)


def _bad(rng):
    raise AssertionError("dot: 1.0 != 2.0")


def test_self_check_lines_and_counts(monkeypatch, capsys):
    monkeypatch.setattr(cli_checks, "_sync", lambda: None)
    checks = [harness.SelfCheck("demo.ok", "demo", _ok), harness.SelfCheck("demo.bad", "demo", _bad)]
    assert cli_checks.run_self_checks(checks, print) == (1, 1)
    out = lines_of(capsys)
    assert out[0].startswith("PASS  demo.ok")
    assert out[1].startswith("FAIL  demo.bad") and "(seed " in out[1]
    assert out[2].strip() == "AssertionError: dot: 1.0 != 2.0"
    assert out[-1] == "self-check: 1 passed, 1 failed"


def test_a_check_whose_reference_is_missing_is_skipped_not_failed(monkeypatch, capsys):
    monkeypatch.setattr(cli_checks, "_sync", lambda: None)

    def needs_missing_reference(rng):
        harness.require("rocarray_no_such_reference_module")

    checks = [harness.SelfCheck("demo.ok", "demo", _ok), harness.SelfCheck("demo.ref", "demo", needs_missing_reference)]
    assert cli_checks.run_self_checks(checks, print) == (1, 0)
    out = lines_of(capsys)
    assert out[1].startswith("SKIP  demo.ref") and "rocarray_no_such_reference_module is not installed" in out[1]
    assert out[-1] == "self-check: 1 passed, 0 failed, 1 skipped"
    assert harness.require("math").sqrt(4.0) == 2.0


def test_self_check_with_no_registered_checks(capsys):
    assert cli_checks.run_self_checks([], print) == (0, 0)
    assert "no self-checks registered" in capsys.readouterr().out


def test_self_check_each_check_gets_a_fresh_generator(monkeypatch, capsys):
    monkeypatch.setattr(cli_checks, "_sync", lambda: None)
    draws = []
    check = harness.SelfCheck("demo.draw", "demo", lambda rng: draws.append(rng.integers(2**62)))
    cli_checks.run_self_checks([check, check], print)
    assert len(draws) == 2 and draws[0] != draws[1]


def test_self_check_command_exit_status(monkeypatch, capsys):
    monkeypatch.setattr(cli_main, "_device_problem", lambda: None)
    monkeypatch.setattr(cli_checks, "_sync", lambda: None)
    bad = [harness.SelfCheck("demo.bad", "demo", _bad)]
    monkeypatch.setattr(cli_checks, "registered_checks", lambda name_filter=None: bad)
    assert cli_main.main(["self-check", "--all"]) == 1
    assert cli_main.main(["self-check"]) == 0                  # the quick set has no demo check
    monkeypatch.setattr(cli_checks, "registered_checks", lambda name_filter=None: [])
    assert cli_main.main(["self-check", "--all"]) == 0


def test_default_run_with_gpu_runs_checks_then_bench(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(cli_main, "_device_problem", lambda: None)
    monkeypatch.setattr(cli_checks, "_sync", lambda: None)
    monkeypatch.setattr(cli_checks, "registered_checks",
                        lambda name_filter=None: [harness.SelfCheck("demo.bad", "demo", _bad)])
    monkeypatch.setattr(cli_bench, "registered_cases", lambda name_filter=None: calls.append(name_filter) or [])
    monkeypatch.setattr(cli_bench, "run_bench", lambda cases, out, repeat, json_path: calls.append(repeat) or 0)
    assert cli_main.main(["--filter", "dot", "--repeat", "4"]) == 1  # the failing check
    assert calls == ["dot", 4]
    out = capsys.readouterr().out
    assert out.index("rocarray ") < out.index("FAIL  demo.bad")


# --------------------------------------------------------------------------------------------
# bench (CuPy and the device faked)
# --------------------------------------------------------------------------------------------

class _FakeEvent:
    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass


class _FakeArray:
    def __init__(self, n):
        self.nbytes = 8 * n
        self.data = SimpleNamespace(copy_from_device_async=lambda src, size, stream=None: None)


FAKE_CUPY = SimpleNamespace(
    cuda=SimpleNamespace(
        Event=_FakeEvent,
        get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3 + 1e-3,
        Device=lambda *a: SimpleNamespace(synchronize=lambda: None),
        runtime=SimpleNamespace(memGetInfo=lambda: (8 << 30, 16 << 30)),
    ),
    random=SimpleNamespace(random=_FakeArray),
    empty_like=lambda a: _FakeArray(a.nbytes // 8),
    get_default_memory_pool=lambda: SimpleNamespace(free_all_blocks=lambda: None),
)
FAKE_INFO = backend.DeviceInfo(id=0, name="Fake GPU", is_hip=False, arch="sm_90", warp_size=32,
                               multiprocessors=132, shared_mem_per_block=49152, l2_bytes=50 << 20,
                               total_memory=141 << 30, compute_capability="9.0")


@pytest.fixture
def fake_device(monkeypatch):
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: FAKE_INFO)
    monkeypatch.setattr(backend, "cupy", lambda: FAKE_CUPY)
    monkeypatch.setattr(cli_bench, "copy_bandwidth", lambda cupy: (4.0e12, 1 << 30))
    monkeypatch.setattr(cli_bench, "time_pair", lambda cupy, r, v, args, repeat: (1e-3, 2e-3))


def _case(name, **kw):
    return harness.BenchCase(name=name, library="demo", setup=lambda: (1, 2),
                             rocarray=lambda a, b: None, vendor=lambda a, b: None, **kw)


def test_bench_table_and_json(fake_device, tmp_path, capsys):
    cases = [_case("demo.copy", bytes_moved=2 * 10**9),
             _case("demo.gemm", flops=10**12, memory_bound=False),
             _case("demo.plain")]
    path = tmp_path / "sub" / "bench.json"
    assert cli_bench.run_bench(cases, print, repeat=3, json_path=str(path)) == 0
    out = lines_of(capsys)
    assert out[0].startswith("bench on Fake GPU (sm_90): copy bandwidth 4000 GB/s")
    assert out[2].split() == ["case", "rocarray", "vendor", "speedup", "GB/s", "%copy", "TFLOP/s"]
    assert out[3].split() == ["demo.copy", "1", "ms", "2", "ms", "2.00x", "2000", "50%", "-"]
    assert out[4].split() == ["demo.gemm", "1", "ms", "2", "ms", "2.00x", "-", "-", "1000.0"]
    assert out[5].split() == ["demo.plain", "1", "ms", "2", "ms", "2.00x", "-", "-", "-"]
    data = json.loads(path.read_text())
    assert data["copy_gbs"] == 4000.0 and data["repeat"] == 3 and data["device"]["arch"] == "sm_90"
    row = data["cases"][0]
    assert (row["name"], row["rocarray_s"], row["vendor_s"], row["speedup"]) == ("demo.copy", 1e-3, 2e-3, 2.0)
    assert row["gbs"] == pytest.approx(2000.0) and row["copy_fraction"] == pytest.approx(0.5)


def test_bench_case_error_is_reported_and_exit_1(fake_device, capsys):
    def broken():
        raise RuntimeError("out of memory")

    bad = harness.BenchCase("demo.broken", "demo", broken, print, print)
    assert cli_bench.run_bench([_case("demo.ok"), bad], print, repeat=3) == 1
    out = lines_of(capsys)
    assert any(line.split()[:2] == ["demo.broken", "ERROR"] for line in out)
    assert "    RuntimeError: out of memory" in out


def test_a_bench_case_whose_vendor_is_missing_is_skipped_and_exit_0(fake_device, capsys):
    def needs_torch():
        harness.require("rocarray_no_such_vendor_module")

    skipped = harness.BenchCase("demo.vendorless", "demo", needs_torch, print, print)
    assert cli_bench.run_bench([_case("demo.ok"), skipped], print, repeat=3) == 0
    out = lines_of(capsys)
    assert any(line.split()[:2] == ["demo.vendorless", "SKIP"] for line in out)
    assert any(line.startswith("SKIP  demo.vendorless: rocarray_no_such_vendor_module is not installed") for line in out)


def test_bench_with_no_cases(fake_device, capsys):
    assert cli_bench.run_bench([], print) == 0
    assert "no benchmark cases registered" in capsys.readouterr().out


def test_time_pair_and_copy_bandwidth_mechanics():
    calls = {"r": 0, "v": 0}
    t_r, t_v = cli_bench.time_pair(FAKE_CUPY, lambda: calls.__setitem__("r", calls["r"] + 1),
                                   lambda: calls.__setitem__("v", calls["v"] + 1), (), repeat=3)
    assert t_r > 0 and t_v > 0
    assert calls["r"] > 3 + 3 and calls["v"] > 3 + 3  # warm-up, calibration, then 3 samples
    rate, nbytes = cli_bench.copy_bandwidth(FAKE_CUPY)
    assert nbytes == 1 << 30 and rate > 0


def test_a_timed_sample_starts_behind_one_untimed_call():
    log = []

    class Event:
        def record(self, stream=None):
            log.append("event")

        def synchronize(self):
            pass

    cupy = SimpleNamespace(cuda=SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: 1.0))
    per_call = cli_bench._timed(cupy, lambda: log.append("call"), (), 4)
    assert log == ["call", "event"] + ["call"] * 4 + ["event"]
    assert per_call == 1e-3 / 4


# --------------------------------------------------------------------------------------------
# asv: the classes generated from the registered bench cases (asv_bench/benchmarks/bench_cases.py)
# --------------------------------------------------------------------------------------------

ASV_PACKAGE = "_ra_asv_benchmarks"


@pytest.fixture
def asv_cases():
    """``asv_bench/benchmarks/bench_cases.py`` imported fresh (as asv imports it: a package with
    ``_base.py`` beside it), removed from ``sys.modules`` afterwards."""
    folder = ROOT / "asv_bench" / "benchmarks"
    spec = importlib.util.spec_from_file_location(ASV_PACKAGE, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[ASV_PACKAGE] = package
    try:
        spec.loader.exec_module(package)
        yield importlib.import_module(f"{ASV_PACKAGE}.bench_cases")
    finally:
        for name in [n for n in sys.modules if n == ASV_PACKAGE or n.startswith(ASV_PACKAGE + ".")]:
            del sys.modules[name]


def _asv_classes(module):
    return {name: cls for name, cls in vars(module).items()
            if isinstance(cls, type) and not name.startswith("_") and hasattr(cls, "time_rocarray")}


def test_the_asv_classes_list_exactly_the_registered_cases(asv_cases):
    harness.load_all()
    by_library = {}
    for case in harness.bench_cases():
        by_library.setdefault(case.library, []).append(case.name)
    classes = _asv_classes(asv_cases)
    assert sorted(classes) == sorted(library.capitalize() for library in by_library)
    assert {"Prim", "Rocblas", "Rocfft"} <= set(classes)
    for library, names in by_library.items():
        cls = classes[library.capitalize()]
        assert cls.library == library and cls.param_names == ["case"]
        assert cls.params == [names]  # one parameter: the case names, in the registry's order
        assert callable(cls.time_rocarray) and callable(cls.time_vendor) and cls.timeout > 0
    assert all(name in classes[name.split(".")[0].capitalize()].params[0] for name in cli_main.HEADLINE_CASES)


def test_without_a_gpu_every_asv_setup_skips_naming_the_reason(asv_cases, monkeypatch):
    def no_device(device_id=None):
        raise NoDeviceError("CuPy is installed but no GPU is visible (check CUDA/HIP_VISIBLE_DEVICES)")

    base = sys.modules[f"{ASV_PACKAGE}._base"]
    monkeypatch.setattr(backend, "device_info", no_device)
    monkeypatch.setattr(base, "_problem", [])
    for cls in _asv_classes(asv_cases).values():
        for name in (cls.params[0][0], cls.params[0][-1]):
            with pytest.raises(NotImplementedError) as info:
                cls().setup(name)
            assert str(info.value).startswith("no GPU: CuPy with a visible CUDA/ROCm device is needed")
            assert "no GPU is visible" in str(info.value)


def test_asv_discovery_and_skips_without_cupy():
    code = ("import sys; sys.modules['cupy'] = None; sys.path.insert(0, 'asv_bench')\n"
            "from benchmarks import bench_cases\n"
            "try:\n"
            "    bench_cases.Prim().setup(bench_cases.Prim.params[0][0])\n"
            "except NotImplementedError as exc:\n"
            "    print(len(bench_cases.Prim.params[0]), exc)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    count, reason = proc.stdout.split(" ", 1)
    assert int(count) > 0
    assert reason.startswith("no GPU: CuPy with a visible CUDA/ROCm device is needed")
    assert "CuPy is not installed" in reason


def test_an_asv_case_runs_fresh_setup_both_functions_then_times_with_a_sync(asv_cases, monkeypatch):
    base = sys.modules[f"{ASV_PACKAGE}._base"]
    log = []
    monkeypatch.setattr(base, "_problem", [None])
    monkeypatch.setattr(base, "sync", lambda: log.append("sync"))
    pool = SimpleNamespace(free_all_blocks=lambda: log.append("free"))
    monkeypatch.setattr(backend, "cupy", lambda: SimpleNamespace(get_default_memory_pool=lambda: pool))
    case = harness.BenchCase("demo.case", "demo", setup=lambda: log.append("setup") or (1, 2),
                             rocarray=lambda a, b: log.append(("rocarray", a, b)),
                             vendor=lambda a, b: log.append(("vendor", a, b)))
    monkeypatch.setitem(asv_cases._CASES, "demo.case", case)
    (Demo,) = asv_cases._generate([case]).values()
    assert Demo.__name__ == "Demo" and Demo.params == [["demo.case"]]
    bench = Demo()
    bench.setup("demo.case")
    assert log == ["setup", ("rocarray", 1, 2), ("vendor", 1, 2), "sync"]
    del log[:]
    bench.time_rocarray("demo.case")
    bench.time_vendor("demo.case")
    bench.teardown("demo.case")
    assert log == [("rocarray", 1, 2), "sync", ("vendor", 1, 2), "sync", "free"]


def test_asv_discovers_two_benchmarks_per_library(monkeypatch):
    discovery = pytest.importorskip("asv_runner.discovery", reason="asv is not installed (pip install -e \".[bench]\")")
    monkeypatch.syspath_prepend(str(ROOT / "asv_bench"))
    try:
        found = sorted(b.name for b in discovery.disc_benchmarks(str(ROOT / "asv_bench" / "benchmarks")))
    finally:
        for name in [n for n in sys.modules if n == "benchmarks" or n.startswith("benchmarks.")]:
            del sys.modules[name]
    harness.load_all()
    libraries = sorted({c.library.capitalize() for c in harness.bench_cases()})
    assert found == sorted(f"bench_cases.{cls}.{fn}" for cls in libraries for fn in ("time_rocarray", "time_vendor"))


# --------------------------------------------------------------------------------------------
# GPU: the real thing (run by scripts/gpu-check)
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_bench_json_on_gpu(tmp_path):
    path = tmp_path / "bench.json"
    rc, out = run_cli("bench", "--filter", "no-such-case", "--repeat", "3", "--json", str(path),
                      hide_gpu=False)
    assert rc == 0, out
    data = json.loads(path.read_text())
    assert data["cases"] == [] and data["copy_gbs"] > 50


@pytest.mark.gpu
def test_bench_timing_of_a_real_pair():
    import cupy

    x = cupy.random.standard_normal(1 << 22, dtype=cupy.float32)
    ratios = []
    for _ in range(3):  # other test processes may share the GPU: one quiet pair is enough
        t_a, t_b = cli_bench.time_pair(cupy, cupy.dot, cupy.dot, (x, x), repeat=5)
        assert 0 < t_a < 1e-2 and 0 < t_b < 1e-2
        ratios.append(t_a / t_b)
        if 0.5 < ratios[-1] < 2.0:  # the same function timed twice
            break
    assert 0.5 < ratios[-1] < 2.0, ratios


@pytest.mark.gpu
def test_warmup_and_self_check_on_gpu():
    rc, out = run_cli("warmup", hide_gpu=False)
    assert rc == 0, out
    assert "warmup:" in out
    rc, out = run_cli("self-check", hide_gpu=False)
    assert "self-check:" in out
    assert rc in (0, 1), out  # 1 means a library check failed: that library's bug, shown in its tests


@pytest.mark.gpu
def test_dataclass_device_info_is_json_serializable():
    json.dumps(dataclasses.asdict(backend.device_info()))


# --------------------------------------------------------------------------------------------
# warmup and the kernel cache
# --------------------------------------------------------------------------------------------

def test_cache_info_and_clear(monkeypatch, tmp_path, capsys):
    from rocarray._core import kernel_cache

    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    assert cli_main.main(["cache"]) == 0 and "empty" in capsys.readouterr().out
    kernel_cache.store("sm_90", kernel_cache.key("x"), b"binary", {})
    assert cli_main.main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "sm_90" in out and "1 binaries" in out
    assert cli_main.main(["cache", "clear"]) == 0 and "removed 2 file(s)" in capsys.readouterr().out
    assert kernel_cache.info() == {}


def test_warmup_takes_library_names():
    parser = cli_main.build_parser()
    args = parser.parse_args(["warmup", "rocblas", "prim", "--jobs", "3"])
    assert (args.libraries, args.jobs, args.func) == (["rocblas", "prim"], 3, cli_main.cmd_warmup)
    with pytest.raises(ValueError, match="no kernel sources for nope"):
        cli_cc.library_sources(["nope"])
    assert all(s.startswith("prim/") for s in cli_cc.library_sources(["prim"]))


def test_warmup_compiles_into_the_binary_cache_in_worker_processes(monkeypatch, tmp_path):
    from rocarray._core import compile as _compile
    from rocarray._core import kernel_cache

    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not installed")
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    info = backend.DeviceInfo(id=0, name="fake H200", is_hip=False, arch="sm_90", warp_size=32, multiprocessors=132,
                              shared_mem_per_block=48 * 1024, l2_bytes=0, total_memory=0, compute_capability="9.0")
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: info)
    monkeypatch.setattr(cli_cc, "library_sources", lambda libraries: ["prim/search.hip"])
    lines = []
    assert cli_cc.run_warmup(lines.append, ["prim"], workers=2) == 0
    names = _compile.registered("prim/search.hip")
    assert kernel_cache.info()["sm_90"][0] == len(names) + 1   # every instantiation and the extern "C" module
    assert any("warmup:" in line and "compiled, 0 failed" in line for line in lines)
    opts = _compile.runtime_options(info)
    monkeypatch.setattr(_compile, "nvrtc_compile", lambda *a: pytest.fail("compiled again"))
    for name in names:                                           # a later process finds every one
        _compile.precompile("prim/search.hip", name, "sm_90", opts)


def test_tune_export_and_import_without_a_gpu(monkeypatch, tmp_path, capsys):
    from rocarray._core import tuning

    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("ROCARRAY_TUNE", "1")
    tuning.choose("demo.op", ("k",), ["x", "y"], lambda c: {"x": 2.0, "y": 1.0}[c], "x", arch="sm_90")
    exported = tmp_path / "db.json"
    assert cli_main.main(["tune", "--export", str(exported), "--arch", "sm_90"]) == 0
    assert "exported 1 entry" in capsys.readouterr().out
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "b"))
    assert cli_main.main(["tune", "--import", str(exported)]) == 0
    assert "imported 1 entry" in capsys.readouterr().out
    assert tuning.lookup("demo.op", ("k",), arch="sm_90")["choice"] == "y"
    exported.write_text("{")
    assert cli_main.main(["tune", "--import", str(exported)]) == 1


def test_tune_without_a_gpu_says_so(monkeypatch, capsys):
    monkeypatch.setattr(cli_main, "_device_problem", lambda: "no GPU is visible")
    assert cli_main.main(["tune"]) == cli_main.EXIT_NO_DEVICE
    assert cli_main.main(["tune", "--export", "x.json"]) == cli_main.EXIT_USAGE


# --------------------------------------------------------------------------------------------
# the quick default: one check and one headline row per library
# --------------------------------------------------------------------------------------------

def test_every_quick_check_and_headline_case_is_registered_one_per_library():
    harness.load_all()
    checks = {c.name: c.library for c in harness.self_checks()}
    cases = {c.name: c.library for c in harness.bench_cases()}
    assert all(name in checks for name in cli_main.QUICK_CHECKS)
    assert all(name in cases for name in cli_main.HEADLINE_CASES)
    libraries = set(checks.values())
    assert sorted(checks[n] for n in cli_main.QUICK_CHECKS) == sorted(libraries)
    # distributed's cases need two GPUs: no headline case of it is registered on every machine
    assert sorted(cases[n] for n in cli_main.HEADLINE_CASES) == sorted(libraries - {"distributed"})


def test_all_and_filter_choose_every_matching_item():
    parser = cli_main.build_parser()
    items = [harness.SelfCheck(n, "x", None) for n in ("prim.searchsorted", "prim.other", "rocblas.dot")]
    quick = cli_main.QUICK_CHECKS
    assert [i.name for i in cli_main._chosen(items, parser.parse_args(["self-check"]), quick)] == [
        "prim.searchsorted", "rocblas.dot"]
    assert len(cli_main._chosen(items, parser.parse_args(["self-check", "--all"]), quick)) == 3
    assert len(cli_main._chosen(items, parser.parse_args(["bench", "--filter", "prim"]), quick)) == 3
    assert parser.parse_args(["--all"]).all is True


def test_the_default_run_without_a_gpu_compiles_one_source_per_library(monkeypatch, capsys):
    seen = {}
    monkeypatch.setattr(offline, "compile_all", fake_compile_all(seen=seen))
    monkeypatch.setattr(cli_main, "_device_problem", lambda: "no GPU is visible")
    assert cli_main.main([]) == 0
    assert sorted(s.split("/")[0] for s in seen["sources"]) == ["miopen", "prim", "rocblas", "rocfft", "rocsolver", "rocsparse"]
    assert "python -m rocarray compile-check" in capsys.readouterr().out
