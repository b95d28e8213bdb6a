"""rocarray's kernel binary cache (:mod:`rocarray._core.kernel_cache`) and the run-time compile
path through it (:func:`rocarray._core.compile._build_module` on NVIDIA devices): entries, keys,
fault cases (corrupt, truncated, planted files, a read-only folder, concurrent writers), and a
new process loading without compiling."""

import json
import multiprocessing
import os
import stat
import types
import warnings

import pytest

from rocarray._core import backend, config
from rocarray._core import compile as _compile
from rocarray._core import kernel_cache as K

TEST_SOURCE = os.path.join(os.path.dirname(__file__), "kernels", "cache_check.hip")


@pytest.fixture
def cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(K, "_unwritable", set())
    return tmp_path / "cache"


def test_an_entry_round_trips(cache_dir):
    k = K.key("a", ("b", "c"))
    assert K.load("sm_90", k) is None
    path = K.store("sm_90", k, b"\x7fELF binary", {"f<int>": "_Z1fIiEvv"})
    assert path == cache_dir / "kernels" / "sm_90" / f"{k}.bin"
    found_path, names = K.load("sm_90", k)
    assert found_path == path and names == {"f<int>": "_Z1fIiEvv"}
    assert K.read("sm_90", k) == (b"\x7fELF binary", names)
    assert K.info() == {"sm_90": (1, path.stat().st_size + (path.with_suffix(".json")).stat().st_size)}
    assert K.clear() == 2 and K.load("sm_90", k) is None and K.info() == {}


def test_keys_change_with_every_part():
    base = K.key("runtime", "nvrtc", 13, "sm_90", ("-DX",), ("f<int>",), "text")
    for parts in (("runtime", "nvrtc", 12, "sm_90", ("-DX",), ("f<int>",), "text"),
                  ("runtime", "nvrtc", 13, "sm_80", ("-DX",), ("f<int>",), "text"),
                  ("runtime", "nvrtc", 13, "sm_90", ("-DY",), ("f<int>",), "text"),
                  ("runtime", "nvrtc", 13, "sm_90", ("-DX",), ("f<float>",), "text"),
                  ("runtime", "nvrtc", 13, "sm_90", ("-DX",), ("f<int>",), "text "),
                  ("runtime", "nvrtc", 13, "sm_90", ("-D", "X"), ("f<int>",), "text")):
        assert K.key(*parts) != base
    assert K.key("runtime", "nvrtc", 13, "sm_90", ("-DX",), ("f<int>",), "text") == base


def _entry(cache_dir, k):
    folder = cache_dir / "kernels" / "sm_90"
    return folder / f"{k}.bin", folder / f"{k}.json"


@pytest.mark.parametrize("damage", ["corrupt json", "truncated binary", "flipped byte", "wrong format",
                                    "missing binary", "bad names"])
def test_a_damaged_entry_is_ignored_with_a_warning(cache_dir, damage):
    k = K.key("x")
    K.store("sm_90", k, b"0123456789", {})
    binary, meta = _entry(cache_dir, k)
    if damage == "corrupt json":
        meta.write_text('{"format": 1, "key"')
    elif damage == "truncated binary":
        binary.write_bytes(b"01234")
    elif damage == "flipped byte":
        binary.write_bytes(b"0123456788")
    elif damage == "wrong format":
        data = json.loads(meta.read_text())
        data["format"] = 99
        meta.write_text(json.dumps(data))
    elif damage == "missing binary":
        binary.unlink()
    else:
        data = json.loads(meta.read_text())
        data["names"] = {"f": 3}
        meta.write_text(json.dumps(data))
    with pytest.warns(K.KernelCacheWarning):
        assert K.load("sm_90", k) is None
    K.store("sm_90", k, b"0123456789", {})    # rebuilt in place
    assert K.read("sm_90", k) == (b"0123456789", {})


def test_a_file_planted_under_another_entrys_name_is_rejected(cache_dir):
    good, other = K.key("good"), K.key("other")
    K.store("sm_90", good, b"good binary", {})
    b_good, m_good = _entry(cache_dir, good)
    b_other, m_other = _entry(cache_dir, other)
    b_other.write_bytes(b_good.read_bytes())
    m_other.write_text(m_good.read_text())     # a valid entry, but of another key
    with pytest.warns(K.KernelCacheWarning, match="invalid"):
        assert K.load("sm_90", other) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_turns_writing_off_with_one_warning(cache_dir):
    cache_dir.mkdir(parents=True)
    cache_dir.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.warns(K.KernelCacheWarning, match="cannot write"):
            assert K.store("sm_90", K.key("a"), b"x", {}) is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert K.store("sm_90", K.key("b"), b"x", {}) is None
    finally:
        cache_dir.chmod(stat.S_IRWXU)


def test_a_read_only_file_system_turns_writing_off(cache_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(30, "Read-only file system")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.warns(K.KernelCacheWarning, match="Read-only file system"):
        assert K.store("sm_90", K.key("a"), b"x", {}) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert K.store("sm_90", K.key("b"), b"x", {}) is None
    assert K.load("sm_90", K.key("a")) is None


def test_an_unwritable_cache_path_turns_writing_off(cache_dir):
    cache_dir.parent.mkdir(parents=True, exist_ok=True)
    cache_dir.write_text("a file where the folder should be")
    with pytest.warns(K.KernelCacheWarning, match="cannot write"):
        assert K.store("sm_90", K.key("a"), b"x", {}) is None
    assert K.load("sm_90", K.key("a")) is None


def _writer(root, rounds, seed):
    os.environ["ROCARRAY_CACHE_DIR"] = root
    for i in range(rounds):
        k = K.key("shared", i % 5)
        K.store("sm_90", k, (f"binary {i % 5} " * (1000 + 100 * (i % 5))).encode(), {"n": str(i % 5)})
        found = K.read("sm_90", K.key("shared", (i + seed) % 5))
        if found is not None:
            data, names = found
            assert data == (f"binary {names['n']} " * (1000 + 100 * int(names["n"]))).encode()


def test_two_processes_filling_the_cache_at_once_corrupt_nothing(cache_dir):
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(cache_dir), 60, s)) for s in (0, 3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(5):
            data, names = K.read("sm_90", K.key("shared", i))
            assert names == {"n": str(i)} and data == (f"binary {i} " * (1000 + 100 * i)).encode()
    assert not [p for p in (cache_dir / "kernels" / "sm_90").iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------------------------
# the run-time compile path through the cache (NVRTC compiles for real; loading is faked)
# --------------------------------------------------------------------------------------------

class _RawModule:
    loaded = []

    def __init__(self, path=None, code=None, options=None, name_expressions=None):
        self.path, self.code = path, code
        _RawModule.loaded.append(self)

    def get_function(self, name):
        return ("function", self.path, name)

    def compile(self):
        pass


class _DriverError(Exception):
    pass


@pytest.fixture
def device(monkeypatch, cache_dir):
    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc)")
    info = backend.DeviceInfo(id=0, name="fake", is_hip=False, arch="sm_90", warp_size=32, multiprocessors=132,
                              shared_mem_per_block=48 * 1024, l2_bytes=0, total_memory=0, compute_capability="9.0")
    _RawModule.loaded = []
    fake = types.SimpleNamespace(RawModule=_RawModule, cuda=types.SimpleNamespace(
        driver=types.SimpleNamespace(CUDADriverError=_DriverError), Device=lambda i: _NullContext(),
        compiler=types.SimpleNamespace(CompileException=RuntimeError)))
    monkeypatch.setattr(backend, "_cupy", [fake])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: info)
    monkeypatch.setattr(_compile, "_modules", {})
    _compile.register(TEST_SOURCE, ["ra_test_cache_scale<float>"])
    return info


class _NullContext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_a_first_build_compiles_and_stores_a_new_process_loads_without_compiling(device, monkeypatch):
    fn = _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")
    assert fn[0] == "function" and fn[2].startswith("_Z") and "ra_test_cache_scale" in fn[2]
    assert _compile.get_kernel(TEST_SOURCE, "ra_test_cache_plain")[2] == "ra_test_cache_plain"
    (entries, _), = K.info().values()
    assert entries == 2                                   # one module per instantiation, one for extern "C"
    monkeypatch.setattr(_compile, "_modules", {})        # a new process: nothing in memory
    monkeypatch.setattr(_compile, "nvrtc_compile", lambda *a: pytest.fail("compiled again"))
    again = _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")
    assert again == fn
    assert _compile.get_kernel(TEST_SOURCE, "ra_test_cache_plain")[2] == "ra_test_cache_plain"


def test_the_runtime_options_are_cupys_order_for_the_device(device):
    opts = _compile.runtime_options(device)
    assert opts[:len(_compile.options(device.target))] == _compile.options(device.target)
    assert opts[-3:] == ("-ftz=true", "-arch=sm_90", "--device-as-default-execution-space")


def test_a_corrupt_entry_is_rebuilt(device, monkeypatch):
    _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")
    folder = K.root() / "sm_90"
    for path in folder.glob("*.bin"):
        path.write_bytes(path.read_bytes()[:100])
    monkeypatch.setattr(_compile, "_modules", {})
    with pytest.warns(K.KernelCacheWarning):
        fn = _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")
    assert fn[2].startswith("_Z")
    monkeypatch.setattr(_compile, "_modules", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")


def test_without_a_writable_cache_kernels_still_load(device, monkeypatch, cache_dir):
    cache_dir.parent.mkdir(parents=True, exist_ok=True)
    cache_dir.write_text("not a folder")
    with pytest.warns(K.KernelCacheWarning, match="cannot write"):
        fn = _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>")
    assert os.path.exists(fn[1]) and not fn[1].startswith(str(cache_dir))


def test_a_binary_the_driver_refuses_is_compiled_by_cupy_instead(device, monkeypatch):
    class Refusing(_RawModule):
        def get_function(self, name):
            if self.path is not None:
                raise _DriverError("CUDA_ERROR_INVALID_IMAGE")
            return ("cupy", name)

    monkeypatch.setattr(backend.cupy(), "RawModule", Refusing)
    with pytest.warns(K.KernelCacheWarning, match="refused"):
        assert _compile.get_kernel(TEST_SOURCE, "ra_test_cache_scale<float>") == ("cupy", "ra_test_cache_scale<float>")


def test_a_compile_error_is_a_kernel_compile_error(device, monkeypatch, tmp_path):
    bad = tmp_path / "bad.hip"
    bad.write_text('extern "C" __global__ void ra_test_bad() { this is not c++; }\n')
    from rocarray._core.errors import KernelCompileError

    with pytest.raises(KernelCompileError, match="sm_90"):
        _compile.get_kernel(str(bad), "ra_test_bad")


@pytest.mark.gpu
def test_on_the_device_a_new_process_loads_every_kernel_without_compiling(tmp_path):
    import subprocess
    import sys

    script = ("import numpy, rocarray as ra\n"
              "from rocarray._core import compile as c\n"
              "if {second}:\n"
              "    c.nvrtc_compile = lambda *a: (_ for _ in ()).throw(AssertionError('compiled again'))\n"
              "x = ra.asarray(numpy.arange(1000, dtype=numpy.float32))\n"
              "assert float(ra.sum(x)) == 499500.0\n")
    env = dict(os.environ, ROCARRAY_CACHE_DIR=str(tmp_path), ROCARRAY_PREBUILT="0")  # the cache, not the shipped
    for second in (False, True):
        proc = subprocess.run([sys.executable, "-c", script.format(second=second)], env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
    assert config.cache_dir() != tmp_path
