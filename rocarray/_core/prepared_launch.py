"""TRANSITION: the prepared launch lives in :mod:`rocarray._core.launch` (removed once every
library imports it from there)."""

from rocarray._core.driver import launch_kernel as driver_launch  # noqa: F401
from rocarray._core.launch import HOST_ARRAY, POINTER, Launch as PreparedLaunch, Slot, scalar  # noqa: F401
from rocarray._core import launch  # noqa: F401
