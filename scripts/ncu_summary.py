"""Summarize one kernel's Nsight Compute source page: where its warps stall and what it issues.

On the GPU machine (the image has ``ncu``; leave the clocks alone)::

    ncu --clock-control none --set full -k regex:NAME --launch-skip 1 -c 1 -f -o prof python3 driver.py
    ncu -i prof.ncu-rep --page source --csv --print-source sass > prof.sass.csv

Here (or there)::

    python scripts/ncu_summary.py prof.sass.csv           # stall reasons, the 25 costliest instructions
    python scripts/ncu_summary.py prof.sass.csv --mix     # issued instructions by opcode (predicated share)
    python scripts/ncu_summary.py prof.sass.csv --shared  # the shared-memory accesses that replay most

The shares are of the warp-state samples (stalls) or of the executed warp instructions (mix); an
opcode issued under a false predicate still takes its issue slot, which ``--mix`` shows.
"""

import collections
import csv
import sys


def _rows(path):
    rows = list(csv.reader(open(path, newline="")))
    header = rows[1]  # rows[0] names the kernel
    return {h: i for i, h in enumerate(header)}, rows[2:]


def _number(row, index, key):
    try:
        return float(row[index[key]].replace(",", "") or 0)
    except (KeyError, ValueError):
        return 0.0


def _opcode(source):
    words = source.split()
    word = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "?")
    return word.split(".")[0]


def stalls(index, data, top=25):
    names = [h for h in index if h.startswith("stall_") and "Not Issued" not in h]
    samples = sum(_number(r, index, "Warp Stall Sampling (All Samples)") for r in data) or 1.0
    totals = collections.Counter({n: sum(_number(r, index, n) for r in data) for n in names})
    print(f"{samples:.0f} samples over {len(data)} instructions")
    for name, value in totals.most_common(10):
        print(f"  {name[6:]:24s} {value / samples * 100:5.1f}%")
    print("costliest instructions (share of samples, executions, top stall reasons):")
    key = "Warp Stall Sampling (All Samples)"
    for r in sorted(data, key=lambda r: -_number(r, index, key))[:top]:
        reasons = sorted(((_number(r, index, n), n[6:]) for n in names), reverse=True)[:3]
        text = " ".join(f"{n}:{v / samples * 100:.1f}" for v, n in reasons if v)
        print(f"  {_number(r, index, key) / samples * 100:5.2f}%  exec {_number(r, index, 'Instructions Executed'):9.3g}  "
              f"{r[index['Source']].strip()[:64]:64s} {text}")


def mix(index, data, top=25):
    executed = collections.Counter()
    predicated = collections.Counter()
    for r in data:
        source = r[index["Source"]].strip()
        n = _number(r, index, "Instructions Executed")
        executed[_opcode(source)] += n
        if source.startswith("@"):
            predicated[_opcode(source)] += n
    total = sum(executed.values()) or 1.0
    print(f"{total:.4g} warp instructions executed")
    for op, n in executed.most_common(top):
        print(f"  {op:10s} {n / total * 100:5.1f}%   under a predicate {predicated[op] / total * 100:5.1f}%")


def shared(index, data, top=15):
    key, all_key = "L1 Wavefronts Shared Excessive", "L1 Wavefronts Shared"
    excess = sum(_number(r, index, key) for r in data)
    print(f"shared wavefronts {sum(_number(r, index, all_key) for r in data):.4g}, of them replays {excess:.4g}")
    for r in sorted(data, key=lambda r: -_number(r, index, key))[:top]:
        if _number(r, index, key):
            print(f"  replays {_number(r, index, key):9.3g} of {_number(r, index, all_key):9.3g}  "
                  f"{r[index['Source']].strip()[:70]}")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[0] + "\nusage: python scripts/ncu_summary.py FILE.csv [--mix] [--shared]",
              file=sys.stderr)
        return 2
    index, data = _rows(argv[0])
    if "--mix" in argv:
        mix(index, data)
    elif "--shared" in argv:
        shared(index, data)
    else:
        stalls(index, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
