"""One rank of a two-process run started by test_comm_gpu.py with RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT and LOCAL_RANK set, as torchrun would: every collective against NumPy, then "ok"."""

import numpy as np

import cupy
import rocarray.distributed as dist


def main():
    comm = dist.init("env", timeout=60.0)
    size, rank = comm.size, comm.rank
    parts = [np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r for r in range(size)]
    x = cupy.asarray(parts[rank])
    np.testing.assert_array_equal(comm.all_reduce(x).get(), sum(parts))
    np.testing.assert_array_equal(comm.all_gather(x).get(), np.concatenate(parts))
    np.testing.assert_array_equal(comm.broadcast(x.copy(), root=1).get(), parts[1])
    blocks = comm.all_to_all(cupy.arange(2 * size) + 100 * rank).get()
    np.testing.assert_array_equal(blocks, np.concatenate([np.arange(2 * rank, 2 * rank + 2) + 100 * r
                                                          for r in range(size)]))
    comm.barrier()
    try:
        comm.all_reduce(cupy.ones(3 + rank))  # shapes differ: a ValueError on both ranks, nothing sent
    except ValueError:
        pass
    else:
        raise AssertionError("mismatched shapes were not refused")
    comm.close()
    print("ok", rank, flush=True)


if __name__ == "__main__":
    main()
