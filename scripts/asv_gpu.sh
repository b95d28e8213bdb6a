#!/usr/bin/env bash
# Run rocarray's asv suite once on a GPU machine with no network, and publish its HTML.
#
# Usage, from the repository root (a git checkout, or a copy of one without .git):
#
#     scripts/asv_gpu.sh [DEST]
#
# DEST (default: $OUT if set, else ./asv-published) receives:
#   DEST/docs_asv/asv/           the HTML of `asv publish` (index.html and its data), with
#                                rocarray-run.json: the commit, machine, date and what ran
#   DEST/results/                asv's raw result files
#   DEST/asv.log                 the whole run's output
# Copy DEST/docs_asv to docs/_asv to put the report in the documentation (docs/benchmarks.rst).
#
# asv and what it needs at run time come from wheels, installed into a temporary folder
# (pip install --no-index --find-links):
#   ASV_WHEELS   the wheel folder (default: .cache-wheels-asv in the repository root; fill it on a
#                machine with network: pip download asv==0.6.6 --python-version 3.12 --only-binary=:all: -d DIR)
#   PYTHON       the interpreter whose environment has rocarray's dependencies (default python3)
#   ASV_BENCH    which benchmarks: "headline" (default: the six headline cases of `python -m rocarray
#                bench`, one per library, both rocarray and vendor timings, about 2-3 minutes),
#                "all" (every registered case: 395 cases x 2 timings, over an hour), or an asv -b regex
#   ASV_COMMIT   what the copy is (a commit id), when the checkout has no .git to say it
#   ASV_MACHINE  the machine's name in the results (default: the GPU's name from nvidia-smi/rocm-smi)
#
# asv needs a git repository: the checkout's files are copied to a temporary folder, committed
# there (the message names ASV_COMMIT or the checkout's own HEAD), and benchmarked from that copy,
# in this Python environment ("environment_type": "existing", --python=same).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${1:-${OUT:-$PWD/asv-published}}
WHEELS=${ASV_WHEELS:-$REPO/.cache-wheels-asv}
PY=${PYTHON:-python3}
BENCH=${ASV_BENCH:-headline}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocarray-asv.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

say() { echo "asv_gpu: $*" | tee -a "$DEST/asv.log" >&2; }
: > "$DEST/asv.log"

# 1. asv from the wheels, into a folder of its own
[ -d "$WHEELS" ] || { say "no wheel folder $WHEELS (set ASV_WHEELS)"; exit 2; }
# (a --target install resolves every dependency from the folder alone, even one the environment
# has, such as NumPy; then each wheel of the folder goes in as it is, without resolution)
"$PY" -m pip install --quiet --no-index --find-links "$WHEELS" --target "$WORK/site" asv >>"$DEST/asv.log" 2>&1 \
    || "$PY" -m pip install --quiet --no-index --no-deps --target "$WORK/site" "$WHEELS"/*.whl >>"$DEST/asv.log" 2>&1 \
    || { say "pip could not install asv from $WHEELS (see $DEST/asv.log)"; exit 2; }
export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
asv() { "$PY" -m asv "$@"; }
say "$(asv --version) on $("$PY" --version 2>&1)"

# 2. a git repository holding exactly this checkout's files
if git -C "$REPO" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    SOURCE=$(git -C "$REPO" rev-parse HEAD)
    [ -z "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] || SOURCE="$SOURCE with uncommitted changes"
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard) >"$WORK/files"
else
    SOURCE=${ASV_COMMIT:-"a copy without .git (set ASV_COMMIT to name it)"}
    (cd "$REPO" && find . -type f ! -path './.git/*' ! -path './.cache*' ! -path './asv_bench/.asv/*' \
        ! -path '*/__pycache__/*' ! -path './docs/_build/*' ! -path './docs/_asv/*' -print0) >"$WORK/files"
fi
mkdir -p "$WORK/repo"
(cd "$REPO" && xargs -0 cp --parents -t "$WORK/repo" <"$WORK/files")
git -C "$WORK/repo" init -q -b main
git -C "$WORK/repo" add -A
git -C "$WORK/repo" -c user.name=rocarray-asv -c user.email=asv@localhost commit -q -m "rocarray: $SOURCE"
COMMIT=$(git -C "$WORK/repo" rev-parse HEAD)
say "benchmarking $SOURCE (as commit ${COMMIT:0:8} of a temporary repository)"

# 3. the run: the machine, the selection, asv run and publish
gpu_name() {
    { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null \
        || rocm-smi --showproductname 2>/dev/null | sed -n 's/.*Card series:[[:space:]]*//p'; } | head -1 || true
}
MACHINE=${ASV_MACHINE:-$(gpu_name)}
MACHINE=$(echo "${MACHINE:-$(hostname)}" | tr -c 'A-Za-z0-9._-' '_' | sed 's/_*$//')
case "$BENCH" in
    headline) REGEX=$(cd "$WORK/repo" && "$PY" -c '
import re
from rocarray._cli.main import HEADLINE_CASES
print("\\(\x27(" + "|".join(re.escape(n) for n in HEADLINE_CASES) + ")\x27\\)")') ;;
    all) REGEX="." ;;
    *) REGEX=$BENCH ;;
esac
export ASV_PYTHONPATH="$WORK/repo:$WORK/site"  # what the benchmark processes import
cd "$WORK/repo/asv_bench"
asv machine --yes --machine "$MACHINE" >>"$DEST/asv.log" 2>&1
say "asv run --python=same -b '$REGEX' on $MACHINE"
START=$(date +%s)
set +e
asv run --python=same --set-commit-hash "$COMMIT" --machine "$MACHINE" --show-stderr -b "$REGEX" 2>&1 | tee -a "$DEST/asv.log"
RC=${PIPESTATUS[0]}
set -e
SECONDS_RUN=$(( $(date +%s) - START ))
asv publish >>"$DEST/asv.log" 2>&1
rm -rf "$DEST/docs_asv" "$DEST/results"
mkdir -p "$DEST/docs_asv"
cp -r .asv/html "$DEST/docs_asv/asv"
cp -r .asv/results "$DEST/results"
SOURCE="$SOURCE" COMMIT="$COMMIT" MACHINE="$MACHINE" REGEX="$REGEX" BENCH="$BENCH" RC="$RC" SECONDS_RUN="$SECONDS_RUN" \
"$PY" - "$DEST/docs_asv/asv/rocarray-run.json" .asv/results <<'EOF'
import glob, json, os, sys, time

env = os.environ
measured = not_measured = 0
for path in glob.glob(os.path.join(sys.argv[2], "*", "*.json")):
    if os.path.basename(path) in ("machine.json", "benchmarks.json"):
        continue
    with open(path) as f:
        for value in json.load(f).get("results", {}).values():
            # a number per parameter: NaN where asv did not measure it (not selected, skipped
            # without a GPU or a vendor twin), None where it failed
            numbers = value[0] if isinstance(value, list) and value and isinstance(value[0], list) else [value[0]]
            measured += sum(isinstance(v, (int, float)) and v == v for v in numbers)
            not_measured += sum(isinstance(v, float) and v != v for v in numbers)
json.dump({"source": env["SOURCE"], "commit": env["COMMIT"], "machine": env["MACHINE"],
           "selection": env["BENCH"], "benchmarks": env["REGEX"],
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seconds": int(env["SECONDS_RUN"]),
           "asv_exit_status": int(env["RC"]), "measured": measured, "not_measured": not_measured},
          open(sys.argv[1], "w"), indent=1)
EOF
say "asv run exit status $RC in ${SECONDS_RUN} s; HTML in $DEST/docs_asv/asv (copy $DEST/docs_asv to docs/_asv)"
exit "$RC"
