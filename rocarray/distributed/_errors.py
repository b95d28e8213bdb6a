"""The error of a distributed run that is not the caller's argument mistake."""

from rocarray._core.errors import RocArrayError


class DistributedError(RocArrayError, RuntimeError):
    """A collective or a rendezvous could not complete: a peer did not arrive within the timeout,
    died, or the communicator failed (NCCL/RCCL reported an error) and was aborted.

    An aborted communicator is closed: every later call on it raises this error too.
    """
