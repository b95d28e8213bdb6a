"""rocarray.distributed.fft against numpy.fft.fftn of the gathered array.

CPU: the stand-in communicator (threads as ranks, NumPy buffers) and the NumPy twin of the local
operations run the real splitting, packing and exchange code on 1 to 4 ranks, even and uneven
splits, slabs and pencils, natural and transposed layouts, every norm. GPU: one rank on the
device, and two ranks when two GPUs and the Communicator class exist.
"""

import numpy as np
import pytest

import rocarray.distributed as rd
from rocarray._core import backend
from rocarray.distributed import _local
from rocarray.distributed import fft as dfft

from dfft_standin import NumpyOps, run_ranks, run_ranks_errors

RANKS = [1, 2, 3, 4]
SLAB_SHAPES = [(8, 6), (7, 5), (6, 4, 5), (5, 7, 3), (2, 9)]
PENCIL_SHAPES = [(4, 6, 8), (5, 7, 3), (3, 2, 5, 2)]


@pytest.fixture
def numpy_ops(monkeypatch):
    monkeypatch.setattr(_local, "ops", NumpyOps)


def _random(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _limit(dtype):
    return 1e-5 if np.dtype(dtype) == np.complex64 else 1e-12


def _assert_close(got, want, dtype):
    err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300)
    assert err < _limit(dtype), err


def _distributed(x, n, fn, decomposition="slab", grid=None, transposed_in=False, transposed_out=False):
    """Run ``fn(x_local, comm)`` on ``n`` ranks; return the blocks and the slices of the output."""
    def body(comm):
        inside = dfft.local_slices(x.shape, comm, decomposition=decomposition, grid=grid, transposed=transposed_in)
        outside = dfft.local_slices(x.shape, comm, decomposition=decomposition, grid=grid, transposed=transposed_out)
        return fn(np.ascontiguousarray(x[inside]), comm), outside, comm.calls
    return run_ranks(n, body)


def _assemble(results, shape, dtype):
    out = np.full(shape, np.nan, dtype)
    for block, where, _ in results:
        assert block.flags.c_contiguous
        out[where] = block
    return out


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("shape", SLAB_SHAPES)
@pytest.mark.parametrize("transposed_out", [False, True])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_slab_fftn_matches_numpy(rng, n, shape, transposed_out, dtype):
    x = _random(rng, shape, dtype)
    results = _distributed(x, n, lambda xl, c: dfft.fftn(xl, c, transposed_out=transposed_out),
                           transposed_out=transposed_out)
    got = _assemble(results, shape, dtype)
    assert got.dtype == np.dtype(dtype)
    _assert_close(got, np.fft.fftn(x.astype(np.complex128)), dtype)
    exchanges = [c for c in results[0][2] if c[0] == "all_to_all"]
    assert len(exchanges) == (0 if n == 1 else 1 if transposed_out else 2)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("shape", PENCIL_SHAPES)
@pytest.mark.parametrize("transposed_out", [False, True])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_pencil_fftn_matches_numpy(rng, n, shape, transposed_out, dtype):
    x = _random(rng, shape, dtype)
    results = _distributed(x, n, lambda xl, c: dfft.fftn(xl, c, decomposition="pencil",
                                                          transposed_out=transposed_out),
                           decomposition="pencil", transposed_out=transposed_out)
    _assert_close(_assemble(results, shape, dtype), np.fft.fftn(x.astype(np.complex128)), dtype)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("grid", [(2, 3), (3, 2), (6, 1), (1, 6)])
def test_pencil_grids_of_six_ranks(rng, grid):
    x = _random(rng, (7, 5, 4), "complex128")
    results = _distributed(x, 6, lambda xl, c: dfft.fftn(xl, c, decomposition="pencil", grid=grid),
                           decomposition="pencil", grid=grid)
    _assert_close(_assemble(results, x.shape, x.dtype), np.fft.fftn(x), x.dtype)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("decomposition", ["slab", "pencil"])
@pytest.mark.parametrize("inverse", [False, True])
def test_every_norm_both_directions(rng, norm, decomposition, inverse):
    x = _random(rng, (5, 6, 3), "complex128")
    ours, theirs = (dfft.ifftn, np.fft.ifftn) if inverse else (dfft.fftn, np.fft.fftn)
    results = _distributed(x, 4, lambda xl, c: ours(xl, c, norm=norm, decomposition=decomposition),
                           decomposition=decomposition)
    _assert_close(_assemble(results, x.shape, x.dtype), theirs(x, norm=norm), x.dtype)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("decomposition", ["slab", "pencil"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_transposed_round_trip_and_transposed_input(rng, decomposition, n):
    x = _random(rng, (6, 5, 7), "complex64")
    spectrum = np.fft.fftn(x.astype(np.complex128))

    def body(comm):
        natural = dfft.local_slices(x.shape, comm, decomposition=decomposition)
        transposed = dfft.local_slices(x.shape, comm, decomposition=decomposition, transposed=True)
        forward = dfft.fftn(x[natural].copy(), comm, decomposition=decomposition, transposed_out=True)
        back = dfft.ifftn(forward, comm, decomposition=decomposition, transposed_in=True)
        alone = dfft.ifftn(spectrum[transposed].astype(np.complex64), comm, decomposition=decomposition,
                           transposed_in=True)
        return back, alone, natural, transposed

    results = run_ranks(n, body)
    back = _assemble([(r[0], r[2], None) for r in results], x.shape, x.dtype)
    alone = _assemble([(r[1], r[2], None) for r in results], x.shape, x.dtype)
    _assert_close(back, x.astype(np.complex128), "complex64")
    _assert_close(alone, np.fft.ifftn(spectrum), "complex64")


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("decomposition,axes,exchanges", [
    ("slab", (1,), 0), ("slab", (2, 1), 0), ("slab", (0,), 2), ("slab", (2, 0), 2), ("slab", (-1, -3), 2),
    ("pencil", (2,), 0), ("pencil", (1, 2), 2), ("pencil", (0,), 4), ("pencil", (0, 2), 4),
])
def test_axes_subsets_and_their_exchanges(rng, decomposition, axes, exchanges):
    x = _random(rng, (5, 6, 4), "complex128")
    results = _distributed(x, 4, lambda xl, c: dfft.fftn(xl, c, axes=axes, decomposition=decomposition, grid=None),
                           decomposition=decomposition)
    _assert_close(_assemble(results, x.shape, x.dtype), np.fft.fftn(x, axes=axes), x.dtype)
    assert len([c for c in results[0][2] if c[0] == "all_to_all"]) == exchanges


@pytest.mark.usefixtures("numpy_ops")
def test_even_splits_take_the_plain_all_to_all_and_uneven_ones_counts():
    x = np.ones((8, 4, 2), np.complex64)
    even = _distributed(x, 2, lambda xl, c: dfft.fftn(xl, c))
    uneven = _distributed(x[:7, :3], 2, lambda xl, c: dfft.fftn(xl, c))
    assert {c[1] for c in even[0][2] if c[0] == "all_to_all"} == {False}
    assert {c[1] for c in uneven[0][2] if c[0] == "all_to_all"} == {True}


@pytest.mark.parametrize("decomposition,shape,axes,transposed_in,fused", [
    ("slab", (6, 5, 4), None, False, 3), ("slab", (6, 5, 4, 2), (0, 1, 3), False, 3),
    ("slab", (6, 5), None, False, 0), ("slab", (6, 5, 4), (0, 1), False, 0), ("slab", (6, 5, 4), None, True, 3),
    ("slab", (6, 5), None, True, 0), ("pencil", (6, 5, 4), None, False, 0), ("pencil", (6, 5, 4, 3), None, False, 0),
    ("pencil", (6, 5, 4), None, True, 0),
])
def test_a_pass_next_to_an_exchange_does_its_copy(rng, monkeypatch, decomposition, shape, axes, transposed_in, fused):
    """The pass before a packing exchange writes into the send buffer, the pass after an
    unpacking one reads the received blocks (slabs of 3 or more dimensions; pencils never)."""
    calls = []

    class Recording(NumpyOps):
        def c2c_into(self, x, out, axis, forward, scale):
            calls.append(axis)
            super().c2c_into(x, out, axis, forward, scale)

    monkeypatch.setattr(_local, "ops", Recording)
    x = _random(rng, shape, "complex128")
    results = _distributed(x, 3, lambda xl, c: dfft.ifftn(xl, c, axes=axes, decomposition=decomposition, norm="ortho",
                                                          transposed_in=transposed_in),
                           decomposition=decomposition, transposed_in=transposed_in)
    _assert_close(_assemble(results, shape, x.dtype), np.fft.ifftn(x, axes=axes, norm="ortho"), x.dtype)
    assert len(calls) == 3 * fused  # each of the 3 ranks moves one block per peer
    assert set(calls) <= {len(shape) - 1}  # the contiguous axis


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_real_input_gives_numpys_complex_dtype(rng, dtype):
    x = (rng.standard_normal((6, 5)) * 10).astype(dtype)
    results = _distributed(x, 3, lambda xl, c: dfft.fftn(xl, c))
    want = np.fft.fftn(x)
    got = _assemble(results, x.shape, want.dtype)
    assert results[0][0].dtype == want.dtype
    _assert_close(got, np.fft.fftn(x.astype(np.float64)), want.dtype)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("decomposition,shape,axes", [
    ("slab", (8, 6), None), ("slab", (7, 5), None), ("slab", (5, 6, 7), None), ("slab", (5, 6, 7), (0, 2)),
    ("slab", (6, 5, 4), (0, 2, 1)), ("pencil", (5, 6, 7), None), ("pencil", (4, 5, 6, 3), (0, 1, 2)),
])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfftn_and_irfftn_match_numpy(rng, n, decomposition, shape, axes, transposed, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    want = np.fft.rfftn(x.astype(np.float64), axes=axes)
    last = (axes or range(len(shape)))[-1]
    odd = shape[last] % 2 == 1

    def body(comm):
        mine = dfft.local_slices(shape, comm, decomposition=decomposition)
        spec = dfft.local_slices(want.shape, comm, decomposition=decomposition, transposed=transposed)
        forward = dfft.rfftn(x[mine].copy(), comm, axes=axes, decomposition=decomposition, transposed_out=transposed)
        back = dfft.irfftn(forward, comm, axes=axes, decomposition=decomposition, transposed_in=transposed,
                           n=shape[last] if odd else None)
        return forward, spec, back, mine

    results = run_ranks(n, body)
    complex_dtype = np.result_type(dtype, 1j)
    assert results[0][0].dtype == complex_dtype and results[0][2].dtype == np.dtype(dtype)
    _assert_close(_assemble([(r[0], r[1], None) for r in results], want.shape, complex_dtype), want, complex_dtype)
    _assert_close(_assemble([(r[2], r[3], None) for r in results], shape, dtype), x.astype(np.float64), complex_dtype)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_irfftn_of_a_spectrum_with_every_norm(rng, norm):
    spectrum = np.fft.rfftn(rng.standard_normal((6, 5, 8)))
    want = np.fft.irfftn(spectrum, norm=norm)
    results = run_ranks(3, lambda c: (dfft.irfftn(spectrum[dfft.local_slices(spectrum.shape, c)].copy(), c, norm=norm),
                                      dfft.local_slices(want.shape, c), None))
    _assert_close(_assemble(results, want.shape, want.dtype), want, "complex128")
    forward = run_ranks(3, lambda c: (dfft.rfftn(want[dfft.local_slices(want.shape, c)].copy(), c, norm=norm),
                                      dfft.local_slices(spectrum.shape, c), None))
    _assert_close(_assemble(forward, spectrum.shape, spectrum.dtype), np.fft.rfftn(want, norm=norm), "complex128")


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("call,error,message", [
    (lambda c: dfft.rfftn(np.zeros((4, 4), complex), c), TypeError, "real input"),
    (lambda c: dfft.rfftn(np.zeros((4, 4)), c, axes=(1, 0)), ValueError, "split in the natural layout"),
    (lambda c: dfft.irfftn(np.zeros((4, 3, 4), complex), c, decomposition="pencil", axes=(0, 2, 1)), ValueError,
     "split in the natural layout"),
    (lambda c: dfft.irfftn(np.zeros((2, 3), complex), c, n=7), ValueError, "n // 2 + 1"),
    (lambda c: dfft.irfftn(np.zeros((2, 1), complex), c), ValueError, "real points"),
])
def test_real_transform_errors(call, error, message):
    errors = run_ranks_errors(2, call)
    assert all(isinstance(e, error) and message in str(e) for e in errors), errors


@pytest.mark.usefixtures("numpy_ops")
def test_local_slices_tile_the_global_array_like_array_split():
    shape = (7, 5, 3)
    for decomposition in ("slab", "pencil"):
        for transposed in (False, True):
            seen = np.zeros(shape, int)
            for where in run_ranks(4, lambda c: dfft.local_slices(shape, c, decomposition=decomposition,
                                                                   transposed=transposed)):
                seen[where] += 1
            assert (seen == 1).all()
    slabs = run_ranks(3, lambda c: dfft.local_slices((7, 2), c))
    assert [s[0] for s in slabs] == [slice(0, 3), slice(3, 5), slice(5, 7)]


# ------------------------------------------------------------------------------------------------
# errors, raised on every rank
# ------------------------------------------------------------------------------------------------

@pytest.mark.usefixtures("numpy_ops")
def test_blocks_that_are_not_array_split_shares_raise_on_every_rank():
    def body(comm):
        dfft.fftn(np.zeros((2 if comm.rank == 0 else 3, 4), np.complex64), comm)
    errors = run_ranks_errors(2, body)
    assert all(isinstance(e, ValueError) and "array_split" in str(e) for e in errors)


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("kwargs", [{"norm": "ortho"}, {"axes": (1,)}, {"decomposition": "pencil"},
                                    {"transposed_out": True}])
def test_ranks_with_different_arguments_raise_on_every_rank(kwargs):
    def body(comm):
        dfft.fftn(np.zeros((4, 4, 4), np.complex64), comm, **(kwargs if comm.rank == 1 else {}))
    errors = run_ranks_errors(2, body)
    assert all(isinstance(e, ValueError) for e in errors), errors


@pytest.mark.usefixtures("numpy_ops")
@pytest.mark.parametrize("bad,error", [
    ({"x_local": "not an array"}, TypeError), ({"x_local": np.array(["a", "b"])}, TypeError),
    ({"norm": "both"}, ValueError), ({"decomposition": "cube"}, ValueError), ({"grid": (2,)}, ValueError),
    ({"axes": (0, 0)}, ValueError), ({"axes": (5,)}, ValueError), ({"x_local": np.zeros(4, complex)}, ValueError),
])
def test_one_rank_with_a_bad_argument_raises_it_and_the_others_a_value_error(bad, error):
    def body(comm):
        kwargs = {"x_local": np.zeros((4, 4), np.complex64)}
        if comm.rank == 1:
            kwargs.update(bad)
        dfft.fftn(kwargs.pop("x_local"), comm, **kwargs)
    errors = run_ranks_errors(3, body)
    assert isinstance(errors[1], error)
    assert all(isinstance(e, ValueError) and "rank(s) [1]" in str(e) for i, e in enumerate(errors) if i != 1)


@pytest.mark.usefixtures("numpy_ops")
def test_zero_length_transformed_axis_is_a_value_error():
    errors = run_ranks_errors(2, lambda c: dfft.fftn(np.zeros((2, 0), np.complex64), c))
    assert all(isinstance(e, ValueError) and "Invalid number" in str(e) for e in errors)


def test_a_non_communicator_is_a_type_error():
    with pytest.raises(TypeError, match="comm"):
        dfft.fftn(np.zeros((2, 2)), object())
    with pytest.raises(TypeError, match="comm"):
        dfft.local_slices((2, 2), 5)


def test_the_public_names():
    assert rd.fft.fftn is dfft.fftn and set(dfft.__all__) == {"fftn", "ifftn", "rfftn", "irfftn", "local_slices"}


# ------------------------------------------------------------------------------------------------
# GPU: the device path (rocfft's local transforms, CuPy buffers, the real Communicator)
# ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("decomposition", ["slab", "pencil"])
def test_one_rank_on_the_device_matches_numpy(rng, dtype, decomposition):
    import cupy

    comm = rd.Communicator.local([0])[0]
    x = _random(rng, (16, 12, 10), dtype)
    try:
        got = cupy.asnumpy(dfft.fftn(cupy.asarray(x), comm, decomposition=decomposition, norm="ortho"))
        back = cupy.asnumpy(dfft.ifftn(cupy.asarray(got), comm, decomposition=decomposition, norm="ortho"))
    finally:
        comm.close()
    _assert_close(got, np.fft.fftn(x.astype(np.complex128), norm="ortho"), dtype)
    _assert_close(back, x.astype(np.complex128), dtype)


@pytest.mark.gpu
@pytest.mark.skipif(backend.device_count() < 2, reason="two ranks need two GPUs (NCCL refuses two ranks on one)")
@pytest.mark.parametrize("shape", [(64, 48, 40), (33, 17, 9)])
@pytest.mark.parametrize("transposed_out", [False, True])
@pytest.mark.parametrize("decomposition", ["slab", "pencil"])
def test_two_gpus_match_numpy(rng, shape, transposed_out, decomposition):
    import cupy

    comms = rd.Communicator.local([0, 1])
    x = _random(rng, shape, "complex64")

    def body(comm):
        where = dfft.local_slices(shape, comm, decomposition=decomposition)
        out = dfft.fftn(cupy.asarray(x[where]), comm, decomposition=decomposition, transposed_out=transposed_out)
        there = dfft.local_slices(shape, comm, decomposition=decomposition, transposed=transposed_out)
        return cupy.asnumpy(out), there, ()

    try:
        results = rd.run_threads(body, comms)
    finally:
        for c in comms:
            c.close()
    _assert_close(_assemble(results, shape, x.dtype), np.fft.fftn(x.astype(np.complex128)), x.dtype)
