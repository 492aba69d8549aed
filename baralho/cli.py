"""The ``baralho`` command line: ``baralho demo`` (more commands come with training and tournaments)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

import baralho


def demo(args: argparse.Namespace) -> int:
    """Play one random-vs-random game, printing the table after every move."""
    config = {"num_players": args.players} if args.players else {}
    env = baralho.make(args.env_id, render_mode="ansi", render_view="omniscient", **config)
    env.reset(seed=args.seed)
    game, rng = env.unwrapped.game, np.random.default_rng(args.seed)
    print(env.render())
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            print(f"{agent}: final reward {reward:+g}")
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        print(f"\n{agent} plays {action}: {game.describe_action(env.unwrapped.state, action)}")
        env.step(action)
        print(env.render())
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="baralho", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="print a random-vs-random game")
    p.add_argument("env_id", nargs="?", default="rodizio_v0", choices=baralho.ENV_IDS)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=demo)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:          # bad config: a clear message, no traceback
        print(f"baralho: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
