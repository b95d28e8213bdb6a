"""The communicator: NCCL collectives and point-to-point calls on device arrays, with the
arguments checked against every other rank's before anything is sent.

Every call is planned on the calling rank first (types, shapes, dtypes, ranks, the output array),
then, while :attr:`Communicator.validate` is on, the ranks exchange a fixed-size ``int64``
descriptor of the call (one small all-gather; send/recv exchange a summary with the peer) and
compare: a mistake on one rank or a disagreement between ranks raises the same kind of error on
every rank, and nothing is sent. Then the NCCL calls are enqueued on the stream and, while
:attr:`Communicator.timeout` is set, the call waits for them under a watchdog: past the timeout
the communicator is aborted and :class:`DistributedError` raised. Inside :func:`group` calls are
recorded and run together (one NCCL group) when the block ends. Running a batch of calls (the
exchange, the launch, the wait) is :mod:`rocarray.distributed._batch`'s.
"""

import operator

import numpy

from rocarray.distributed import _nccl
from rocarray.distributed._batch import (_AXIS, _DTYPE, _OP, _ROOT, _Entry, _check_cliques, _dtype_code, _flush,
                                         _in_group, _state)
from rocarray.distributed._errors import DistributedError


class group:
    """Run the communicator calls made inside the block as one NCCL group.

    Needed when one process drives several GPUs (:meth:`Communicator.local`): every rank's call is
    made inside one ``with group():`` block. In the one-process-per-GPU mode it fuses several calls
    into one launch. Each call returns its output array at once; its contents are ready when the
    block has ended (on the calls' streams). Arguments are checked when each call is made, and
    across ranks when the block ends, before anything is sent. With validation on, send/recv calls
    toward one peer must be matched there by calls of one group (or one call).

    Blocks nest: the calls run when the outermost block ends. :meth:`Communicator.barrier` is
    refused inside a group.

    Examples
    --------
    >>> comms = rocarray.distributed.Communicator.local([0, 1])           # doctest: +SKIP
    >>> with rocarray.distributed.group():                                # doctest: +SKIP
    ...     sums = [c.all_reduce(x) for c, x in zip(comms, xs)]
    """

    def __enter__(self):
        _nccl.check_device()
        if getattr(_state, "depth", 0) == 0:
            _state.pending = []
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, exc_type, exc, tb):
        _state.depth -= 1
        if _state.depth:
            return False
        entries, _state.pending = _state.pending, None
        _check_cliques(entries)
        _flush(entries, grouped=True, failed=exc_type is not None)
        return False


class Communicator:
    """A set of ranks, one GPU each, that run NCCL collectives on CuPy arrays together.

    Made by :func:`rocarray.distributed.init` (one process per GPU) or :meth:`local` (one process,
    several GPUs); not constructed directly. Every method takes device arrays on this rank's
    :attr:`device`, runs NCCL's operation of the same name on ``stream`` (default: the device's
    current stream) and returns the output array. Every rank makes the same calls in the same order.

    Parameters
    ----------
    handle : cupy.cuda.nccl.NcclCommunicator
        The NCCL communicator of this rank (made by :func:`~rocarray.distributed.init` or
        :meth:`local`).
    device : int
        This rank's GPU.
    timeout : float or None, optional
        See the attribute.
    validate : bool, optional
        See the attribute.
    clique : list of Communicator, optional
        The communicators of one :meth:`local` call, driven by this process (None otherwise).

    Attributes
    ----------
    rank, size, device : int
        This rank, the number of ranks, this rank's GPU.
    validate : bool
        Exchange and compare every call's arguments between ranks before it runs (default True).
        Off, a call costs no exchange and no wait, as a raw NCCL call: ranks that disagree then
        hang or corrupt data as NCCL does. Set it the same on every rank.
    timeout : float or None
        Seconds a call waits for its operation to finish (a watchdog polls its completion); past
        it, or when NCCL reports an asynchronous error, the communicator is aborted and
        :class:`DistributedError` raised. ``None``: calls return once enqueued, asynchronous on
        the stream, as NCCL's (validation still waits for its small exchange).

    Notes
    -----
    Reductions take int8, uint8, int32, uint32, int64, uint64, float16, bfloat16 (where NumPy
    knows it, e.g. through ``ml_dtypes``), float32 and float64; complex64/complex128 are reduced
    as pairs of reals, so only ``'sum'`` and ``'avg'`` take them. ``'avg'`` needs a float or
    complex dtype; it is NCCL's ncclAvg where the library has it, else a sum scaled by
    ``1/size``. Operations that only move data (broadcast, all_gather, all_to_all, send, recv)
    take every dtype, sent as bytes. Bad arguments raise ``TypeError``/``ValueError`` naming the
    argument on the rank that made them and the same type, naming that rank, on the others.
    """

    def __init__(self, handle, device, *, timeout=None, validate=True, clique=None):
        self._handle = handle
        self.rank, self.size, self.device = int(handle.rank_id()), int(handle.size()), int(device)
        self.timeout, self.validate = timeout, validate
        self._clique = clique  # the communicators of one local() call, driven by this process
        self._closed = None  # why the communicator was closed, once it is

    @classmethod
    def local(cls, devices, *, timeout=None, validate=True):
        """One communicator per device of ``devices``, all driven by this process.

        Calls on them are made inside ``with rocarray.distributed.group():``, one per rank.

        Parameters
        ----------
        devices : sequence of int
            Distinct GPU ids; rank ``i`` uses ``devices[i]``.
        timeout, validate
            Set on every communicator (see :class:`Communicator`).

        Returns
        -------
        list of Communicator

        Raises
        ------
        NoDeviceError
            Without a GPU or NCCL, or when a device does not exist.
        ValueError
            Empty or repeated devices (NCCL refuses two ranks on one GPU).
        """
        devices = [operator.index(d) for d in devices]
        if not devices or len(set(devices)) != len(devices):
            raise ValueError(f"Communicator.local: devices must be distinct GPU ids, got {devices}")
        for device in devices:
            _nccl.check_device(device)
        clique = []
        clique.extend(cls(handle, device, timeout=timeout, validate=validate, clique=clique)
                      for handle, device in zip(_nccl.init_all(devices), devices))
        return clique

    def __repr__(self):
        state = f", closed ({self._closed})" if self._closed else ""
        return f"<Communicator rank {self.rank} of {self.size} on device {self.device}{state}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Release the NCCL communicator (calls after this raise :class:`DistributedError`)."""
        if self._closed is None:
            self._closed = "closed"
            self._handle.destroy()

    def _abort(self, why):
        if self._closed is None:
            self._closed = why
            self._handle.abort()

    # ----------------------------------------------------------------------------------------
    # collectives
    # ----------------------------------------------------------------------------------------

    def all_reduce(self, x, op="sum", out=None, stream=None):
        """Reduce ``x`` over all ranks with ``op``; every rank gets the result.

        Parameters
        ----------
        x : cupy.ndarray
            This rank's contribution; same shape and dtype on every rank.
        op : {'sum', 'prod', 'min', 'max', 'avg'}
        out : cupy.ndarray, optional
            C-contiguous, ``x``'s shape and dtype; may be ``x`` itself (in place).
        stream : cupy.cuda.Stream, optional

        Returns
        -------
        cupy.ndarray
            ``out`` or a new array.
        """
        return self._call("all_reduce", stream, self._plan_reduce, x, op, out, None)

    def reduce(self, x, root=0, op="sum", out=None, stream=None):
        """Reduce ``x`` over all ranks with ``op`` into rank ``root``.

        Parameters are those of :meth:`all_reduce`, and ``root`` (the receiving rank); ``out`` is
        used on ``root`` only.

        Returns
        -------
        cupy.ndarray or None
            The result on ``root``; ``None`` on the other ranks.
        """
        return self._call("reduce", stream, self._plan_reduce, x, op, out, root)

    def broadcast(self, x, root=0, stream=None):
        """Copy ``root``'s ``x`` into ``x`` on every other rank (in place).

        Parameters
        ----------
        x : cupy.ndarray
            Same shape and dtype on every rank; C-contiguous on the receiving ranks.
        root : int
        stream : cupy.cuda.Stream, optional

        Returns
        -------
        cupy.ndarray
            ``x``.
        """
        return self._call("broadcast", stream, self._plan_broadcast, x, root)

    def all_gather(self, x, out=None, axis=0, stream=None, as_list=False):
        """Every rank's ``x``, concatenated in rank order along ``axis``, on every rank.

        Parameters
        ----------
        x : cupy.ndarray
            At least one dimension; same shape and dtype on every rank.
        out : cupy.ndarray, optional
            C-contiguous, ``x``'s shape with ``axis`` ``size`` times longer.
        axis : int
        stream : cupy.cuda.Stream, optional
        as_list : bool
            Return the ``size`` pieces as a list (views of one array) instead; ``out`` is not taken.

        Returns
        -------
        cupy.ndarray or list of cupy.ndarray
        """
        return self._call("all_gather", stream, self._plan_all_gather, x, out, axis, as_list)

    def reduce_scatter(self, x, op="sum", out=None, stream=None):
        """Reduce ``x`` over all ranks and give rank ``r`` block ``r`` of the result along axis 0.

        Parameters
        ----------
        x : cupy.ndarray
            Same shape and dtype on every rank; ``x.shape[0]`` divisible by ``size``.
        op : {'sum', 'prod', 'min', 'max', 'avg'}
        out : cupy.ndarray, optional
            C-contiguous, shape ``(x.shape[0] // size,) + x.shape[1:]``, ``x``'s dtype.
        stream : cupy.cuda.Stream, optional

        Returns
        -------
        cupy.ndarray
        """
        return self._call("reduce_scatter", stream, self._plan_reduce_scatter, x, op, out)

    def all_to_all(self, x, out=None, send_counts=None, recv_counts=None, stream=None):
        """Send block ``j`` of ``x`` (along axis 0) to rank ``j``; ``out`` holds the blocks received,
        in rank order.

        Without counts ``x.shape[0]`` is split into ``size`` equal blocks (and ``x``'s shape is the
        same on every rank). With counts the blocks are uneven: ``send_counts[j]`` rows of ``x``
        go to rank ``j`` and ``recv_counts[j]`` rows come from rank ``j`` (rank ``j``'s
        ``send_counts[rank]``). The data moves through grouped send/recv.

        Parameters
        ----------
        x : cupy.ndarray
            At least one dimension; ``x.shape[1:]`` and dtype the same on every rank.
        out : cupy.ndarray, optional
            C-contiguous; ``x``'s shape, or ``(sum(recv_counts),) + x.shape[1:]``. Not ``x``.
        send_counts, recv_counts : sequence of int, optional
            Both or neither; ``size`` non-negative entries, ``sum(send_counts) == x.shape[0]``.
        stream : cupy.cuda.Stream, optional

        Returns
        -------
        cupy.ndarray
        """
        return self._call("all_to_all", stream, self._plan_all_to_all, x, out, send_counts, recv_counts)

    def send(self, x, peer, stream=None):
        """Send ``x`` to rank ``peer`` (which calls :meth:`recv` with the same dtype and size).

        Returns
        -------
        cupy.ndarray
            ``x``.
        """
        return self._call("send", stream, self._plan_p2p, x, peer, "x")

    def recv(self, out, peer, stream=None):
        """Receive into ``out`` (C-contiguous) what rank ``peer`` sends with :meth:`send`.

        Returns
        -------
        cupy.ndarray
            ``out``.
        """
        return self._call("recv", stream, self._plan_p2p, out, peer, "out")

    def barrier(self):
        """Return once every rank has called ``barrier`` (and the work before it on this device's
        current stream is done); refused inside :func:`group`.

        Raises
        ------
        DistributedError
            When a rank does not arrive within :attr:`timeout`.
        """
        if _in_group():
            raise ValueError("Communicator.barrier cannot be called inside rocarray.distributed.group()")
        xp = _nccl.array_module()
        with _nccl.device_scope(self.device):
            token = xp.zeros(1, numpy.int32)
        self._call("barrier", None, self._plan_barrier, token)
        if self.timeout is None:
            _nccl.stream(None, self.device).synchronize()

    # ----------------------------------------------------------------------------------------
    # planning: local argument checks and the NCCL calls of each operation
    # ----------------------------------------------------------------------------------------

    def _call(self, kind, stream, plan, *args):
        if self._closed is not None:
            raise DistributedError(f"{kind}: the communicator of rank {self.rank} is closed ({self._closed})")
        if self._clique is not None and self.size > 1 and not _in_group():
            raise ValueError(f"{kind}: communicators made by Communicator.local are called inside "
                             "rocarray.distributed.group(), one call per rank")
        entry = _Entry(self, kind, _nccl.stream(stream, self.device))
        try:
            plan(entry, *args)
        except (TypeError, ValueError) as exc:
            entry.error = exc
        if _in_group():
            _state.pending.append(entry)
            if entry.error is not None:
                raise entry.error
        else:
            _flush([entry], grouped=False, failed=False)
        return entry.output

    def _where(self, entry):
        return f"Communicator.{entry.kind} (rank {self.rank})"

    def _array(self, entry, x, name):
        xp = _nccl.array_module()
        if not isinstance(x, xp.ndarray):
            raise TypeError(f"{self._where(entry)}: {name} must be a {xp.__name__}.ndarray on device {self.device}, "
                            f"not {type(x).__name__}")
        device = _nccl.device_of(x)
        if device is not None and device != self.device:
            raise ValueError(f"{self._where(entry)}: {name} is on device {device}, this rank's is {self.device}")
        entry.fields.update({_DTYPE: _dtype_code(x.dtype), "shape": x.shape})
        return x

    def _contiguous(self, entry, x):
        if x.flags.c_contiguous:
            return x
        with _nccl.stream_scope(entry.stream, self.device):
            return _nccl.array_module().ascontiguousarray(x)

    def _output(self, entry, out, shape, dtype, name="out"):
        if out is None:
            with _nccl.device_scope(self.device):
                return _nccl.array_module().empty(shape, dtype)
        xp = _nccl.array_module()
        where = self._where(entry)
        if not isinstance(out, xp.ndarray):
            raise TypeError(f"{where}: {name} must be a {xp.__name__}.ndarray, not {type(out).__name__}")
        device = _nccl.device_of(out)
        if device is not None and device != self.device:
            raise ValueError(f"{where}: {name} is on device {device}, this rank's is {self.device}")
        if out.shape != tuple(shape) or out.dtype != dtype:
            raise ValueError(f"{where}: {name} must have shape {tuple(shape)} and dtype {numpy.dtype(dtype)}, "
                             f"got {out.shape} {out.dtype}")
        if not out.flags.c_contiguous:
            raise ValueError(f"{where}: {name} must be C-contiguous")
        return out

    def _rank_arg(self, entry, value, name):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"{self._where(entry)}: {name} must be an integer, not {type(value).__name__}") from None
        if not 0 <= value < self.size:
            raise ValueError(f"{self._where(entry)}: {name}={value} is out of range for {self.size} ranks")
        return value

    def _reduction(self, entry, dtype, op):
        """``(datatype code, elements per item, op code, scale after)`` of a reduction."""
        where = self._where(entry)
        if not isinstance(op, str) or op not in _nccl.REDUCTIONS:
            raise ValueError(f"{where}: op must be one of {', '.join(_nccl.REDUCTIONS)}; got {op!r}")
        entry.fields[_OP] = _nccl.REDUCTIONS.index(op)
        dtype = numpy.dtype(dtype)
        factor, name = 1, dtype.name
        if dtype.kind == "c":
            if op not in ("sum", "avg"):
                raise TypeError(f"{where}: op {op!r} is not defined for complex dtype {dtype} (only sum and avg)")
            factor, name = 2, numpy.dtype(f"f{dtype.itemsize // 2}").name
        if op == "avg" and dtype.kind not in "fc" and name != "bfloat16":
            raise TypeError(f"{where}: op 'avg' needs a float or complex dtype, got {dtype}")
        code = _nccl.datatype(name)
        if code is None:
            raise TypeError(f"{where}: dtype {dtype} cannot be reduced by NCCL (int8, uint8, int32, uint32, int64, "
                            "uint64, float16, bfloat16, float32, float64, complex64, complex128 can)")
        native = _nccl.reduction(op)
        if native is None:  # no ncclAvg: sum, then scale
            return code, factor, _nccl.reduction("sum"), True
        return code, factor, native, False

    def _scale(self, entry, out):
        xp = _nccl.array_module()

        def scale():
            with _nccl.stream_scope(entry.stream, self.device):
                xp.divide(out, self.size, out=out)
        entry.finish.append(scale)

    def _plan_reduce(self, entry, x, op, out, root):
        x = self._array(entry, x, "x")
        code, factor, op_code, scale = self._reduction(entry, x.dtype, op)
        is_root = True
        if root is not None:
            root = entry.fields[_ROOT] = self._rank_arg(entry, root, "root")
            is_root = root == self.rank
        send = self._contiguous(entry, x)
        result = self._output(entry, out, x.shape, x.dtype) if is_root else None
        count, handle = x.size * factor, self._handle
        src, dst = _nccl.pointer(send), _nccl.pointer(result if is_root else send)
        if root is None:
            entry.calls.append(lambda s: handle.allReduce(src, dst, count, code, op_code, s))
        else:
            entry.calls.append(lambda s: handle.reduce(src, dst, count, code, op_code, root, s))
        if scale and is_root:
            self._scale(entry, result)
        entry.keep.append(send)
        entry.output = result

    def _plan_broadcast(self, entry, x, root):
        x = self._array(entry, x, "x")
        root = entry.fields[_ROOT] = self._rank_arg(entry, root, "root")
        if root == self.rank:
            buffer = self._contiguous(entry, x)
        elif not x.flags.c_contiguous:
            raise ValueError(f"{self._where(entry)}: x must be C-contiguous on the receiving ranks")
        else:
            buffer = x
        handle, ptr, nbytes, code = self._handle, _nccl.pointer(buffer), x.nbytes, _nccl.datatype("uint8")
        entry.calls.append(lambda s: handle.broadcast(ptr, ptr, nbytes, code, root, s))
        entry.keep.append(buffer)
        entry.output = x

    def _plan_all_gather(self, entry, x, out, axis, as_list):
        x = self._array(entry, x, "x")
        where = self._where(entry)
        if x.ndim == 0:
            raise ValueError(f"{where}: x must have at least one dimension")
        if as_list and out is not None:
            raise ValueError(f"{where}: out is not taken with as_list=True")
        try:
            axis = operator.index(axis)
        except TypeError:
            raise TypeError(f"{where}: axis must be an integer, not {type(axis).__name__}") from None
        if not -x.ndim <= axis < x.ndim:
            raise numpy.exceptions.AxisError(axis, x.ndim, msg_prefix=where)
        axis = entry.fields[_AXIS] = axis % x.ndim
        shape = list(x.shape)
        shape[axis] *= self.size
        send = self._contiguous(entry, x)
        if as_list:
            stacked = self._output(entry, None, (self.size,) + x.shape, x.dtype)
            entry.output = [stacked[r] for r in range(self.size)]
        else:
            result = self._output(entry, out, shape, x.dtype)
            stacked = result if axis == 0 else self._output(entry, None, (self.size,) + x.shape, x.dtype)
            if axis:
                split = result.reshape(shape[:axis] + [self.size, x.shape[axis]] + shape[axis + 1:])
                target = _nccl.array_module().moveaxis(split, axis, 0)
                entry.finish.append(lambda: self._copy(entry, target, stacked))
            entry.output = result
        handle, nbytes, code = self._handle, x.nbytes, _nccl.datatype("uint8")
        src, dst = _nccl.pointer(send), _nccl.pointer(stacked)
        entry.calls.append(lambda s: handle.allGather(src, dst, nbytes, code, s))
        entry.keep += [send, stacked]

    def _copy(self, entry, target, source):
        with _nccl.stream_scope(entry.stream, self.device):
            _nccl.array_module().copyto(target, source)

    def _plan_reduce_scatter(self, entry, x, op, out):
        x = self._array(entry, x, "x")
        code, factor, op_code, scale = self._reduction(entry, x.dtype, op)
        if x.ndim == 0 or x.shape[0] % self.size:
            raise ValueError(f"{self._where(entry)}: x.shape[0] must be divisible by the {self.size} ranks, "
                             f"got shape {x.shape}")
        send = self._contiguous(entry, x)
        result = self._output(entry, out, (x.shape[0] // self.size,) + x.shape[1:], x.dtype)
        handle, count = self._handle, result.size * factor
        src, dst = _nccl.pointer(send), _nccl.pointer(result)
        entry.calls.append(lambda s: handle.reduceScatter(src, dst, count, code, op_code, s))
        if scale:
            self._scale(entry, result)
        entry.keep.append(send)
        entry.output = result

    def _counts(self, entry, counts, name):
        where = self._where(entry)
        try:
            counts = [operator.index(c) for c in counts]
        except TypeError:
            raise TypeError(f"{where}: {name} must be a sequence of integers") from None
        if len(counts) != self.size or min(counts) < 0:
            raise ValueError(f"{where}: {name} must hold {self.size} non-negative counts, got {counts}")
        return counts

    def _plan_all_to_all(self, entry, x, out, send_counts, recv_counts):
        x = self._array(entry, x, "x")
        where = self._where(entry)
        if x.ndim == 0:
            raise ValueError(f"{where}: x must have at least one dimension")
        if (send_counts is None) != (recv_counts is None):
            raise ValueError(f"{where}: send_counts and recv_counts are given together or not at all")
        if send_counts is None:
            if x.shape[0] % self.size:
                raise ValueError(f"{where}: x.shape[0] must be divisible by the {self.size} ranks (or give "
                                 f"send_counts and recv_counts), got shape {x.shape}")
            sent = received = [x.shape[0] // self.size] * self.size
        else:
            sent, received = self._counts(entry, send_counts, "send_counts"), self._counts(entry, recv_counts,
                                                                                           "recv_counts")
            if sum(sent) != x.shape[0]:
                raise ValueError(f"{where}: send_counts must add up to x.shape[0]={x.shape[0]}, got {sum(sent)}")
        entry.counts = (numpy.asarray(sent), numpy.asarray(received))
        send = self._contiguous(entry, x)
        result = self._output(entry, out, (sum(received),) + x.shape[1:], x.dtype)
        if out is not None and out is x:
            raise ValueError(f"{where}: out must not be x")
        row = x.dtype.itemsize * int(numpy.prod(x.shape[1:]))
        handle, code = self._handle, _nccl.datatype("uint8")
        src, dst = _nccl.pointer(send), _nccl.pointer(result)
        for peer in range(self.size):
            at_send, at_recv = sum(sent[:peer]) * row, sum(received[:peer]) * row
            if sent[peer]:
                entry.calls.append(lambda s, p=peer, a=src + at_send, n=sent[peer] * row: handle.send(a, n, code, p, s))
            if received[peer]:
                entry.calls.append(lambda s, p=peer, a=dst + at_recv, n=received[peer] * row:
                                   handle.recv(a, n, code, p, s))
        entry.keep.append(send)
        entry.output = result

    def _plan_p2p(self, entry, x, peer, name):
        x = self._array(entry, x, name)
        peer = entry.peer = self._rank_arg(entry, peer, "peer")
        if peer == self.rank and not _in_group():
            raise ValueError(f"{self._where(entry)}: peer is this rank; send to oneself inside group() only")
        if entry.kind == "recv":
            buffer = self._output(entry, x, x.shape, x.dtype, name)
        else:
            buffer = self._contiguous(entry, x)
        handle, ptr, nbytes, code = self._handle, _nccl.pointer(buffer), x.nbytes, _nccl.datatype("uint8")
        method = handle.send if entry.kind == "send" else handle.recv
        entry.calls.append(lambda s: method(ptr, nbytes, code, peer, s))
        entry.keep.append(buffer)
        entry.output = x

    def _plan_barrier(self, entry, token):
        handle, ptr, code, op_code = self._handle, _nccl.pointer(token), _nccl.datatype("int32"), _nccl.reduction("sum")
        entry.calls.append(lambda s: handle.allReduce(ptr, ptr, 1, code, op_code, s))
        entry.keep.append(token)
