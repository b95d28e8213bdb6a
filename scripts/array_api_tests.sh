#!/usr/bin/env bash
# Run the Array API standard's own test suite (array-api-tests) against rocarray on a GPU machine
# with no network, inside a time budget, and print a passed/failed/skipped table per test file.
#
#   bash scripts/array_api_tests.sh                    # every test file of the suite
#   bash scripts/array_api_tests.sh test_linalg.py     # only these files (names in array_api_tests/)
#
# Needs two git-ignored folders in the checkout (fetched on a machine with network, see
# docs/array_api.rst):
#   .cache-api-tests/array-api-tests/   the suite at the release for 2024.12 (2025.05.23), with the
#                                       standard's stubs in its array-api/ folder
#   .cache-wheels-api/                  wheels of hypothesis, ndindex, pytest-json-report,
#                                       pytest-metadata, pytest-xdist, execnet, sortedcontainers,
#                                       attrs, exceptiongroup (CPython 3.10 to 3.14, x86_64)
# The wheels are installed into a temporary folder (with pip, or unpacked where the interpreter has
# no pip); nothing else changes. python3 (or $PYTHON) needs cupy, numpy and pytest.
#
# Settings (environment):
#   RA_API_MODULE        the namespace under test (default rocarray; numpy checks this script)
#   RA_API_VERSION       the standard's revision (default 2024.12)
#   RA_API_MAX_EXAMPLES  Hypothesis examples per test (default 10; the suite's own default is 20)
#   RA_API_BUDGET_S      seconds after which tests not yet started are skipped (default 240)
#   RA_API_WORKERS       pytest-xdist workers for each of the two largest files (default 4)
#   OUT                  where logs and reports go (default ./array-api-report)
#
# Every test file runs as its own pytest process, all at once (the two largest spread over
# RA_API_WORKERS xdist workers); a process still running RA_API_BUDGET_S + 60 s after the start is
# killed and its file reported as TIMEOUT. Files written under $OUT: env.txt (versions, device),
# logs/<file>.log (pytest's output, cut to 2 MB), junit/<file>.xml, failures.txt (one line per
# failing test: its id and the start of its message), summary.txt (the table printed last).
# Exit status: 0 when every file ran to the end with no failure, 1 otherwise.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
SUITE="$ROOT/.cache-api-tests/array-api-tests"
WHEELS="$ROOT/.cache-wheels-api"
OUT="${OUT:-$ROOT/array-api-report}"
MODULE="${RA_API_MODULE:-rocarray}"
VERSION="${RA_API_VERSION:-2024.12}"
EXAMPLES="${RA_API_MAX_EXAMPLES:-10}"
BUDGET="${RA_API_BUDGET_S:-240}"
WORKERS="${RA_API_WORKERS:-4}"
HEAVY="test_special_cases.py test_operators_and_elementwise_functions.py"

for need in "$SUITE/array_api_tests" "$SUITE/array-api/src" "$WHEELS"; do
    if [ ! -d "$need" ]; then
        echo "array_api_tests.sh: $need is missing (see the header of this script)" >&2
        exit 2
    fi
done
mkdir -p "$OUT/logs" "$OUT/junit"
SITE="$(mktemp -d)"
trap 'rm -rf "$SITE"' EXIT

# pip when the interpreter has it, else the wheels are unpacked (a wheel is a zip of the files)
if ! "$PY" -m pip install --quiet --no-index --no-deps --disable-pip-version-check --target "$SITE" \
    --find-links "$WHEELS" hypothesis ndindex pytest-json-report pytest-metadata pytest-xdist \
    execnet sortedcontainers attrs exceptiongroup >"$OUT/logs/pip.log" 2>&1; then
    "$PY" - "$WHEELS" "$SITE" <<'EOF' >>"$OUT/logs/pip.log" 2>&1 \
        || { echo "array_api_tests.sh: installing the wheels failed:" >&2; cat "$OUT/logs/pip.log" >&2; exit 2; }
import os, sys, zipfile
wheels, site = sys.argv[1:]
tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
done = set()
for name in sorted(os.listdir(wheels)):
    project, _, rest = name.partition("-")
    if name.endswith(".whl") and project not in done and ("-py3" in rest or "-py2.py3" in rest or f"-{tag}-" in rest):
        zipfile.ZipFile(os.path.join(wheels, name)).extractall(site)
        done.add(project)
print("unpacked", sorted(done))
missing = {"hypothesis", "ndindex", "pytest_json_report", "pytest_metadata"} - done
sys.exit(f"no wheel for {sorted(missing)} ({tag})" if missing else 0)
EOF
fi

export PYTHONPATH="$ROOT:$ROOT/scripts:$SITE${PYTHONPATH:+:$PYTHONPATH}"
export ARRAY_API_TESTS_MODULE="$MODULE" ARRAY_API_TESTS_VERSION="$VERSION"
export RA_API_BUDGET_S="$BUDGET"
export ARRAY_API_TESTS_MAX_ARRAY_SIZE="${ARRAY_API_TESTS_MAX_ARRAY_SIZE:-256}"

{
    echo "module=$MODULE version=$VERSION max_examples=$EXAMPLES budget_s=$BUDGET workers=$WORKERS"
    "$PY" - <<'EOF' 2>&1
import importlib, os, platform
print("python", platform.python_version())
for name in ("numpy", "cupy", "hypothesis", "pytest", "ndindex", os.environ["ARRAY_API_TESTS_MODULE"]):
    try:
        m = importlib.import_module(name)
        print(name, getattr(m, "__version__", "?"), getattr(m, "__array_api_version__", ""))
    except Exception as exc:
        print(name, "not importable:", exc)
try:
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(0)
    print("device", props["name"].decode(), "cupy", cupy.__version__)
except Exception as exc:
    print("device: none (", exc, ")")
EOF
} >"$OUT/env.txt"
cat "$OUT/env.txt"

cd "$SUITE" || exit 2
if [ "$#" -gt 0 ]; then
    FILES="$*"
else
    FILES="$(cd array_api_tests && ls test_*.py)"
fi
HAS_XDIST=0
"$PY" -c "import xdist" 2>/dev/null && HAS_XDIST=1

START=$(date +%s)
for f in $FILES; do
    name="${f%.py}"
    extra=()
    if [ "$HAS_XDIST" = 1 ] && [ "$WORKERS" -gt 1 ] && [[ " $HEAVY " == *" $f "* ]]; then
        extra=(-n "$WORKERS")
    fi
    (
        timeout -k 10 $((BUDGET + 60)) "$PY" -m pytest "array_api_tests/$f" -p no:cacheprovider \
            -p array_api_budget -q -rfE --tb=short --max-examples="$EXAMPLES" --disable-deadline \
            --junitxml="$OUT/junit/$name.xml" -o junit_family=xunit1 "${extra[@]}" \
            >"$OUT/logs/$name.log" 2>&1
        echo $? >"$OUT/logs/$name.rc"
    ) &
done
wait
echo "all files done in $(( $(date +%s) - START )) s"
for log in "$OUT"/logs/*.log; do  # keep each log's head and tail under 2 MB
    if [ "$(stat -c %s "$log")" -gt 2000000 ]; then
        { head -c 1000000 "$log"; printf '\n[... cut ...]\n'; tail -c 900000 "$log"; } >"$log.cut" && mv "$log.cut" "$log"
    fi
done

"$PY" - "$OUT" $FILES <<'EOF' | tee "$OUT/summary.txt"
import os, sys
import xml.etree.ElementTree as ET

out, files = sys.argv[1], sys.argv[2:]
rows, bad, failures = [], False, []
totals = [0, 0, 0, 0]
for f in files:
    name = f[:-3] if f.endswith(".py") else f
    rc_path = os.path.join(out, "logs", name + ".rc")
    rc = open(rc_path).read().strip() if os.path.exists(rc_path) else "?"
    xml = os.path.join(out, "junit", name + ".xml")
    counts = [0, 0, 0, 0]  # passed, failed, error, skipped
    budget = 0
    if os.path.exists(xml):
        for case in ET.parse(xml).getroot().iter("testcase"):
            kinds = [child.tag for child in case]
            for child in case:
                if child.tag in ("failure", "error"):
                    message = " ".join((child.get("message") or child.text or "").split())[:300]
                    failures.append(f"{name}::{case.get('name')} [{child.tag}] {message}")
            if "failure" in kinds:
                counts[1] += 1
            elif "error" in kinds:
                counts[2] += 1
            elif "skipped" in kinds:
                counts[3] += 1
                budget += any("time budget" in (c.get("message") or "") for c in case)
            else:
                counts[0] += 1
    status = {"0": "ok", "1": "failures", "5": "no tests"}.get(rc, "TIMEOUT" if rc in ("124", "137") else f"rc={rc}")
    if not os.path.exists(xml) and rc not in ("124", "137"):
        status = f"no report (rc={rc})"
    bad |= rc not in ("0", "5")
    totals = [t + c for t, c in zip(totals, counts)]
    rows.append((name, *counts, budget, status))
with open(os.path.join(out, "failures.txt"), "w") as f:
    f.write("\n".join(failures) + "\n")
rows.append(("TOTAL", *totals, sum(r[5] for r in rows), "FAILED" if bad else "ok"))
head = ("test file", "passed", "failed", "errors", "skipped", "of them: budget", "status")
width = max(len(r[0]) for r in rows + [head])
print(f"{head[0]:<{width}} " + " ".join(f"{h:>8}" for h in head[1:5]) + f" {head[5]:>15}  {head[6]}")
for r in rows:
    print(f"{r[0]:<{width}} " + " ".join(f"{v:>8}" for v in r[1:5]) + f" {r[5]:>15}  {r[6]}")
sys.exit(1 if bad else 0)
EOF
