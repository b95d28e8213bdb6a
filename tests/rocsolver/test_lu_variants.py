"""``scripts/lu_variants.py``'s candidate patches of ``rocsolver/lu_block.hip`` without a GPU: each
applies to the tree's source, compiles for sm_90 with NVRTC, and on the kernel emulator gives the
split and compact kernels' factors and solutions bit for bit with the tree's kernels and with
the register tile's (the patches change scheduling only), so that the device's A/B
(``scripts/lu_source_ab.py``) times correct kernels."""

import importlib.util
import os

import pytest

from rocarray._core import compile as _compile, offline
from rocarray.rocsolver import _lu_block

import kernel_emu
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulator builds on)
import numpy as np
from conftest import random_array as rand
from test_lu_block import _split_emulator, _tied_stack, assert_switch_matches_the_register_tile, same_bits

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")


@pytest.fixture(scope="module")
def variants():
    path = os.path.join(SCRIPTS, "lu_variants.py")
    spec = importlib.util.spec_from_file_location("rocarray_script_lu_variants", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ALL = [["warp_u12"], ["backsub_unroll"], ["backsub_pipeline"], ["split_stage"],
       ["warp_u12", "backsub_pipeline", "split_stage"]]


@pytest.mark.parametrize("names", ALL, ids="+".join)
def test_variants_apply_and_compile_for_sm90(variants, names):
    tree = _compile.read_text(_lu_block.SOURCE)
    text = variants.apply(tree, names)
    assert text != tree
    if "split_stage" in names:
        assert text.count("(variant split_stage)") == 2
    if "warp_u12" in names:
        assert text.count("ra_lus_solve_u12<T>(") == 2   # ra_lus_apply's and ra_luc_apply's whole-block solve
    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not available here")
    kernels = ["ra_rocsolver_getrf_block_split<double, 128, true, false>",
               "ra_rocsolver_getrf_block_split<float, 128, true, false>",
               "ra_rocsolver_getrf_block_compact<double, 128, false>"]
    target = offline.OFFLINE_TARGETS[0]
    lowered, binary = _compile.nvrtc_compile("rocsolver/lu_variant_check.hip", target,
                                             _compile.header_text() + text, offline._nvrtc_options(target, []),
                                             kernels)
    assert set(lowered) == set(kernels) and binary


def _forget_kernels(request):
    """Every memo of lu_block.hip's compiled kernels: the package's families, the compile layer's
    modules, the fake device's kernel handles and the emulator's kernels (keyed by source name,
    not text)."""
    for family in (_lu_block.WIDE_KERNELS, _lu_block.KERNELS, _lu_block.COMPACT_KERNELS,
                   *_lu_block.SPLIT_KERNELS.values()):
        family._kernels.clear()
    _compile._modules.clear()
    handles = request.getfixturevalue("fake_device").kernel_handles
    for key in [k for k in handles if k[0] == _lu_block.SOURCE]:
        del handles[key]
    for key in [k for k in kernel_emu._kernels if k[0] == _lu_block.SOURCE]:
        del kernel_emu._kernels[key]


def _use_variant(request, monkeypatch, variants, names):
    """The emulator's kernels of lu_block.hip compiled from the tree's text with ``names`` applied
    (until the test ends: then the loaded kernels are forgotten, so later tests compile the tree's)."""
    text = variants.apply(_TREE_TEXT(), names)
    monkeypatch.setattr(_compile, "read_text", lambda rel: text if rel == _lu_block.SOURCE else _PLAIN_READ(rel))
    _forget_kernels(request)
    request.addfinalizer(lambda: _forget_kernels(request))


_PLAIN_READ = _compile.read_text


def _TREE_TEXT():
    return _PLAIN_READ(_lu_block.SOURCE)


def _results(dev, dtype, n):
    """Factors, pivots, info, X and info of a tied stack and a random matrix through the routed
    kernels (the factorization alone and the solve of 3 right-hand sides)."""
    rng = np.random.default_rng(n)
    a = np.concatenate([_tied_stack(rng, dtype, n), rand(rng, (1, n, n), dtype)])
    b = np.concatenate([rng.integers(-5, 6, size=(4, n, 3)).astype(dtype), rand(rng, (1, n, 3), dtype)])
    info = dev.array(np.full(5, 99, np.int32))
    A = dev.array(np.ascontiguousarray(a.swapaxes(1, 2)).reshape(-1))
    ipiv = dev.array(np.full(5 * n, -7, np.int32))
    _lu_block.getrf(n, A, n, n * n, ipiv, n, info, 5)
    X, xinfo = dev.array(np.full((5, n, 3), 7, dtype)), dev.array(np.full(5, 99, np.int32))
    _lu_block.gesv(dev.array(a), dev.array(b), X, xinfo)
    return [np.asarray(v).copy() for v in (A, ipiv, info, X, xinfo)]


# (target, dtype, n, kernel): the split kernel (whole-block solves in its look-ahead and last
# panel) and the compact kernel (spilled at 128, whole at 101) on both lane widths
CASES = [("cuda32", "float64", 128, "split"), ("cuda32", "float64", 97, "split"), ("hip64", "float64", 113, "split"),
         ("cuda32", "float32", 100, "split"), ("cuda32", "float64", 128, "compact"),
         ("cuda32", "float64", 101, "compact"), ("hip64", "float64", 125, "compact")]


@pytest.mark.parametrize("names", ALL, ids="+".join)
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_variants_match_the_tree_and_the_register_tile_bit_for_bit(request, monkeypatch, variants, names, case):
    target, dtype, n, kernel = case
    dev = _split_emulator(request, monkeypatch, target, False)
    name = _lu_block.split_kernel_name
    if kernel == "compact":
        monkeypatch.setattr(_lu_block, "COMPACT", True)
        monkeypatch.setattr(_lu_block, "COMPACT_DTYPES", _lu_block.SPLIT_DTYPES)
        monkeypatch.setattr(_lu_block, "COMPACT_ORDER", _lu_block.SPLIT_ORDER)
        monkeypatch.setattr(_lu_block, "COMPACT_BATCH_PER_SM", 0)
        monkeypatch.setattr(_lu_block, "COMPACT_MAX_GRID", 2)
        name = lambda d, solve: _lu_block.compact_kernel_name(d) if solve else _lu_block.split_kernel_name(d, False)
    else:
        monkeypatch.setattr(_lu_block, "COMPACT", False)
    monkeypatch.setattr(_lu_block, "SPLIT", True)
    tree = _results(dev, dtype, n)
    _use_variant(request, monkeypatch, variants, names)
    for x, y in zip(_results(dev, dtype, n), tree):
        if x.dtype.kind in "fc":
            assert same_bits(x, y)
        else:
            np.testing.assert_array_equal(x, y)
    # (a patch of code the register tile shares, the back substitution, is checked by the tree's
    # results above; this compares the patched kernels with the patched register tile)
    assert_switch_matches_the_register_tile(dev, monkeypatch, "SPLIT", dtype, n, name)
