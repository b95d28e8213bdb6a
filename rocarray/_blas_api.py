"""NumPy-named BLAS façade: ``dot``, ``vdot``, ``inner`` (placeholder until level 1 lands)."""

def dot(a, b, out=None):  # pragma: no cover - replaced by the level-1 implementation
    raise NotImplementedError

def vdot(a, b):  # pragma: no cover
    raise NotImplementedError

def inner(a, b):  # pragma: no cover
    raise NotImplementedError
