"""Environment knobs (rocarray._core.config): each one read where documented, with its default."""

import os
import stat
from pathlib import Path

import pytest

from rocarray._core import config

KNOBS = ("ROCARRAY_CACHE_DIR", "ROCARRAY_DUMP_SOURCE_ON_ERROR", "ROCARRAY_TUNE", "ROCARRAY_HIPCC",
         "ROCARRAY_CUDA_INCLUDE", "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in KNOBS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_cache_dir_explicit_expands_user(clean_env, tmp_path):
    clean_env.setenv("HOME", str(tmp_path))
    clean_env.setenv("ROCARRAY_CACHE_DIR", "~/rc")
    assert config.cache_dir() == tmp_path / "rc"


def test_cache_dir_follows_xdg_cache_home(clean_env, tmp_path):
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.cache_dir() == tmp_path / "xdg" / "rocarray"


def test_cache_dir_default_is_under_home(clean_env, tmp_path):
    clean_env.setenv("HOME", str(tmp_path))
    assert config.cache_dir() == tmp_path / ".cache" / "rocarray"


def test_empty_cache_dir_means_default(clean_env, tmp_path):
    clean_env.setenv("HOME", str(tmp_path))
    clean_env.setenv("ROCARRAY_CACHE_DIR", "")
    assert config.cache_dir() == tmp_path / ".cache" / "rocarray"


def test_cache_dir_is_a_path(clean_env):
    assert isinstance(config.cache_dir(), Path)


@pytest.mark.parametrize("value,expected", [
    (None, False), ("", False), ("1", True), ("yes", True), ("TRUE", True), ("on", True),
    ("0", False), ("false", False), ("No", False), ("off", False),
])
def test_dump_source_on_error_flag(clean_env, value, expected):
    if value is not None:
        clean_env.setenv("ROCARRAY_DUMP_SOURCE_ON_ERROR", value)
    assert config.dump_source_on_error() is expected


@pytest.mark.parametrize("value,expected", [
    (None, "db"), ("", "db"), ("1", "1"), ("on", "1"), ("0", "0"), ("off", "0"), ("false", "0"), ("force", "force"),
    (" FORCE ", "force"), ("yes", "1"), ("anything", "db"),
])
def test_tune_mode(clean_env, value, expected):
    if value is not None:
        clean_env.setenv("ROCARRAY_TUNE", value)
    assert config.tune_mode() == expected


def test_hipcc_path_explicit_wins(clean_env):
    clean_env.setenv("ROCARRAY_HIPCC", "/opt/rocm/bin/hipcc")
    assert config.hipcc_path() == "/opt/rocm/bin/hipcc"


def test_hipcc_path_is_found_on_path(clean_env, tmp_path):
    fake = tmp_path / "hipcc"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    clean_env.setenv("PATH", str(tmp_path))
    assert config.hipcc_path() == str(fake)


def test_hipcc_path_absent(clean_env, tmp_path):
    clean_env.setenv("PATH", str(tmp_path))
    assert config.hipcc_path() is None


def test_missing_hipcc_makes_the_amd_targets_skip_with_the_install_line(clean_env, tmp_path):
    from rocarray._core import offline

    clean_env.setenv("PATH", str(tmp_path))
    why = offline.missing_compiler(offline.OFFLINE_TARGETS[1])
    assert why and "apt-get install hipcc libamdhip64-dev rocm-device-libs" in why


def test_extra_cuda_include(clean_env):
    assert config.extra_cuda_include() is None
    clean_env.setenv("ROCARRAY_CUDA_INCLUDE", "/somewhere/include")
    assert config.extra_cuda_include() == "/somewhere/include"


def test_every_knob_is_documented_in_the_module_docstring():
    for name in KNOBS[:-1]:
        assert name in config.__doc__
    assert all(name.startswith("ROCARRAY_") for name in KNOBS[:-1])
    assert os.environ.get("ROCARRAY_CACHE_DIR") is None  # the autouse fixture cleaned it


def test_refresh_starts_a_new_generation_and_drops_plans_and_tuning_memos():
    from rocarray._core import plans, tuning

    before, token = config.generation(), tuning.state_token()
    plans.cache.put(("test.refresh", 1), "plan")
    config.refresh()
    assert config.generation() == before + 1 and tuning.state_token() != token
    assert plans.cache.get(("test.refresh", 1)) is None


def test_a_setting_changed_through_the_test_monkeypatch_is_refreshed(monkeypatch):
    before = config.generation()
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    assert config.generation() == before + 1 and config.tune_mode() == "0"
