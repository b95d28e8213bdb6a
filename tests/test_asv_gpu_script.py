"""``scripts/asv_gpu.sh``: its shell is valid, its default selection is exactly the headline
cases of ``python -m rocarray bench`` (one per library) under asv's parameter matching, and, where
a folder of asv wheels for this interpreter is named by ``ROCARRAY_ASV_WHEELS``, a whole run on
this machine publishes the pages and the run's facts (every benchmark skipped without a GPU)."""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess

import pytest

from rocarray._cli.main import HEADLINE_CASES
from rocarray._core import harness

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "scripts", "asv_gpu.sh")


def _text():
    with open(SCRIPT, encoding="utf-8") as f:
        return f.read()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_the_script_is_valid_shell():
    subprocess.run(["bash", "-n", SCRIPT], check=True)


def test_the_default_selection_is_the_headline_cases():
    snippet = re.search(r"headline\) REGEX=\$\(cd \"\$WORK/repo\" && \"\$PY\" -c '(.*?)'\) ;;", _text(), re.S)
    assert snippet, "the script's headline selection moved"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(snippet.group(1), {"__name__": "selection"})
    regex = out.getvalue().strip()
    harness.load_all()
    # asv matches -b against "<benchmark>(<param repr>)" for each parameter
    chosen = {case.name for case in harness.bench_cases()
              if re.search(regex, f"bench_cases.{case.library.capitalize()}.time_rocarray({case.name!r})")}
    assert chosen == set(HEADLINE_CASES)


@pytest.mark.skipif(not os.environ.get("ROCARRAY_ASV_WHEELS"), reason="ROCARRAY_ASV_WHEELS names no wheel folder")
def test_a_whole_run_without_a_gpu_publishes_the_pages(tmp_path):
    env = dict(os.environ, ASV_WHEELS=os.environ["ROCARRAY_ASV_WHEELS"], ASV_COMMIT="test-run",
               CUDA_VISIBLE_DEVICES="-1", HIP_VISIBLE_DEVICES="-1")
    proc = subprocess.run(["bash", SCRIPT, str(tmp_path / "out")], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = tmp_path / "out" / "docs_asv" / "asv"
    assert (report / "index.html").is_file()
    run = json.loads((report / "rocarray-run.json").read_text())
    assert run["selection"] == "headline" and run["measured"] == 0 and run["asv_exit_status"] == 0
    log = (tmp_path / "out" / "asv.log").read_text()
    assert log.count("asv: skipped: NotImplementedError('no GPU") == 2 * len(HEADLINE_CASES)
