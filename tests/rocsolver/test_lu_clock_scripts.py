"""``scripts/lu_step_clock.py`` and ``scripts/lu_column_chain.py`` without a GPU: the step clock's
marks still land in the kernels they time (the anchors track ``lu_block.hip``), and the marked
sources and the chain microbenchmark compile for sm_90 with NVRTC."""

import importlib.util
import os
import re

import pytest

from rocarray._core import compile as _compile, offline

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"rocarray_script_{name}", os.path.join(SCRIPTS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def step_clock():
    return _load("lu_step_clock")


def _marks(text, macro, start, stop):
    """The uses of ``macro`` (not its definition), and how many lie between the first ``start``
    and the next ``stop`` after it (the end of the text when ``stop`` is None)."""
    uses = [i for i in range(len(text)) if text.startswith(macro + "(", i)][1:]
    begin = text.index(start)
    end = len(text) if stop is None else text.index(stop, begin)
    return len(uses), sum(begin < i < end for i in uses)


def test_step_marks_are_in_the_wide_kernels_body(step_clock):
    text = step_clock._instrumented(_compile.read_text(step_clock.SOURCE))
    total, inside = _marks(text, "RA_STEP_CLOCK", "RA_DEVICE void ra_lub_getrf(", "void ra_rocsolver_getrf_block(")
    assert total == inside == 7


def test_flow_marks_are_in_the_wide_kernels_body(step_clock):
    text = step_clock._instrumented_flow(_compile.read_text(step_clock.SOURCE))
    total, inside = _marks(text, "RA_STEP_CLOCK", "RA_DEVICE void ra_lub_getrf(", "void ra_rocsolver_getrf_block(")
    assert total == inside == 5


def test_panel_marks_are_in_the_panel_kernel(step_clock):
    text = step_clock._instrumented_panel(_compile.read_text(step_clock.SOURCE))
    total, inside = _marks(text, "RA_PANEL_CLOCK", "void ra_rocsolver_getrf_panel(", "ra_lub_back_substitute<T, N>(")
    assert total == inside == 6


@pytest.mark.parametrize("kind,total,apply,kernel", [
    ("split", 21, "void ra_lus_apply(", "void ra_rocsolver_getrf_block_split("),
    ("compact", 21, "void ra_luc_apply(", "void ra_rocsolver_getrf_block_compact("),
])
def test_split_and_compact_marks_are_in_their_kernels_and_functions(step_clock, kind, total, apply, kernel):
    mark = step_clock._instrumented_split if kind == "split" else step_clock._instrumented_compact
    text = mark(_compile.read_text(step_clock.SOURCE))
    assert _marks(text, "RA_SPLIT_CLOCK", "RA_DEVICE void ra_lus_factor(", "RA_DEVICE void ra_lus_sync(") == (total, 4)
    assert _marks(text, "RA_SPLIT_CLOCK", apply, kernel)[1] == 8   # the whole block's parts, the crew's
    # the kernel's phase marks and its system's stages, the last past the back substitution
    _, in_kernel = _marks(text, "RA_SPLIT_CLOCK", kernel,
                          "ra_rocsolver_getrf_block_compact" if kind == "split" else None)
    assert in_kernel == 9
    block = step_clock.COMPACT_BLOCK if kind == "compact" else step_clock.BLOCK
    assert f"blockIdx.x == {block}" in text


def _compile_sm90(text, names):
    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not available here")
    target = offline.OFFLINE_TARGETS[0]
    opts = offline._nvrtc_options(target, [])
    lowered, binary = _compile.nvrtc_compile("rocsolver/lu_clock_check.hip", target, text, opts, names)
    assert set(lowered) == set(names) and binary


@pytest.mark.parametrize("kind", ["wide", "flow", "panel", "split", "compact"])
def test_no_mark_takes_a_loops_unroll_pragma(step_clock, kind):
    # a mark right after "#pragma unroll" takes the pragma (its do-while is a loop) and leaves the
    # loop below rolled: register arrays indexed at run time, in local memory, a slower kernel
    mark = {"wide": step_clock._instrumented, "flow": step_clock._instrumented_flow,
            "panel": step_clock._instrumented_panel, "split": step_clock._instrumented_split,
            "compact": step_clock._instrumented_compact}[kind]
    text = mark(_compile.read_text(step_clock.SOURCE))
    assert not re.search(r"#pragma unroll\s*\n\s*RA_(STEP|PANEL|SPLIT)_CLOCK\(", text)
    assert text.count("#pragma unroll") == _compile.read_text(step_clock.SOURCE).count("#pragma unroll")


@pytest.mark.parametrize("kind", ["wide", "flow", "panel", "split", "split window", "compact"])
def test_marked_kernels_compile_for_sm90(step_clock, kind):
    mark = {"wide": step_clock._instrumented, "flow": step_clock._instrumented_flow,
            "panel": step_clock._instrumented_panel, "split": step_clock._instrumented_split,
            "split window": step_clock._instrumented_split, "compact": step_clock._instrumented_compact}[kind]
    name = {"wide": "ra_rocsolver_getrf_block_wide_redux<double, 128, true>",
            "flow": "ra_rocsolver_getrf_block_wide_flow<double, 128, true, true>",
            "panel": "ra_rocsolver_getrf_panel<double, 128, true>",
            "split": "ra_rocsolver_getrf_block_split<double, 128, true, false>",
            "split window": "ra_rocsolver_getrf_block_split<double, 128, true, true>",
            "compact": "ra_rocsolver_getrf_block_compact<double, 128, false>"}[kind]
    _compile_sm90(_compile.header_text() + mark(_compile.read_text(step_clock.SOURCE)), [name])


def test_column_chain_compiles_for_sm90():
    chain = _load("lu_column_chain")
    names = [f"ra_lu_column_chain<{s}, {shape}>" for s in range(len(chain.SEARCHES)) for shape in range(len(chain.SHAPES))]
    _compile_sm90(_compile.user_source("lu_column_chain", chain.SOURCE), names)
