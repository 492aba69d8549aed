"""Fuzzing at scale: random games with every invariant checked after every move.

    python -m benchmarks.fuzz --games 100000          # per env, spread over its configs

The conformance suite runs the same checks on 200 games per config in the
default test run; this is the long, opt-in version."""

from __future__ import annotations

import argparse
import time

import numpy as np

import baralho


def fuzz(env_id: str, config: dict, games: int = 0, seconds: float = 0.0, seed: int = 0) -> dict:
    """Play ``games`` games (or for ``seconds``); every failure is recorded, not raised."""
    game = baralho.make(env_id, **config).unwrapped.game
    rng = np.random.default_rng(seed)
    played = steps = 0
    failures: list[str] = []
    start = time.perf_counter()
    while (games and played < games) or (seconds and time.perf_counter() - start < seconds):
        s = game.new_state(rng)
        total = np.zeros(game.num_players)
        n = 0
        try:
            game.check_invariants(s)
            while not game.is_over(s):
                mask = game.legal_mask(s)
                legal = np.flatnonzero(mask)
                assert len(legal), "live state without a legal action"
                r = game.apply(s, int(legal[rng.integers(len(legal))]))
                if r is not None:
                    total += r
                n += 1
                assert n <= game.max_decisions, "episode bound exceeded"
                game.check_invariants(s)
            assert np.allclose(total, game.returns(s)), "rewards do not add up to the returns"
        except AssertionError as err:
            failures.append(f"game {played}: {err}")
        played += 1
        steps += n
    dt = time.perf_counter() - start
    return dict(env=env_id, config=config, games=played, steps=steps, failures=failures,
                games_per_s=played / dt, seconds=dt)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000, help="per env, spread over its configs")
    ap.add_argument("--envs", nargs="*", default=list(baralho.ENV_IDS))
    args = ap.parse_args(argv)
    bad = 0
    for env_id in args.envs:
        configs = baralho.env_module(env_id).TEST_CONFIGS
        for i, cfg in enumerate(configs):
            r = fuzz(env_id, cfg, games=-(-args.games // len(configs)), seed=i)
            bad += len(r["failures"])
            print(f"{env_id} {cfg}: {r['games']} games, {r['steps']} moves, {len(r['failures'])} failures, "
                  f"{r['games_per_s']:.0f} games/s", flush=True)
            for f in r["failures"][:5]:
                print("   ", f)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
