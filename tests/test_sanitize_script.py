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
