"""Instructions per env-step of the vector step, counted by valgrind: stable where timings are not.

    python -m benchmarks.instructions [--envs rodizio_v1 ...] [--batch 1024] [--steps 100]
                                      [--warm 200] [--before REV ...] [--no-observe]

Timings on a shared, noisy host move by 30-50% from run to run; the number of instructions a
step executes does not move at all (the same seed plays the same games). Each game runs in its
own process under ``valgrind --tool=callgrind`` (about a minute each; needs valgrind):

1. ``bv.make(env_id, batch, seed=0, copy=False)`` (a tree without ``copy=``: its default),
   reset, and ``--warm`` steps of random legal play (``benchmarks.vector.pick``, seeded), so the
   envs are spread over every stage of a game as in a long run;
2. the records are saved, ``--steps`` more steps are played and their actions kept, and the
   records are put back;
3. the same ``--steps`` steps are played again from the kept actions between two calls of a
   marker (``os.getppid``: callgrind's ``--dump-before`` writes the counts so far at each), so
   the counted part holds the ``venv.step`` calls and nothing else (not the draw of the actions);
4. as many ``venv.observe()`` calls are counted the same way (the OBSERVE mode: the legal mask
   and the observation written again, nothing applied).

Reported: instructions per env-step (a call's count over ``batch``), the Python call included.
``--before REV ...`` runs the same in ``git archive REV baralho`` for each REV (its own numba
cache), with this module's worker, for the same games if the engines deal alike (same seed, same draws).

The compiled code is built for a fixed CPU (``NUMBA_CPU_NAME=haswell``: valgrind cannot run
AVX-512, and numba would otherwise compile again under valgrind for the CPU valgrind reports),
in its own numba cache (``~/.cache/baralho-instructions/``), compiled natively by a short run
first; so the counts are those of the haswell build, which is close to, not the same as, the
native one. glibc's memset and memcpy are kept from ``rep stosb``/``rep movsb`` (``GLIBC_TUNABLES``):
valgrind counts every byte of those as an instruction (a 3 kB observation cleared: 3,000
"instructions" that take ~100 cycles), so they run as the vector loops glibc uses for smaller sizes.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks import git_head

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path.home() / ".cache" / "baralho-instructions"
#: the CPU the counted code is built for: one valgrind emulates (AVX2, no AVX-512)
CPU = {"NUMBA_CPU_NAME": "haswell",
       "NUMBA_CPU_FEATURES": "+64bit,+aes,+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,"
                             "+invpcid,+lzcnt,+mmx,+movbe,+pclmul,+popcnt,+rdrnd,+rdseed,+sahf,+sse,+sse2,"
                             "+sse3,+sse4.1,+sse4.2,+ssse3,+xsave",
       "GLIBC_TUNABLES": "glibc.cpu.x86_rep_stosb_threshold=4294967295:glibc.cpu.x86_rep_movsb_threshold=4294967295"}


def worker(env_id: str, batch: int, steps: int, warm: int, observe: bool) -> None:
    """Steps 1-4 of the module docstring, in the tree first on ``sys.path``; prints the config."""
    import baralho
    import baralho.vector as bv
    from benchmarks.vector import pick  # the timing benchmark's draw: the same actions

    config = baralho.env_module(env_id).TEST_CONFIGS[0]
    kw = {"copy": False} if "copy" in inspect.signature(bv.make).parameters else {}
    venv = bv.make(env_id, batch, seed=0, **kw, **config)
    rng = np.random.default_rng(0)
    obs, mask, seat = venv.reset()
    for _ in range(warm):
        obs, mask, seat, rewards, done = venv.step(pick(mask, rng))
    # the records and the private copy of the last masks (named _legal, or _mask in older trees)
    kept = {name: getattr(venv, name).copy() for name in ("_records", "_legal", "_mask") if hasattr(venv, name)}
    actions = []
    for _ in range(steps):
        actions.append(pick(mask, rng))
        obs, mask, seat, rewards, done = venv.step(actions[-1])
    for name, value in kept.items():
        getattr(venv, name)[...] = value
    os.getppid()                                    # marker: callgrind dumps the counts so far
    for a in actions:
        venv.step(a)
    os.getppid()
    if observe:
        for _ in range(steps):
            venv.observe()
        os.getppid()
    print(json.dumps({"config": repr(config), "copy": kw.get("copy", True)}))


def _run(tree: Path, args: list[str], env: dict, valgrind: list[str] | None = None) -> subprocess.CompletedProcess:
    code = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; from benchmarks.instructions import worker; "
            "a = sys.argv[3:]; worker(a[0], int(a[1]), int(a[2]), int(a[3]), a[4] == '1')")
    cmd = [*(valgrind or []), sys.executable, "-c", code, str(tree), str(ROOT), *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} ... failed:\n{out.stderr[-3000:]}")
    return out


def count(tree: Path, cache: Path, env_id: str, batch: int, steps: int, warm: int, observe: bool) -> dict:
    """Instructions per env-step of ``venv.step`` (and of ``venv.observe``) in ``tree``."""
    env = {**os.environ, **CPU, "NUMBA_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0",
           "BARALHO_COMPILE": "foreground"}
    args = [env_id, str(batch), "2", "2", "1" if observe else "0"]
    _run(tree, args, env)                           # compiles natively into the cache (if not there)
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "cg"
        valgrind = ["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={out_file}"]
        args = [env_id, str(batch), str(steps), str(warm), "1" if observe else "0"]
        res = _run(tree, args, env, valgrind)
        if "compiling" in res.stderr:
            raise RuntimeError(f"{env_id}: a kernel compiled under valgrind (the native run did not fill the "
                               f"cache); its count would include the compile:\n{res.stderr[-2000:]}")
        parts = {}
        for f in Path(tmp).glob("cg.*"):            # cg.1: until the first marker; cg.2: the steps; ...
            totals = re.search(r"^totals: (\d+)", f.read_text(errors="replace"), re.M)
            parts[int(f.suffix[1:])] = int(totals.group(1))
    info = json.loads(res.stdout.strip().splitlines()[-1])
    per_step = batch * steps
    info["step"] = parts[2] / per_step
    if observe:
        info["observe"] = parts[3] / per_step
    return info


def checkout(rev: str, folder: Path) -> Path:
    """``rev``'s baralho package, extracted into ``folder``."""
    archive = subprocess.run(["git", "archive", rev, "baralho"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main(argv: list[str] | None = None) -> int:
    from baralho.envs import compiled_ids

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", nargs="*", default=sorted(compiled_ids()), choices=sorted(compiled_ids()))
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=100, help="counted steps (and observe calls)")
    ap.add_argument("--warm", type=int, default=200, help="steps played before the counted ones")
    ap.add_argument("--before", nargs="*", default=[], help="commits to count beside this tree")
    ap.add_argument("--no-observe", dest="observe", action="store_false", help="count the step only")
    ap.add_argument("--out", default=None, help="also write the table here (benchmarks/instructions.md: "
                                                "python -m benchmarks --vector embeds it in RESULTS.md)")
    args = ap.parse_args(argv)
    head = "| env | step instr/env | observe instr/env |"
    for rev in args.before:
        head += f" {rev} step | {rev} observe | step now/{rev} |"
    rows = [head, "|---|---:|---:|" + "---:|---:|---:|" * len(args.before)]
    with tempfile.TemporaryDirectory() as tmp:
        trees = []
        for k, rev in enumerate(args.before):
            sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.strip()
            folder = Path(tmp) / str(k)
            folder.mkdir()
            trees.append((checkout(sha, folder), CACHE / f"before-{sha[:12]}"))
        for env_id in args.envs:
            now = count(ROOT, CACHE / "now", env_id, args.batch, args.steps, args.warm, args.observe)
            row = f"| {env_id} | {now['step']:,.0f} | {now.get('observe', float('nan')):,.0f} |"
            for tree in trees:
                old = count(*tree, env_id, args.batch, args.steps, args.warm, args.observe)
                row += (f" {old['step']:,.0f} | {old.get('observe', float('nan')):,.0f} | "
                        f"{now['step'] / old['step']:.2f} |")
                if old["config"] != now["config"]:
                    row += f" (configs differ: before {old['config']}, now {now['config']})"
            print(row, flush=True)
            rows.append(row)
    print("\n".join(rows))
    if args.out:
        command = " ".join(["python -m benchmarks.instructions", *(argv if argv is not None else sys.argv[1:])])
        Path(args.out).write_text(f"`{command}` (batch {args.batch}, {args.steps} counted steps after "
                                  f"{args.warm}), commit {git_head()}:\n\n" + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
