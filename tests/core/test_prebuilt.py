"""The kernel binaries shipped with the package (:mod:`rocarray._core.prebuilt`): they match the
sources (a stale entry fails and names the command that rebuilds it), they cover what the traced
first call of each family loads, they stay small, and the one compile path looks them up after the
user's binary cache and before compiling, ignoring (with a warning) every entry that does not
check out."""

import hashlib
import json
import os
import re
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import rocarray as ra
from rocarray._core import backend, config, offline, prebuild, prebuilt, tuning
from rocarray._core import compile as _compile
from rocarray._core import kernel_cache as K

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import launchfake  # noqa: E402

fake_device = launchfake.fake_device  # the fixture
offline.import_all_libraries()

ARCH = "sm_90"
MAX_SHIPPED_BYTES = 8 * 2**20


# --------------------------------------------------------------------------------------------
# the shipped folder as it is in the package
# --------------------------------------------------------------------------------------------

def test_shipped_binaries_match_the_sources():
    problems = prebuild.problems(ARCH)
    assert not problems, ("the kernel binaries shipped for sm_90 no longer match the sources; rebuild them with "
                          f"`{prebuilt.COMMAND.format(arch=ARCH)}` (NVRTC, no GPU needed):\n  " + "\n  ".join(problems))


def test_shipped_binaries_are_whole_and_small(monkeypatch):
    monkeypatch.setattr(prebuilt, "_manifests", {})
    monkeypatch.setattr(prebuilt, "_drivers", [13])
    meta = prebuilt.read_manifest(ARCH)
    total = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for key, entry in meta["entries"].items():
            path, names = prebuilt.load(ARCH, key)
            assert path.name == f"{key}.cubin" and path.read_bytes()[:4] == b"\x7fELF"
            assert sorted(names) == ([entry["name"]] if entry["name"] else [])
            total += entry["size"]
    files = {p.name for p in prebuilt.folder(ARCH).iterdir()}
    assert files == {prebuilt.MANIFEST} | {e["file"] for e in meta["entries"].values()}
    assert total < MAX_SHIPPED_BYTES
    for source, name in prebuilt.modules():
        assert name is None or name in _compile.registered(source), (source, name)


# --------------------------------------------------------------------------------------------
# the families' first calls load only shipped modules (traced on the fake sm_90 device)
# --------------------------------------------------------------------------------------------

def _vector(dtype, n=1_000_003):
    return lambda dev: dev.array((n,), dtype)


def _square(dtype, n):
    return lambda dev: dev.array((n, n), dtype)


#: family -> first calls: (input maker on the fake device, the call); the first of each list is
#: scripts/first_calls.py's.
FIRST_CALLS = {
    "sum": [(_vector("float32"), ra.sum), (_vector("float64"), ra.sum), (_vector("int64"), ra.sum),
            (_square("float32", 1000), lambda x: ra.sum(x, axis=0)), (_square("float64", 999), lambda x: ra.sum(x, axis=0)),
            (_vector("float32", 1000), ra.sum)],
    "cumsum": [(_vector(t), ra.cumsum) for t in ("float32", "float64", "int64")],
    "sort": [(_vector(t), ra.sort) for t in ("float32", "float64", "int32", "int64")],
    "unique": [(lambda dev: dev.array((1_000_003,), "int64", np.random.default_rng(1).integers(0, 1000, 1_000_003)),
                ra.unique)],
    "matmul_f16": [(_square("float16", n), lambda a: ra.matmul(a, a)) for n in (1000, 128, 4096)],
    "matmul_f32": [(_square("float32", n), lambda a: ra.matmul(a, a)) for n in (1000, 128, 4096)],
    "matmul_f64": [(_square("float64", n), lambda a: ra.matmul(a, a)) for n in (1000, 128, 4096)],
    "einsum": [(lambda dev: dev.array((300, 400), "float32"), lambda a: ra.einsum("ij,kj->ik", a, a))],
    "fft_pow2": [(_vector("complex64", 1 << 20), ra.fft.fft), (_vector("complex64", 1 << 20), ra.fft.ifft),
                 (_vector("complex128", 1 << 20), ra.fft.fft), (_vector("complex64", 4096), ra.fft.fft),
                 (_square("complex64", 1024), ra.fft.fft)],
    "fft_prime": [(_vector("complex64"), ra.fft.fft)],
    "rfft_pow2": [(_vector("float32", 1 << 20), ra.fft.rfft)],
    "irfft_pow2": [(_vector("complex64", (1 << 19) + 1), ra.fft.irfft)],
    "fftn_pow2": [(lambda dev: dev.array((128, 128, 128), "complex64"), ra.fft.fftn),
                  (lambda dev: dev.array((128, 128, 128), "complex128"), ra.fft.fftn)],
}


@pytest.fixture
def traced(fake_device, monkeypatch, tmp_path):
    """The fake sm_90 device with the opt-in shared memory, stand-in tensor maps and host flags,
    an empty user cache and tuning DB (the shipped DB answers): ``traced.modules`` collects the
    ``(source, module name)`` pairs compiled."""
    from rocarray.prim import _sort, _unique
    from rocarray.rocblas._gemm import tensor_maps

    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ROCARRAY_TUNE", raising=False)
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: 232448)
    monkeypatch.setattr(tensor_maps, "operand_map", lambda *a: np.zeros(1, tensor_maps.TENSOR_MAP))
    monkeypatch.setattr(tensor_maps, "blocked_operand_map", lambda *a: np.zeros(1, tensor_maps.TENSOR_MAP))

    class HostFlags:  # the sort's pinned lossy flag (no pinned memory on the fake device)
        def __init__(self, meta, places):
            pass

        def lossy(self):
            return False
    monkeypatch.setattr(_sort, "_HostFlags", HostFlags)
    monkeypatch.setattr(_unique, "_decode_keys", lambda bins, lo_key, dtype: bins)  # CuPy kernels: not traced
    real_minmax = _unique._minmax_keys

    def minmax(xf):  # the fake device runs no kernel: the keys of the values the input holds
        real_minmax(xf)
        h = fake_device.host(xf)
        return int(h.min()) ^ (1 << 63), int(h.max()) ^ (1 << 63)
    monkeypatch.setattr(_unique, "_minmax_keys", minmax)
    fake_device.modules = set()
    real_get_kernel = _compile.get_kernel

    def get_kernel(source, name, device_id=None):
        fake_device.modules.add((source, name if "<" in name else None))
        return real_get_kernel(source, name, device_id)
    monkeypatch.setattr(_compile, "get_kernel", get_kernel)
    tuning.clear_cache()
    yield fake_device
    tuning.clear_cache()


@pytest.mark.parametrize("family", list(FIRST_CALLS))
def test_first_calls_load_only_shipped_modules(traced, family):
    for make, call in FIRST_CALLS[family]:
        call(make(traced))
        assert traced.modules, "the call compiled nothing"
    missing = traced.modules - set(prebuilt.FAMILIES[family])
    assert not missing, (f"the first calls of {family} load modules that are not shipped: {sorted(missing, key=str)}; "
                         f"add them to prebuilt.FAMILIES and run `{prebuilt.COMMAND.format(arch=ARCH)}`")


def test_every_shipped_module_is_loaded_by_a_traced_first_call(traced):
    """No dead weight: the traced first calls together load every shipped module."""
    for calls in FIRST_CALLS.values():
        for make, call in calls:
            call(make(traced))
    assert set(prebuilt.modules()) - traced.modules == set()


# --------------------------------------------------------------------------------------------
# the lookup order and the fault cases (NVRTC and the device are stand-ins)
# --------------------------------------------------------------------------------------------

SOURCE = "prim/reduce.hip"
NAME = "ra_prim_reduce_rows<float, float, ra_prim_red_op_add>"
OPTS = ("-std=c++17", "-arch=sm_90")


@pytest.fixture
def shipped(monkeypatch, tmp_path):
    """A private shipped folder holding one entry (``SOURCE``/``NAME`` under ``OPTS``), an empty
    user cache, a CUDA 13 driver, and an NVRTC stand-in that records what it compiles."""
    root = tmp_path / "data"
    monkeypatch.setattr(prebuilt, "folder", lambda arch: root / arch)
    monkeypatch.setattr(prebuilt, "_manifests", {})
    monkeypatch.setattr(prebuilt, "_drivers", [13])
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ROCARRAY_PREBUILT", raising=False)
    monkeypatch.setattr(K, "_unwritable", set())
    compiled = []

    def nvrtc_compile(source, target, text, opts, names):
        compiled.append((source, tuple(names)))
        return {n: "_Zcompiled" for n in names}, b"\x7fELF compiled"
    monkeypatch.setattr(_compile, "nvrtc_compile", nvrtc_compile)
    monkeypatch.setattr(_compile, "nvrtc", lambda: types.SimpleNamespace(getVersion=lambda: (13, 5)))
    binary = b"\x7fELF shipped"
    key = _compile.module_key(ARCH, OPTS, [NAME], _compile.full_source(SOURCE))
    (root / ARCH).mkdir(parents=True)
    (root / ARCH / f"{key}.cubin").write_bytes(binary)
    meta = {"format": 1, "arch": ARCH, "cuda_major": 13, "compiler": "13.5",
            "entries": {key: {"file": f"{key}.cubin", "size": len(binary), "sha256": hashlib.sha256(binary).hexdigest(),
                              "names": {NAME: "_Zshipped"}, "source": SOURCE, "name": NAME, "families": ["sum"]}}}
    (root / ARCH / prebuilt.MANIFEST).write_text(json.dumps(meta))
    return types.SimpleNamespace(root=root / ARCH, key=key, meta=meta, compiled=compiled, binary=binary)


def _precompile():
    return _compile.precompile(SOURCE, NAME, ARCH, OPTS)


def _rewrite(shipped, **changes):
    entry = shipped.meta["entries"][shipped.key]
    entry.update(changes)
    (shipped.root / prebuilt.MANIFEST).write_text(json.dumps(shipped.meta))


def test_an_empty_cache_loads_the_shipped_binary_without_compiling(shipped):
    path, names = _precompile()
    assert path == shipped.root / f"{shipped.key}.cubin" and names == {NAME: "_Zshipped"}
    assert shipped.compiled == [] and K.info() == {}  # nothing compiled, nothing copied


def test_the_user_cache_comes_first(shipped):
    opts_key = _compile.module_key(ARCH, OPTS, [NAME], _compile.full_source(SOURCE), (13, 5))
    K.store(ARCH, opts_key, b"\x7fELF user", {NAME: "_Zuser"})
    path, names = _precompile()
    assert names == {NAME: "_Zuser"} and path.read_bytes() == b"\x7fELF user" and shipped.compiled == []


def test_a_module_not_shipped_compiles_into_the_user_cache(shipped):
    other = "ra_prim_reduce_rows<double, double, ra_prim_red_op_add>"
    _, names = _compile.precompile(SOURCE, other, ARCH, OPTS)
    assert names == {other: "_Zcompiled"} and shipped.compiled == [(SOURCE, (other,))]
    assert K.info()[ARCH][0] == 1


def test_the_key_ignores_the_compiler_version_and_nothing_else(shipped):
    text = _compile.full_source(SOURCE)
    base = _compile.module_key(ARCH, OPTS, [NAME], text)
    assert base == shipped.key
    assert base != _compile.module_key(ARCH, OPTS, [NAME], text, (13, 5))
    for other in (_compile.module_key("sm_100", OPTS, [NAME], text), _compile.module_key(ARCH, OPTS + ("-O1",), [NAME], text),
                  _compile.module_key(ARCH, OPTS, [], text), _compile.module_key(ARCH, OPTS, [NAME], text + " ")):
        assert other != base


@pytest.mark.parametrize("damage", ["truncated", "flipped", "missing", "renamed", "bad names", "bad manifest",
                                    "other arch", "wrong format"])
def test_a_damaged_shipped_entry_is_ignored_with_a_warning_and_compiled(shipped, damage):
    cubin = shipped.root / f"{shipped.key}.cubin"
    if damage == "truncated":
        cubin.write_bytes(shipped.binary[:-1])
    elif damage == "flipped":
        cubin.write_bytes(shipped.binary[:-1] + b"X")
    elif damage == "missing":
        cubin.unlink()
    elif damage == "renamed":  # an entry pointing at another file is not trusted
        (shipped.root / "other.cubin").write_bytes(shipped.binary)
        _rewrite(shipped, file="other.cubin")
    elif damage == "bad names":
        _rewrite(shipped, names={NAME: 3})
    elif damage == "bad manifest":
        (shipped.root / prebuilt.MANIFEST).write_text("{not json")
    else:
        shipped.meta.update({"other arch": {"arch": "sm_80"}, "wrong format": {"format": 99}}[damage])
        (shipped.root / prebuilt.MANIFEST).write_text(json.dumps(shipped.meta))
    with pytest.warns(K.KernelCacheWarning, match="shipped kernel"):
        _, names = _precompile()
    assert names == {NAME: "_Zcompiled"} and shipped.compiled == [(SOURCE, (NAME,))]


def test_an_older_driver_skips_the_shipped_binaries_quietly(shipped, monkeypatch):
    monkeypatch.setattr(prebuilt, "_drivers", [12])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, names = _precompile()
    assert names == {NAME: "_Zcompiled"}


def test_the_setting_turns_the_shipped_binaries_off(shipped, monkeypatch):
    monkeypatch.setenv("ROCARRAY_PREBUILT", "0")
    assert not config.prebuilt_enabled()
    assert _precompile()[1] == {NAME: "_Zcompiled"}


def test_a_shipped_binary_the_driver_refuses_is_compiled_instead(shipped, monkeypatch):
    class DriverError(Exception):
        pass

    class RawModule:
        def __init__(self, path=None, code=None, options=None, name_expressions=None):
            self.path = path

        def get_function(self, name):
            if self.path is not None:
                raise DriverError("CUDA_ERROR_NO_BINARY_FOR_GPU")
            return ("compiled by CuPy", name)

        def compile(self):
            pass

    class Null:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False
    fake = types.SimpleNamespace(RawModule=RawModule, cuda=types.SimpleNamespace(
        driver=types.SimpleNamespace(CUDADriverError=DriverError), Device=lambda i: Null(),
        compiler=types.SimpleNamespace(CompileException=RuntimeError)))
    info = backend.DeviceInfo(id=0, name="fake", is_hip=False, arch=ARCH, warp_size=32, multiprocessors=132,
                              shared_mem_per_block=48 * 1024, l2_bytes=0, total_memory=0, compute_capability="9.0")
    monkeypatch.setattr(backend, "_cupy", [fake])
    monkeypatch.setattr(_compile, "runtime_options", lambda info: OPTS)
    module = _compile._cached_module(SOURCE, info, _compile.full_source(SOURCE), NAME)
    assert shipped.compiled == []
    with pytest.warns(K.KernelCacheWarning, match="refused"):
        assert module.get_function(NAME) == ("compiled by CuPy", NAME)


def test_a_changed_source_makes_its_entry_stale_and_names_the_command(shipped, monkeypatch):
    _rewrite(shipped)
    monkeypatch.setattr(prebuild, "options", lambda arch: OPTS)
    monkeypatch.setattr(prebuilt, "modules", lambda families=None: {(SOURCE, NAME): ["sum"]})
    assert prebuild.problems(ARCH) == []
    real = _compile.full_source
    monkeypatch.setattr(_compile, "full_source", lambda s: real(s) + "// edited\n")
    assert prebuild.problems(ARCH) == [f"stale (the source, a header or the options changed): {SOURCE} {NAME}"]
    from rocarray._cli.main import main

    assert main(["prebuild", "--arch", ARCH, "--check"]) == 1


def test_cache_info_lists_the_shipped_binaries(shipped, capsys):
    from rocarray._cli.main import main

    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "shipped" in out and re.search(rf"{ARCH}\s+1 binaries", out)


def test_prebuild_writes_a_manifest_the_lookup_accepts(monkeypatch, tmp_path):
    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc)")
    monkeypatch.setattr(prebuilt, "folder", lambda arch: tmp_path / arch)
    monkeypatch.setattr(prebuilt, "_manifests", {})
    monkeypatch.setattr(prebuilt, "_drivers", [13])
    (tmp_path / ARCH).mkdir()
    (tmp_path / ARCH / "leftover.cubin").write_bytes(b"old")
    done = prebuild.build(ARCH, ["unique"], workers=1, out=lambda line: None)
    assert done["modules"] == 3 and 0 < done["bytes"] < 2**20
    assert prebuild.problems(ARCH, ["unique"]) == []
    assert not (tmp_path / ARCH / "leftover.cubin").exists()
    opts = prebuild.options(ARCH)
    for source, name in prebuilt.FAMILIES["unique"]:
        path, names = prebuilt.load(ARCH, prebuild.entry_key(ARCH, source, name, opts))
        assert names[name].startswith("_Z") and path.parent == tmp_path / ARCH


# --------------------------------------------------------------------------------------------
# on the device
# --------------------------------------------------------------------------------------------

def _device_runs_shipped():
    info = backend.device_info()
    meta = prebuilt.read_manifest(info.arch)
    if info.is_hip or meta is None:
        pytest.skip(f"no binaries are shipped for {info.arch}")
    if prebuilt.driver_major() < meta["cuda_major"]:
        pytest.skip("the driver is older than the shipped binaries' CUDA version")


@pytest.mark.gpu
def test_on_the_device_every_shipped_module_loads_without_compiling(monkeypatch, tmp_path):
    _device_runs_shipped()
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_compile, "_modules", {})
    monkeypatch.setattr(_compile, "nvrtc_compile", lambda *a: pytest.fail("compiled instead of loading"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", K.KernelCacheWarning)
        for source, name in prebuilt.modules():
            module = _compile.get_module(source, name=name)
            if name is not None:
                assert module.get_function(name) is not None
    assert K.info() == {}


FIRST_CALL_SCRIPT = """
import numpy as np, rocarray as ra
from rocarray._core import compile as c
def refuse(*a):
    raise AssertionError('compiled ' + str(a[0]) + ' ' + str(a[-1]))
c.nvrtc_compile = refuse
rng = np.random.default_rng(7)
def close(got, want, rtol):
    np.testing.assert_allclose(ra.asnumpy(got), want, rtol=rtol, atol=rtol * np.abs(want).max())
def cnormal(*shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
u = rng.random(1_000_003, dtype=np.float32)
close(ra.sum(ra.asarray(u)), u.astype(np.float64).sum(), 1e-5)
close(ra.cumsum(ra.asarray(u)), np.cumsum(u.astype(np.float64)), 1e-4)
x = rng.standard_normal(1_000_003).astype(np.float32)
assert (ra.asnumpy(ra.sort(ra.asarray(x))) == np.sort(x)).all()
i = rng.integers(0, 1000, 1_000_003)
assert (ra.asnumpy(ra.unique(ra.asarray(i))) == np.unique(i)).all()
for dt, tol in (("float16", 2e-2), ("float32", 1e-5), ("float64", 1e-12)):
    a = rng.standard_normal((1000, 1000)).astype(dt)
    close(ra.matmul(ra.asarray(a), ra.asarray(a)), a.astype(np.float64) @ a.astype(np.float64), tol)
e = rng.standard_normal((300, 400)).astype(np.float32)
close(ra.einsum("ij,kj->ik", ra.asarray(e), ra.asarray(e)), e.astype(np.float64) @ e.T.astype(np.float64), 1e-5)
for n in (1 << 20, 1_000_003):
    z = cnormal(n)
    close(ra.fft.fft(ra.asarray(z)), np.fft.fft(z.astype(np.complex128)), 1e-4)
r = rng.standard_normal(1 << 20).astype(np.float32)
close(ra.fft.rfft(ra.asarray(r)), np.fft.rfft(r.astype(np.float64)), 1e-4)
v = cnormal(128, 128, 128)
close(ra.fft.fftn(ra.asarray(v)), np.fft.fftn(v.astype(np.complex128)), 1e-4)
print("ok")
"""


@pytest.mark.gpu
def test_on_the_device_first_calls_with_an_empty_cache_run_the_shipped_kernels(tmp_path):
    """A fresh process with empty caches runs the benchmarked first calls of every family, right
    against NumPy, without NVRTC compiling anything."""
    _device_runs_shipped()
    env = dict(os.environ, ROCARRAY_CACHE_DIR=str(tmp_path / "ra"), CUPY_CACHE_DIR=str(tmp_path / "cupy"))
    env.pop("ROCARRAY_PREBUILT", None)
    proc = subprocess.run([sys.executable, "-c", FIRST_CALL_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
