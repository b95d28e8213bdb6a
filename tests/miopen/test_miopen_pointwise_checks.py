"""The pointwise self-checks of rocarray/_checks/miopen_pointwise.py pass with the kernels running
under the kernel emulator (tests/kernel_emu.py). CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

SEED = 20261205


@pytest.mark.parametrize("check", ["check_pooling", "check_softmax", "check_activations"])
def test_self_checks_pass_emulated(emulated_device, check):
    from rocarray._checks import miopen_pointwise

    getattr(miopen_pointwise, check)(np.random.default_rng(SEED))
