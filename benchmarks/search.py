"""The search agents' speed: ISMCTS simulations per second on each engine, against the rollout
bound of the compiled engine.

    python -m benchmarks.search [--simulations 200] [--positions 6] [--envs rodizio_v1]

Through ``make_agent("ismcts:N")`` bound to the env, as a tournament runs it: on the default
(compiled) engine and on ``engine="reference"``, the same positions (random play from seeded
deals, 2 players, where a choice is open), N simulations per move. The rollout bound is what
the simulations could reach if a simulation cost only its rollout: 1 / (mean rollout length x
the compiled engine's step without observations), both measured here: random play from the
same positions to the end, in a numba loop over the game's primitives (legal mask, a uniform
pick, apply).
"""

from __future__ import annotations

import argparse
import os
import time

import numba as nb
import numpy as np

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.core import batch
from baralho.core.search import _random_rollout, generator_words


def positions(env_id: str, count: int, seed: int = 0) -> list[list[int]]:
    """Action sequences from seeded deals (the deal's seed first) to a position of random play
    where the acting seat has a choice: replayed on either engine, the same position."""
    env = baralho.make(env_id, engine="reference", num_players=2)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        deal = int(rng.integers(1 << 30))
        env.reset(seed=deal)
        stop, moves = int(rng.integers(0, 40)), [deal]
        for k, _agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            legal = np.flatnonzero(obs["action_mask"])
            if k >= stop and len(legal) > 1:
                out.append(moves)
                break
            moves.append(int(rng.choice(legal)))
            env.step(moves[-1])
    return out


def replay(env_id: str, moves: list[int], engine: str | None):
    env = baralho.make(env_id, num_players=2, **({} if engine is None else {"engine": engine}))
    env.reset(seed=moves[0])
    for a in moves[1:]:
        env.step(a)
    return env


def sims_per_second(env_id: str, spec: str, engine: str | None, moves_list: list[list[int]]) -> float:
    """Simulations per second of ``spec`` acting at each position (its budget per move)."""
    agent = make_agent(spec, env_id, seed=0, config={"num_players": 2})
    budget = int(spec.split(":")[1])     # ismcts:N or ismcts:N:h
    warm = replay(env_id, moves_list[0], engine)
    bind_if_needed(agent, warm)
    agent.act(warm.last()[0], warm.agent_selection)          # compiles or loads the search
    spent = 0.0
    for moves in moves_list:
        env = replay(env_id, moves, engine)
        bind_if_needed(agent, env)
        obs = env.last()[0]
        start = time.perf_counter()
        agent.act(obs, env.agent_selection)
        spent += time.perf_counter() - start
    return budget * len(moves_list) / spent


def _rollout_loop(fast):
    rollout = _random_rollout(fast)          # the search's own rollout (core/search.py)

    @nb.njit
    def rollouts(roots, root_bytes, scratch, scratch_bytes, tables, games, g, mask, legal) -> int:
        """Random play to the end from each root, ``games`` times; returns the steps played."""
        d = tables[0]
        s = scratch[0]
        none = np.zeros(1, np.int64)                 # the heuristic rollout's arguments, unread
        obs = np.zeros((1, 1), np.int8)
        steps = 0
        for _ in range(games):
            for r in range(root_bytes.shape[0]):
                for k in range(root_bytes.shape[1]):
                    scratch_bytes[0, k] = root_bytes[r, k]
                steps += rollout(s, d, g, 1 << 62, mask, legal, 0, none, none, obs, obs, none, none, (), -1)
        return steps
    return rollouts


def rollout_bound(env_id: str, moves_list: list[list[int]], seconds: float) -> tuple[float, float, float]:
    """(mean rollout length, ns per compiled step without observations, the bound in sims/s)."""
    envs = [replay(env_id, moves, None) for moves in moves_list]
    game = envs[0].unwrapped.game
    roots = np.concatenate([e.unwrapped.game_state.records for e in envs])
    root_bytes = roots.view(np.uint8).reshape(len(roots), roots.itemsize)
    scratch = game._blank.copy()
    scratch_bytes = scratch.view(np.uint8).reshape(1, scratch.itemsize)
    loop = _rollout_loop(game.fast)
    args = (roots, root_bytes, scratch, scratch_bytes, batch.tables(game.fast, game.reference))
    g = generator_words(np.random.default_rng(1))
    mask, legal = np.zeros(game.num_actions, np.int8), np.zeros(game.num_actions, np.int64)
    loop(*args, 1, g, mask, legal)                           # compiles
    games, steps, spent = 0, 0, 0.0
    while spent < seconds:
        start = time.perf_counter()
        steps += loop(*args, 8, g, mask, legal)
        spent += time.perf_counter() - start
        games += 8 * len(roots)
    length, step = steps / games, spent / steps
    return length, step * 1e9, 1.0 / (length * step)


def search_table(envs: list[str], simulations: int, count: int, seconds: float) -> list[str]:
    # the compiled search, not the reference engine that plays while a kernel compiles in the
    # background at first use: a stale cache compiles here, before the first position
    os.environ["BARALHO_COMPILE"] = "foreground"
    rows = ["| env | agent | reference sims/s | compiled sims/s | × reference | rollout length | step ns | "
            "rollout bound sims/s | of the bound |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for env_id in envs:
        moves = positions(env_id, count)
        for spec in (f"ismcts:{simulations}", f"ismcts:{simulations}:h"):
            ref = sims_per_second(env_id, spec, "reference", moves)
            fast = sims_per_second(env_id, spec, None, moves)
            if spec.endswith(":h"):         # the bound is a random rollout's: no row of it for :h
                rows.append(f"| {env_id} | `{spec}` | {ref:,.0f} | {fast:,.0f} | {fast / ref:.1f} | | | | |")
                continue
            length, step_ns, bound = rollout_bound(env_id, moves, seconds)
            rows.append(f"| {env_id} | `{spec}` | {ref:,.0f} | {fast:,.0f} | {fast / ref:.1f} | {length:.1f} | "
                        f"{step_ns:.0f} | {bound:,.0f} | {fast / bound:.2f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--envs", nargs="*", default=list(baralho.ENV_IDS), choices=list(baralho.ENV_IDS))
    args = ap.parse_args(argv)
    print("\n".join(search_table(args.envs, args.simulations, args.positions, args.seconds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
