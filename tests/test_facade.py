"""The ``rocarray`` namespace: import without a GPU, NumPy's dtypes, the CuPy fall-through, errors.

Also keeps the documented commands honest: the README's test command is what ``.ci/run`` runs.
"""

import configparser
import os
import re
import subprocess
import sys

import numpy
import pytest

import rocarray as ra
from rocarray._core import backend

HAVE_GPU = backend.is_available()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
no_gpu_here = pytest.mark.skipif(HAVE_GPU, reason="a GPU is visible here: this checks the machine without one")


def run_python(code):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)


# --------------------------------------------------------------------------------------------
# import and names
# --------------------------------------------------------------------------------------------

def test_import_works_without_cupy_and_calls_say_what_to_install():
    code = """
import sys
sys.modules['cupy'] = None          # 'import cupy' now raises ImportError
import numpy, rocarray as ra
assert ra.float32 is numpy.float32 and ra.pi == numpy.pi
ra.show_config()
for call in (lambda: ra.zeros(3), lambda: ra.asarray([1.0]), lambda: ra.sin(1.0)):
    try:
        call()
    except ra.NoDeviceError as exc:
        assert 'pip install' in str(exc), str(exc)
    else:
        raise AssertionError('no NoDeviceError')
try:
    ra.ndarray
except AttributeError as exc:
    assert 'CuPy is not installed' in str(exc)
print('ok')
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cupy          not installed" in proc.stdout and proc.stdout.strip().endswith("ok")


def test_numpy_dtypes_and_constants_are_numpys_own():
    for name in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp",
                 "dtype", "finfo", "iinfo", "newaxis"):
        assert getattr(ra, name) is getattr(numpy, name), name
    assert ra.float32 is numpy.float32
    assert (ra.pi, ra.e, ra.euler_gamma) == (numpy.pi, numpy.e, numpy.euler_gamma)
    assert numpy.isnan(ra.nan) and ra.inf == numpy.inf


def test_version_is_one_string_read_by_setup_cfg():
    from rocarray._version import __version__

    assert ra.__version__ == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)*", __version__)
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(REPO, "setup.cfg"))
    assert cfg["metadata"]["version"].strip() == "attr: rocarray._version.__version__"


def test_everything_in_all_exists():
    for name in ra.__all__:
        assert hasattr(ra, name), name
    assert set(ra.__all__) <= set(dir(ra))


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'definitely_not_numpy'"):
        ra.definitely_not_numpy
    assert not hasattr(ra, "definitely_not_numpy")
    with pytest.raises(AttributeError):
        ra.__wrapped__  # dunder lookups never fall through (copy, pickle and inspect probe them)


# --------------------------------------------------------------------------------------------
# the CuPy fall-through
# --------------------------------------------------------------------------------------------

def test_arrays_are_plain_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    assert ra.ndarray is cupy.ndarray


def test_types_modules_and_constants_fall_through_unwrapped():
    cupy = pytest.importorskip("cupy")
    assert ra.ndarray is cupy.ndarray and ra.dtype is cupy.dtype
    assert ra.ElementwiseKernel is not cupy.ElementwiseKernel  # rocarray's, with the portability headers
    assert ra.random is cupy.random and ra.cuda is cupy.cuda
    assert "zeros" in dir(ra) and "asarray" in dir(ra)


@no_gpu_here
def test_fall_through_call_without_a_device_is_no_device_error():
    cupy = pytest.importorskip("cupy")
    with pytest.raises(ra.NoDeviceError, match="pip install"):
        ra.zeros(3)
    with pytest.raises(ra.NoDeviceError):
        ra.arange(10)
    with pytest.raises(ra.NoDeviceError):
        ra.add(1, 2)                                  # a ufunc
    assert ra.add.nin == 2 and ra.add.__name__ == "add"   # ufunc attributes are CuPy's
    assert ra.concatenate.__name__ == "concatenate" and ra.concatenate.__wrapped__ is cupy.concatenate
    assert ra.concatenate.__doc__ == cupy.concatenate.__doc__
    assert ra.result_type(ra.float32, ra.float64) == numpy.float64   # needs no device: still works


@no_gpu_here
def test_asarray_without_a_device_is_no_device_error():
    pytest.importorskip("cupy")
    with pytest.raises(ra.NoDeviceError, match="pip install"):
        ra.asarray(numpy.ones(3))


def test_fall_through_without_cupy_is_no_device_error_on_call(monkeypatch):
    monkeypatch.setattr(backend, "cupy_module", lambda: None)
    assert callable(ra.zeros)                         # looking a name up never raises
    with pytest.raises(ra.NoDeviceError, match="pip install"):
        ra.zeros(3)
    with pytest.raises(ra.NoDeviceError, match="pip install"):
        ra.asarray([1.0])
    with pytest.raises(AttributeError, match="CuPy is not installed"):
        ra.ndarray
    with pytest.raises(AttributeError):
        ra.definitely_not_numpy


@pytest.mark.gpu
def test_with_a_device_fall_through_is_cupys_own_object():
    import cupy

    assert ra.concatenate is cupy.concatenate and ra.add is cupy.add
    x = ra.zeros(3)
    assert isinstance(x, cupy.ndarray) and x.shape == (3,)


@pytest.mark.gpu
def test_asarray_and_asnumpy_round_trip(rng):
    import cupy

    host = rng.standard_normal((4, 5)).astype(numpy.float32)
    dev = ra.asarray(host)
    assert isinstance(dev, cupy.ndarray) and dev.dtype == numpy.float32
    numpy.testing.assert_array_equal(ra.asnumpy(dev), host)
    assert ra.asarray(dev) is dev
    copy = ra.asarray(dev, copy=True)
    assert copy is not dev
    numpy.testing.assert_array_equal(ra.asnumpy(copy), host)
    assert ra.asarray(host, dtype=numpy.float64).dtype == numpy.float64


# --------------------------------------------------------------------------------------------
# host arrays: one rule
# --------------------------------------------------------------------------------------------

def test_host_arrays_are_rejected_with_a_type_error_naming_the_argument():
    pytest.importorskip("cupy")
    from rocarray._core.args import as_device_array

    with pytest.raises(TypeError, match=r"argument 'x' is a host \(NumPy\) array.*ra\.asarray"):
        as_device_array(numpy.ones(3), "x")
    with pytest.raises(TypeError, match=r"argument 'y' must be a device array"):
        as_device_array([1, 2, 3], "y")


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------

def test_show_config_prints_versions_device_and_cache(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    ra.show_config()
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["rocarray", ra.__version__]
    assert any(line.startswith("numpy") and numpy.__version__ in line for line in lines)
    assert any(line.startswith("device") for line in lines)
    assert f"cache dir     {tmp_path}" in lines
    if not HAVE_GPU:
        assert "device        none visible" in lines


# --------------------------------------------------------------------------------------------
# documented commands
# --------------------------------------------------------------------------------------------

def _read(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        return f.read()


def test_readme_test_command_is_exactly_what_ci_runs():
    readme, ci = _read("README.md"), _read(".ci/run")
    commands = re.findall(r"^(python -m pip install -e \"\.\[test[^\]]*\]\" && python -m pytest[^\n]*)$", readme, re.M)
    assert len(set(commands)) == 1, "README.md must give one test command"
    command = commands[0].strip()
    assert re.search(r"^\s*" + re.escape(command) + r"\s*(\|\||$)", ci, re.M), (
        f".ci/run must run the README's test command verbatim: {command}"
    )


def test_ci_script_is_strict_bash():
    ci = _read(".ci/run")
    assert ci.startswith("#!/usr/bin/env bash") or ci.startswith("#!/bin/bash")
    assert "set -euo pipefail" in ci
    assert os.access(os.path.join(REPO, ".ci/run"), os.X_OK)
    for package in ("hipcc", "libamdhip64-dev", "rocm-device-libs"):
        assert package in ci


def test_the_ci_prerequisites_come_before_the_test_command_in_the_readme():
    readme = _read("README.md")
    apt = readme.index("apt-get update && apt-get install -y hipcc libamdhip64-dev rocm-device-libs")
    assert apt < readme.index('python -m pip install -e ".[test')


def test_the_test_extra_is_vendor_neutral_and_the_cuda_compiler_has_its_own():
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(REPO, "setup.cfg"))
    extras = cfg["options.extras_require"]
    assert "cupy" not in extras["test"] and "nvidia" not in extras["test"]
    assert "nvidia-cuda-nvrtc" in extras["nvrtc"] and "cupy-cuda13x" in extras["nvrtc"]
    assert {"matplotlib", "jupyter", "nvidia-cublas"} <= set(extras["notebooks"].split())
