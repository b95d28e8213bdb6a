"""Kernel-schedule decisions of ``rocarray.rocfft._schedule`` on the CPU (pure Python, no device).

* :class:`Budget`: what one Stockham block takes for 8-byte (complex64) and 16-byte (complex128)
  elements under an H200's opt-in shared-memory limit (232448 bytes) and an AMD LDS (65536). Every
  choice must fit its limit, never exceed the batch, and keep enough consecutive transforms per
  block for coalescing when a side is strided.
* :func:`collapse`: size-1 batch dimensions go, dimensions contiguous on both sides merge, the order
  follows the strided side; the set of (source, destination) batch offsets never changes.
* :func:`_host_loop`: the host-side offsets enumerate every outer batch index exactly once.
* :func:`build` with the device pieces replaced by stand-ins: every launch of the plan of a
  Stockham, four-step or Bluestein length fits the block and shared-memory limits.
* :func:`build_real`: one launch for power-of-two half lengths in rows, None otherwise.
* :meth:`Schedule.prepare` / :meth:`Schedule.run`: one :class:`rocarray._core.launch.Launch` per
  planned step, with pointer and scale slots; a call writes the bytes CuPy's call would pass
  (driver path and CuPy's call), work buffers are one aligned workspace buffer reused by later
  calls, the schedule's device is made current, and concurrent callers each have their own
  work buffers.
"""

import ctypes
import itertools
import math
import types

import numpy as np
import pytest

from rocarray._core import backend, kernels
from rocarray._core import launch as L
from rocarray.rocfft import _factor, _layout
from rocarray.rocfft import _schedule as S

H200_OPTIN = 232448
AMD_LDS = 65536
LIMITS = [H200_OPTIN, AMD_LDS]
ITEMSIZES = [8, 16]
BATCHES = [1, 2, 3, 7, 8, 64, 1000, 1 << 20]
LENGTHS = sorted(set([1, 2, 3, 5, 7, 8, 11, 13, 16, 17, 32, 60, 64, 100, 128, 243, 256, 500, 512, 1000, 1024,
                      1331, 2048, 2197, 3000, 4096, 6561, 8192, 10000, 16384, 2**15, 2**16, 2**18]))


def budgets():
    return [S.Budget(limit, itemsize) for limit in LIMITS for itemsize in ITEMSIZES]


def _bid(b):
    return f"limit{b.limit}-item{b.itemsize}"


BUDGETS = pytest.mark.parametrize("budget", budgets(), ids=_bid)


# --------------------------------------------------------------------------------------------
# Budget
# --------------------------------------------------------------------------------------------

@BUDGETS
def test_budget_limits(budget):
    assert 0 < budget.rows_bytes <= budget.limit
    assert 0 < budget.strided_bytes <= budget.limit
    assert budget.min_strided_per_block * budget.itemsize >= 32  # at least one 32-byte sector
    assert budget.min_strided_per_block == 64 // budget.itemsize


def test_block_bytes_grows_with_length_and_transforms():
    for item in ITEMSIZES:
        for n in LENGTHS:
            assert S.block_bytes(n + 1, 1, item) >= S.block_bytes(n, 1, item)
            assert S.block_bytes(n, 2, item) > S.block_bytes(n, 1, item)
            assert S.block_bytes(n, 1, item) >= 2 * n * item
            for variant in S.KERNELS:
                assert S.block_bytes(n, 4, item, variant) >= 4 * n * item
            # the persistent kernel's prefetch slots; the rows kernel's single buffer
            assert S.block_bytes(n, 4, item, "stockham_pow2") > S.block_bytes(n, 4, item)
            assert S.block_bytes(n, 4, item, "stockham_pow2_rows") < S.block_bytes(n, 4, item)


@BUDGETS
def test_fits_is_the_block_bytes_test(budget):
    for rows in (True, False):
        last = True
        for n in range(1, 20000, 37):
            fits = budget.fits(n, rows)
            per = 1 if rows else budget.min_strided_per_block
            limit = budget.rows_bytes if rows else budget.strided_bytes
            assert fits == (S.block_bytes(n, per, budget.itemsize) <= limit)
            assert last or not fits, "fits must be monotone in n"
            last = fits


@BUDGETS
@pytest.mark.parametrize("rows", [True, False])
def test_per_block_fits_and_never_exceeds_batch(budget, rows):
    limit = budget.rows_bytes if rows else budget.strided_bytes
    for n in LENGTHS:
        if not budget.fits(n, rows):
            continue
        for batch in BATCHES:
            per = budget.per_block(n, rows, batch)
            assert 1 <= per <= batch, (n, batch, per)
            assert S.block_bytes(n, per, budget.itemsize) <= limit, (n, batch, per)
            pow2_or_large = batch & (batch - 1) == 0 or batch >= 2 * budget.min_strided_per_block
            if not rows and pow2_or_large:  # coalescing: whole sectors of transforms, or the whole batch
                # (odd batches below 2x the minimum: see the odd-batch test below)
                assert per >= min(batch, budget.min_strided_per_block), (n, batch, per)


def test_per_block_gives_short_rows_several_transforms():
    for item in ITEMSIZES:
        b = S.Budget(H200_OPTIN, item)
        assert b.per_block(16, True, 1 << 20) == 2048 // 16
        assert b.per_block(16, False, 1 << 20) >= 2 * b.min_strided_per_block
        assert b.per_block(4, True, 3) == 3


@BUDGETS
@pytest.mark.parametrize("rows", [True, False])
def test_pow2_per_block_invariants(budget, rows):
    limit = budget.rows_bytes if rows else budget.strided_bytes
    for n in LENGTHS:
        for batch in BATCHES:
            per = budget.pow2_per_block(n, rows, batch)
            if not S.is_pow2_length(n):
                assert per == 0, (n, batch)
                continue
            if per == 0:
                continue
            assert 1 <= per <= batch
            assert per & (per - 1) == 0, (n, batch, per)  # the kernels find a transform by shifts
            team = n // S.POW2_ELEMENTS  # one team of n/16 threads per transform
            wide_tile = not rows and per * budget.itemsize == S.WIDE_PASS_BYTES  # may take more
            assert team * per <= (S.POW2_WIDE_THREADS if wide_tile else S.BLOCK)
            assert S.block_bytes(n, per, budget.itemsize, S.pow2_variant(rows)) <= (
                budget.limit if wide_tile else limit)
            if not rows:
                assert per >= min(batch, budget.min_strided_per_block), (n, batch, per)


def test_pow2_lengths():
    assert [n for n in range(1, 10000) if S.is_pow2_length(n)] == [2**e for e in range(4, 13)]
    assert S.POW2_MAX == S.POW2_ELEMENTS * S.BLOCK


def test_pow2_per_block_on_the_h200_takes_every_pow2_length_as_rows():
    for item in ITEMSIZES:
        b = S.Budget(H200_OPTIN, item)
        for e in range(4, 13):
            assert b.pow2_per_block(2**e, True, 1 << 20) >= 1, (item, e)


@pytest.mark.parametrize("itemsize, n, per", [(8, 256, 16), (8, 512, 16), (8, 1024, 0), (16, 256, 8),
                                             (16, 512, 8), (16, 1024, 0), (16, 16, 128)])
def test_strided_pow2_tiles_take_whole_128_byte_rows_on_an_h200(itemsize, n, per):
    # 512-point strided passes are widened to 128-byte rows (512 threads or 139 KiB of shared
    # memory, one resident block); the four-step split still sees the narrower tiles
    budget = S.Budget(H200_OPTIN, itemsize)
    assert budget.pow2_per_block(n, False, 1 << 20) == per
    assert budget.wide_limit() == 256


@BUDGETS
def test_inner_limit_of_powers_of_two_is_a_pow2_kernel_length(budget):
    for e in range(13, 31):
        n = 2**e
        inner = budget.inner_limit(n)
        assert S.is_pow2_length(inner), inner
        assert budget.pow2_per_block(inner, False, 1 << 30) > 0
        assert inner == S.POW2_MAX or budget.pow2_per_block(inner * 2, False, 1 << 30) == 0


@BUDGETS
def test_inner_limit_of_other_lengths_fits_a_strided_block(budget):
    for n in (3**13, 1000 * 1000, 12**6, 2**10 * 3**5 * 5**2 * 7 * 11 * 13, 10000 * 3):
        limit = budget.inner_limit(n)
        assert limit > 16
        assert budget.fits(limit, False)
        assert not budget.fits(int(limit * 1.1) + 2, False)  # and it is close to the largest that does
        inner, outer = _factor.four_step_split(n, limit)
        assert budget.fits(inner, False)
        for batch in BATCHES:
            per = budget.per_block(inner, False, batch)
            assert S.block_bytes(inner, per, budget.itemsize) <= budget.strided_bytes


def test_per_block_strided_keeps_the_coalescing_minimum_for_an_odd_batch():
    budget = S.Budget(H200_OPTIN, 16)
    for n in (500, 512):
        assert budget.fits(n, False)
        assert S.block_bytes(n, budget.min_strided_per_block, 16) <= budget.strided_bytes
        assert budget.per_block(n, False, 7) >= budget.min_strided_per_block, n


# --------------------------------------------------------------------------------------------
# collapse
# --------------------------------------------------------------------------------------------

def side(stride, batch_strides):
    return S.Side(S.Ref("src"), stride, tuple(batch_strides))


def offsets(sizes, src_strides, dst_strides):
    """Sorted (source, destination) offsets of every batch index."""
    out = []
    for index in itertools.product(*[range(s) for s in sizes]):
        out.append((sum(i * a for i, a in zip(index, src_strides)), sum(i * b for i, b in zip(index, dst_strides))))
    return sorted(out)


def test_collapse_merges_dimensions_contiguous_on_both_sides():
    n = 16
    sizes, ss, ds = S.collapse((4, 5), side(1, (n, 4 * n)), side(1, (n, 4 * n)))
    assert (sizes, ss, ds) == ((20,), (n,), (n,))


def test_collapse_merges_in_either_given_order():
    n = 16
    sizes, ss, ds = S.collapse((5, 4), side(1, (4 * n, n)), side(1, (4 * n, n)))
    assert (sizes, ss, ds) == ((20,), (n,), (n,))


def test_collapse_keeps_dimensions_contiguous_on_one_side_only():
    n = 16
    sizes, ss, ds = S.collapse((4, 5), side(1, (n, 4 * n)), side(1, (n, 8 * n)))
    assert sizes == (4, 5) and ss == (n, 4 * n) and ds == (n, 8 * n)


def test_collapse_drops_size_one_dimensions():
    assert S.collapse((1, 7, 1), side(1, (999, 3, 5)), side(1, (123, 3, 4))) == ((7,), (3,), (3,))
    assert S.collapse((1, 1), side(1, (5, 6)), side(1, (7, 8))) == ((), (), ())
    assert S.collapse((), side(1, ()), side(1, ())) == ((), (), ())


def test_collapse_orders_by_destination_when_the_source_is_contiguous():
    # source elements contiguous (stride 1): order by the destination's batch strides
    sizes, ss, ds = S.collapse((3, 5), side(1, (8, 24)), side(7, (5, 1)))
    assert ds == (1, 5) and sizes == (5, 3) and ss == (24, 8)


def test_collapse_orders_by_source_when_the_source_is_strided():
    sizes, ss, ds = S.collapse((3, 5), side(15, (5, 1)), side(1, (8, 24)))
    assert ss == (1, 5) and sizes == (5, 3) and ds == (24, 8)


def test_collapse_preserves_the_batch_offsets(rng):
    for _ in range(300):
        ndim = int(rng.integers(0, 5))
        sizes = tuple(int(s) for s in rng.integers(1, 5, ndim))
        n = int(rng.integers(1, 9))
        # source and destination: dense layouts in random dimension orders, sometimes padded
        layouts = []
        for _side in range(2):
            order = rng.permutation(ndim)
            step = n * int(rng.integers(1, 3))
            strides = [0] * ndim
            for d in order:
                strides[d] = step
                step *= sizes[d] + int(rng.integers(0, 2))
            layouts.append(tuple(strides))
        elem = int(rng.integers(1, 3))
        src, dst = side(1 if elem == 1 else n * 100, layouts[0]), side(1, layouts[1])
        got = S.collapse(sizes, src, dst)
        assert math.prod(got[0]) == math.prod(sizes)
        assert all(s > 1 for s in got[0])
        assert len(got[0]) == len(got[1]) == len(got[2]) <= ndim
        assert offsets(*got) == offsets(sizes, layouts[0], layouts[1]), (sizes, layouts)
        key = [abs(b) for b in (got[2] if src.stride == 1 else got[1])]
        assert key == sorted(key)


# --------------------------------------------------------------------------------------------
# _host_loop
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [(), (5,), (2, 3), (2, 3, 4), (2, 3, 4, 5), (3, 1, 2, 2, 3)])
@pytest.mark.parametrize("keep", [0, 1, 2, 3, 8])
def test_host_loop_enumerates_every_outer_index_once(sizes, keep):
    ss = tuple(int(np.prod(sizes[:i])) * 2 for i in range(len(sizes)))       # distinct, dense (x2)
    ds = tuple(int(np.prod(sizes[i + 1:])) * 3 for i in range(len(sizes)))   # reversed order
    loops = list(S._host_loop(sizes, ss, ds, keep))
    outer = sizes[keep:]
    assert len(loops) == int(np.prod(outer))
    for so, do, sz, s_in, d_in in loops:
        assert tuple(sz) == sizes[:keep] and tuple(s_in) == ss[:keep] and tuple(d_in) == ds[:keep]
    got = sorted((so, do) for so, do, *_ in loops)
    want = offsets(outer, ss[keep:], ds[keep:])
    assert got == want
    assert len(set(got)) == len(got)
    # inner launches over the kept dimensions plus host offsets cover every batch index once
    every = sorted((so + a, do + b) for so, do, sz, s_in, d_in in loops for a, b in offsets(sz, s_in, d_in))
    assert every == offsets(sizes, ss, ds)


def test_host_loop_first_offset_is_zero():
    first = next(iter(S._host_loop((4, 5, 6), (1, 4, 20), (1, 4, 20), 1)))
    assert first[:2] == (0, 0)


# --------------------------------------------------------------------------------------------
# build, with stand-ins for the device pieces
# --------------------------------------------------------------------------------------------

class _Array:
    """A device table stand-in: only ``data.ptr`` is read when a schedule is built."""

    _next = 1 << 20

    def __init__(self):
        type(self)._next += 1 << 12
        self.data = type("Data", (), {"ptr": type(self)._next})()


class _Tables:
    def twiddles(self, precision, n, device_id):
        return _Array()

    def pass_twiddles(self, precision, n, device_id):
        return _Array()

    def split_twiddles(self, precision, n, device_id):
        if n & (n - 1) == 0:  # powers of two split at a power of two, as the real tables do
            return _Array(), _Array(), 1 << (n.bit_length() // 2)
        return _Array(), _Array(), max(1, math.isqrt(n))

    def chirp(self, precision, n, device_id):
        return _Array()

    def bluestein_filter(self, precision, n, m, forward, device_id):
        return _Array()


class _Function:
    """A compiled-kernel stand-in: its shared-memory attribute and CuPy's call signature."""

    def __init__(self):
        self.max_dynamic_shared_size_bytes = 48 * 1024
        self.calls = []

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((grid, block, args, shared_mem))


class _Kernel(kernels.Kernel):
    """A kernel handle named by its variant whose compiled function is a :class:`_Function` (no
    compiler, no device); 264 blocks are resident (132 multiprocessors x 2)."""

    def __init__(self, name):
        super().__init__("rocfft/stand-in.hip", name, S.BLOCK, 8)

    def function(self, device_id):
        return self._functions.setdefault(device_id, _Function())

    def resident_blocks(self, device_id, block, shared):
        return 264


@pytest.fixture(params=[(H200_OPTIN, "single"), (H200_OPTIN, "double"), (AMD_LDS, "double")],
                ids=["h200-single", "h200-double", "lds-double"])
def offline_build(request, monkeypatch):
    limit, precision = request.param
    handles = {}

    def stockham_kernel(precision, forward, variant="stockham", log_n=None):
        assert variant in S.KERNELS
        S.stockham_name(precision, forward, variant, log_n)  # a compiled length
        return handles.setdefault(variant, _Kernel(variant))

    def pointwise_kernel(kernel, precision, forward=None):
        return handles.setdefault(kernel, _Kernel(kernel))

    def real_rows_kernel(kind, precision, log_h):
        S.real_rows_name(kind, precision, log_h)  # a compiled length
        return handles.setdefault(kind, _Kernel(kind))

    def real_pass_kernel(kind, precision, log_n):
        S.real_pass_name(kind, precision, log_n)  # a compiled length
        return handles.setdefault(kind, _Kernel(kind))

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id: limit)
    monkeypatch.setattr(S, "real_rows_kernel", real_rows_kernel)
    monkeypatch.setattr(S, "real_pass_kernel", real_pass_kernel)
    monkeypatch.setattr(S, "stockham_kernel", stockham_kernel)
    monkeypatch.setattr(S, "pointwise_kernel", pointwise_kernel)

    def build(n, sizes, src, dst, forward=True, kind=None):
        if kind is not None:
            return S.build_real(kind, n, sizes, src, dst, precision=precision, device_id=0, tables=_Tables())
        return S.build(n, sizes, src, dst, precision=precision, forward=forward, device_id=0, tables=_Tables())

    return build, S.Budget(limit, S.complex_dtype(precision).itemsize)


@pytest.mark.parametrize("n", [1, 16, 100, 1000, 4096, 4097, 2**16, 3**10, 1000003, 2**20, 2**24])
@pytest.mark.parametrize("layout", ["rows", "columns"])
def test_build_launches_fit_the_device(offline_build, n, layout):
    build, budget = offline_build
    batch = 3
    if layout == "rows":
        src = S.Side(S.Ref("src"), 1, (n,))
    else:
        src = S.Side(S.Ref("src"), batch, (1,))
    dst = S.Side(S.Ref("dst"), 1, (n,))
    sched = build(n, (batch,), src, dst)
    assert sched.steps
    stockham = [item for item in sched.steps if item.kernel.name.startswith("stockham")]
    assert stockham
    for item in sched.steps:
        assert 1 <= item.grid <= S.MAX_GRID
        assert 1 <= item.block <= 1024
        assert 0 <= item.shared <= budget.limit
        for a in item.args:
            if isinstance(a, S.Ref):
                assert a.buffer in ("src", "dst") or 0 <= a.buffer < len(sched.work)
                assert a.offset >= 0
        assert sum(1 for a in item.args if a is S.SCALE) <= 1
    for item in stockham:
        assert len(item.args) == 7 and item.args[5].dtype == _layout.LAYOUT and item.args[5].size == 1
        layout = item.args[5][0]
        length, word, passes, batch_k, first, per = (int(layout[f]) for f in (
            "n", "radices", "passes", "batch", "first_batch", "per_block"))
        radices = _factor.radix_passes(length) if length > 1 else ()
        assert word == _factor.pack_radices(radices) and passes == len(radices)
        assert 1 <= per <= max(1, batch_k) and first == 0
        variant = item.kernel.name
        pow2 = variant != "stockham"
        assert item.grid <= -(-batch_k // per)
        assert variant == "stockham_pow2" or item.grid == -(-batch_k // per)  # that one is persistent
        assert item.shared == S.block_bytes(length, per, budget.itemsize, variant)
        if pow2:
            assert S.is_pow2_length(length)
            assert item.block == (length // S.POW2_ELEMENTS) * per
        else:
            assert item.block == S.BLOCK
    # the caller's scale is applied exactly once, by the last launch that writes the destination
    scaled = [item for item in sched.steps if any(a is S.SCALE for a in item.args)]
    assert len(scaled) == 1


@pytest.mark.parametrize("n, kind", [(64, "stockham"), (4096, "stockham"), (2**16, "four-step"),
                                     (3**10, "four-step"), (17, "bluestein"), (1000003, "bluestein")])
def test_build_picks_the_method_by_length(offline_build, n, kind):
    build, budget = offline_build
    if kind == "stockham" and not (budget.pow2_per_block(n, True, 1) or budget.fits(n, True)):
        kind = "four-step"  # complex128 4096 exceeds a 64 KiB LDS
    sched = build(n, (), S.Side(S.Ref("src"), 1, ()), S.Side(S.Ref("dst"), 1, ()))
    names = [item.kernel.name for item in sched.steps]
    stockham = [k for k in names if k.startswith("stockham")]
    if kind == "stockham":
        assert names == stockham and len(stockham) == 1 and not sched.work
    elif kind == "four-step":
        assert names == stockham and len(stockham) >= 2 and sched.work
    else:
        assert "chirp_pad" in names and "chirp_extract" in names and "multiply" in names
        assert names[0] == "chirp_pad" and names[-1] == "chirp_extract"
        m = _factor.bluestein_length(n)
        assert sched.work[0] == m


def test_wide_limit_moves_whole_lines_and_can_be_switched_off(monkeypatch):
    for item in ITEMSIZES:
        budget = S.Budget(H200_OPTIN, item)
        wide = budget.wide_limit()
        assert S.is_pow2_length(wide) and wide <= budget.inner_limit(1 << 20)
        assert budget.pow2_per_block(wide, False, 1 << 30) * item >= S.WIDE_PASS_BYTES
        monkeypatch.setattr(S, "WIDE_PASS_BYTES", 0)
        assert budget.wide_limit() == 0
        monkeypatch.undo()


def test_bluestein_beyond_2_31_is_a_clear_error(offline_build):
    build, _ = offline_build
    n = (1 << 31) + 11  # prime factors above 13
    assert not _factor.is_smooth(n)
    with pytest.raises(ValueError, match="Bluestein"):
        build(n, (), S.Side(S.Ref("src"), 1, ()), S.Side(S.Ref("dst"), 1, ()))


@pytest.mark.parametrize("kind", S.REAL_ROWS)
@pytest.mark.parametrize("h", [2**k for k in S.POW2_LOGS])
@pytest.mark.parametrize("batch", [(), (1,), (37,), (3, 5)])
def test_build_real_is_one_launch_of_the_real_rows_kernel(offline_build, kind, h, batch):
    build, budget = offline_build
    in_row, out_row = (h, h + 1) if kind == "r2c" else (h + 1, h)
    in_strides = tuple(in_row * math.prod(batch[i + 1:]) for i in range(len(batch)))
    out_strides = tuple(out_row * math.prod(batch[i + 1:]) for i in range(len(batch)))
    sched = build(h, batch, S.Side(S.Ref("src"), 1, in_strides), S.Side(S.Ref("dst"), 1, out_strides), kind=kind)
    if not budget.pow2_per_block(h, True, max(1, math.prod(batch))):
        assert sched is None  # e.g. complex128 4096 in a 64 KiB LDS: the two-pass path
        return
    assert len(sched.steps) == 1 and not sched.work
    item = sched.steps[0]
    assert item.kernel.name == kind
    layout = item.args[5][0]
    per = int(layout["per_block"])
    assert int(layout["n"]) == h and int(layout["tw_n"]) == 0 and int(layout["batch"]) == max(1, math.prod(batch))
    assert int(layout["isn"]) == 1 and int(layout["osn"]) == 1
    assert item.grid == -(-int(layout["batch"]) // per)
    assert item.block == (h // S.POW2_ELEMENTS) * per <= S.BLOCK
    assert item.shared == S.block_bytes(h, per, budget.itemsize, "stockham_pow2_rows") <= budget.limit
    # the twiddles of the untangling (W_2h^k) ride in the four-step table slot, and the scale once
    assert isinstance(item.args[3], np.uint64) and int(item.args[3]) != 0
    assert [a for a in item.args if a is S.SCALE] == [S.SCALE]


@pytest.mark.parametrize("kind", S.REAL_ROWS)
@pytest.mark.parametrize("h, layout", [(8, "rows"), (100, "rows"), (3 * 2**12, "rows"), (64, "columns"),
                                       (2**13, "two batch dimensions")])
def test_build_real_declines_what_its_kernel_cannot_take(offline_build, kind, h, layout):
    build, _ = offline_build
    if layout == "rows":
        src, dst = S.Side(S.Ref("src"), 1, (h + 1,)), S.Side(S.Ref("dst"), 1, (h + 1,))
    elif layout == "columns":  # several transforms along a strided axis
        src, dst = S.Side(S.Ref("src"), 3, (1,)), S.Side(S.Ref("dst"), 1, (h + 1,))
    else:  # rows in two batch dimensions that do not merge
        src, dst = S.Side(S.Ref("src"), 1, (2 * h + 2, 7 * h)), S.Side(S.Ref("dst"), 1, (h + 1, 3 * h + 3))
        assert build(h, (3, 2), src, dst, kind=kind) is None
        return
    assert build(h, (3,), src, dst, kind=kind) is None


@pytest.mark.parametrize("kind", S.REAL_ROWS)
@pytest.mark.parametrize("log_h", [13, 15, 17, 18, 20, 23])
@pytest.mark.parametrize("rows, strides", [(1, None), (5, "rows"), (3, "columns")])
def test_build_real_fuses_the_untangling_into_a_four_step_pass(offline_build, kind, log_h, rows, strides):
    """Powers of two above the one-launch kernels: r2c ends with the fused last pass (rows of 256,
    row pairs k2 and outer - k2 per block), c2r starts with the fused columns pass when that
    length has a kernel; one work buffer of the half-length spectrum, the scale applied once."""
    build, budget = offline_build
    h = 1 << log_h
    in_row, out_row = (h, h + 1) if kind == "r2c" else (h + 1, h)
    if strides == "columns":  # the transformed axis first: rows interleaved element by element
        src, dst = S.Side(S.Ref("src"), rows, (1,)), S.Side(S.Ref("dst"), rows, (1,))
    else:
        src, dst = S.Side(S.Ref("src"), 1, (in_row,)), S.Side(S.Ref("dst"), 1, (out_row,))
    sched = build(h, (rows,), src, dst, kind=kind)
    if kind == "c2r":
        precision = "single" if budget.itemsize == 8 else "double"
        inner, outer = S._Builder(precision, False, 0, _Tables()).four_step_split(h)
        if outer.bit_length() - 1 not in S.REAL_PASS_LOGS["c2r_first"]:
            assert sched is None  # the folding pass would not fit one kernel: three passes instead
            return
    assert sched is not None and sched.work[0] == h * rows  # (a long first pass adds its own)
    names = [item.kernel.name for item in sched.steps]
    fused = sched.steps[-1] if kind == "r2c" else sched.steps[0]
    assert fused.kernel.name == ("r2c_last" if kind == "r2c" else "c2r_first")
    assert names.count(fused.kernel.name) == 1
    assert len([a for item in sched.steps for a in item.args if a is S.SCALE]) == 1
    layout = fused.args[5][0]
    n, per, tiles, other = (int(layout[f]) for f in ("n", "per_block", "d0", "d1"))
    assert n * other == h and int(layout["tw_n"]) == 2 * h and int(layout["batch"]) == rows * tiles
    assert fused.grid == rows * tiles and int(layout["first_batch"]) == 0
    team = n // S.POW2_ELEMENTS
    if kind == "r2c":
        assert n == 256 and tiles == -(-(other // 2) // per) and fused.block == 2 * per * team <= S.BLOCK
        assert fused.shared == 2 * per * (n + n // 16 + 1) * budget.itemsize <= budget.rows_bytes
        assert fused.args[0] == S.Ref(0) and fused.args[1] == S.Ref("dst") and fused.args[6] is S.SCALE
        assert int(layout["osn"]) == dst.stride and int(layout["os1"]) == (dst.batch_strides[0] if rows > 1 else 0)
    else:
        assert tiles * per == other and per * budget.itemsize >= 32
        assert fused.block == per * team <= (512 if budget.itemsize == 8 else 256)
        assert fused.shared == per * (n + n // 16 + 1) * budget.itemsize <= budget.strided_bytes
        assert fused.args[0] == S.Ref("src") and fused.args[1] == S.Ref(0) and float(fused.args[6]) == 1.0
        assert int(layout["isn"]) == src.stride and int(layout["is1"]) == (src.batch_strides[0] if rows > 1 else 0)
    for item in sched.steps:
        assert 1 <= item.grid <= S.MAX_GRID and 1 <= item.block <= 1024 and item.shared <= budget.limit


def test_real_rows_names_and_kinds():
    assert S.real_rows_name("r2c", "single", 5) == "ra_rocfft_stockham_pow2_r2c<float, 5>"
    assert S.real_rows_name("c2r", "double", 12) == "ra_rocfft_stockham_pow2_c2r<double, 12>"
    for bad in [("r2c", "single", 3), ("c2r", "double", 13), ("c2c", "single", 5)]:
        with pytest.raises(ValueError):
            S.real_rows_name(*bad)
    with pytest.raises(ValueError, match="kind"):
        S.build_real("c2c", 64, (), S.Side(S.Ref("src"), 1, ()), S.Side(S.Ref("dst"), 1, ()),
                     precision="single", device_id=0, tables=_Tables())


# --------------------------------------------------------------------------------------------
# prepared launches and their execution
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, layout", [(64, "rows"), (4096, "columns"), (2**16, "rows"), (2**20, "columns"),
                                       (1000003, "rows"), (17, "columns")])
def test_build_prepares_one_launch_per_step_with_slots_for_pointers_and_the_scale(offline_build, n, layout):
    build, budget = offline_build
    src = S.Side(S.Ref("src"), 1, (n,)) if layout == "rows" else S.Side(S.Ref("src"), 3, (1,))
    sched = build(n, (3,), src, S.Side(S.Ref("dst"), 1, (n,)))
    assert len(sched.launches) == len(sched.steps) > 0
    real = np.dtype(np.float32 if budget.itemsize == 8 else np.float64)
    for go, step in zip(sched.launches, sched.steps):
        assert isinstance(go, L.Launch)
        assert go.kernel is step.kernel.function(0)
        assert (go.grid, go.block, go.shared_mem) == (step.grid, step.block, step.shared)
        placeholders = tuple(i for i, a in enumerate(step.args) if isinstance(a, S.Ref) or a is S.SCALE)
        assert go.slots == placeholders
        for planned, prepared in zip(step.args, go.args):
            if isinstance(planned, S.Ref):
                assert prepared is L.POINTER
            elif planned is S.SCALE:
                assert prepared.kind == "scalar" and prepared.dtype == real
            else:
                assert prepared is planned  # the layout array and the fixed scalars as planned


class _FakeCuda:
    """The parts of ``cupy`` a schedule's run reads: the current device and stream, the driver's
    launch call (recording the bytes behind each argument address), memory for the workspace."""

    def __init__(self, sizes=None):
        self.device = 0
        self.entered = []
        self.launched = []
        self.allocated = []
        self.sizes = sizes  # byte sizes of the launched kernels' arguments, for reading them back
        outer = self

        class Stream:
            ptr = 0x5150

            def is_capturing(self):
                return False

        class Device:
            def __init__(self, device_id):
                self.id = device_id

            def __enter__(self):
                outer.entered.append(self.id)
                outer.device, self.previous = self.id, outer.device

            def __exit__(self, *exc):
                outer.device = self.previous

        def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
            addresses = (ctypes.c_void_p * len(outer.sizes)).from_address(params)
            values = [ctypes.string_at(addresses[i], size) for i, size in enumerate(outer.sizes)]
            outer.launched.append(((f, gx, gy, gz, bx, by, bz, shared, stream, extra), values))

        self.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(getDevice=lambda: outer.device), Device=Device,
            get_current_stream=lambda: Stream(), driver=types.SimpleNamespace(launchKernel=launch_kernel))

    def empty(self, nbytes, dtype=None):
        self.allocated.append(nbytes)
        address = 0x10000000 * len(self.allocated)
        return types.SimpleNamespace(data=types.SimpleNamespace(ptr=address), size=nbytes, nbytes=nbytes)


class _Handle:
    """A compiled kernel with a driver handle (the driver path)."""

    kernel = types.SimpleNamespace(ptr=0xF00)
    max_dynamic_shared_size_bytes = 48 * 1024


class _DriverKernel(_Kernel):
    def function(self, device_id):
        return self._functions.setdefault(device_id, _Handle())


@pytest.fixture
def fake_cuda(monkeypatch):
    """``backend.cupy()`` is a :class:`_FakeCuda`; a fresh workspace owner."""
    from rocarray._core import workspace

    cuda = _FakeCuda()
    monkeypatch.setattr(backend, "_cupy", [cuda])
    monkeypatch.setattr(workspace, "workspaces", workspace.Workspaces())
    return cuda


def _stockham_schedule(kernel, precision, layout, work=(), extra=()):
    """A hand-made schedule: one Stockham-shaped step (src + 3, the first work buffer + 7 or dst,
    three tables, the layout, the scale) and ``extra`` steps."""
    sched = S.Schedule(precision, 0)
    for elements in work:
        sched.add_work(elements)
    target = S.Ref(0, 7) if work else S.Ref("dst")
    sched.steps.append(S.Step(kernel, 5, 1024, (S.Ref("src", 3), target, np.uint64(0xABC), np.uint64(0),
                                                np.uint64(1), layout, S.SCALE), 128))
    sched.steps.extend(extra)
    return sched.prepare()


@pytest.mark.parametrize("precision", ["single", "double"])
def test_run_through_the_driver_writes_only_the_pointers_and_the_scale(fake_cuda, precision):
    item = 16 if precision == "double" else 8
    real = np.float64 if precision == "double" else np.float32
    fake_cuda.sizes = [8, 8, 8, 8, 8, _layout.LAYOUT_BYTES, real().itemsize]
    arr = _layout.layout(**{name: 3 for name in _layout.LAYOUT.names})
    sched = _stockham_schedule(_DriverKernel("stockham"), precision, arr, work=(16,))
    sched.run(1 << 24, 1 << 28, 0.1)
    sched.run((1 << 24) + 64, 1 << 28, 2.5)
    (head, first), (_, second) = fake_cuda.launched
    assert head == (0xF00, 5, 1, 1, 128, 1, 1, 1024, 0x5150, 0)
    assert fake_cuda.allocated == [4096]  # one workspace buffer, kept for the second call
    assert first[0] == ((1 << 24) + 3 * item).to_bytes(8, "little")
    assert first[1] == (0x10000000 + 7 * item).to_bytes(8, "little")  # the work buffer, shifted
    assert first[2] == np.uint64(0xABC).tobytes() and first[4] == np.uint64(1).tobytes()
    assert first[5] == arr.tobytes()
    assert first[6] == real(0.1).tobytes() and second[6] == real(2.5).tobytes()
    assert second[0] == ((1 << 24) + 64 + 3 * item).to_bytes(8, "little") and second[1] == first[1]


@pytest.mark.parametrize("precision", ["single", "double"])
def test_run_through_cupys_call_passes_the_same_values(fake_cuda, precision):
    item = 16 if precision == "double" else 8
    real = np.float64 if precision == "double" else np.float32
    arr = _layout.layout(**{name: 2 for name in _layout.LAYOUT.names})
    kernel = _Kernel("stockham")
    sched = _stockham_schedule(kernel, precision, arr)
    sched.run(1 << 20, 1 << 24, 0.5)
    (grid, block, args, shared), = kernel.function(0).calls
    assert (grid, block, shared) == (5, 128, 1024)
    assert isinstance(args[0], np.uint64) and int(args[0]) == (1 << 20) + 3 * item
    assert isinstance(args[1], np.uint64) and int(args[1]) == 1 << 24
    assert args[2] == np.uint64(0xABC) and args[5] is arr
    assert type(args[6]) is real and args[6] == real(0.5)
    assert not fake_cuda.allocated  # no work buffers, no workspace


@pytest.mark.parametrize("precision", ["single", "double"])
def test_work_buffers_share_one_aligned_workspace_buffer(fake_cuda, precision):
    item = 16 if precision == "double" else 8
    kernel = _Kernel("stockham")
    arr = _layout.layout(**{name: 1 for name in _layout.LAYOUT.names})
    second = S.Step(kernel, 1, 0, (S.Ref(2, 3), S.Ref(1), S.Ref("dst", 1), np.uint64(2), np.uint64(3), arr,
                                   S.SCALE), 32)
    # the middle buffer is empty: it still gets its own slot
    sched = _stockham_schedule(kernel, precision, arr, work=(16, 0, 1000), extra=[second])
    offsets, total = sched.work_offsets()
    assert offsets == (0, 256, 512) and sched.work_bytes == total >= 512 + 1000 * item
    assert all(o % S.WORK_ALIGN == 0 for o in offsets)
    sched.run(1 << 24, 1 << 28, 1.0)
    sched.run(1 << 24, 1 << 28, 1.0)
    base = 0x10000000
    assert fake_cuda.allocated == [max(total, 4096)]
    calls = kernel.function(0).calls
    assert [int(a) for a in calls[1][2][:3]] == [base + 512 + 3 * item, base + 256, (1 << 28) + item]
    assert calls[2][2][1] == calls[0][2][1] == np.uint64(base + 7 * item)  # the same buffer again


def test_run_makes_the_schedules_device_current(fake_cuda):
    kernel = _Kernel("stockham")
    arr = _layout.layout(**{name: 1 for name in _layout.LAYOUT.names})
    sched = _stockham_schedule(kernel, "single", arr)
    fake_cuda.device = 1
    sched.run(1 << 20, 1 << 21)
    assert fake_cuda.entered == [0] and fake_cuda.device == 1 and len(kernel.function(0).calls) == 1
    fake_cuda.device = 0
    sched.run(1 << 20, 1 << 21)
    assert fake_cuda.entered == [0] and len(kernel.function(0).calls) == 2


def test_concurrent_callers_on_one_stream_pass_data_through_their_own_work_buffers(fake_cuda):
    """Three threads on one stream running a two-launch schedule through a work buffer: each
    thread's second launch reads the buffer its first launch wrote, and no two threads share one
    (the workspace keys buffers by stream and host thread)."""
    import threading
    import time

    order = []

    class Slow(_Function):
        def __call__(self, grid, block, args, shared_mem=0):
            order.append((threading.get_ident(), grid, int(args[0]), int(args[1])))
            time.sleep(0.002)  # a slow first launch invites the other threads in

    class SlowKernel(_Kernel):
        def function(self, device_id):
            return self._functions.setdefault(device_id, Slow())

    kernel = SlowKernel("stockham")
    sched = S.Schedule("single", 0)
    sched.add_work(64)
    sched.steps += [S.Step(kernel, 1, 0, (S.Ref("src"), S.Ref(0), S.SCALE)),
                    S.Step(kernel, 2, 0, (S.Ref(0), S.Ref("dst"), S.SCALE))]
    sched.prepare()
    threads = [threading.Thread(target=lambda: [sched.run(1 << 20, 1 << 21) for _ in range(5)]) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(order) == 30
    work = {}
    for thread, grid, first, second in order:
        buffer = second if grid == 1 else first
        assert work.setdefault(thread, buffer) == buffer       # one buffer per thread, every call
    assert len(set(work.values())) == 3
