"""The Communicator against NumPy through the in-process test double (threads as ranks): every
collective, op and dtype with 1 to 4 ranks, uneven all_to_all, groups, the one-process mode, the
cross-rank validation (the same error on every rank) and the watchdog (a rank that never
arrives gives DistributedError within the timeout)."""

import time

import numpy as np
import pytest

from fake_comm import Transport, installed, run_ranks
from rocarray.distributed import Communicator, DistributedError, group

RANKS = [1, 2, 3, 4]
REDUCIBLE = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
             "complex64", "complex128"]
ANY = REDUCIBLE + ["bool", "int16", "uint16"]


def _ops(dtype):
    kind = np.dtype(dtype).kind
    if kind == "c":
        return ["sum", "avg"]
    return ["sum", "prod", "min", "max"] + (["avg"] if kind == "f" else [])


def _data(rank, shape, dtype, salt=0):
    """Rank-dependent small values (products and sums stay exact in every dtype)."""
    rng = np.random.default_rng(1000 * salt + rank)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    values = rng.integers(1, 4, size=shape)
    if dtype.kind == "c":
        return (values + 1j * rng.integers(1, 4, size=shape)).astype(dtype)
    return values.astype(dtype)


def _expected(op, stack, dtype):
    if op == "avg":
        return (stack.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64).mean(axis=0)).astype(dtype)
    return {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}[op](stack, axis=0).astype(dtype)


def _stack(n, shape, dtype, salt=0):
    return np.stack([_data(r, shape, dtype, salt) for r in range(n)])


def _assert_all(results, expected):
    for rank, got in enumerate(results):
        np.testing.assert_array_equal(got, expected, err_msg=f"rank {rank}")


@pytest.mark.parametrize("native_avg", [True, False])
@pytest.mark.parametrize("n", RANKS)
def test_all_reduce_every_op_and_dtype_matches_numpy(n, native_avg):
    shape = (3, 5)
    cases = [(d, op) for d in REDUCIBLE for op in _ops(d)]

    def body(comm):
        out = []
        for salt, (dtype, op) in enumerate(cases):
            x = _data(comm.rank, shape, dtype, salt)
            out.append(comm.all_reduce(x, op=op))
        return out

    results = run_ranks(n, body, native_avg=native_avg)
    for i, (dtype, op) in enumerate(cases):
        want = _expected(op, _stack(n, shape, dtype, i), dtype)
        for rank in range(n):
            np.testing.assert_allclose(results[rank][i], want, rtol=1e-3, err_msg=f"{dtype} {op} rank {rank}")
            assert results[rank][i].dtype == np.dtype(dtype)


@pytest.mark.parametrize("n", RANKS)
def test_all_reduce_in_place_and_into_out(n):
    def body(comm):
        x = _data(comm.rank, (4,), "float64")
        same = comm.all_reduce(x, out=x)
        out = np.empty(4)
        given = comm.all_reduce(_data(comm.rank, (4,), "float64"), out=out)
        return same is x, x, given is out, out

    want = _stack(n, (4,), "float64").sum(axis=0)
    for is_x, x, is_out, out in run_ranks(n, body):
        assert is_x and is_out
        np.testing.assert_array_equal(x, want)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("n", RANKS)
def test_reduce_lands_on_root_only(n):
    def body(comm):
        return [comm.reduce(_data(comm.rank, (2, 3), "int32"), root=root, op="max") for root in range(comm.size)]

    want = _stack(n, (2, 3), "int32").max(axis=0)
    for rank, results in enumerate(run_ranks(n, body)):
        for root, got in enumerate(results):
            if rank == root:
                np.testing.assert_array_equal(got, want)
            else:
                assert got is None


@pytest.mark.parametrize("n", RANKS)
def test_broadcast_any_dtype_from_every_root(n):
    def body(comm):
        out = []
        for dtype in ANY:
            for root in range(comm.size):
                x = _data(comm.rank, (3, 2), dtype, salt=root)
                out.append(comm.broadcast(x, root=root).copy())
        return out

    results = run_ranks(n, body)
    i = 0
    for dtype in ANY:
        for root in range(n):
            _assert_all([r[i] for r in results], _data(root, (3, 2), dtype, salt=root))
            i += 1


@pytest.mark.parametrize("n", RANKS)
def test_broadcast_of_a_strided_view_on_the_root(n):
    def body(comm):
        base = _data(comm.rank, (4, 6), "float32")
        x = base[:, ::2] if comm.rank == 0 else np.zeros((4, 3), np.float32)
        return comm.broadcast(x, root=0).copy()

    _assert_all(run_ranks(n, body), _data(0, (4, 6), "float32")[:, ::2])


@pytest.mark.parametrize("n", RANKS)
def test_all_gather_along_every_axis_and_as_list(n):
    shape = (2, 3, 4)

    def body(comm):
        x = _data(comm.rank, shape, "int16")
        gathered = [comm.all_gather(x, axis=axis) for axis in (0, 1, -1)]
        out = np.empty((2 * comm.size, 3, 4), np.int16)
        into = comm.all_gather(x, out=out)
        pieces = comm.all_gather(x[:, ::2], as_list=True)
        return gathered, into is out, out, pieces

    parts = [_data(r, shape, "int16") for r in range(n)]
    for gathered, is_out, out, pieces in run_ranks(n, body):
        for got, axis in zip(gathered, (0, 1, -1)):
            np.testing.assert_array_equal(got, np.concatenate(parts, axis=axis))
        assert is_out
        np.testing.assert_array_equal(out, np.concatenate(parts))
        assert len(pieces) == n
        for piece, part in zip(pieces, parts):
            np.testing.assert_array_equal(piece, part[:, ::2])


@pytest.mark.parametrize("n", RANKS)
def test_reduce_scatter_every_op(n):
    def body(comm):
        return [comm.reduce_scatter(_data(comm.rank, (2 * comm.size, 3), "float32", salt), op=op)
                for salt, op in enumerate(_ops("float32"))]

    results = run_ranks(n, body)
    for i, op in enumerate(_ops("float32")):
        full = _expected(op, _stack(n, (2 * n, 3), "float32", i), "float32")
        for rank in range(n):
            np.testing.assert_allclose(results[rank][i], full[2 * rank:2 * rank + 2], rtol=1e-6)


@pytest.mark.parametrize("n", RANKS)
def test_all_to_all_equal_blocks(n):
    def body(comm):
        x = _data(comm.rank, (3 * comm.size, 2), "complex64")
        return comm.all_to_all(x)

    parts = [_data(r, (3 * n, 2), "complex64") for r in range(n)]
    for rank, got in enumerate(run_ranks(n, body)):
        np.testing.assert_array_equal(got, np.concatenate([p[3 * rank:3 * rank + 3] for p in parts]))


@pytest.mark.parametrize("n", RANKS)
def test_all_to_all_uneven_counts_with_zeros(n):
    counts = np.random.default_rng(n).integers(0, 4, size=(n, n))  # counts[i, j]: rows i sends to j
    counts[0, -1] = 0

    def body(comm):
        sent, received = counts[comm.rank], counts[:, comm.rank]
        x = _data(comm.rank, (int(sent.sum()), 3), "float64")
        out = np.empty((int(received.sum()), 3))
        got = comm.all_to_all(x, out=out, send_counts=list(sent), recv_counts=list(received))
        return got is out, out

    parts = [_data(r, (int(counts[r].sum()), 3), "float64") for r in range(n)]
    for rank, (is_out, got) in enumerate(run_ranks(n, body)):
        assert is_out
        blocks = [parts[src][counts[src, :rank].sum():counts[src, :rank + 1].sum()] for src in range(n)]
        np.testing.assert_array_equal(got, np.concatenate(blocks))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_send_recv_around_a_ring(n):
    def body(comm):
        right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
        out = np.empty((2, 2), np.uint16)
        with group():
            comm.send(_data(comm.rank, (2, 2), "uint16"), right)
            comm.recv(out, left)
        return out

    for rank, got in enumerate(run_ranks(n, body)):
        np.testing.assert_array_equal(got, _data((rank - 1) % n, (2, 2), "uint16"))


def test_send_then_recv_in_order_between_two_ranks():
    def body(comm):
        if comm.rank == 0:
            comm.send(np.arange(5.0), 1)
            return comm.recv(np.empty(5), 1)
        got = comm.recv(np.empty(5), 0)
        comm.send(got * 2, 0)
        return got

    first, second = run_ranks(2, body)
    np.testing.assert_array_equal(second, np.arange(5.0))
    np.testing.assert_array_equal(first, np.arange(5.0) * 2)


@pytest.mark.parametrize("n", [2, 3])
def test_group_of_several_collectives(n):
    def body(comm):
        with group():
            a = comm.all_reduce(np.full(3, comm.rank + 1.0))
            b = comm.all_gather(np.array([comm.rank]))
            c = comm.all_to_all(np.arange(comm.size) + 10 * comm.rank)
        return a, b, c

    for rank, (a, b, c) in enumerate(run_ranks(n, body)):
        np.testing.assert_array_equal(a, np.full(3, n * (n + 1) / 2))
        np.testing.assert_array_equal(b, np.arange(n))
        np.testing.assert_array_equal(c, np.arange(n) * 10 + rank)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_without_validation_results_are_ready_after_the_barrier(n):
    def body(comm):
        x = _data(comm.rank, (5,), "int64")  # host memory stays alive until the fake's ops ran
        out = comm.all_reduce(x)
        comm.barrier()
        return out

    _assert_all(run_ranks(n, body, validate=False, timeout=None), _stack(n, (5,), "int64").sum(axis=0))


def test_local_communicators_driven_from_one_thread():
    with installed(Transport()):
        comms = Communicator.local([0, 1, 2])
        xs = [_data(c.rank, (4,), "float32") for c in comms]
        with group():
            sums = [c.all_reduce(x) for c, x in zip(comms, xs)]
            gathered = [c.all_gather(x) for c, x in zip(comms, xs)]
        with pytest.raises(ValueError, match="inside rocarray.distributed.group"):
            comms[0].all_reduce(xs[0])
        with pytest.raises(ValueError, match="same calls"):
            with group():
                comms[0].all_reduce(xs[0])
                comms[1].all_reduce(xs[1])
        with pytest.raises(ValueError, match="distinct"):
            Communicator.local([0, 0])
    for got in sums:
        np.testing.assert_array_equal(got, np.sum(xs, axis=0))
    for got in gathered:
        np.testing.assert_array_equal(got, np.concatenate(xs))


# ------------------------------------------------------------------------------------------------
# validation: the same error on every rank
# ------------------------------------------------------------------------------------------------

def _errors_everywhere(n, body, error, match=None):
    results = run_ranks(n, body, return_exceptions=True)
    for rank, result in enumerate(results):
        assert isinstance(result, error), f"rank {rank} got {result!r}"
        if match:
            assert match in str(result), f"rank {rank}: {result}"
    return results


def test_mismatched_shapes_raise_on_every_rank():
    _errors_everywhere(3, lambda c: c.all_reduce(np.ones(3 + (c.rank == 2))), ValueError, "x.shape differs")


def test_mismatched_dtypes_raise_on_every_rank():
    _errors_everywhere(2, lambda c: c.all_gather(np.ones(3, np.float32 if c.rank else np.float64)), TypeError,
                       "dtype differs")


def test_root_out_of_range_raises_on_every_rank():
    _errors_everywhere(2, lambda c: c.broadcast(np.ones(2), root=2), ValueError, "root=2")


def test_disagreeing_roots_raise_on_every_rank():
    _errors_everywhere(2, lambda c: c.reduce(np.ones(2), root=c.rank), ValueError, "root differs")


def test_bad_op_name_on_one_rank_raises_on_every_rank():
    results = _errors_everywhere(3, lambda c: c.all_reduce(np.ones(2), op="mean" if c.rank == 1 else "sum"),
                                 ValueError)
    assert "op must be one of" in str(results[1])
    assert "rank 1" in str(results[0])


def test_complex_prod_and_unsupported_dtypes_are_type_errors_everywhere():
    _errors_everywhere(2, lambda c: c.all_reduce(np.ones(2, np.complex64), op="prod"), TypeError, "complex")
    _errors_everywhere(2, lambda c: c.all_reduce(np.ones(2, np.int16)), TypeError, "int16")
    _errors_everywhere(2, lambda c: c.all_reduce(np.ones(2, np.int32), op="avg"), TypeError, "avg")


def test_all_to_all_count_disagreement_raises_on_every_rank():
    def body(comm):
        recv = [1, 1] if comm.rank == 0 else [2, 1]  # rank 0 sends rank 1 one row, rank 1 expects two
        return comm.all_to_all(np.ones((2, 2)), send_counts=[1, 1], recv_counts=recv)

    _errors_everywhere(2, body, ValueError, "rank 0 sends 1 rows to rank 1, which expects 2")


def test_all_to_all_indivisible_rows_and_bad_counts():
    _errors_everywhere(2, lambda c: c.all_to_all(np.ones(3)), ValueError, "divisible")
    _errors_everywhere(2, lambda c: c.all_to_all(np.ones(3), send_counts=[1, 1], recv_counts=[1, 1]), ValueError,
                       "add up")
    _errors_everywhere(2, lambda c: c.all_to_all(np.ones(2), send_counts=[1, 1]), ValueError, "together")


def test_send_recv_size_mismatch_raises_on_both_ranks():
    def body(comm):
        if comm.rank == 0:
            return comm.send(np.ones(4), 1)
        return comm.recv(np.empty(5), 0)

    _errors_everywhere(2, body, ValueError, "send/recv")


def test_different_collectives_raise_on_every_rank():
    _errors_everywhere(2, lambda c: c.all_reduce(np.ones(2)) if c.rank else c.all_gather(np.ones(2)), ValueError,
                       "the call differs")


def test_local_argument_errors():
    def body(comm):
        errors = []
        for call in (lambda: comm.all_reduce([1.0, 2.0]), lambda: comm.all_reduce(np.ones(2), out=np.ones(3)),
                     lambda: comm.all_gather(np.array(1.0)), lambda: comm.reduce_scatter(np.ones(3)),
                     lambda: comm.send(np.ones(1), comm.rank), lambda: comm.broadcast(np.ones(2), root="0")):
            try:
                call()
            except (TypeError, ValueError) as exc:
                errors.append(type(exc))
        return errors

    for errors in run_ranks(2, body):
        assert errors == [TypeError, ValueError, ValueError, ValueError, ValueError, TypeError]


# ------------------------------------------------------------------------------------------------
# the watchdog and closed communicators
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("validate", [True, False])
def test_a_rank_that_never_arrives_gives_distributed_error_within_the_timeout(validate):
    timeout = 0.3

    def body(comm):
        if comm.rank == 2:
            return "gone"
        start = time.monotonic()
        try:
            comm.all_reduce(np.ones(3))
        except DistributedError as exc:
            return exc, time.monotonic() - start
        return None

    results = run_ranks(3, body, timeout=timeout, validate=validate)
    assert results[2] == "gone"
    for exc, elapsed in results[:2]:
        assert "did not complete within" in str(exc)
        assert timeout <= elapsed < timeout + 2.0


def test_an_aborted_or_closed_communicator_refuses_calls():
    def body(comm):
        if comm.rank == 1:
            return None
        with pytest.raises(DistributedError):
            comm.all_reduce(np.ones(1))
        with pytest.raises(DistributedError, match="closed"):
            comm.all_reduce(np.ones(1))
        return repr(comm)

    assert "closed" in run_ranks(2, body, timeout=0.2)[0]

    def close(comm):
        with comm:
            pass
        with pytest.raises(DistributedError, match="closed"):
            comm.barrier()

    run_ranks(2, close)


def test_barrier_is_refused_inside_a_group():
    def body(comm):
        with pytest.raises(ValueError, match="barrier"):
            with group():
                comm.barrier()

    run_ranks(1, body)
