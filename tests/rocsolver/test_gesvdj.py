"""rocsolver gesvdj / gesvd: the Jacobi driver on the CPU against a NumPy model of its kernels
(tests/svd_model.py), argument errors on fake device arrays, and the kernels on the GPU against
NumPy in float64 (backward error, orthonormality, singular values)."""

import numpy as np
import pytest

from conftest import fake, to_device, to_host
from svd_model import Model, pair

import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _svd

ALL = ["float32", "float64", "complex64", "complex128"]


def real_of(dtype):
    return np.dtype(np.dtype(dtype).char.lower())


def eps(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def random_matrices(rng, shape, dtype):
    dtype = np.dtype(dtype)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def pack(mats, ld, stride):
    """Host flat buffer of column-major matrices (leading dimension ld, stride apart), NaN-padded."""
    batch, rows, cols = mats.shape
    buf = np.full(max((batch - 1) * stride + (cols - 1) * ld + rows, 1) + 3, np.nan, mats.dtype)
    for b in range(batch):
        for j in range(cols):
            buf[b * stride + j * ld:b * stride + j * ld + rows] = mats[b, :, j]
    return buf


def unpack(buf, batch, rows, cols, ld, stride):
    buf = np.asarray(buf)
    return np.stack([np.stack([buf[b * stride + j * ld:b * stride + j * ld + rows] for j in range(cols)], axis=1)
                     for b in range(batch)]) if rows and cols else np.zeros((batch, rows, cols), buf.dtype)


class Layout:
    """Buffers of one gesvdj_strided_batched call with padded leading dimensions and strides."""

    def __init__(self, a, left, right):
        self.a = a
        self.batch, self.m, self.n = a.shape
        m, n = self.m, self.n
        self.q = q = min(m, n)
        self.left, self.right = left, right
        self.lda, self.sa = m + 1, (m + 1) * n + 2
        self.ucols = {"A": m, "S": q, "N": 0}[left]
        self.vrows = {"A": n, "S": q, "N": 0}[right]
        self.ldu, self.su = m + 2, (m + 2) * self.ucols + 1
        self.ldv = max(self.vrows, 1) + 1
        self.sv = self.ldv * n + 3
        self.ss = q + 1
        dtype, rdtype = a.dtype, real_of(a.dtype)
        self.A = pack(a, self.lda, self.sa)
        self.S = np.full(self.batch * self.ss + 1, np.nan, rdtype)
        self.U = np.full(self.batch * self.su + 1, np.nan, dtype) if left != "N" else None
        self.V = np.full(self.batch * self.sv + 1, np.nan, dtype) if right != "N" else None
        self.residual = np.full(self.batch, np.nan, rdtype)
        self.n_sweeps = np.full(self.batch, -1, np.int32)
        self.info = np.full(self.batch, -1, np.int32)

    def args(self, tol, max_sweeps):
        return (self.left, self.right, self.m, self.n, self.A, self.lda, self.sa, tol, self.residual, max_sweeps,
                self.n_sweeps, self.S, self.ss, self.U, self.ldu, self.su, self.V, self.ldv, self.sv, self.info,
                self.batch)

    def results(self, get=np.asarray):
        s = np.stack([get(self.S)[b * self.ss:b * self.ss + self.q] for b in range(self.batch)])
        u = unpack(get(self.U), self.batch, self.m, self.ucols, self.ldu, self.su) if self.U is not None else None
        vh = unpack(get(self.V), self.batch, self.vrows, self.n, self.ldv, self.sv) if self.V is not None else None
        return u, s, vh


def check_svd(a, u, s, vh, slack=1.0):
    """Backward error, orthonormality and singular values against NumPy in float64."""
    batch, m, n = a.shape
    q, p = min(m, n), max(m, n)
    e = eps(a.dtype)
    wide = a.astype(np.complex128)
    for b in range(batch):
        want = np.linalg.svd(wide[b], compute_uv=False)
        scale = max(float(want[0]) if q else 0.0, np.finfo(np.float64).tiny)
        assert s[b].dtype == real_of(a.dtype)
        assert np.all(np.diff(s[b].astype(np.float64)) <= 0), s[b]
        assert np.max(np.abs(s[b] - want), initial=0) <= 30 * slack * p * e * scale
        if u is not None:
            ub = u[b].astype(np.complex128)
            assert np.max(np.abs(ub.conj().T @ ub - np.eye(ub.shape[1])), initial=0) <= 10 * slack * max(p, 16) * e
        if vh is not None:
            vb = vh[b].astype(np.complex128)
            assert np.max(np.abs(vb @ vb.conj().T - np.eye(vb.shape[0])), initial=0) <= 10 * slack * max(p, 16) * e
        if u is not None and vh is not None and q:
            rebuilt = (ub[:, :q] * s[b]) @ vb[:q]
            err = np.linalg.norm(rebuilt - wide[b]) / (max(np.linalg.norm(wide[b]), 1e-300) * p * e)
            assert err <= 10 * slack, err


# --------------------------------------------------------------------------------------------
# CPU: the driver with the kernel model
# --------------------------------------------------------------------------------------------

@pytest.fixture
def model(monkeypatch):
    stand_in = Model()
    monkeypatch.setattr(_svd, "_kern", stand_in)
    return stand_in


@pytest.mark.parametrize("qe", [2, 4, 6, 8, 12])
def test_tournament_pairs_every_column_pair_once_per_sweep_in_disjoint_rounds(qe):
    seen = []
    for r in range(qe - 1):
        cols = [c for k in range(qe // 2) for c in pair(r, k, qe)]
        assert sorted(cols) == list(range(qe))
        seen += [tuple(sorted(pair(r, k, qe))) for k in range(qe // 2)]
    assert sorted(seen) == sorted((i, j) for i in range(qe) for j in range(i + 1, qe))


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 3), (3, 5), (7, 7), (6, 1), (1, 4), (9, 4)])
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("large", [False, True], ids=["one_launch", "per_round"])
def test_driver_matches_numpy(model, monkeypatch, rng, shape, dtype, large):
    if large:
        monkeypatch.setattr(_svd, "SMALL_Q", 1)
    a = random_matrices(rng, (2,) + shape, dtype)
    for left, right in (("A", "A"), ("S", "S"), ("N", "N"), ("A", "N"), ("N", "S")):
        lay = Layout(a, left, right)
        _svd.run(*lay.args(_svd.default_tolerance(dtype, max(shape)), 100))
        assert list(lay.info) == [0, 0]
        assert np.all(lay.n_sweeps >= (1 if min(shape) > 1 else 0)) and np.all(lay.n_sweeps < 30)
        assert np.all(np.isfinite(lay.residual))
        check_svd(a, *lay.results())
    assert (model.launches["round"] > 0) == (large and min(shape) > 1)
    assert (model.launches["small"] > 0) == (not large or min(shape) == 1)
    assert model.launches["block_round"] == 0


@pytest.mark.parametrize("shape", [(2, 2), (9, 4), (4, 9), (40, 37), (35, 50)])
@pytest.mark.parametrize("dtype", ALL)
def test_driver_block_path_matches_numpy(model, monkeypatch, rng, shape, dtype):
    # 37 columns: three 16-column blocks (the last 5 wide) and a pad block
    monkeypatch.setattr(_svd, "SMALL_Q", 1)
    monkeypatch.setattr(_svd, "BLOCK_Q", 2)
    a = random_matrices(rng, (2,) + shape, dtype)
    for left, right in (("A", "A"), ("S", "N"), ("N", "S")):
        lay = Layout(a, left, right)
        _svd.run(*lay.args(_svd.default_tolerance(dtype, max(shape)), 100))
        assert list(lay.info) == [0, 0]
        assert np.all(lay.n_sweeps >= 1) and np.all(lay.n_sweeps < 30)
        check_svd(a, *lay.results())
    assert model.launches["block_round"] > 0 and model.launches["round"] == 0


@pytest.mark.parametrize("large", [False, True], ids=["one_launch", "per_round"])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_rank_deficient_full_vectors_are_completed_orthonormal(model, monkeypatch, rng, dtype, large):
    if large:
        monkeypatch.setattr(_svd, "SMALL_Q", 1)
    x = random_matrices(rng, (6, 2), dtype)
    tall = np.concatenate([x, x[:, :1], np.zeros((6, 1), dtype)], axis=1)   # 6 x 4, rank 2
    y = random_matrices(rng, (6, 2), dtype)
    other = np.concatenate([y[:, :1], y, y[:, 1:] * 2], axis=1)             # rank 2 as well
    mixed = np.stack([tall, random_matrices(rng, (6, 4), dtype), other, np.zeros((6, 4), dtype)])
    for a in (tall[None], tall.T.conj()[None], np.zeros((1, 5, 3), dtype), mixed, mixed.conj().swapaxes(1, 2)):
        lay = Layout(a, "A", "A")
        _svd.run(*lay.args(_svd.default_tolerance(dtype, max(a.shape[1:])), 100))
        assert not lay.info.any()
        u, s, vh = lay.results()
        assert np.all(np.isfinite(u)) and np.all(np.isfinite(vh))
        check_svd(a, u, s, vh)


@pytest.mark.parametrize("large", [False, True], ids=["one_launch", "per_round"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_stops_after_one_sweep_with_info_1(model, monkeypatch, rng, bad, large):
    if large:
        monkeypatch.setattr(_svd, "SMALL_Q", 1)
    a = random_matrices(rng, (3, 5, 4), "float64")
    a[1, 2, 3] = bad
    lay = Layout(a, "S", "S")
    _svd.run(*lay.args(_svd.default_tolerance("float64", 5), 100))
    assert list(lay.info) == [0, 1, 0]
    assert lay.n_sweeps[1] == 1
    check_svd(a[[0, 2]], *(x[[0, 2]] for x in lay.results()))


@pytest.mark.parametrize("large", [False, True], ids=["one_launch", "per_round"])
def test_too_few_sweeps_report_info_1(model, monkeypatch, rng, large):
    if large:
        monkeypatch.setattr(_svd, "SMALL_Q", 1)
    a = random_matrices(rng, (2, 8, 8), "float64")
    lay = Layout(a, "N", "N")
    _svd.run(*lay.args(_svd.default_tolerance("float64", 8), 1))
    assert list(lay.info) == [1, 1] and list(lay.n_sweeps) == [1, 1]
    assert np.all(lay.residual > _svd.default_tolerance("float64", 8))


def test_empty_and_zero_batch_leave_outputs_alone_and_report_success(model, rng):
    a = np.zeros((2, 0, 3))
    lay = Layout(a, "A", "A")
    _svd.run(*lay.args(1e-10, 10))
    assert list(lay.info) == [0, 0] and list(lay.n_sweeps) == [0, 0]
    lay = Layout(np.zeros((0, 3, 3)), "A", "A")
    _svd.run(*lay.args(1e-10, 10))


def test_null_completion_is_orthonormal_and_orthogonal_to_the_found_columns(rng):
    found = np.linalg.qr(random_matrices(rng, (9, 3), "complex128"))[0]
    extra = _svd.null_completion(found, 6, np.random.default_rng(1))
    full = np.concatenate([found, extra], axis=1)
    assert np.max(np.abs(full.conj().T @ full - np.eye(9))) < 1e-14


# --------------------------------------------------------------------------------------------
# CPU: argument errors (fake device arrays, never launched)
# --------------------------------------------------------------------------------------------

def _fake_call(**over):
    m, n = 4, 3
    args = dict(left_svect="A", right_svect="A", m=m, n=n, A=fake((16,), "float64"), lda=4, abstol=0.0,
                residual=fake((1,), "float64"), max_sweeps=10, n_sweeps=fake((1,), "int32"),
                S=fake((3,), "float64"), U=fake((16,), "float64"), ldu=4, V=fake((9,), "float64"), ldv=3,
                info=fake((1,), "int32"))
    args.update(over)
    rocsolver.gesvdj(**args)


@pytest.mark.parametrize("over, error, text", [
    (dict(left_svect="O"), ValueError, "left_svect"),
    (dict(right_svect="X"), ValueError, "right_svect"),
    (dict(m=-1), ValueError, "m must be"),
    (dict(lda=3), ValueError, "lda"),
    (dict(ldu=3), ValueError, "ldu"),
    (dict(ldv=2), ValueError, "ldv"),
    (dict(A=fake((11,), "float64")), ValueError, "elements of A"),
    (dict(U=fake((15,), "float64")), ValueError, "elements of U"),
    (dict(A=fake((16,), "float16")), TypeError, "float16"),
    (dict(S=fake((3,), "float32")), TypeError, "S must be"),
    (dict(U=fake((16,), "float32")), TypeError, "U must have"),
    (dict(U=None), TypeError, "U is required"),
    (dict(info=fake((1,), "int64")), TypeError, "info"),
    (dict(n_sweeps=fake((1,), "float64")), TypeError, "n_sweeps"),
    (dict(residual=fake((1,), "float32")), TypeError, "residual"),
    (dict(max_sweeps=0), ValueError, "max_sweeps"),
    (dict(abstol="x"), TypeError, "abstol"),
    (dict(A=np.zeros(16)), TypeError, "A"),
])
def test_gesvdj_argument_errors(over, error, text):
    with pytest.raises(error, match=text):
        _fake_call(**over)


def test_gesvd_argument_errors():
    base = dict(left_svect="S", right_svect="S", m=4, n=3, A=fake((12,), "complex64"), lda=4,
                S=fake((3,), "float32"), U=fake((12,), "complex64"), ldu=4, V=fake((9,), "complex64"), ldv=3,
                E=fake((2,), "float32"), fast_alg="I", info=fake((1,), "int32"))
    with pytest.raises(ValueError, match="fast_alg"):
        rocsolver.gesvd(**dict(base, fast_alg="Z"))
    with pytest.raises(TypeError, match="E must be"):
        rocsolver.gesvd(**dict(base, E=fake((2,), "float64")))
    with pytest.raises(ValueError, match="strideS"):
        rocsolver.gesvd_strided_batched("N", "N", 4, 3, fake((24,), "float32"), 4, 12, fake((6,), "float32"), 2,
                                        None, 1, 0, None, 1, 0, fake((4,), "float32"), 2, "O",
                                        fake((2,), "int32"), 2)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _device(lay):
    """The layout's buffers moved to the device (NaN-poisoned outputs)."""
    for name in ("A", "S", "U", "V", "residual", "n_sweeps", "info"):
        value = getattr(lay, name)
        if value is not None:
            setattr(lay, name, to_device(value))
    return lay


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("batch, m, n", [(3, 1, 1), (4, 2, 2), (5, 17, 9), (3, 9, 17), (2, 64, 64),
                                         (2, 65, 40), (1, 70, 90), (2, 131, 67)])
def test_gesvdj_strided_batched_matches_numpy(rng, dtype, batch, m, n):
    a = random_matrices(rng, (batch, m, n), dtype)
    for left, right in (("A", "A"), ("S", "N")):
        lay = _device(Layout(a, left, right))
        rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
        assert list(to_host(lay.info)) == [0] * batch
        assert np.all(to_host(lay.n_sweeps) >= (1 if min(m, n) > 1 else 0))
        assert np.all(to_host(lay.residual) <= _svd.default_tolerance(dtype, max(m, n)))
        check_svd(a, *lay.results(to_host))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gesvdj_one_larger_matrix(rng, dtype):
    a = random_matrices(rng, (1, 300, 257), dtype)
    lay = _device(Layout(a, "S", "S"))
    rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
    assert int(to_host(lay.info)[0]) == 0
    check_svd(a, *lay.results(to_host))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, m, n", [("float64", 2048, 2048), ("float32", 1000, 1000),
                                         ("complex128", 1031, 1000), ("complex64", 1000, 1217),
                                         ("float64", 1500, 1024)])
def test_gesvdj_block_path_large_matrices(rng, dtype, m, n):
    assert min(m, n) >= _svd.BLOCK_Q
    a = random_matrices(rng, (1, m, n), dtype)
    lay = _device(Layout(a, "A", "A"))
    rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
    assert int(to_host(lay.info)[0]) == 0
    assert 1 <= int(to_host(lay.n_sweeps)[0]) < 30
    check_svd(a, *lay.results(to_host))


@pytest.mark.gpu
@pytest.mark.parametrize("q", [5, 80, 1000])
def test_gesvdj_ill_conditioned_and_rank_deficient(rng, q):
    u = np.linalg.qr(rng.standard_normal((q + 3, q)))[0]
    v = np.linalg.qr(rng.standard_normal((q, q)))[0]
    graded = (u * np.logspace(0, -10, q)) @ v.T            # cond 1e10
    lowrank = (u[:, :2] * [3.0, 1.0]) @ v[:, :2].T           # rank 2
    zero_cols = graded.copy()
    zero_cols[:, 1] = 0
    zero_cols[:, 3] = zero_cols[:, 2]
    a = np.stack([graded, lowrank, zero_cols])
    lay = _device(Layout(a, "A", "A"))
    rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
    assert list(to_host(lay.info)) == [0, 0, 0]
    u_, s_, vh_ = lay.results(to_host)
    check_svd(a, u_, s_, vh_)
    want = np.linalg.svd(graded, compute_uv=False)
    assert np.max(np.abs(s_[0] - want)) <= 30 * (q + 3) * eps("float64") * want[0]


@pytest.mark.gpu
@pytest.mark.parametrize("q", [6, 70])
def test_gesvdj_nan_input_reports_info_and_returns(rng, q):
    a = rng.standard_normal((2, q, q))
    a[0, 1, 1] = np.nan
    lay = _device(Layout(a, "N", "N"))
    rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
    assert list(to_host(lay.info)) == [1, 0]
    assert to_host(lay.n_sweeps)[0] == 1


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gesvd_single_matrix(rng, dtype):
    m, n = 12, 7
    a = random_matrices(rng, (1, m, n), dtype)
    rd = real_of(dtype)
    A = to_device(np.asfortranarray(a[0]))
    S = to_device(np.full(n, np.nan, rd))
    U = to_device(np.full((m, m), np.nan, dtype, order="F"))
    V = to_device(np.full((n, n), np.nan, dtype, order="F"))
    E = to_device(np.full(n - 1, np.nan, rd))
    info = to_device(np.full(1, -1, np.int32))
    rocsolver.gesvd("A", "A", m, n, A, m, S, U, m, V, n, E, "O", info)
    assert int(to_host(info)[0]) == 0
    assert np.all(to_host(E) == 0)
    np.testing.assert_array_equal(to_host(A), a[0])   # A is left unchanged
    check_svd(a, to_host(U)[None], to_host(S)[None], to_host(V)[None])
