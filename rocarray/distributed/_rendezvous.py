"""Starting the process's communicator: the NCCL unique id travels from rank 0 to the others
through MPI (``mpirun``/``srun`` with mpi4py) or through a small TCP key-value store that rank 0
serves on ``MASTER_ADDR:MASTER_PORT`` (torchrun-style launchers). Every wait is bounded by the
timeout and ends in :class:`DistributedError`.
"""

import os
import socket
import socketserver
import threading
import time

from rocarray.distributed import _comm, _nccl
from rocarray.distributed._errors import DistributedError

#: Seconds ``init`` and the collectives of its communicator wait by default.
DEFAULT_TIMEOUT = 300.0
_BACKENDS = ("auto", "env", "mpi", "single")
# Launchers that set the MPI world's size and the rank's index within its node.
_MPI_SIZE = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS")
_MPI_LOCAL_RANK = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID")
_RETRY = 0.05  # seconds between attempts to reach the store or find a key

_world = []  # [the Communicator init() made]


def world():
    """The communicator :func:`init` made for this process.

    Raises
    ------
    NoDeviceError
        Without a GPU or NCCL.
    DistributedError
        Before :func:`init` (or after the communicator was closed).
    """
    _nccl.check_device()
    if not _world or _world[0]._closed is not None:
        raise DistributedError("rocarray.distributed.world(): call rocarray.distributed.init() first")
    return _world[0]


def init(backend="auto", timeout=DEFAULT_TIMEOUT, *, device=None, validate=True):
    """Make this process's communicator (one GPU per process) and return it; :func:`world` returns
    it afterwards (a second call returns the same one).

    Parameters
    ----------
    backend : {'auto', 'env', 'mpi', 'single'}
        ``'env'``: ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT`` (and ``LOCAL_RANK``)
        from the environment, as torchrun sets them; rank 0 serves the unique id on
        ``MASTER_ADDR:MASTER_PORT``. ``'mpi'``: ``mpi4py``'s ``COMM_WORLD`` (``mpirun``, ``srun``).
        ``'single'``: one rank. ``'auto'``: ``'env'`` when ``RANK`` and ``WORLD_SIZE`` are set,
        else ``'mpi'`` when an MPI launcher's variables are, else ``'single'``.
    timeout : float or None
        Seconds to wait for the other ranks here and in every later call (the communicator's
        :attr:`~Communicator.timeout`); ``None`` waits forever.
    device : int, optional
        This rank's GPU; default ``LOCAL_RANK`` (or the MPI launcher's local rank) modulo the
        visible GPUs.
    validate : bool
        The communicator's :attr:`~Communicator.validate`.

    Returns
    -------
    Communicator

    Raises
    ------
    NoDeviceError
        Without a GPU or NCCL.
    ValueError
        An unknown backend or malformed environment variables.
    ImportError
        ``'mpi'`` without mpi4py (``pip install mpi4py``).
    DistributedError
        When the other ranks do not arrive within ``timeout``.
    """
    if backend not in _BACKENDS:
        raise ValueError(f"rocarray.distributed.init: backend must be one of {', '.join(_BACKENDS)}, got {backend!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"rocarray.distributed.init: timeout must be positive seconds or None, got {timeout!r}")
    _nccl.check_device()
    if _world and _world[0]._closed is None:
        return _world[0]
    if backend == "auto":
        backend = ("env" if "RANK" in os.environ and "WORLD_SIZE" in os.environ
                   else "mpi" if any(name in os.environ for name in _MPI_SIZE) else "single")
    deadline = None if timeout is None else time.monotonic() + timeout
    if backend == "env":
        rank, size, local = _env_int("RANK"), _env_int("WORLD_SIZE"), _env_int("LOCAL_RANK", None)
        address, port = os.environ.get("MASTER_ADDR", "127.0.0.1"), _env_int("MASTER_PORT")
        uid = exchange_id(rank, size, address, port, deadline)
    elif backend == "mpi":
        rank, size, local, uid = _mpi_id()
    else:
        rank, size, local, uid = 0, 1, None, _nccl.unique_id()
    if device is None:
        device = (rank if local is None else local) % max(_nccl.device_count(), 1)
    _nccl.check_device(device)
    handle = _bounded(lambda: _nccl.init_rank(size, uid, rank, device), deadline,
                      f"rank {rank}: the NCCL communicator of {size} ranks")
    _world[:] = [_comm.Communicator(handle, device, timeout=timeout, validate=validate)]
    return _world[0]


def _env_int(name, default=ValueError):
    value = os.environ.get(name)
    if value is None:
        if default is ValueError:
            raise ValueError(f"rocarray.distributed.init: environment variable {name} is not set")
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"rocarray.distributed.init: {name}={value!r} is not an integer") from None


def _mpi_id():
    from mpi4py import MPI  # only the MPI path needs it

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    uid = comm.bcast(_nccl.unique_id() if rank == 0 else None, root=0)
    return rank, size, local, uid


def _bounded(fn, deadline, what):
    """``fn()`` in a helper thread, waited for until ``deadline`` (``None``: forever)."""
    result = []

    def run():
        try:
            result.append((True, fn()))
        except BaseException as exc:  # handed to the caller
            result.append((False, exc))

    worker = threading.Thread(target=run, daemon=True, name="rocarray-distributed-init")
    worker.start()
    worker.join(None if deadline is None else max(deadline - time.monotonic(), 0))
    if not result:
        raise DistributedError(f"{what} was not formed within the timeout: a rank did not arrive")
    ok, value = result[0]
    if not ok:
        raise value
    return value


# --------------------------------------------------------------------------------------------
# the environment path: rank 0 serves the unique id over TCP
# --------------------------------------------------------------------------------------------

class _Handler(socketserver.StreamRequestHandler):
    """Lines ``SET key hex`` (answer ``OK``) and ``GET key`` (answer the hex value or ``-``)."""

    def handle(self):
        for line in self.rfile:
            parts = line.decode().split()
            with self.server.lock:
                if len(parts) == 3 and parts[0] == "SET":
                    self.server.values[parts[1]] = parts[2]
                    answer = "OK"
                elif len(parts) == 2 and parts[0] == "GET":
                    answer = self.server.values.get(parts[1], "-")
                else:
                    answer = "ERR"
            self.wfile.write(f"{answer}\n".encode())


class Store(socketserver.ThreadingTCPServer):
    """The key-value store rank 0 serves while the other ranks fetch the unique id."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, port):
        super().__init__((address, port), _Handler)
        self.values, self.lock = {}, threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True, name="rocarray-distributed-store").start()

    def close(self):
        """Stop serving and release the port."""
        self.shutdown()
        self.server_close()


def _remaining(deadline, what):
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise DistributedError(f"rocarray.distributed.init: {what} within the timeout")
    return left


class _Client:
    """A connection to the store, retried until the deadline (rank 0 may not listen yet)."""

    def __init__(self, address, port, deadline):
        self.deadline = deadline
        while True:
            left = _remaining(deadline, f"could not reach rank 0's store at {address}:{port}")
            try:
                self.sock = socket.create_connection((address, port), timeout=left)
                break
            except OSError:
                time.sleep(min(_RETRY, left or _RETRY))
        self.file = self.sock.makefile("rwb")

    def ask(self, line, what):
        self.sock.settimeout(_remaining(self.deadline, what))
        try:
            self.file.write(f"{line}\n".encode())
            self.file.flush()
            answer = self.file.readline().decode().strip()
        except OSError:
            raise DistributedError(f"rocarray.distributed.init: {what}: the store connection failed") from None
        if not answer:
            raise DistributedError(f"rocarray.distributed.init: {what}: the store closed the connection")
        return answer

    def wait_for(self, key, what):
        while True:
            answer = self.ask(f"GET {key}", what)
            if answer != "-":
                return answer
            time.sleep(_RETRY)

    def close(self):
        self.file.close()
        self.sock.close()


def exchange_id(rank, size, address, port, deadline):
    """The NCCL unique id of a run of ``size`` ranks: rank 0 makes it and serves it on
    ``address:port`` until every other rank has fetched it; the others fetch it.

    Parameters
    ----------
    rank, size : int
    address : str
    port : int
    deadline : float or None
        ``time.monotonic()`` value by which every step has finished; ``None``: no bound.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        ``rank`` outside ``[0, size)``.
    DistributedError
        When rank 0 cannot be reached or a rank does not fetch the id in time.
    """
    if not 0 <= rank < size:
        raise ValueError(f"rocarray.distributed.init: RANK={rank} is outside [0, WORLD_SIZE={size})")
    if rank == 0:
        uid = _nccl.unique_id()
        if size == 1:
            return uid
        try:
            store = Store(address, port)
        except OSError as exc:
            raise DistributedError(f"rocarray.distributed.init: rank 0 cannot serve on {address}:{port} ({exc})") from None
        try:
            client = _Client(address, port, deadline)
            try:
                client.ask(f"SET id {uid.hex()}", "publishing the unique id")
                for peer in range(1, size):
                    client.wait_for(f"ack{peer}", f"rank {peer} did not fetch the unique id")
            finally:
                client.close()
        finally:
            store.close()
        return uid
    client = _Client(address, port, deadline)
    try:
        uid = bytes.fromhex(client.wait_for("id", "rank 0 did not publish the unique id"))
        client.ask(f"SET ack{rank} 1", "acknowledging the unique id")
    finally:
        client.close()
    return uid
