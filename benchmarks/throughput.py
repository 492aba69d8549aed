"""Throughput: random legal play through ``env()`` with obs and mask read every step.

    python -m benchmarks.throughput [--seconds 2] [--repeats 3] [--envs rodizio_v1] [--json out.json]

For every env id and each of its declared configs, and for two floors in the
same run — the adapter over a do-nothing game (``null``) and PettingZoo's
classic wrapper chain (TerminateIllegal, AssertOutOfBounds, OrderEnforcing)
over the same do-nothing game — it reports steps/s, games/s, steps/game and
the ratio to the adapter floor. Each figure is the best of ``--repeats`` runs
(this machine's speed varies by up to 2x between runs; the best run is the
least disturbed one). The runs are interleaved: every round measures every
item once, floors, envs and peers alike, so a slow stretch of a shared machine
is spread over all of them instead of falling on the items measured in it
(measured in sequence, the floor ran minutes before the last env and the peers).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from importlib.metadata import version

import numpy as np
from pettingzoo.utils import wrappers

import baralho
from baralho.core.null import null_env


def run_loop(env, seconds: float, seed: int = 0) -> tuple[float, float, float]:
    """The loop every figure uses; returns (steps/s, games/s, steps/game)."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
        if time.perf_counter() > deadline:
            break
        env.reset()
    dt = time.perf_counter() - start
    return steps / dt, games / dt, steps / games


Runner = Callable[[float, int], "tuple[float, float, float] | None"]   # (seconds, seed) -> figures


def env_runner(make) -> Runner:
    """A runner timing ``run_loop`` over a fresh env from ``make()``."""
    return lambda seconds, seed: run_loop(make(), seconds, seed=seed)


def classic_chain_over_null():
    env = null_env()
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def measure(env_ids, seconds: float, repeats: int, peers: dict[str, Runner] | None = None) -> dict:
    """Every env config, the two floors and ``peers`` (name -> runner, None when the
    peer is not installed), in ``repeats`` interleaved rounds; each keeps its best run."""
    items: list[tuple[str, dict, str, Runner]] = [
        ("null (adapter floor)", {}, "floor", env_runner(null_env)),
        ("null + PettingZoo classic wrappers", {}, "floor", env_runner(classic_chain_over_null))]
    from baralho.envs import compiled_ids

    for env_id in env_ids:
        configs = baralho.env_module(env_id).TEST_CONFIGS
        for cfg in configs:
            items.append((env_id, cfg, "env", env_runner(lambda e=env_id, c=cfg: baralho.make(e, **c))))
        if env_id in compiled_ids():     # the same env on the Python engine, for the comparison
            cfg = {**configs[0], "engine": "reference"}
            items.append((env_id, cfg, "env", env_runner(lambda e=env_id, c=cfg: baralho.make(e, **c))))
    items += [(name, {}, "peer", run) for name, run in (peers or {}).items()]
    best: list = [None] * len(items)
    for k in range(repeats):
        for i, (_name, _cfg, _kind, run) in enumerate(items):
            r = run(seconds, k)
            if r is not None and (best[i] is None or r[0] > best[i][0]):
                best[i] = r
    rows = [dict(env=name, config=cfg, kind=kind, sps=b[0], gps=b[1], spg=b[2])
            for (name, cfg, kind, _), b in zip(items, best) if b is not None]
    floor = rows[0]["sps"]
    for r in rows:
        r["ratio_to_floor"] = r["sps"] / floor
    return dict(
        machine=dict(platform=platform.platform(), python=platform.python_version(),
                     processor=platform.processor() or platform.machine()),
        versions={p: version(p) for p in ("baralho", "pettingzoo", "gymnasium", "numpy")},
        seconds=seconds, repeats=repeats, rows=rows)


def table(result: dict) -> str:
    lines = ["| env | config | steps/s | games/s | steps/game | × floor |", "|---|---|---:|---:|---:|---:|"]
    for r in result["rows"]:
        cfg = ", ".join(f"{k}={v}" for k, v in r["config"].items())
        lines.append(f"| {r['env']} | {cfg} | {r['sps']:,.0f} | {r['gps']:,.1f} | {r['spg']:.1f} | "
                     f"{r['ratio_to_floor']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="per run (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure, best kept (default 3)")
    ap.add_argument("--envs", nargs="*", default=list(baralho.ENV_IDS), choices=baralho.ENV_IDS)
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    args = ap.parse_args(argv)
    result = measure(args.envs, args.seconds, args.repeats)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
