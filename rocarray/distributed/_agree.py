"""Argument agreement across ranks before a collective.

Every rank describes its arguments as a fixed-length vector of integers; one ``all_gather`` gives
each rank the whole table, so every rank sees the same facts and raises the same error. A rank
whose own arguments were rejected sends a flag instead: it raises its own error and the others
raise a ``ValueError`` naming it, so no rank is left waiting in a collective its peers skipped.
"""

import numpy


def agree(comm, ops, fields, error, where):
    """Gather every rank's ``fields``; raise on every rank if any rank had an ``error``.

    Parameters
    ----------
    comm : Communicator
        The communicator (``rank``, ``size``, ``all_gather``).
    ops : object
        The per-rank array operations (:func:`rocarray.distributed._local.ops`).
    fields : sequence of int
        This rank's description; the same length on every rank (ignored when ``error`` is set).
    error : Exception or None
        This rank's argument error, raised here after the exchange.
    where : str
        The public function's name, for the messages.

    Returns
    -------
    numpy.ndarray
        ``(size, len(fields))`` int64 table, row ``r`` from rank ``r``.
    """
    vec = numpy.zeros(len(fields) + 1, numpy.int64)
    if error is None:
        vec[1:] = fields
    else:
        vec[0] = 1
    with ops.on(comm):
        gathered = comm.all_gather(ops.xp.asarray(vec))
        table = numpy.asarray(ops.to_host(gathered)).reshape(comm.size, -1)
    if error is not None:
        raise error
    failed = [r for r in range(comm.size) if table[r, 0]]
    if failed:
        raise ValueError(f"{where}: rank(s) {failed} rejected their arguments (see the error raised there)")
    return table[:, 1:]


def check_comm(comm, needs):
    """``TypeError`` unless ``comm`` has the Communicator methods ``needs`` (and ``rank``/``size``)."""
    missing = [m for m in ("rank", "size", *needs) if not hasattr(comm, m)]
    if missing:
        raise TypeError(f"argument 'comm' must be a rocarray.distributed Communicator, not "
                        f"{type(comm).__name__} (it lacks {', '.join(missing)})")
