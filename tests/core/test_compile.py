"""The compile layer: target options, header pasting, the instantiation registry, compile errors.

CPU tests, except the last two (a real device build and a real device compile error).
"""

import os
import re

import pytest

from rocarray import KernelCompileError
from rocarray._core import compile as ra_compile
from rocarray._core import kernel_cache as K
from rocarray._core import offline
from rocarray._core.backend import Target

SM90 = Target("cuda", "sm_90", 32)
GFX90A = Target("hip", "gfx90a", 64)
GFX940 = Target("hip", "gfx940", 64)
GFX942 = Target("hip", "gfx942", 64)
GFX1100 = Target("hip", "gfx1100", 32)

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_KERNEL = os.path.join(HERE, "kernels", "prelude_check.hip")

BROKEN = """
RA_KERNEL void ra_test_broken(float* out) {
    out[0] = ra_no_such_helper_xyz(1.0f);
}
"""


def defines(target):
    """``{'RA_WARP_SIZE': '32', ...}`` from the ``-D`` options of ``target``."""
    out = {}
    for opt in ra_compile.options(target):
        if opt.startswith("-D"):
            name, _, value = opt[2:].partition("=")
            out[name] = value
    return out


@pytest.fixture
def clean_registry(monkeypatch):
    """A private, empty instantiation registry (the real one is process-wide)."""
    monkeypatch.setattr(ra_compile, "_registry", {})
    return ra_compile


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    return tmp_path


# --------------------------------------------------------------------------------------------
# options(target)
# --------------------------------------------------------------------------------------------

def test_options_for_sm90_describe_cuda_warp32_arch900():
    d = defines(SM90)
    assert d["RA_WARP_SIZE"] == "32"
    assert d["RA_CUDA"] == "1" and "RA_HIP" not in d
    assert d["RA_CUDA_ARCH"] == "900"
    assert d["RA_ARCH_SM_90"] == "1"
    assert "RA_AMD_MFMA" not in d and "RA_AMD_CDNA3" not in d
    assert "-std=c++17" in ra_compile.options(SM90)


def test_options_for_sm90_select_the_architecture_specific_target():
    # wgmma exists only in sm_90a; other architectures keep CuPy's generic -arch alone
    assert "-arch=sm_90a" in ra_compile.options(SM90)
    assert not any(o.startswith("-arch") for o in ra_compile.options(Target("cuda", "sm_80", 32)))
    assert not any(o.startswith("-arch") for o in ra_compile.options(GFX90A))


@pytest.mark.parametrize("target", [GFX90A, GFX940, GFX942], ids=lambda t: t.arch)
def test_options_for_cdna_describe_hip_wave64_with_mfma(target):
    d = defines(target)
    assert d["RA_WARP_SIZE"] == "64"
    assert d["RA_HIP"] == "1" and "RA_CUDA" not in d and "RA_CUDA_ARCH" not in d
    assert d["RA_AMD_MFMA"] == "1"
    assert d[f"RA_ARCH_{target.arch.upper()}"] == "1"
    assert ("RA_AMD_CDNA3" in d) == (target.arch != "gfx90a")


def test_options_for_rdna_have_warp32_and_no_mfma():
    d = defines(GFX1100)
    assert d["RA_WARP_SIZE"] == "32" and d["RA_HIP"] == "1"
    assert "RA_AMD_MFMA" not in d and "RA_AMD_CDNA3" not in d


def test_options_take_the_warp_size_from_the_target_not_the_vendor():
    assert defines(Target("hip", "gfx942", 64))["RA_WARP_SIZE"] == "64"
    assert defines(Target("hip", "gfx942", 32))["RA_WARP_SIZE"] == "32"


# --------------------------------------------------------------------------------------------
# sources and header pasting
# --------------------------------------------------------------------------------------------

def test_header_text_pastes_every_header_in_header_order():
    text = ra_compile.header_text()
    positions = [text.index(f"// ---- rocarray header {name} ----") for name in ra_compile.HEADER_ORDER]
    assert positions == sorted(positions)
    assert ra_compile.HEADER_ORDER[0] == "ra_prelude.cuh"  # defines what the others use
    for name in ra_compile.HEADER_ORDER:
        body = ra_compile.read_text(f"include/{name}").replace("#pragma once\n", "")
        assert body.strip() in text
    assert "#pragma once" not in text


@pytest.mark.parametrize("source", ra_compile.source_files() + [TEST_KERNEL], ids=os.path.basename)
def test_full_source_is_headers_then_source_without_includes(source):
    text = ra_compile.full_source(source)
    assert text.startswith(ra_compile.header_text())
    assert text.endswith(ra_compile.read_text(source))
    assert not re.search(r"^\s*#\s*include\b", text, re.M)


def test_source_and_header_listings():
    for source in ra_compile.source_files():
        library, _, name = source.partition("/")
        assert library and library != "include" and name.endswith(".hip") and "/" not in name
    assert ra_compile.header_files() == sorted(ra_compile.HEADER_ORDER)


def test_read_text_takes_an_absolute_path_for_sources_outside_the_package(tmp_path):
    path = tmp_path / "k.hip"
    path.write_text("// hello\n", encoding="utf-8")
    assert ra_compile.read_text(str(path)) == "// hello\n"
    assert ra_compile.full_source(str(path)).endswith("// hello\n")


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------

def test_register_and_registered(clean_registry):
    clean_registry.register("rocblas/fake.hip", ["ra_rocblas_f<float>", "ra_rocblas_f<double>"])
    clean_registry.register("rocblas/fake.hip", ("ra_rocblas_f<float>",))  # duplicates collapse
    clean_registry.register("prim/fake.hip", iter(["ra_prim_g<int, 4>"]))
    assert clean_registry.registered("rocblas/fake.hip") == ("ra_rocblas_f<double>", "ra_rocblas_f<float>")
    assert clean_registry.registered("nothing/here.hip") == ()
    assert clean_registry.registered() == {
        "rocblas/fake.hip": ("ra_rocblas_f<double>", "ra_rocblas_f<float>"),
        "prim/fake.hip": ("ra_prim_g<int, 4>",),
    }


def test_get_kernel_refuses_an_unregistered_template_before_touching_a_device(clean_registry):
    clean_registry.register("rocblas/fake.hip", ["ra_rocblas_f<float>"])
    with pytest.raises(LookupError, match=r"ra_rocblas_f<double> is not registered for rocblas/fake.hip"):
        clean_registry.get_kernel("rocblas/fake.hip", "ra_rocblas_f<double>")


def test_import_all_libraries_returns_the_registry():
    from rocarray._core import offline

    assert offline.import_all_libraries() == ra_compile.registered()


# --------------------------------------------------------------------------------------------
# compile errors
# --------------------------------------------------------------------------------------------

def test_compile_error_carries_kernel_target_and_log(cache_dir, monkeypatch):
    monkeypatch.delenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", raising=False)
    err = ra_compile.compile_error("rocblas/level1.hip", "ra_rocblas_dot<float>", GFX942, "error: boom", "src")
    assert isinstance(err, KernelCompileError) and isinstance(err, RuntimeError)
    assert err.kernel == "ra_rocblas_dot<float> (rocblas/level1.hip)"
    assert err.target == "gfx942"
    assert err.log == "error: boom"
    assert err.source_path is None
    assert "ra_rocblas_dot<float>" in str(err) and "gfx942" in str(err) and "error: boom" in str(err)
    assert not (cache_dir / "failed-sources").exists()


def test_dump_source_on_error_writes_the_full_source(cache_dir, monkeypatch):
    monkeypatch.setenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", "1")
    err = ra_compile.compile_error("rocblas/level1.hip", "ra_rocblas_dot<float>", SM90, "log", "the source")
    assert err.source_path is not None
    path = os.path.realpath(err.source_path)
    assert path.startswith(os.path.realpath(cache_dir / "failed-sources"))
    with open(path, encoding="utf-8") as f:
        assert f.read() == "the source"
    assert "sm_90" in os.path.basename(path)
    assert err.source_path in str(err)


def test_an_unwritable_dump_folder_does_not_hide_the_compile_log(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(blocker))
    monkeypatch.setenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", "1")
    err = ra_compile.compile_error("rocblas/level1.hip", "k", SM90, "error: the real one", "src")
    assert err.source_path is None
    assert err.log.startswith("error: the real one") and "could not write the source" in err.log


@pytest.fixture
def broken_source(tmp_path):
    path = tmp_path / "broken.hip"
    path.write_text(BROKEN, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("target", offline.OFFLINE_TARGETS, ids=lambda t: t.arch)
def test_broken_source_compiled_offline_raises_with_the_compiler_log(target, broken_source, cache_dir,
                                                                     monkeypatch):
    why = offline.missing_compiler(target)
    if why:
        pytest.skip(f"{target.arch}: compiler absent: {why}")
    monkeypatch.setenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", "1")
    with pytest.raises(KernelCompileError) as info:
        offline.compile_source(broken_source, target)
    err = info.value
    assert err.target == target.arch
    assert broken_source in err.kernel
    assert "ra_no_such_helper_xyz" in err.log
    with open(err.source_path, encoding="utf-8") as f:
        assert f.read() == ra_compile.full_source(broken_source)


@pytest.mark.parametrize("target", offline.OFFLINE_TARGETS, ids=lambda t: t.arch)
def test_offline_compile_all_reports_failures_instead_of_raising(target, broken_source):
    if offline.missing_compiler(target):
        pytest.skip(f"{target.arch}: compiler absent: {offline.missing_compiler(target)}")
    results, failures, skipped = offline.compile_all(targets=[target], sources=[broken_source])
    assert results == [] and skipped == []
    [(source, failed_target, err)] = failures
    assert source == broken_source and failed_target == target and "ra_no_such_helper_xyz" in err.log


# --------------------------------------------------------------------------------------------
# the runtime path on a device
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_runtime_compile_error_is_a_kernel_compile_error(broken_source, cache_dir, monkeypatch):
    from rocarray._core import backend

    monkeypatch.setenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", "1")
    info = backend.device_info()
    with pytest.raises(KernelCompileError) as exc:
        ra_compile.get_kernel(broken_source, "ra_test_broken")
    assert exc.value.target == info.arch
    assert "ra_no_such_helper_xyz" in exc.value.log
    assert os.path.exists(exc.value.source_path)
    assert (broken_source, info.id) not in ra_compile.compiled_modules()  # failures are not memoized


@pytest.mark.gpu
def test_runtime_modules_are_memoized_per_source_and_device(tmp_path):
    from rocarray._core import backend

    path = tmp_path / "ok.hip"
    path.write_text("RA_KERNEL void ra_test_ok(float* out) { out[0] = (float)RA_WARP_SIZE; }\n")
    first = ra_compile.get_module(str(path))
    assert ra_compile.get_module(str(path)) is first
    assert (str(path), backend.device_info().id) in ra_compile.compiled_modules()
    import cupy

    out = cupy.zeros(1, cupy.float32)
    ra_compile.get_kernel(str(path), "ra_test_ok")((1,), (1,), (out,))
    assert float(out[0]) == backend.device_info().warp_size


# --------------------------------------------------------------------------------------------
# the offline cache: unchanged compiles answered between runs, any change compiles again
# --------------------------------------------------------------------------------------------

SMALL = """
RA_KERNEL void RA_LAUNCH_BOUNDS(64) ra_test_cache_plain(float* out) { out[threadIdx.x] = (float)RA_WARP_SIZE; }
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(64) ra_test_cache_tmpl(T* out) { out[threadIdx.x] = (T)SMALL_VALUE; }
"""
SMALL_NAMES = ("ra_test_cache_tmpl<float>",)


@pytest.fixture
def counted_compiles(monkeypatch):
    """Counts the compiler runs of :func:`offline.compile_text` (the real compiler still runs)."""
    calls = []
    real = offline._run_compiler

    def run(label, target, text, names, opts):
        calls.append((label, target.arch, text, tuple(names), tuple(opts)))
        return real(label, target, text, names, opts)
    monkeypatch.setattr(offline, "_run_compiler", run)
    return calls


def _small(target, text=SMALL, names=SMALL_NAMES, value="1", **kwargs):
    return offline.compile_text("small.hip", ra_compile.header_text() + text, target, names,
                                [f"-DSMALL_VALUE={value}"], **kwargs)


@pytest.mark.parametrize("target", offline.OFFLINE_TARGETS, ids=lambda t: t.arch)
def test_an_unchanged_compile_is_answered_from_the_offline_cache(target, cache_dir, counted_compiles, monkeypatch):
    _require_offline_compiler(target)
    monkeypatch.delenv("ROCARRAY_OFFLINE_CACHE", raising=False)
    first = _small(target)
    assert not first.cached and len(counted_compiles) == 1
    second = _small(target)
    assert second.cached and len(counted_compiles) == 1
    assert second.binary == first.binary and second.lowered == first.lowered and second.names == first.names
    assert list((cache_dir / "kernels" / f"offline-{target.arch}").glob("*.json"))
    if not target.is_hip:
        assert sorted(second.lowered) == list(SMALL_NAMES) and second.lowered[SMALL_NAMES[0]].startswith("_Z")


def test_fast_compile_adds_nvrtc_s_fast_mode_where_the_version_has_it():
    base = offline._nvrtc_options(SM90, ("-DX=1",), False, (13, 5))
    fast = offline._nvrtc_options(SM90, ("-DX=1",), True, (13, 5))
    assert offline.NVRTC_FAST_COMPILE not in base
    assert fast == base[:-1] + [offline.NVRTC_FAST_COMPILE, "-DX=1"]  # the caller's options stay last
    assert offline._nvrtc_options(SM90, (), True, (12, 6)) == offline._nvrtc_options(SM90, (), False, (12, 6))


def test_fast_compile_drops_hipcc_s_optimizations_and_keeps_the_caller_s_options_last():
    gfx = next(t for t in offline.OFFLINE_TARGETS if t.is_hip)
    base = offline._hipcc_options(gfx, ("-DX=1",))
    fast = offline._hipcc_options(gfx, ("-DX=1",), True)
    assert "-O3" in base and not set(offline.HIPCC_FAST_COMPILE) & set(base)
    at = base.index("-O3")
    assert fast == base[:at] + list(offline.HIPCC_FAST_COMPILE) + base[at + 1:] and fast[-1] == "-DX=1"


def test_a_fast_compile_builds_every_kernel_and_is_cached_apart(cache_dir, counted_compiles, monkeypatch):
    _require_offline_compiler(SM90)
    monkeypatch.delenv("ROCARRAY_OFFLINE_CACHE", raising=False)
    fast = _small(SM90, fast_compile=True)
    full = _small(SM90)
    assert [offline.NVRTC_FAST_COMPILE in call[4] for call in counted_compiles] == [True, False]
    assert fast.lowered == full.lowered and sorted(fast.lowered) == list(SMALL_NAMES)
    for result in (fast, full):
        for symbol in ("ra_test_cache_plain", fast.lowered[SMALL_NAMES[0]]):
            assert symbol.encode() + b"\0" in result.binary
    assert _small(SM90, fast_compile=True).cached and len(counted_compiles) == 2


def test_a_fast_compile_failure_names_its_source_and_target(broken_source):
    _require_offline_compiler(SM90)
    results, failures, skipped = offline.compile_all(targets=[SM90], sources=[broken_source], fast_compile=True,
                                                     use_cache=False)
    assert results == [] and skipped == []
    [(source, failed_target, err)] = failures
    assert source == broken_source and failed_target == SM90 and err.target == "sm_90"
    assert broken_source in err.kernel and "ra_no_such_helper_xyz" in err.log


@pytest.mark.parametrize("target", offline.OFFLINE_TARGETS, ids=lambda t: t.arch)
def test_a_changed_source_option_name_or_compiler_compiles_again(target, cache_dir, counted_compiles, monkeypatch):
    _require_offline_compiler(target)
    monkeypatch.delenv("ROCARRAY_OFFLINE_CACHE", raising=False)
    _small(target)
    changed = [
        _small(target, text=SMALL + "\n// one more line\n"),        # the source (or a header)
        _small(target, value="2"),                                  # an option
        _small(target, names=SMALL_NAMES + ("ra_test_cache_tmpl<double>",)),  # the instantiations
    ]
    assert [r.cached for r in changed] == [False, False, False] and len(counted_compiles) == 4
    identity = "hipcc_identity" if target.is_hip else "nvrtc_identity"
    real = getattr(offline.offline_cache, identity)
    monkeypatch.setattr(offline.offline_cache, identity, lambda arg: real(arg) + " (another build)")
    assert not _small(target).cached and len(counted_compiles) == 5  # another compiler version
    monkeypatch.setattr(offline.offline_cache, identity, real)
    assert _small(target).cached and len(counted_compiles) == 5


def test_the_cache_keys_name_the_compiler_the_target_and_every_input():
    base = ("nvrtc 13.0 /lib/libnvrtc.so 1 2", SM90, "text", ("a<float>",), ("-DX=1",))
    k = offline.offline_cache.key(*base)
    assert k == offline.offline_cache.key(*base)
    for i, other in enumerate(["nvrtc 13.1 /lib/libnvrtc.so 1 2", GFX1100, "text ", ("a<double>",), ("-DX=2",)]):
        assert offline.offline_cache.key(*base[:i], other, *base[i + 1:]) != k, i
    # the warp size is part of the target: the same arch at another width is another entry
    assert offline.offline_cache.key(base[0], Target("hip", "gfx942", 32), *base[2:]) != \
        offline.offline_cache.key(base[0], GFX942, *base[2:])


def test_hipcc_identity_holds_the_version_output_and_the_resolved_path(tmp_path):
    fake = tmp_path / "hipcc"
    fake.write_text("#!/bin/sh\necho 'HIP version: 9.9.9-fake'\necho 'clang version 99'\n")
    fake.chmod(0o755)
    identity = offline.offline_cache.hipcc_identity(str(fake))
    assert "HIP version: 9.9.9-fake" in identity and "clang version 99" in identity
    assert os.path.realpath(str(fake)) in identity
    fake.write_text("#!/bin/sh\necho 'HIP version: 10.0.0-fake'\n")  # a new build: new size, new answer
    assert "10.0.0-fake" in offline.offline_cache.hipcc_identity(str(fake))


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_the_offline_cache_can_be_bypassed(how, cache_dir, counted_compiles, monkeypatch):
    _require_offline_compiler(SM90)
    _small(SM90)
    if how == "argument":
        again = _small(SM90, use_cache=False)
    else:
        monkeypatch.setenv("ROCARRAY_OFFLINE_CACHE", "0")
        again = _small(SM90)
    assert not again.cached and len(counted_compiles) == 2


def test_a_failed_compile_is_not_remembered(broken_source, cache_dir, counted_compiles):
    _require_offline_compiler(SM90)
    for _ in range(2):
        with pytest.raises(KernelCompileError):
            offline.compile_source(broken_source, SM90)
    assert len(counted_compiles) == 2
    assert not list((cache_dir / "kernels").rglob("*.json"))


def test_a_cached_answer_never_hides_a_missing_compiler(cache_dir, monkeypatch):
    _require_offline_compiler(SM90)
    _small(SM90)
    monkeypatch.setattr(offline, "_nvrtc", lambda: (None, "the NVRTC library is not installed: pip install it"))
    with pytest.raises(RuntimeError, match="NVRTC library is not installed"):
        _small(SM90)


def test_a_damaged_entry_is_compiled_again_with_a_warning(cache_dir, counted_compiles):
    _require_offline_compiler(SM90)
    first = _small(SM90)
    [binary] = (cache_dir / "kernels" / "offline-sm_90").glob("*.bin")
    binary.write_bytes(b"\x7fELF not the compiled binary")
    with pytest.warns(K.KernelCacheWarning):
        again = _small(SM90)
    assert not again.cached and again.binary == first.binary and len(counted_compiles) == 2


def test_identical_compiles_asked_at_once_run_the_compiler_once(cache_dir, monkeypatch):
    import threading
    import time

    calls = []

    def slow(label, target, text, names, opts):
        calls.append(label)
        time.sleep(0.3)
        return {}, b"binary"
    monkeypatch.setattr(offline, "_run_compiler", slow)
    _require_offline_compiler(SM90)
    out = []
    threads = [threading.Thread(target=lambda: out.append(_small(SM90))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and sorted(r.cached for r in out) == [False, True, True]


def _require_offline_compiler(target):
    why = offline.missing_compiler(target)
    if why:
        pytest.skip(f"{target.arch}: compiler absent: {why}")
