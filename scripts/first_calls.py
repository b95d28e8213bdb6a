#!/usr/bin/env python3
"""Time the first call of each NumPy-named family in fresh processes.

    python3 scripts/first_calls.py [--json FILE] [--no-prebuilt] [FAMILY ...]

For every family three fresh processes each time one call (device synchronized) after the
import and the input transfer: rocarray with empty rocarray and CuPy caches ("cold"), rocarray
again on the caches the cold run filled ("warm"), and CuPy's own function with an empty CuPy
cache ("cupy"). ``--no-prebuilt`` runs rocarray with ``ROCARRAY_PREBUILT=0``: every kernel the
binary cache lacks is compiled, the package's shipped binaries are ignored. Needs a GPU; the
caches live in a temporary folder.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: family -> (setup on host numpy ``np`` and device module ``xp``, the timed call)
FAMILIES = {
    "sum": ("x = xp.asarray(np.random.default_rng(1).random(1_000_003, dtype=np.float32))", "xp.sum(x)"),
    "cumsum": ("x = xp.asarray(np.random.default_rng(1).random(1_000_003, dtype=np.float32))", "xp.cumsum(x)"),
    "sort": ("x = xp.asarray(np.random.default_rng(1).random(1_000_003, dtype=np.float32))", "xp.sort(x)"),
    "unique": ("x = xp.asarray(np.random.default_rng(1).integers(0, 1000, 1_000_003))", "xp.unique(x)"),
    "matmul_f16": ("a = xp.asarray(np.random.default_rng(1).random((1000, 1000), dtype=np.float32).astype(np.float16))",
                   "xp.matmul(a, a)"),
    "matmul_f32": ("a = xp.asarray(np.random.default_rng(1).random((1000, 1000), dtype=np.float32))",
                   "xp.matmul(a, a)"),
    "matmul_f64": ("a = xp.asarray(np.random.default_rng(1).random((1000, 1000)))", "xp.matmul(a, a)"),
    "einsum": ("a = xp.asarray(np.random.default_rng(1).random((300, 400), dtype=np.float32))",
               "xp.einsum('ij,kj->ik', a, a)"),
    "fft_pow2": ("x = xp.asarray(np.random.default_rng(1).random(1 << 20).astype(np.complex64))", "xp.fft.fft(x)"),
    "fft_prime": ("x = xp.asarray(np.random.default_rng(1).random(1_000_003).astype(np.complex64))", "xp.fft.fft(x)"),
    "rfft_pow2": ("x = xp.asarray(np.random.default_rng(1).random(1 << 20, dtype=np.float32))", "xp.fft.rfft(x)"),
    "fftn_pow2": ("x = xp.asarray(np.random.default_rng(1).random((128, 128, 128)).astype(np.complex64))",
                  "xp.fft.fftn(x)"),
}

CHILD = """
import time, numpy as np, cupy
{module}
{setup}
cupy.cuda.Device().synchronize()
t = time.perf_counter()
y = {call}
cupy.cuda.Device().synchronize()
print(repr(1e3 * (time.perf_counter() - t)))
"""


def time_first_call(family, module, env):
    setup, call = FAMILIES[family]
    code = CHILD.format(module=module, setup=setup, call=call)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    if done.returncode:
        return f"error: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    return float(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", default=list(FAMILIES))
    parser.add_argument("--json")
    parser.add_argument("--no-prebuilt", action="store_true", help="ignore the shipped kernel binaries")
    args = parser.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families:
            base = os.path.join(tmp, family)
            env = dict(os.environ, ROCARRAY_CACHE_DIR=os.path.join(base, "ra"), CUPY_CACHE_DIR=os.path.join(base, "cupy"))
            env.pop("ROCARRAY_TUNE", None)
            env.pop("ROCARRAY_PREBUILT", None)
            if args.no_prebuilt:
                env["ROCARRAY_PREBUILT"] = "0"
            row = {"cold": time_first_call(family, "import rocarray as xp", env)}
            row["warm"] = time_first_call(family, "import rocarray as xp", env)
            cupy_env = dict(env, CUPY_CACHE_DIR=os.path.join(base, "cupy-own"))
            row["cupy"] = time_first_call(family, "import cupy as xp", cupy_env)
            rows[family] = row
            print(f"{family:12s} " + "  ".join(f"{k} {v:9.1f} ms" if isinstance(v, float) else f"{k} {v}"
                                                for k, v in row.items()), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
