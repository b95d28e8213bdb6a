"""TRANSITION: dependent launches live in :mod:`rocarray._core.driver`."""

from rocarray._core.driver import DependentLaunch, PROGRAMMATIC_STREAM_SERIALIZATION  # noqa: F401
from rocarray._core.driver import dependent_launch_available as available  # noqa: F401
from rocarray._core import launch  # noqa: F401
