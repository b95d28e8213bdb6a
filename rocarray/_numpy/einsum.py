"""``einsum`` (``numpy.einsum``) with its contractions on rocblas GEMM.

Which cases run on GEMM (float16/float32/float64/complex64/complex128 results):

* every pairwise step of two or more operands. Labels of the pair are classified as *batch*
  (in both operands and still needed: in the output or in a later operand), *contracted* (in both,
  not needed), *free in a* and *free in b*; each operand is viewed as ``batch + (free, contracted)``
  (a strided view when its axes merge, one contiguous copy otherwise) and the step is one
  ``rocblas.gemm`` (no batch labels) or ``rocblas.gemm_strided_batched`` through
  :mod:`rocarray._numpy.gemm_route`. Matrix products, batched matrix products, tensor contractions,
  matrix-vector products, inner products and bilinear forms (``'i,ij,j'``) all take this path;
* a step with *no* contracted label (an outer or elementwise product such as ``'i,j->ij'`` or
  ``'ij,ij->ij'``) is an elementwise multiply of broadcast views (``cupy.multiply``), not a GEMM.

Before a step, an operand with a repeated label (``'ii,i'``) is replaced by a strided diagonal
view (no copy), and labels that only that operand carries and nothing later needs are summed
(``cupy.sum``). After the last step the remaining such labels are summed the same way and the
result is transposed (a view) to the output order.

Not contractions, so computed by ``cupy.einsum`` as a whole: a single operand (traces ``'ii'``,
diagonals ``'ii->i'``, permutations ``'ij->ji'``, sums ``'ij->i'``), and every call whose result
dtype is not a GEMM dtype (integers, bool).

Order of pairwise steps: ``optimize=False`` contracts left to right (operand 0 with 1, the result
with 2, ...); ``optimize=True``, ``'greedy'`` or ``'optimal'`` choose greedily, at each step, the
pair whose result is smallest relative to its inputs (preferring pairs that share a label, then
fewer multiply-adds);
an explicit path ``['einsum_path', (i, j), ...]`` is followed as NumPy's (contracted operands
removed, the result appended).
"""

import itertools
import math
import string

import numpy

from rocarray._numpy import gemm_route as _route
from rocarray._core import backend, plans
from rocarray._core.args import as_device_array

_LETTERS = set(string.ascii_letters)


# --------------------------------------------------------------------------------------------
# parsing (pure Python)
# --------------------------------------------------------------------------------------------

def _interleaved(args):
    """``(op0, sub0, op1, sub1, ..., [subout])`` as ``(subscripts, operands)``."""
    operands, terms = list(args[0::2]), [_sublist(s) for s in args[1::2]]
    output = None
    if len(args) % 2 == 1:
        operands, output = operands[:-1], _sublist(args[-1])
    subscripts = ",".join(terms)
    if output is not None:
        subscripts += "->" + output
    return subscripts, operands


def _sublist(sub):
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
            continue
        try:
            i = int(s) if isinstance(s, (int, numpy.integer)) else None
        except TypeError:
            i = None
        if i is None:
            raise TypeError("each subscript must be either an integer or an ellipsis")
        if not 0 <= i < 52:
            raise ValueError("subscript is not within the valid range [0, 52)")
        out.append(string.ascii_uppercase[i] if i < 26 else string.ascii_lowercase[i - 26])
    return "".join(out)


def _split_term(term, where):
    """A term as a list of letters with at most one ``'...'`` entry; NumPy's errors."""
    out, i = [], 0
    while i < len(term):
        ch = term[i]
        if ch == ".":
            if term[i:i + 3] != "..." or "..." in out:
                raise ValueError(
                    f"einstein sum subscripts string contains a '.' that is not part of an ellipsis "
                    f"('...') in {where}"
                )
            out.append("...")
            i += 3
            continue
        if ch not in _LETTERS:
            raise ValueError(f"invalid subscript '{ch}' in einstein sum subscripts string, subscripts must "
                             "be letters")
        out.append(ch)
        i += 1
    return out


def parse(subscripts, shapes):
    """Parse ``subscripts`` for operands of ``shapes``: ``(input label lists, output label list)``.

    Letters are labels; the dimensions an ellipsis covers get integer labels ``0 .. E-1``
    (right-aligned across operands, as broadcasting aligns them). Without ``'->'`` the output is
    the ellipsis dimensions then the letters that occur once, in ASCII order (NumPy's implicit
    mode). Raises NumPy's ValueErrors.
    """
    if not isinstance(subscripts, str):
        raise TypeError("einsum(): subscripts must be a string")
    s = subscripts.replace(" ", "")
    if "->" in s:
        lhs, rhs = s.split("->", 1)
    else:
        lhs, rhs = s, None
    raw = lhs.split(",")
    if len(raw) > len(shapes):  # NumPy's wording, kept as it is
        raise ValueError("more operands provided to einstein sum function than specified in the subscripts "
                         "string")
    if len(raw) < len(shapes):
        raise ValueError("fewer operands provided to einstein sum function than specified in the subscripts "
                         "string")
    terms = [_split_term(t, f"operand {i}") for i, t in enumerate(raw)]
    ell = 0
    for i, (t, shape) in enumerate(zip(terms, shapes)):
        letters = len(t) - ("..." in t)
        if letters > len(shape):
            raise ValueError(f"einstein sum subscripts string contains too many subscripts for operand {i}")
        if "..." not in t and letters < len(shape):
            raise ValueError("operand has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
        if "..." in t:
            ell = max(ell, len(shape) - letters)
    inputs = []
    for t, shape in zip(terms, shapes):
        labels = []
        for x in t:
            if x == "...":
                e = len(shape) - (len(t) - 1)
                labels.extend(range(ell - e, ell))
            else:
                labels.append(x)
        inputs.append(labels)
    if rhs is None:
        counts = {}
        for labels in inputs:
            for x in labels:
                if isinstance(x, str):
                    counts[x] = counts.get(x, 0) + 1
        output = list(range(ell)) + sorted(x for x, c in counts.items() if c == 1)
    else:
        if "-" in rhs or ">" in rhs:
            raise ValueError("invalid subscript '-' in einstein sum subscripts string, subscripts must be "
                             "letters")
        t = _split_term(rhs, "the output")
        seen = {x for labels in inputs for x in labels}
        output = []
        for x in t:
            if x == "...":
                output.extend(range(ell))
                continue
            if x in output:
                raise ValueError(f"einstein sum subscripts string includes output subscript '{x}' multiple times")
            if x not in seen:
                raise ValueError(f"einstein sum subscripts string included output subscript '{x}' which never "
                                 "appeared in an input")
            output.append(x)
        if "..." not in t and ell > 0:
            raise ValueError("output has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
    return inputs, output


def label_sizes(inputs, shapes):
    """Size of every label, broadcasting 1 against n as NumPy does; NumPy's errors."""
    sizes = {}
    for i, (labels, shape) in enumerate(zip(inputs, shapes)):
        own = {}
        for x, d in zip(labels, shape):
            if x in own and own[x] != d:
                name = x if isinstance(x, str) else "..."
                raise ValueError(f"dimensions in operand {i} for collapsing index '{name}' don't match "
                                 f"({own[x]} != {d})")
            own[x] = d
        for x, d in own.items():
            prev = sizes.get(x, 1)
            if prev != d and prev != 1 and d != 1:
                raise ValueError(
                    "operands could not be broadcast together with remapped shapes [original->remapped]: "
                    + " ".join(f"({','.join(map(str, s))})" for s in shapes)
                )
            sizes[x] = d if prev == 1 else prev
    return sizes


def _parse_and_size(subscripts, shapes):
    inputs, output = parse(subscripts, shapes)
    sizes = label_sizes(inputs, shapes)
    return tuple(tuple(t) for t in inputs), tuple(output), tuple(sizes.items())


def _parsed(subscripts, shapes):
    """:func:`parse` and :func:`label_sizes`, kept in the plan cache per (subscripts, shapes);
    fresh lists and dict."""
    if not isinstance(subscripts, str):
        return parse(subscripts, shapes)  # raises NumPy's TypeError
    inputs, output, sizes = plans.cache.lookup(("numpy.einsum.parse", subscripts, shapes),
                                               lambda: _parse_and_size(subscripts, shapes))
    return [list(t) for t in inputs], list(output), dict(sizes)


def _size_of(labels, sizes):
    return math.prod(sizes[x] for x in labels)


def classify(la, lb, keep):
    """Labels of a pairwise step: ``(batch, contracted, free_a, free_b)`` (first-seen order)."""
    batch = [x for x in la if x in lb and x in keep]
    contracted = [x for x in la if x in lb and x not in keep]
    free_a = [x for x in la if x not in lb]
    free_b = [x for x in lb if x not in la]
    return batch, contracted, free_a, free_b


def step_labels(la, lb, keep):
    """Labels of the result of a pairwise step: batch, then a's free, then b's free."""
    batch, _, free_a, free_b = classify(la, lb, keep)
    return batch + [x for x in free_a if x in keep] + [x for x in free_b if x in keep]


def plan_path(inputs, output, sizes, optimize):
    """The pairwise steps as a list of ``(i, j)`` into the current operand list (NumPy's convention:
    both removed, the result appended)."""
    n = len(inputs)
    if n < 2:
        return []
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return [tuple(p) for p in optimize[1:]]
    if optimize is False or optimize is None:
        return [(0, 1)] * (n - 1)
    if optimize not in (True, "greedy", "optimal"):
        raise TypeError("Did not understand the path: %s" % str(optimize))
    current = [list(x) for x in inputs]
    path = []
    while len(current) > 1:
        best = None
        for i, j in itertools.combinations(range(len(current)), 2):
            others = [x for k, t in enumerate(current) if k not in (i, j) for x in t]
            keep = set(output) | set(others)
            res = step_labels(current[i], current[j], keep)
            shares = bool(set(current[i]) & set(current[j]))
            removed = (_size_of(res, sizes) - _size_of(set(current[i]), sizes)
                       - _size_of(set(current[j]), sizes))
            flops = _size_of(set(current[i]) | set(current[j]), sizes)
            cost = (not shares, removed, flops, i, j)
            if best is None or cost < best[0]:
                best = (cost, i, j, res)
        _, i, j, res = best
        current = [t for k, t in enumerate(current) if k not in (i, j)] + [res]
        path.append((i, j))
    return path


# --------------------------------------------------------------------------------------------
# device steps
# --------------------------------------------------------------------------------------------

def _diagonal(cupy, x, labels):
    """Collapse repeated labels of one operand into a strided diagonal view (no copy)."""
    if len(set(labels)) == len(labels):
        return x, list(labels)
    new, shape, strides = [], [], []
    for lab, d, s in zip(labels, x.shape, x.strides):
        if lab in new:
            strides[new.index(lab)] += s
        else:
            new.append(lab)
            shape.append(d)
            strides.append(s)
    return cupy.lib.stride_tricks.as_strided(x, tuple(shape), tuple(strides)), new


def _sum_unneeded(cupy, x, labels, keep):
    """Sum the labels of ``x`` that nothing later needs (``cupy.sum``)."""
    axes = tuple(i for i, lab in enumerate(labels) if lab not in keep)
    if not axes:
        return x, labels
    return cupy.sum(x, axis=axes), [lab for lab in labels if lab in keep]


def _broadcast_labels(cupy, x, labels, sizes, which):
    """Broadcast size-1 dims of the labels in ``which`` to their full size (stride 0 views)."""
    shape = tuple(sizes[lab] if lab in which and d == 1 else d for lab, d in zip(labels, x.shape))
    return x if shape == x.shape else cupy.broadcast_to(x, shape)


def _stack_view(cupy, x, labels, batch, rows, cols):
    """``x`` as ``batch dims + (prod rows, prod cols)``: a view when the groups merge, else a copy."""
    order = [labels.index(lab) for lab in batch + rows + cols]
    y = x.transpose(order)
    nb = len(batch)
    shape, strides = list(y.shape[:nb]), list(y.strides[:nb])
    for lo, hi in ((nb, nb + len(rows)), (nb + len(rows), y.ndim)):
        size = math.prod(y.shape[lo:hi])
        merged = _route.merge_loops(y.shape[lo:hi], y.strides[lo:hi])
        if len(merged) > 1:
            y = cupy.ascontiguousarray(y)  # the group's axes do not merge into one stride: copy
            return y.reshape(y.shape[:nb] + (math.prod(y.shape[nb:nb + len(rows)]),
                                              math.prod(y.shape[nb + len(rows):])))
        shape.append(size)
        strides.append(merged[0][1][0] if merged else y.dtype.itemsize)
    return cupy.lib.stride_tricks.as_strided(y, tuple(shape), tuple(strides))


def contract_pair(cupy, a, la, b, lb, keep, sizes, prefer=None):
    """One pairwise step; returns ``(result, labels)``. ``prefer``: an output order to aim for."""
    a, la = _diagonal(cupy, a, la)
    b, lb = _diagonal(cupy, b, lb)
    a, la = _sum_unneeded(cupy, a, la, keep | set(lb))
    b, lb = _sum_unneeded(cupy, b, lb, keep | set(la))
    batch, contracted, free_a, free_b = classify(la, lb, keep)
    if not contracted:  # an outer/elementwise product: multiply broadcast views (no GEMM)
        labels = batch + free_a + free_b
        ea = a.transpose([la.index(x) for x in batch + free_a]).reshape(
            tuple(a.shape[la.index(x)] for x in batch + free_a) + (1,) * len(free_b))
        eb = b.transpose([lb.index(x) for x in batch + free_b])
        eb = eb.reshape(tuple(eb.shape[:len(batch)]) + (1,) * len(free_a) + tuple(eb.shape[len(batch):]))
        return cupy.multiply(ea, eb), labels
    if prefer is not None and [x for x in prefer] == batch + free_b + free_a:
        a, la, b, lb = b, lb, a, la
        batch, contracted, free_a, free_b = classify(la, lb, keep)
    a = _broadcast_labels(cupy, a, la, sizes, contracted)
    b = _broadcast_labels(cupy, b, lb, sizes, contracted)
    A = _stack_view(cupy, a, la, batch, free_a, contracted)
    B = _stack_view(cupy, b, lb, batch, contracted, free_b)
    C = _route.matmul_stack(A, B)
    loop = C.shape[:len(batch)]
    shape = tuple(loop) + tuple(a.shape[la.index(x)] for x in free_a) + tuple(b.shape[lb.index(x)] for x in free_b)
    return C.reshape(shape), batch + free_a + free_b


def _finish_single(cupy, x, labels, output):
    """Sum labels not in the output, then transpose (a view) to the output order."""
    x, labels = _diagonal(cupy, x, labels)
    x, labels = _sum_unneeded(cupy, x, labels, set(output))
    return x.transpose([labels.index(lab) for lab in output])


# --------------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------------

def _check_cast(dtypes, dtype, casting):
    for i, d in enumerate(dtypes):
        if not numpy.can_cast(d, dtype, casting):
            raise TypeError(f"Iterator operand {i} dtype could not be cast from dtype('{d}') to "
                            f"dtype('{dtype}') according to the rule '{casting}'")


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation (``numpy.einsum``), contractions on rocblas GEMM.

    ``einsum(subscripts, *operands, ...)`` or the interleaved ``einsum(op0, sublist0, op1,
    sublist1, ..., [sublistout])``, with ``'...'`` and ``'->'`` as in NumPy (implicit output:
    ellipsis dimensions, then the labels that occur once, in ASCII order; size-1 dimensions
    broadcast). Which cases run on GEMM and which on ``cupy.einsum``/``cupy.multiply``/``cupy.sum``
    is listed in :mod:`rocarray._numpy.einsum`: in short, every pairwise contraction of float/complex
    operands is one (batched) GEMM on strided views, copying only operands whose axes cannot be
    merged into a matrix view.

    Parameters
    ----------
    *operands : str, cupy.ndarray, scalar or list of int
        ``subscripts, op0, op1, ...``: first the subscripts (str), the labels of each operand,
        ``','``-separated, optionally ``'->'`` and the output labels; then the operands, device
        arrays (host NumPy arrays are rejected) or scalars. Or the interleaved ``op0, sublist0,
        op1, sublist1, ..., [sublistout]``, each sublist a list of int labels.
    out : cupy.ndarray, optional
        Destination of the result's shape; the result is cast into it under ``casting``.
    dtype : dtype, optional
        Computation and result dtype; operands are cast to it under ``casting``.
    order : {'K', 'C', 'F', 'A'}, optional
        Accepted for NumPy compatibility.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        Default ``'safe'``, as NumPy.
    optimize : {False, True, 'greedy', 'optimal'} or list, optional
        Order of pairwise contractions (see above; ``'optimal'`` is treated as ``'greedy'``).

    Returns
    -------
    cupy.ndarray
        The result in ``numpy.result_type`` of the operands (or ``dtype``), or ``out``.

    Raises
    ------
    TypeError
        Host arrays; casts ``casting`` does not allow.
    ValueError
        Malformed subscripts, operand counts or dimensions that do not match, as NumPy.

    See Also
    --------
    matmul, tensordot

    Examples
    --------
    >>> a = ra.ones((8, 2, 3)); b = ra.ones((8, 3, 4))   # doctest: +SKIP
    >>> ra.einsum('bij,bjk->bik', a, b).shape              # doctest: +SKIP
    (8, 2, 4)
    """
    cupy = backend.cupy()
    if not operands:
        raise TypeError("einsum() missing required argument 'subscripts' (pos 0)")
    if isinstance(operands[0], str):
        subscripts, ops = operands[0], list(operands[1:])
    else:
        subscripts, ops = _interleaved(operands)
    ops = [as_device_array(x, f"operand {i}", allow_scalar=True) for i, x in enumerate(ops)]
    inputs, output, sizes = _parsed(subscripts, tuple(tuple(x.shape) for x in ops))
    dtypes = [x.dtype for x in ops]
    if dtype is not None:
        dt = numpy.dtype(dtype)
        _check_cast(dtypes, dt, casting)
    else:
        dt = numpy.result_type(*dtypes)
    if out is not None:
        if not isinstance(out, cupy.ndarray):
            as_device_array(out, "out")
        want = tuple(sizes[x] for x in output)
        if tuple(out.shape) != want:
            raise ValueError(f"operands could not be broadcast together with remapped shapes: output "
                             f"{tuple(out.shape)} for a result of shape {want}")
        if not numpy.can_cast(dt, out.dtype, casting):
            raise TypeError(f"Iterator requested dtype could not be cast from dtype('{dt}') to "
                            f"dtype('{out.dtype}'), the operand {len(ops)} dtype, according to the rule "
                            f"'{casting}'")
    ops = [x if x.dtype == dt else x.astype(dt) for x in ops]
    if len(ops) < 2 or not _route.gemm_takes(dt):
        result = cupy.einsum(subscripts, *ops) if isinstance(operands[0], str) else cupy.einsum(
            _to_text(inputs, output), *ops)
        result = result if result.dtype == dt else result.astype(dt)
    else:
        result = _run(cupy, ops, inputs, output, sizes, optimize)
    if out is None:
        return result
    out[...] = result
    return out


def _to_text(inputs, output):
    """Subscripts text of parsed labels (ellipsis labels spelled with unused letters)."""
    used = {x for t in inputs for x in t if isinstance(x, str)}
    spare = [c for c in string.ascii_letters if c not in used]

    def spell(t):
        return "".join(x if isinstance(x, str) else spare[x] for x in t)

    return ",".join(spell(t) for t in inputs) + "->" + spell(output)


def _run(cupy, ops, inputs, output, sizes, optimize):
    """The pairwise steps of a multi-operand einsum."""
    current = [(x, list(t)) for x, t in zip(ops, inputs)]
    for i, j in plan_path(inputs, output, sizes, optimize):
        (a, la), (b, lb) = current[i], current[j]
        rest = [t for k, t in enumerate(current) if k not in (i, j)]
        keep = set(output) | {x for _, t in rest for x in t}
        prefer = output if not rest else None
        current = rest + [contract_pair(cupy, a, la, b, lb, keep, sizes, prefer)]
    (x, labels), = current
    x, labels = _diagonal(cupy, x, labels)
    x, labels = _sum_unneeded(cupy, x, labels, set(output))
    wide = _broadcast_labels(cupy, x, labels, sizes, set(output))
    if wide is not x:  # size-1 labels broadcast to the output: materialize (a result is never a broadcast view)
        x = cupy.ascontiguousarray(wide)
    return _finish_single(cupy, x, labels, output)
