"""The batched engines (baralho.vector): the step against the native write floor, steps/s by
batch size, memory per env, JIT compile time.

    python -m benchmarks.vector [--seconds 2] [--envs rodizio_v1] [--before REV]

Random legal play: the actions are drawn in numpy from the returned masks (uniform over the
legal ones: argmax of uniform noise times the mask). The step's time per env excludes that
draw, which is reported beside it (what a learner's sampling costs instead). One core
(threads=1).

The native write floor of a game is a numba kernel that writes as many observation, mask, seat,
reward and done bytes per env as the step returns, into the same kind of arrays (fresh ones per
call, or the same ones with ``copy=False``), and computes nothing else: what no engine returning
those arrays can beat. Every step figure is a ratio to it, measured in the same process and round.

The *rules* column is the other end: the step's own work built from the game's compiled primitives
(``core/batch.py``: apply the action, deal again when the game ended, find the next seat and its
legal mask) with nothing written out, no observation and no returned arrays. A step returning the
observation costs at least its rules plus the floor, so ``(rules + floor) / floor`` is the best
ratio these rules allow however the observation is written.

``--before REV`` measures the step of an older commit too (``git archive`` of its ``baralho``
into a temporary folder, run in its own process, interleaved round by round with this tree's).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba as nb
import numpy as np

import baralho
import baralho.vector as bv

BATCHES = (1, 64, 1024, 4096, 16384)
B_FLOOR = 4096
ROOT = Path(__file__).resolve().parents[1]


def pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row (argmax of uniform noise in [1, 2) times the mask: noise in
    [0, 1) drew an exact float32 0 once in 2**24, and argmax then picked an illegal action 0)."""
    return ((rng.random(mask.shape, np.float32) + 1) * mask).argmax(1)


def run_vector(env_id: str, config: dict, batch: int, seconds: float, seed: int = 0) -> float:
    """steps/s (env decisions) of random legal play on ``batch`` envs, the draw included."""
    venv = bv.make(env_id, num_envs=batch, seed=seed, **config)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(3):                                   # warm-up (compiled on first call)
        obs, mask, seat, rewards, done = venv.step(pick(mask, rng))
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(8):
            obs, mask, seat, rewards, done = venv.step(pick(mask, rng))
        steps += 8 * batch
    return steps / (time.perf_counter() - start)


@nb.njit(cache=True, nogil=True)
def write_floor(obs, mask, seat, rewards, done) -> None:
    """The native write floor: every byte a step returns, written, nothing computed."""
    B, D = obs.shape
    A, P = mask.shape[1], rewards.shape[1]
    for i in range(B):
        row = obs[i]
        for j in range(D):
            row[j] = (i + j) & 7
        m = mask[i]
        for a in range(A):
            m[a] = (i ^ a) & 1
        seat[i] = i & 1
        for p in range(P):
            rewards[i, p] = 0.0
        done[i] = False


def floor_ns(venv, fresh: bool, seconds: float) -> float:
    """ns per env of :func:`write_floor` on arrays shaped as ``venv``'s step returns."""
    B, D, A, P = venv.num_envs, venv.obs_size, venv.num_actions, venv.num_players

    def arrays():
        return (np.empty((B, D), venv.obs_dtype), np.empty((B, A), np.int8), np.empty(B, np.int64),
                np.empty((B, P), np.float32), np.empty(B, np.bool_))

    out = arrays()
    write_floor(*out)
    calls, spent = 0, 0.0
    while spent < seconds:
        start = time.perf_counter()
        write_floor(*(arrays() if fresh else out))
        spent += time.perf_counter() - start
        calls += 1
    return spent / calls / B * 1e9


def step_ns(env_id: str, config: dict, seconds: float, copy: bool = True, batch: int = B_FLOOR,
            seed: int = 0) -> tuple[float, float]:
    """(ns per env of ``step``, ns per env of the numpy draw) on ``batch`` envs, random legal play."""
    kw = {} if copy else {"copy": False}
    venv = bv.make(env_id, batch, seed=seed, **kw, **config)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(10):
        obs, mask, seat, rewards, done = venv.step(pick(mask, rng))
    calls, spent, drawing = 0, 0.0, 0.0
    while spent + drawing < seconds:
        start = time.perf_counter()
        actions = pick(mask, rng)
        middle = time.perf_counter()
        obs, mask, seat, rewards, done = venv.step(actions)
        spent += time.perf_counter() - middle
        drawing += middle - start
        calls += 1
    return spent / calls / batch * 1e9, drawing / calls / batch * 1e9


def _rules_kernel(fast):
    """The rules of one step of every env, nothing written out (the module docstring's *rules*)."""
    from baralho.core import batch

    deal, apply, legal_mask, _, current_player, returns = (getattr(fast, n) for n in batch.PRIMITIVES)

    def rules_batch(states, tables, actions, legal, rewards):
        d = tables[0]
        for i in range(len(states)):
            s = states[i]
            if apply(s, d, actions[i]):
                returns(s, d, rewards[i])
                deal(s, d)
            current_player(s, d)
            legal_mask(s, d, legal[i])
    return batch.kernels(fast).kernel(rules_batch)


def rules_ns(env_id: str, config: dict, seconds: float, batch: int = B_FLOOR, seed: int = 0) -> float:
    """ns per env of the rules alone (the module docstring's *rules*) under random legal play, the
    draw excluded, on the records of a ``batch``-env vector env."""
    venv = bv.make(env_id, batch, seed=seed, **config)
    _, mask, _ = venv.reset()
    run = _rules_kernel(venv.fast)
    legal, rewards = mask.copy(), np.zeros((batch, venv.num_players), np.float32)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        run(venv._records, venv._tables, pick(legal, rng), legal, rewards)
    calls, spent = 0, 0.0
    while spent < seconds:
        actions = pick(legal, rng)
        start = time.perf_counter()
        run(venv._records, venv._tables, actions, legal, rewards)
        spent += time.perf_counter() - start
        calls += 1
    return spent / calls / batch * 1e9


def measure_round(env_id: str, config: dict, seconds: float, this_tree: bool = True) -> dict:
    """One round of this tree's figures for a game: step (copy=True, and copy=False), the draw,
    the rules alone and both floors, in one process; ``this_tree=False``: the step and the floors
    only (``measure_before``'s round on an older tree, which may predate copy=False and the kernel
    builder)."""
    out = {}
    out["step"], out["pick"] = step_ns(env_id, config, seconds)
    if this_tree:
        out["step_nocopy"], _ = step_ns(env_id, config, seconds, copy=False)
        out["rules"] = rules_ns(env_id, config, seconds)
    venv = bv.make(env_id, 1, seed=0, **config)
    venv.num_envs = B_FLOOR                       # only its shapes are read
    out["floor"] = floor_ns(venv, True, seconds / 2)
    out["floor_reused"] = floor_ns(venv, False, seconds / 2)
    return out


def checkout(rev: str, folder: Path) -> Path:
    """``rev``'s baralho package, extracted into ``folder`` (for ``--before``)."""
    archive = subprocess.run(["git", "archive", rev, "baralho"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure_before(tree: Path, env_id: str, config: dict, seconds: float) -> dict:
    """One round of an older tree's step (this module run there, its own numba cache)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
            "from benchmarks.vector import measure_round; "
            "print(json.dumps(measure_round(sys.argv[3], json.loads(sys.argv[4]), float(sys.argv[5]), False)))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tree / "numba-cache"), "BARALHO_COMPILE": "foreground"}
    out = subprocess.run([sys.executable, "-c", code, str(tree), str(ROOT), env_id, json.dumps(config), str(seconds)],
                         capture_output=True, text=True, env=env, cwd=tree)
    if out.returncode != 0:
        raise RuntimeError(f"the before-tree's round failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor_table(envs: list[str], seconds: float, rounds: int, before: str | None) -> tuple[list[str], dict]:
    """The step-vs-floor section's table (markdown rows) and its figures: best of ``rounds``
    interleaved rounds, each measuring every game (and the before-tree's step) once."""
    best: dict = {e: {} for e in envs}
    with tempfile.TemporaryDirectory() as tmp:
        tree = checkout(before, Path(tmp)) if before else None
        for _ in range(rounds):
            for env_id in envs:
                cfg = baralho.env_module(env_id).TEST_CONFIGS[0]
                now = measure_round(env_id, cfg, seconds)
                if tree is not None:
                    now["before"] = measure_before(tree, env_id, cfg, seconds)["step"]
                for k, v in now.items():
                    best[env_id][k] = min(v, best[env_id].get(k, v))
    rows = ["| env | step ns/env | floor ns/env | × floor | copy=False ns/env | reused floor | × floor "
            "| draw ns/env | rules ns/env | (rules + floor) / floor |"
            + (" before ns/env | now / before |" if before else ""),
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if before else "")]
    for env_id, r in best.items():
        row = (f"| {env_id} | {r['step']:,.0f} | {r['floor']:,.0f} | {r['step'] / r['floor']:.1f} | "
               f"{r['step_nocopy']:,.0f} | {r['floor_reused']:,.0f} | {r['step_nocopy'] / r['floor_reused']:.1f} | "
               f"{r['pick']:,.0f} | {r['rules']:,.0f} | {(r['rules'] + r['floor']) / r['floor']:.1f} |")
        if before:
            row += f" {r['before']:,.0f} | {r['step'] / r['before']:.2f} |"
        rows.append(row)
    return rows, best


def memory_per_env(env_id: str, config: dict) -> dict:
    venv = bv.make(env_id, num_envs=1, seed=0, **config)
    state = venv.memory_per_env()
    obs = venv.obs_size * np.dtype(venv.obs_dtype).itemsize
    return dict(state=state, obs=obs, total=state + obs + venv.num_actions + 8 + 4 * venv.num_players + 1)


_COMPILE = """
import time; t = time.perf_counter()
import numpy as np, baralho.vector as bv
venv = bv.make({env_id!r}, num_envs=4096, seed=0, **{config!r})
obs, mask, seat = venv.reset()
venv.step((np.random.default_rng(0).random(mask.shape) * mask).argmax(1))
print(time.perf_counter() - t)
"""

_FIRST_MOVE = """
import time; t = time.perf_counter()
import numpy as np, baralho
env = baralho.make({env_id!r}, **{config!r}); env.reset(seed=0)
env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
print(time.perf_counter() - t, flush=True)
compiling = getattr(env.unwrapped.game, "_compiling", None)
if compiling is not None:                  # the background compile ends before the next measurement
    compiling.wait()
"""


def _timed(code: str, cache: str, **env) -> float:
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_CACHE_DIR": cache, **env},
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def compile_seconds(env_id: str, config: dict) -> dict:
    """First use, each in a fresh process (import included): ``bv.make(env_id, 4096)`` + reset +
    one step with an empty numba cache, then with the cache it wrote; ``baralho.make`` + reset +
    one step with an empty cache (the kernel compiles in the background: the reference engine
    plays meanwhile), with its kernel compiled first (``BARALHO_COMPILE=foreground``), and cached."""
    out = {}
    config = dict(config)
    with tempfile.TemporaryDirectory() as cache:
        code = _COMPILE.format(env_id=env_id, config=config)
        out["vector_first"], out["vector_cached"] = _timed(code, cache), _timed(code, cache)
    with tempfile.TemporaryDirectory() as cache:
        out["aec_first"] = _timed(_FIRST_MOVE.format(env_id=env_id, config=config), cache)
    with tempfile.TemporaryDirectory() as cache:
        code = _FIRST_MOVE.format(env_id=env_id, config=config)
        out["aec_foreground"] = _timed(code, cache, BARALHO_COMPILE="foreground")
        out["aec_cached"] = _timed(code, cache)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    from baralho.envs import compiled_ids  # (not at import: a --before tree may predate it)

    ap.add_argument("--envs", nargs="*", default=sorted(compiled_ids()), choices=sorted(compiled_ids()))
    ap.add_argument("--before", default=None, help="a commit whose step to measure beside this tree's")
    args = ap.parse_args(argv)
    rows, _ = floor_table(args.envs, args.seconds, args.rounds, args.before)
    print("\n".join(rows))
    for env_id in args.envs:
        cfg = baralho.env_module(env_id).TEST_CONFIGS[0]
        print(env_id, "memory per env", memory_per_env(env_id, cfg), "compile s", compile_seconds(env_id, cfg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
