"""``ra.compile_check``: a user's source compiled offline for sm_90 / gfx90a / gfx940 (CPU only).

A target whose compiler is not installed is skipped by the tests that need it (CI has all three).
"""

import pathlib

import pytest

import rocarray as ra
from rocarray._core import offline
from rocarray._user.compile_check import CompileCheckResult, TargetResult

TARGETS = [t.arch for t in offline.OFFLINE_TARGETS]
PRESENT = [t.arch for t in offline.OFFLINE_TARGETS if not offline.missing_compiler(t)]

GOOD = '''
extern "C" __global__ void scale(float* x, float a, long long n) {
    long long i = ra_global_thread_id();
    if (i < n) x[i] = ra_shfl_xor(x[i], 1) * a + (float)ra_popc64(ra_ballot(x[i] > 0.0f));
}
'''
# Each target sees its own defines: the assertions fail to compile where they are wrong.
DEFINES = '''
#if defined(RA_HIP)
static_assert(RA_WARP_SIZE == 64, "CDNA is wave64");
#else
static_assert(RA_WARP_SIZE == 32 && RA_CUDA_ARCH == 900, "sm_90 is warp32");
#endif
#ifndef USER_N
#error "USER_N comes from the options"
#endif
extern "C" __global__ void k(int* out) { out[0] = USER_N; }
'''
BROKEN = 'extern "C" __global__ void k(float* x) {\n    x[0] = ra_no_such_helper_xyz(1);\n}\n'


def need(target):
    why = offline.missing_compiler(next(t for t in offline.OFFLINE_TARGETS if t.arch == target))
    if why:
        pytest.skip(f"{target}: compiler absent: {why}")


@pytest.fixture(scope="module")
def good():
    """The good source compiled once for every target."""
    return ra.compile_check(GOOD)


def test_result_has_one_row_per_target_in_order(good):
    assert isinstance(good, CompileCheckResult)
    assert [r.target for r in good] == TARGETS and len(good) == 3
    assert all(isinstance(r, TargetResult) for r in good)
    assert good["gfx90a"] is good[1]
    assert [(r.vendor, r.warp_size) for r in good] == [("cuda", 32), ("hip", 64), ("hip", 64)]
    with pytest.raises(KeyError):
        good["gfx942"]


@pytest.mark.parametrize("target", TARGETS)
def test_a_portable_source_compiles_for_each_target(good, target):
    need(target)
    r = good[target]
    assert r.ok and r.status == "ok" and r.log == "" and r.seconds > 0


def test_the_report_is_a_table(good):
    text = str(good)
    assert repr(good) == text
    lines = text.splitlines()
    assert lines[0].startswith("compile check of source: ok: ")
    assert lines[1].split() == ["target", "vendor", "warp", "status", "time"]
    for target in PRESENT:
        assert any(line.split()[:4] == [target, good[target].vendor, str(good[target].warp_size), "ok"]
                   for line in lines)
    assert good.ok and set(good.compiled) == set(PRESENT) and good.failed == ()


@pytest.mark.parametrize("target", TARGETS)
def test_the_defines_of_each_target_and_the_options_reach_the_compiler(target):
    need(target)
    assert ra.compile_check(DEFINES, targets=target, options=["-DUSER_N=3"])[0].ok
    failed = ra.compile_check(DEFINES, targets=[target])[0]
    assert failed.status == "error" and "USER_N comes from the options" in failed.log


@pytest.mark.parametrize("target", TARGETS)
def test_a_compile_error_shows_the_compilers_log_at_the_sources_own_line(target):
    need(target)
    result = ra.compile_check(BROKEN, targets=(target,), label="user.cu")
    r = result[0]
    assert not result.ok and result.failed == (target,) and r.status == "error"
    assert "ra_no_such_helper_xyz" in r.log
    assert "user.cu(2)" in r.log or "user.cu:2:" in r.log  # the source's line, not the pasted text's
    text = str(result)
    assert f"{target} error:" in text and "ra_no_such_helper_xyz" in text and "FAILED: " + target in text


def test_name_expressions_are_instantiated():
    need("sm_90")
    source = "template <typename T, int N> __global__ void fill(T* x) { x[threadIdx.x] = T(N); }\n"
    r = ra.compile_check(source, targets=["sm_90"], name_expressions="fill<float, 4>")[0]
    assert r.ok and r.lowered == {"fill<float, 4>": "_Z4fillIfLi4EEvPT_"}
    for target in PRESENT:
        assert ra.compile_check(source, targets=[target], name_expressions=["fill<double, 2>"])[0].ok


def test_an_include_line_is_an_error_for_every_target_without_compiling():
    result = ra.compile_check('// #include <commented.h> is fine\n#include <cuda_fp16.h>\n'
                              'extern "C" __global__ void k() {}\n', label="inc.cu")
    assert result.failed == tuple(TARGETS) and result.compiled == () and result.skipped == ()
    for r in result:
        assert r.seconds == 0.0
        assert r.log.startswith("inc.cu:2: #include <cuda_fp16.h>: rocarray sources never #include")
        assert "hiprtc drops the line" in r.log and "commented" not in r.log


def test_an_include_in_a_comment_or_string_is_not_one():
    need("sm_90")
    source = '/*\n#include <x.h>\n*/\nextern "C" __global__ void k(const char** s) { s[0] = "#include <y>"; }\n'
    assert ra.compile_check(source, targets="sm_90").ok


def test_a_missing_compiler_is_a_skip_with_the_reason(monkeypatch):
    monkeypatch.setattr(offline, "_nvrtc", lambda: (None, "the NVRTC library is not installed: pip install it"))
    monkeypatch.setenv("ROCARRAY_HIPCC", "/nonexistent/hipcc")
    result = ra.compile_check(GOOD)
    assert [r.status for r in result] == ["skipped"] * 3
    assert result.ok and result.compiled == () and result.skipped == tuple(TARGETS)
    assert result["sm_90"].log == "the NVRTC library is not installed: pip install it"
    assert "ROCARRAY_HIPCC=/nonexistent/hipcc is not an executable file" in result["gfx940"].log
    text = str(result)
    assert "sm_90 skipped: the NVRTC library is not installed" in text
    assert "skipped: sm_90, gfx90a, gfx940" in text.splitlines()[0]


def test_a_path_is_read_and_names_the_source(tmp_path):
    need("sm_90")
    path = tmp_path / "my_kernel.cu"
    path.write_text(BROKEN, encoding="utf-8")
    result = ra.compile_check(pathlib.Path(path), targets="sm_90")
    assert result.label == "my_kernel.cu" and "my_kernel.cu(2)" in result[0].log


def test_targets_are_checked_and_deduplicated():
    with pytest.raises(ValueError, match="unknown target 'gfx942'.*sm_90, gfx90a, gfx940"):
        ra.compile_check(GOOD, targets=["sm_90", "gfx942"])
    assert [r.target for r in ra.compile_check(GOOD, targets=["gfx940", "sm_90", "gfx940"])] == ["gfx940", "sm_90"]
    assert len(ra.compile_check(GOOD, targets=())) == 0


@pytest.mark.parametrize("bad", [dict(source=b"bytes"), dict(source=GOOD, options=[1]),
                                 dict(source=GOOD, name_expressions=3)])
def test_bad_argument_types(bad):
    with pytest.raises(TypeError):
        ra.compile_check(**bad)
