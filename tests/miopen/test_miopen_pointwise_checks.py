"""The pointwise self-checks of rocarray/_checks/miopen_pointwise.py pass with the kernels running
under the kernel emulator (tests/kernel_emu.py). CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

SEED = 20261205


@pytest.mark.parametrize("check", ["check_softmax", "check_activations"])
def test_self_checks_pass_emulated(emulated_device, check):
    from rocarray._checks import miopen_pointwise

    getattr(miopen_pointwise, check)(np.random.default_rng(SEED))


def test_pooling_check_passes_emulated_wave64(emulated_wave64_device):
    # as AMD's: the check's float16 pool converts halves, which NVIDIA's code does in inline PTX
    from rocarray._checks import miopen_pointwise

    miopen_pointwise.check_pooling(np.random.default_rng(SEED))
