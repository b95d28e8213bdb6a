"""``scripts/sanitize.py`` without a GPU: the sanitizer log is charged to the right kernels, the
report marks clean, failing and unreached kernels, and a missing tool is a clear exit."""

import importlib.util
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "scripts", "sanitize.py")


@pytest.fixture(scope="module")
def sanitize():
    spec = importlib.util.spec_from_file_location("rocarray_sanitize_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOG = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at void ra_prim_scan_tile<float, 256>(const float *, float *, long)+0x1f0
=========     by thread (3,0,0) in block (7,0,0)
=========     Address 0x7f00 is out of bounds
=========
========= Invalid __global__ write of size 8 bytes
=========     at ra_rocblas_dot_f64+0x70
=========     by thread (0,0,0) in block (0,0,0)
=========
========= Invalid __global__ write of size 8 bytes
=========     at ra_rocblas_dot_f64+0x80
=========
========= Program hit cudaErrorInvalidValue (error 1) on CUDA API call to cudaMemcpyAsync.
=========
========= ERROR SUMMARY: 4 errors
"""


def test_errors_are_charged_to_the_kernel_they_name(sanitize):
    launched = ["ra_prim_scan_tile<float, 256>", "ra_rocblas_dot_f64", "ra_rocblas_dot"]
    counts = sanitize.errors_by_kernel(LOG, launched)
    assert counts == {"ra_prim_scan_tile": 1, "ra_rocblas_dot_f64": 2, "(unattributed)": 1}


NCCL_PROBE = """========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to "no kernel image is available for execution on the device" on CUDA API call to cudaFuncGetAttributes.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: cudaFuncGetAttributes [0x1ccb9c] in libnccl.so.2
=========         Host Frame: ncclInitKernelsForDevice(int, int, unsigned long*) in enqueue.cc:52 [0x6d9d3] in libnccl.so.2
=========
========= Program hit cudaErrorInvalidValue (error 1) on CUDA API call to cudaMemcpyAsync.
=========         Host Frame: cudaMemcpyAsync [0x1234] in libcudart.so.13
=========
========= ERROR SUMMARY: 2 errors
"""


def test_api_errors_inside_nccl_are_charged_to_nccl_not_to_rocarray(sanitize):
    counts = sanitize.errors_by_kernel(NCCL_PROBE, ["ra_prim_scan_tile"])
    assert counts == {"(API errors in libnccl.so.2)": 1, "(unattributed)": 1}
    result = {"tool": "memcheck", "rc": 0, "timed_out": False, "seconds": 1.0, "errors": 2,
              "launched": ["ra_prim_scan_tile"], "by_kernel": counts}
    assert sanitize.foreign_errors(result) == 1
    text = sanitize.report([result])
    assert "| (API errors in libnccl.so.2), not rocarray's | 1 |" in text
    assert "| (unattributed) | 1 |" in text


def test_the_report_marks_clean_failing_and_unreached_kernels(sanitize):
    results = [
        {"tool": "memcheck", "rc": 17, "timed_out": False, "seconds": 3.0, "errors": 2,
         "launched": ["ra_a_x<float>", "ra_a_y"], "by_kernel": {"ra_a_y": 2}},
        {"tool": "racecheck", "rc": 0, "timed_out": True, "seconds": 9.0, "errors": 0,
         "launched": ["ra_a_x<double>"], "by_kernel": {}},
    ]
    text = sanitize.report(results)
    assert "| ra_a_x | clean | clean |" in text
    assert "| ra_a_y | 2 error(s) | - |" in text
    assert "- racecheck: 0 error(s), 1 kernel(s) launched, 9.0 s, timed out" in text
    assert "no self-check launched" in text


def test_every_kernel_of_the_sources_is_known(sanitize):
    names = sanitize.known_kernels()
    assert "ra_rocsolver_getf2" in names and "ra_rocsolver_potf2" in names  # names after launch bounds
    assert all(n.startswith("ra_") and n.split("_")[1] for n in names)
    assert sanitize.base_name("void ra_x_y<float, 4>(float*)") == "ra_x_y"


def test_without_the_tool_it_says_what_to_install(sanitize, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda explicit=None: None)
    assert sanitize.main(["--out", str(tmp_path)]) == 2
    assert "pip install nvidia-cuda-sanitizer-api" in capsys.readouterr().err


def test_the_workload_saves_the_kernel_names_after_every_check(sanitize, monkeypatch, tmp_path):
    from rocarray._cli import checks
    from rocarray._core import harness, launch

    path = str(tmp_path / "names.json")
    seen_on_disk = []

    def first(rng):
        launch.observer.begin("ra_t_first<float>", (1,), (1,), 0)

    def second(rng):
        seen_on_disk.append(open(path).read())  # written after the first check, before this one ends
        launch.observer.begin("ra_t_second", (1,), (1,), 0)
        raise AssertionError("mismatch")

    fake = [harness.SelfCheck("t.first", "t", first), harness.SelfCheck("t.second", "t", second)]
    monkeypatch.setattr(checks, "registered_checks", lambda name_filter=None: fake)
    monkeypatch.setattr(checks, "_sync", lambda: None)
    assert sanitize.workload(None, path) == 1  # a failed check fails the workload
    assert seen_on_disk == ['["ra_t_first<float>"]']
    assert open(path).read() == '["ra_t_first<float>", "ra_t_second"]'
    assert launch.observer is None


def test_per_library_tools_become_one_job_per_library(sanitize):
    jobs = sanitize.plan_jobs(["memcheck", "racecheck"], ["racecheck"], ["prim", "rocblas"])
    assert [(j.tool, j.library) for j in jobs] == [("memcheck", None), ("racecheck", "prim"), ("racecheck", "rocblas")]
    assert [j.stem for j in jobs] == ["memcheck", "racecheck.prim", "racecheck.rocblas"]


RACE_LOG = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at ra_prim_scan_tile<float, 256>+0x120
=========     and Read access at ra_prim_scan_tile<float, 256>+0x1a0 [4 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""


def test_racecheck_summaries_count_hazards_and_a_missing_summary_is_none(sanitize):
    clean = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
    assert sanitize.summary_errors(clean) == 0
    assert sanitize.errors_by_kernel(clean, ["ra_prim_scan_tile<float, 256>"]) == {}
    assert sanitize.summary_errors(RACE_LOG) == 1
    assert sanitize.errors_by_kernel(RACE_LOG, ["ra_prim_scan_tile<float, 256>"]) == {"ra_prim_scan_tile": 1}
    assert sanitize.summary_errors("========= COMPUTE-SANITIZER\n") is None
    assert sanitize.summary_errors("========= ERROR SUMMARY: 3 errors\n") == 3


def test_per_check_tools_become_one_job_per_check_with_an_exact_selection(sanitize, monkeypatch):
    from rocarray._cli import checks
    from rocarray._core import harness

    jobs = sanitize.plan_jobs(["memcheck", "racecheck"], ["memcheck"], ["rocsparse"], ["racecheck"],
                              [("rocsparse", "rocsparse.csrsv"), ("rocsparse", "rocsparse.ops")])
    assert [(j.tool, j.library, j.check) for j in jobs] == [
        ("memcheck", "rocsparse", None), ("racecheck", "rocsparse", "rocsparse.csrsv"),
        ("racecheck", "rocsparse", "rocsparse.ops")]
    assert [j.stem for j in jobs] == ["memcheck.rocsparse", "racecheck.rocsparse.csrsv", "racecheck.rocsparse.ops"]
    cmd, _, _ = sanitize._command(jobs[1], "/bin/sanitizer", "/tmp/out", None, ["rocsparse"])
    assert cmd[cmd.index("--check") + 1] == "rocsparse.csrsv" and cmd[cmd.index("--library") + 1] == "rocsparse"
    # --check selects by the whole name, not a substring: "prim.a" does not also pick "prim.ab"
    fake = [harness.SelfCheck("prim.a", "prim", None), harness.SelfCheck("prim.ab", "prim", None)]
    monkeypatch.setattr(checks, "registered_checks", lambda name_filter=None: fake)
    assert [c.name for c in sanitize.selected_checks(None, ["prim"], "prim.a")] == ["prim.a"]


def test_the_libraries_select_checks_and_name_the_checked_sources(sanitize, monkeypatch):
    from rocarray._cli import checks
    from rocarray._core import harness

    fake = [harness.SelfCheck("prim.a", "prim", None), harness.SelfCheck("rocblas.b", "rocblas", None),
            harness.SelfCheck("rocsparse.c", "rocsparse", None)]
    monkeypatch.setattr(checks, "registered_checks", lambda name_filter=None: fake)
    assert [c.name for c in sanitize.selected_checks(None, ["prim", "rocsparse"])] == ["prim.a", "rocsparse.c"]
    assert sanitize.check_libraries() == ["prim", "rocblas", "rocsparse"]
    results = [{"tool": "memcheck", "rc": 0, "timed_out": False, "seconds": 1.0, "errors": 0,
                "launched": ["ra_prim_scan_rows<float>"], "by_kernel": {}}]
    missing = sanitize.report(results, ["prim"]).splitlines()[-1].split(": ", 1)[1].split(", ")
    assert "ra_prim_scan_rows" not in missing and "ra_prim_search" in missing
    assert all(k.startswith("ra_prim_") for k in missing)


FAKE_SANITIZER = """#!{python}
import json, sys, time
args = sys.argv[1:]
log = args[args.index("--log-file") + 1]
names = args[args.index("--workload") + 1]
library = args[args.index("--library") + 1] if "--library" in args else "all"
json.dump(["ra_%s_k<float>" % library.split(",")[0]], open(names, "w"))
if library == "slow":
    time.sleep(30)
errors = 2 if library == "rocblas" else 0
open(log, "w").write("========= Race reported\\n=========     at ra_rocblas_k+0x10\\n=========\\n" * errors
                     + "========= ERROR SUMMARY: %d errors\\n" % errors)
"""


def test_per_library_racecheck_runs_in_parallel_within_its_own_time(sanitize, tmp_path, monkeypatch):
    import sys
    import time

    tool = tmp_path / "compute-sanitizer"
    tool.write_text(FAKE_SANITIZER.format(python=sys.executable))
    tool.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    jobs = sanitize.plan_jobs(["memcheck", "racecheck"], ["racecheck"], ["prim", "rocblas", "slow"])
    t0 = time.time()
    parts = sanitize.run_jobs(jobs, str(tool), str(out), None, [], timeout=5.0, max_jobs=4)
    assert time.time() - t0 < 20  # the slow library was stopped at its own limit, the others ran
    assert [(p["tool"], p["library"], p["timed_out"]) for p in parts] == [
        ("memcheck", None, False), ("racecheck", "prim", False), ("racecheck", "rocblas", False),
        ("racecheck", "slow", True)]
    merged = {r["tool"]: r for r in sanitize.merge_by_tool(parts)}
    race = merged["racecheck"]
    assert race["launched"] == ["ra_prim_k<float>", "ra_rocblas_k<float>", "ra_slow_k<float>"]
    assert race["errors"] is None and race["timed_out"]  # the stopped part wrote no summary
    assert race["by_kernel"] == {"ra_rocblas_k": 2}
    text = sanitize.report(list(merged.values()))
    assert "| ra_rocblas_k | - | 2 error(s) |" in text and "| ra_all_k | clean | - |" in text
    assert "  - slow: None error(s), 1 kernel(s) launched" in text and "timed out" in text
    # --reread rebuilds the same report from the folder's logs
    assert sanitize.write_report(str(out), list(merged.values()), None) == 1
    assert sanitize.report(sanitize.reread(str(out))) == text


def _race_cases():
    path = os.path.join(os.path.dirname(HERE), "scripts", "race_cases.py")
    spec = importlib.util.spec_from_file_location("rocarray_race_cases_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_race_cases_lists_its_cases_and_refuses_unknown_ones(capsys):
    race = _race_cases()
    assert race.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == list(race.CASES)
    assert race.main(["no_such_case"]) == 2
    assert race.main([]) == 2
    assert "cases: " in capsys.readouterr().err
