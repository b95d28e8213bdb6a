"""Choosing a convolution algorithm, MIOpen's find step, through the one tuning DB
(:mod:`rocarray._core.tuning`).

The candidates of a problem are the registered algorithms that apply to it
(:func:`rocarray.miopen._conv_registry.applicable`); the DB key is :meth:`ConvProblem.key` (exact
sizes, like MIOpen's find-db) under the operation ``'miopen.conv'``, ending with a digest of the
candidates' kernel sources. Find modes:

==========  ========================================================================================
``fast``    (default) the find-db's entry, else the heuristic; never times anything (``ROCARRAY_TUNE``
            and :func:`rocarray.tune` still ask every library to tune, convolutions included)
``normal``  a problem without an entry is timed once (every candidate) and the winner stored
``force``   every problem is timed again once per process, replacing its entry
==========  ========================================================================================

The mode is ``ROCARRAY_FIND_MODE`` (read at import and on :func:`rocarray._core.config.refresh`),
replaced by :func:`find_mode`. A chosen algorithm is kept in the plan cache under the problem, the
mode and the tuning state, so a repeated call costs one dictionary lookup.
"""

import os
import warnings

from rocarray._core import backend, config, plans, timing, tuning
from rocarray.miopen import _conv_registry
from rocarray.miopen._conv_problem import ConvProblem

OP = "miopen.conv"
#: The find modes (see the module docstring).
FIND_MODES = ("fast", "normal", "force")
ENV = "ROCARRAY_FIND_MODE"
#: The heuristic's order of preference among the algorithms that apply.
PREFERENCE = ("depthwise", "implicit_gemm", "gemm", "direct")
#: The order for a pointwise forward (:func:`pointwise_product`): "gemm" hands the tensors
#: themselves to rocblas (one product channels last, one strided batch channels first), where
#: implicit_gemm gathers its tiles. A 16-bit problem the warpgroup convolution takes
#: (:func:`rocarray.miopen._conv_wgmma.applies`) keeps :data:`PREFERENCE`: that kernel runs the
#: 1x1 bench problem in about two thirds of the rocblas product's time (docs/performance/miopen.md).
POINTWISE_PREFERENCE = ("gemm",) + PREFERENCE
#: Problems of fewer floating-point operations than this run "direct" by default.
SMALL_FLOPS = 1 << 22

_mode = ["fast"]     # the mode now
_from_env = [True]   # whether it came from the environment (re-read on config.refresh)


def _read_env():
    value = os.environ.get(ENV, "").strip().lower()
    if value and value not in FIND_MODES:
        warnings.warn(f"{ENV}={value!r} is not one of {FIND_MODES}; using 'fast'", RuntimeWarning, stacklevel=2)
    return value if value in FIND_MODES else "fast"


def _refresh():
    if _from_env[0]:
        _mode[0] = _read_env()


_mode[0] = _read_env()
config.on_refresh(_refresh)


class _Restore:
    """What :func:`find_mode` returns when it sets a mode: a context manager putting the previous
    mode back on exit."""

    def __init__(self, previous):
        self._previous = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _mode[0], _from_env[0] = self._previous
        return False

    def __repr__(self):
        return f"find_mode({_mode[0]!r})"


def find_mode(mode=None):
    """The convolution algorithm search's mode: read it, or set it (for the process, or for a
    ``with`` block).

    Parameters
    ----------
    mode : {None, 'fast', 'normal', 'force'}
        ``None`` returns the mode now. ``'fast'`` (the default): the find-db's entry for a problem,
        else a heuristic; never times. ``'normal'``: a problem without an entry is timed once (each
        applicable algorithm) and the winner stored in the find-db. ``'force'``: problems are timed
        again (once per process) and their entries replaced. The environment variable
        ``ROCARRAY_FIND_MODE`` gives the mode at start.

    Returns
    -------
    str or context manager
        The mode (``mode=None``); otherwise an object whose ``with`` block ends by restoring the
        mode that was set before the call.

    Raises
    ------
    ValueError
        For another mode.

    Examples
    --------
    >>> import rocarray as ra
    >>> ra.nn.find_mode()
    'fast'
    >>> with ra.nn.find_mode("normal"):      # doctest: +SKIP
    ...     y = ra.nn.conv2d(x, w)           # times the algorithms once for this problem
    """
    if mode is None:
        return _mode[0]
    if not isinstance(mode, str) or mode.lower() not in FIND_MODES:
        raise ValueError(f"find_mode: mode must be one of {FIND_MODES}, got {mode!r}")
    previous = (_mode[0], _from_env[0])
    _mode[0], _from_env[0] = mode.lower(), False
    return _Restore(previous)


def conv_algorithms(problem):
    """The names of the algorithms that can run ``problem``, in the order of preference among equals.

    Parameters
    ----------
    problem : ConvProblem

    Returns
    -------
    list of str

    Raises
    ------
    TypeError
        When ``problem`` is not a :class:`ConvProblem`.
    """
    _check_problem(problem)
    return [a.name for a in _conv_registry.applicable(problem)]


def _check_problem(problem):
    if not isinstance(problem, ConvProblem):
        raise TypeError(f"problem must be a ConvProblem, not {type(problem).__name__}")


def pointwise_product(problem):
    """Whether ``problem`` is a forward 1x1 convolution of one group with stride 1 and no padding:
    its input and output are the operands of a matrix product (no patch matrix)."""
    return (problem.direction == "forward" and problem.groups == 1
            and all(f == 1 for f in problem.filter_size) and all(s == 1 for s in problem.stride)
            and not any(problem.pad) and tuple(problem.output_size) == tuple(problem.input_size))


def _warpgroup_convolution(problem):
    """Whether the sm_90a warpgroup convolution would run ``problem`` on the current device."""
    from rocarray.miopen import _conv_wgmma

    return _conv_wgmma.shape_applies(problem) and _conv_wgmma.device_applies(backend.device_info().id)


def heuristic(problem, candidates):
    """The algorithm chosen without timing: the first of :data:`PREFERENCE` among ``candidates``
    (below :data:`SMALL_FLOPS`, "direct" first: one launch beats the patch matrix and the product;
    for a :func:`pointwise_product`, :data:`POINTWISE_PREFERENCE` unless the warpgroup convolution
    takes it), else the first candidate."""
    by_name = {a.name: a for a in candidates}
    if problem.flops() < SMALL_FLOPS:
        order = ("direct",) + PREFERENCE
    elif pointwise_product(problem) and not _warpgroup_convolution(problem):
        order = POINTWISE_PREFERENCE
    else:
        order = PREFERENCE
    for name in order:
        if name in by_name:
            return by_name[name]
    return candidates[0]


def _sources(candidates):
    return tuple(sorted({s for a in candidates for s in getattr(a, "sources", ())}))


def _measure(problem, arrays):
    """``measure(algorithm) -> seconds`` on the call's own arrays (its output written as scratch)."""
    x, w, y = arrays

    def run(algorithm):
        algorithm.run(problem, x, w, y)

    def measure(algorithm):
        return timing.per_call_seconds(backend.cupy(), run, (algorithm,), 2)
    return measure


def _forced(problem, algo, candidates):
    for a in candidates:
        if a.name == algo:
            return a
    names = ", ".join(a.name for a in candidates)
    raise ValueError(f"algo={algo!r} cannot run this convolution; the algorithms that can: {names}")


def _choose(problem, candidates, arrays, mode):
    default = heuristic(problem, candidates)
    sources = _sources(candidates)
    if mode == "fast" or len(candidates) == 1:
        return tuning.choose(OP, problem.key(), candidates, _measure(problem, arrays), default, sources=sources)
    if mode == "normal":
        entry = tuning.lookup(OP, problem.key(), sources=sources)
        if entry is not None and any(a.name == entry["choice"] for a in candidates):
            return tuning.choose(OP, problem.key(), candidates, _measure(problem, arrays), default, sources=sources)
    with tuning.tune(force=mode == "force"):
        chosen = tuning.choose(OP, problem.key(), candidates, _measure(problem, arrays), default, sources=sources)
    # choices remembered before this measurement are stale
    tuning.clear_cache()
    return chosen


def select(problem, algo, arrays):
    """The algorithm to run ``problem`` with: ``algo`` when given (``ValueError`` naming the
    applicable ones when it cannot), else the find mode's choice. ``arrays``: the call's
    ``(x, w, y)``, timed on when the mode asks for it."""
    key = (OP, problem, algo, _mode[0], tuning.state_token())
    chosen = plans.cache.get(key)
    if chosen is None:
        candidates = _conv_registry.applicable(problem)
        if not candidates:
            raise ValueError(f"no convolution algorithm can run {problem}")
        if algo is not None:
            chosen = _forced(problem, algo, candidates)
        else:
            chosen = _choose(problem, candidates, arrays, _mode[0])
            key = (OP, problem, algo, _mode[0], tuning.state_token())
        plans.cache.put(key, chosen)
    return chosen


def _random(shape, dtype):
    cupy = backend.cupy()
    values = cupy.random.standard_normal(shape, dtype="float32")
    if dtype.name == "bfloat16":
        out = cupy.empty(shape, dtype=dtype)
        out.view(cupy.uint16)[...] = (values.view(cupy.uint32) >> 16).astype(cupy.uint16)
        return out
    return values.astype(dtype)


def find_convolution(problem):
    """Time every algorithm that can run ``problem`` once (on random data) and store the fastest in
    the find-db, MIOpen's ``FindConvolution*Algorithm``.

    Parameters
    ----------
    problem : ConvProblem

    Returns
    -------
    list of (str, float or None)
        ``(algorithm name, seconds)``, fastest first; None for an algorithm that failed to run.

    Raises
    ------
    TypeError
        When ``problem`` is not a :class:`ConvProblem`.
    ValueError
        When no algorithm can run it.
    """
    _check_problem(problem)
    candidates = _conv_registry.applicable(problem)
    if not candidates:
        raise ValueError(f"no convolution algorithm can run {problem}")
    arrays = (_random(problem.x_shape(), problem.dtype), _random(problem.w_shape(), problem.dtype),
              _random(problem.y_shape(), problem.dtype))
    measure = _measure(problem, arrays)
    seconds = {}

    def record(algorithm):
        seconds[algorithm.name] = measure(algorithm)
        return seconds[algorithm.name]

    sources = _sources(candidates)
    if len(candidates) == 1:
        record(candidates[0])
    else:
        with tuning.tune(force=True):
            tuning.choose(OP, problem.key(), candidates, record, heuristic(problem, candidates), sources=sources)
        tuning.clear_cache()
        if not seconds:  # already timed in this process: the stored times
            stored = tuning.lookup(OP, problem.key(), sources=sources) or {}
            seconds = dict(stored.get("seconds", {}))
    found = [(a.name, seconds.get(a.name)) for a in candidates]
    return sorted(found, key=lambda item: (item[1] is None, item[1] or 0.0))
