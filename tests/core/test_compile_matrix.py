"""The kernel compile matrix: every source and every registered instantiation, for every target.

CPU only. Each ``.hip`` file under ``rocarray/_kernels/`` (after every library registered its
template instantiations) and the test-only ``kernels/prelude_check.hip`` (which calls every helper
of the portability headers) is compiled as one translation unit per target: ``sm_90`` with NVRTC,
``gfx90a`` and ``gfx940`` with hipcc, through :mod:`rocarray._core.offline`, the same code path
``python -m rocarray`` uses. NVRTC runs in its fast-compile mode (``fast_compile``: every
instantiation through the front end, PTX and ptxas, with fewer optimizations, about a fifth of the
time); the optimized sm_90 code is what ``compile-check`` and the GPU runs build. The compiles
start once, in the background, the longest first
(:func:`rocarray._core.offline.start_all`); each (source, target) test waits only for its own
compile, so the run shows progress as compiles finish, and a failure names its source and target.
The tests are ordered like the compiles.

A target is skipped (with the reason) only when its compiler is absent; ``.ci/run`` installs both.
Static rules checked here as well: no ``#include`` anywhere, no raw warp intrinsics or
``warpSize`` outside ``ra_warp.cuh``, every header in ``compile.HEADER_ORDER``, kernel names
``ra_<library>_...``, every registered source present.
"""

import os
import re

import pytest

from rocarray._core import compile as ra_compile
from rocarray._core import offline

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TEST_KERNEL = os.path.join(HERE, "kernels", "prelude_check.hip")


def instantiations_of(path):
    """The ``// instantiate: <name expression>`` lines of a test-only kernel source."""
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^// instantiate: (.+?)\s*$", f.read(), re.M)


ra_compile.register(TEST_KERNEL, instantiations_of(TEST_KERNEL))
offline.import_all_libraries()  # every library registers its instantiations at import

PACKAGE_SOURCES = ra_compile.source_files()
SOURCES = PACKAGE_SOURCES + [TEST_KERNEL]
TARGETS = offline.OFFLINE_TARGETS
#: The matrix checks that every source compiles, not the speed of the code: NVRTC's fast mode.
FAST = True
NVRTC_TARGET = next(t for t in TARGETS if not t.is_hip)
HEADERS = ra_compile.header_files()


def _label(source):
    return os.path.relpath(source, REPO) if os.path.isabs(source) else source


def _library(source):
    """``'rocblas'`` for ``'rocblas/level1.hip'``; ``'test'`` for test-only kernels."""
    return "test" if os.path.isabs(source) else source.split("/")[0]


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# launch bounds (``__launch_bounds__``, the prelude's ``RA_LAUNCH_BOUNDS`` or a source's own
# ``RA_<FAMILY>_LAUNCH_BOUNDS``) whose arguments may hold one level of parentheses (a template-dependent bound such
# as ``(ra_plan<T, U>::BLOCKS)`` is parenthesized so its comma stays inside one macro argument)
_LAUNCH_BOUNDS = r"(?:(?:__launch_bounds__|RA_\w*LAUNCH_BOUNDS)\s*\((?:[^()]|\([^()]*\))*\)\s*)?"
_KERNEL_RE = re.compile(
    r"(?P<head>RA_KERNEL|extern\s+\"C\"\s+__global__|__global__)\s+" + _LAUNCH_BOUNDS
    + r"void\s+" + _LAUNCH_BOUNDS + r"(?P<name>\w+)\s*\("
)


def kernels_in(text):
    """``(plain, templated, mangled)`` kernel names of a source: ``extern "C"`` kernels,
    ``__global__`` templates, and non-template ``__global__`` functions without ``extern "C"``."""
    plain, templated, mangled = set(), set(), set()
    text = _strip_comments(text)
    for m in _KERNEL_RE.finditer(text):
        preceding = text[max(0, m.start() - 400):m.start()]
        name = m.group("name")
        if m.group("head") != "__global__" or re.search(r"extern\s+\"C\"\s*$", preceding):
            plain.add(name)
        elif re.search(r"template\s*<[^;{}]*>\s*$", preceding):
            templated.add(name)
        else:
            mangled.add(name)
    return plain, templated, mangled


def _template_base(expression):
    return expression.split("<", 1)[0].strip()


def _param_id(value):
    if isinstance(value, offline.Target):
        return value.arch
    return _label(value)


# --------------------------------------------------------------------------------------------
# the compiles: once per module, all targets in parallel
# --------------------------------------------------------------------------------------------

class _Matrix:
    """``matrix[(source, arch)]``: the ``CompileResult`` or ``KernelCompileError`` of one compile,
    waiting for it (every compile was started when the fixture was made)."""

    def __init__(self):
        self.futures, _skipped, self.pool = offline.start_all(targets=TARGETS, sources=SOURCES, fast_compile=FAST)

    def __getitem__(self, key):
        result, failure = self.futures[key].result()
        return result if failure is None else failure[2]


@pytest.fixture(scope="module")
def matrix():
    """The compile matrix, started in the background for every target with a compiler."""
    m = _Matrix()
    yield m
    m.pool.shutdown(wait=False, cancel_futures=True)


def _require_compiler(target):
    why = offline.missing_compiler(target)
    if why:
        pytest.skip(f"{target.arch}: compiler absent: {why}")


def _result(matrix, source, target):
    _require_compiler(target)
    outcome = matrix[(source, target.arch)]
    if isinstance(outcome, Exception):
        pytest.fail(f"{_label(source)} does not compile for {target.arch}:\n{outcome.log}", pytrace=False)
    return outcome


#: (source, target) pairs in the order the compiles start: the longest first.
PAIRS = sorted(((s, t) for t in TARGETS for s in SOURCES), key=lambda p: -offline.estimated_cost(*p, fast_compile=FAST))


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{_label(s)}-{t.arch}" for s, t in PAIRS])
def test_source_compiles_for_target(matrix, source, target):
    result = _result(matrix, source, target)
    assert result.binary, f"{_label(source)} for {target.arch}: empty binary"
    assert result.names == ra_compile.registered(source)


@pytest.mark.parametrize("source,target", PAIRS, ids=[f"{_label(s)}-{t.arch}" for s, t in PAIRS])
def test_every_kernel_is_in_the_binary(matrix, source, target):
    """Each ``extern "C"`` kernel, and each registered instantiation under its NVRTC-lowered
    (Itanium-mangled) name, is a kernel symbol of the binary built for ``target``. Clang and NVRTC
    mangle alike, so this proves the AMD code objects hold every instantiation the library launches.
    """
    result = _result(matrix, source, target)
    plain, _, _ = kernels_in(ra_compile.read_text(source))
    names = ra_compile.registered(source)
    if names:
        _require_compiler(NVRTC_TARGET)
        lowered = _result(matrix, source, NVRTC_TARGET).lowered
        assert sorted(lowered) == sorted(names)
    else:
        lowered = {}
    # AMD code objects name each kernel's descriptor '<symbol>.kd'; a cubin names the symbol.
    suffix = b".kd\0" if target.is_hip else b"\0"
    symbols = {name: name for name in plain}
    symbols.update(lowered)
    missing = sorted(expr for expr, symbol in symbols.items() if symbol.encode() + suffix not in result.binary)
    assert not missing, f"{_label(source)} for {target.arch}: kernels missing from the binary: {missing}"


def test_compile_matrix_covers_the_test_kernel():
    """The matrix is meaningful even before any library source exists: the test kernel has both
    plain kernels and template instantiations of every helper family."""
    plain, templated, _ = kernels_in(ra_compile.read_text(TEST_KERNEL))
    assert plain >= {"ra_test_ballot", "ra_test_half_bf16", "ra_test_math", "ra_test_strided_offset",
                     "ra_test_atomics"}
    assert templated >= {"ra_test_warp_reduce", "ra_test_block_reduce", "ra_test_shuffles",
                         "ra_test_complex", "ra_test_traits_roundtrip"}
    assert len(ra_compile.registered(TEST_KERNEL)) == len(instantiations_of(TEST_KERNEL)) > 0


# --------------------------------------------------------------------------------------------
# static rules (no compiler needed)
# --------------------------------------------------------------------------------------------

ALL_FILES = [("source", s) for s in SOURCES] + [("header", h) for h in HEADERS]


def _text(kind, name):
    return ra_compile.read_text(name if kind == "source" else f"include/{name}")


def _file_id(item):
    return _label(item[1])


def test_every_registered_source_exists():
    for source, names in ra_compile.registered().items():
        assert names, f"{source}: registered with no instantiations"
        if os.path.isabs(source):
            assert os.path.isfile(source), source
        else:
            assert source in PACKAGE_SOURCES, f"{source} is registered but is not a .hip file under _kernels/"


def test_every_header_is_in_header_order():
    assert sorted(HEADERS) == sorted(ra_compile.HEADER_ORDER)
    assert len(set(ra_compile.HEADER_ORDER)) == len(ra_compile.HEADER_ORDER)


@pytest.mark.parametrize("item", ALL_FILES, ids=_file_id)
def test_no_include_lines(item):
    """CuPy's hiprtc path deletes ``#include`` lines: sources and headers must not have any."""
    lines = [line for line in _text(*item).splitlines() if re.match(r"\s*#\s*include\b", line)]
    assert not lines, f"{_label(item[1])} has #include lines: {lines}"


_RAW_WARP = re.compile(
    r"\b(__shfl\w*|__ballot\w*|__activemask|__syncwarp|__any_sync|__all_sync|__match_\w+|__lane_id|"
    r"warpSize)\b"
)
_LITERAL_LANES = re.compile(r"threadIdx\.x\s*(?:[%/]\s*32\b|&\s*31\b|>>\s*5\b)")


@pytest.mark.parametrize("item", [i for i in ALL_FILES if i[1] != "ra_warp.cuh"], ids=_file_id)
def test_no_raw_warp_intrinsics_or_literal_warp_size(item):
    """Warp collectives go through ``ra_warp.cuh`` (64-bit masks, ``RA_WARP_SIZE`` lanes): a raw
    ``__shfl_sync``/``__ballot`` or ``warpSize`` elsewhere would be wrong on wave64 or one vendor."""
    text = _strip_comments(_text(*item))
    raw = sorted(set(_RAW_WARP.findall(text)))
    assert not raw, f"{_label(item[1])} uses raw warp intrinsics {raw}; use the ra_warp.cuh helpers"
    literal = _LITERAL_LANES.findall(text)
    assert not literal, f"{_label(item[1])} hard-codes a warp of 32 lanes: {literal}; use RA_WARP_SIZE"


def test_kernel_names_are_found_behind_template_dependent_launch_bounds():
    text = (
        "template <typename T, typename U>\n"
        "__global__ void __launch_bounds__(256, (ra_x_plan<T, U>::BLOCKS)) ra_x_scan(const T* a) {}\n"
        "RA_KERNEL void RA_LAUNCH_BOUNDS(128) ra_x_plain(int n) {}\n"
        "template <int S>\n__global__ void __launch_bounds__(256, 2) ra_x_tile(float* c) {}\n"
    )
    assert kernels_in(text) == ({"ra_x_plain"}, {"ra_x_scan", "ra_x_tile"}, set())


@pytest.mark.parametrize("source", SOURCES, ids=_param_id)
def test_kernel_names_carry_the_library_prefix(source):
    prefix = f"ra_{_library(source)}_"
    plain, templated, mangled = kernels_in(ra_compile.read_text(source))
    assert plain | templated, f"{_label(source)} defines no kernel"
    assert not mangled, (
        f"{_label(source)}: non-template kernels must be extern \"C\" (RA_KERNEL) so they can be "
        f"found by name: {sorted(mangled)}"
    )
    bad = sorted(n for n in plain | templated if not n.startswith(prefix))
    assert not bad, f"{_label(source)}: kernel names must start with {prefix!r}: {bad}"
    for expression in ra_compile.registered(source):
        base = _template_base(expression)
        assert base.startswith(prefix), f"registered {expression!r} must start with {prefix!r}"
        assert base in templated, f"registered {expression!r} names no __global__ template of {_label(source)}"
