"""The split strategy of ``csrmv`` (``ra_rocsparse_csrmv_split`` + ``ra_rocsparse_csrmv_fixup``)
run on the CPU through the kernel emulator (tests/kernel_emu.py) on 32-lane warps and 64-lane
wavefronts, against SciPy in float64/complex128 with a backward-error bound, for every value dtype
and both index widths, on matrices built to hit the kernels' edge cases: rows ending exactly on a
chunk boundary and one past it, rows spanning several chunks and one spanning more chunks than a
warp has lanes (the fix-up's lane-strided sum wraps), more rows starting in one chunk than the
kernel stages at once (empty and one-element rows: several tiles), a chunk whose rows start after
thousands of empty rows and end in a row crossing into the next chunk, leading and trailing empty
rows, a single row, and a last chunk that is not full. y is poisoned with NaN where
``beta == 0``; two runs of the power-law and many-rows matrices give bitwise the same y.
CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import random_array
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import rocsparse
from rocarray.rocsparse import _spmv_kernels as _k

SEED = 20261205
C = _k.CHUNK


def _lengths(case):
    if case == "chunk_edges":  # rows ending on chunk boundaries, one past, one short
        return np.array([C, C + 1, C - 1, 1, 0, 2 * C, 3, 0, C - 4, 5])
    if case == "long_row":  # one row across 6 chunks
        return np.array([0, 3, 0, 5 * C + 5, 2, 0, 0])
    if case == "warp_long_row":  # one row across 35 chunks: its fix-up sum wraps a 32-lane warp
        return np.array([0, 3, 0, 33 * C + 5, 2, 0, 0])
    if case == "many_rows":  # > RA_SP_ROWS rows start in one chunk; then 3000 empty rows and a crossing row
        return np.concatenate([np.tile([0, 1, 0], 2500), np.zeros(3000, np.int64), [C + 17],
                               np.ones(40, np.int64), np.zeros(5, np.int64)])
    if case == "power_law":
        rng = np.random.default_rng(7)
        lengths = np.minimum(np.floor(rng.pareto(1.2, 2000) * 2), 3 * C).astype(np.int64)
        lengths[::13] = 0
        return lengths
    if case == "one_row":
        return np.array([2 * C + 7])
    raise ValueError(case)


CASES = ["chunk_edges", "long_row", "many_rows", "power_law", "one_row"]


def _matrix(rng, lengths, n, dtype, index):
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index)
    nnz = int(indptr[-1])
    indices = rng.integers(0, n, nnz).astype(index)  # unsorted, duplicates possible
    return indptr, indices, random_array(rng, nnz, dtype)


def _check(dev, case, dtype, index, beta):
    rng = np.random.default_rng(SEED)
    lengths = _lengths(case)
    m, n = lengths.size, 97
    indptr, indices, data = _matrix(rng, lengths, n, dtype, index)
    a = sp.csr_matrix((data.astype(np.complex128 if data.dtype.kind == "c" else np.float64), indices, indptr),
                      shape=(m, n))
    x = random_array(rng, n, dtype)
    y0 = np.full(m, np.nan, dtype) if beta == 0 else random_array(rng, m, dtype)
    d_indptr, d_indices, d_data = dev.array(indptr), dev.array(indices), dev.array(data)
    analysis = rocsparse.csrmv_analysis(m, n, d_indptr, data.size).forced_to("split")
    outs = []
    for _ in range(2 if case in ("power_law", "many_rows") else 1):
        y = dev.array(y0)
        rocsparse.csrmv(1.5, m, n, d_indptr, d_indices, d_data, dev.array(x), beta, y, analysis=analysis)
        outs.append(np.asarray(y).copy())
    if len(outs) == 2:
        np.testing.assert_array_equal(outs[0].view(np.uint8), outs[1].view(np.uint8))  # bitwise
    xw = x.astype(a.dtype)
    want = 1.5 * (a @ xw) + (0 if beta == 0 else beta * y0.astype(a.dtype))
    # any summation order: |error| <= (len + 4) eps (|alpha| |A| |x| + |beta| |y0|), times 4 for complex
    bound = 1.5 * (abs(a) @ np.abs(xw)) + (0 if beta == 0 else abs(beta) * np.abs(y0.astype(a.dtype)))
    eps = np.finfo(dtype).eps
    err = np.abs(outs[0].astype(a.dtype) - want)
    assert np.isfinite(outs[0]).all()
    assert (err <= 4 * (lengths + 4) * eps * bound + np.finfo(dtype).tiny).all(), (case, err.max())


PAIRS = [(d, i) for d in ("float32", "float64", "complex64", "complex128") for i in ("int32", "int64")]


@pytest.mark.parametrize("dtype,index", PAIRS)
def test_split_warp32(emulated_device, dtype, index):
    for k, case in enumerate(CASES):
        _check(emulated_device, case, dtype, index, beta=0 if k % 2 == 0 else -0.5)


@pytest.mark.parametrize("dtype,index", [("float32", "int64"), ("float64", "int32"), ("complex64", "int32"),
                                         ("complex128", "int64")])
def test_split_wave64(emulated_wave64_device, dtype, index):
    for k, case in enumerate(CASES):
        _check(emulated_wave64_device, case, dtype, index, beta=0.25 if k % 2 == 0 else 0)


def test_split_fixup_wraps_the_warp(emulated_device):
    _check(emulated_device, "warp_long_row", "float32", "int64", beta=0)


def test_split_writes_every_row_once(emulated_device):
    # beta = 1 over y = 1: a row written twice would add its sum twice, a row never written stays 1
    rng = np.random.default_rng(SEED)
    lengths = _lengths("chunk_edges")
    m, n = lengths.size, 50
    indptr, indices, data = _matrix(rng, lengths, n, "float64", "int32")
    d = [emulated_device.array(v) for v in (indptr, indices, data)]
    analysis = rocsparse.csrmv_analysis(m, n, d[0], data.size).forced_to("split")
    analysis.starts()
    emulated_device.launches.clear()
    y = emulated_device.array(np.ones(m))
    rocsparse.csrmv(1.0, m, n, *d, emulated_device.array(np.ones(n)), 1.0, y, analysis=analysis)
    assert [launch.name for launch in emulated_device.launches] == [
        "ra_rocsparse_csrmv_split<double, int>", "ra_rocsparse_csrmv_fixup<double, int>"]
    sums = np.array([data[indptr[r]:indptr[r + 1]].sum() for r in range(m)])
    np.testing.assert_allclose(np.asarray(y), sums + 1.0, rtol=1e-12, atol=1e-12)
