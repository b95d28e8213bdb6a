"""The one device timer: seconds per call from GPU events (the bench and the tuners use it)."""


def per_call_seconds(cupy, fn, args, calls):
    """Device seconds per call of ``fn(*args)`` over ``calls`` calls back to back, timed with
    events. One untimed call goes first, so the device is busy while the timed calls are queued:
    the start event fires behind queued work, and the sample measures the calls, not one call's
    host latency on an idle device."""
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    fn(*args)
    start.record()
    for _ in range(calls):
        fn(*args)
    stop.record()
    stop.synchronize()
    return cupy.cuda.get_elapsed_time(start, stop) * 1e-3 / calls
