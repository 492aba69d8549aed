"""The ``baralho`` command line: demo, tournament, train, train-rllib, evaluate, play, replay."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

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
        print(f"\n{agent} plays {action}: {game.describe_action(env.unwrapped.game_state, action)}")
        env.step(action)
        print(env.render())
    return 0


def parse_config(items: list[str]) -> dict:
    """``key=value`` pairs; values are JSON where they parse (true, 3, 0.5), else strings."""
    config = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--config takes key=value pairs, got {item!r}")
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            config[key] = value
    return config


def positive(kind: type) -> Callable[[str], int | float]:
    """An argparse type: a number of ``kind`` above zero, else a clear usage error."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a{'n integer' if kind is int else ' number'}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value

    return parse


def tournament(args: argparse.Namespace) -> int:
    from baralho.training import tournament as t

    args.config = parse_config(args.config)
    return t.main(args)


def train(args: argparse.Namespace) -> int:
    if args.algo == "sb3":
        from baralho.training import train as t
        if args.warm_start == "none":
            args.warm_start = None
    else:
        from baralho.training import selfplay as t

    args.config = parse_config(args.config)
    return t.main(args)


def train_rllib(args: argparse.Namespace) -> int:
    try:
        from baralho.training import rllib as t
    except ImportError as err:
        print(f"baralho: train-rllib needs Ray RLlib ({err}); install it with: pip install 'baralho[rllib]'",
              file=sys.stderr)
        return 2
    args.config = parse_config(args.config)
    return t.main(args)


def evaluate(args: argparse.Namespace) -> int:
    from baralho.training import tournament as t

    specs = [f"ppo:{args.model}", args.opponent]
    results = t.run(args.env_id, specs, args.games, args.players, parse_config(args.config), args.seed,
                    args.workers, progress=not args.quiet)
    print(t.markdown(args.env_id, args.players, t.summarize(results, specs), specs))
    return 0


def play(args: argparse.Namespace) -> int:
    from baralho.training.play import play as run

    return run(args.env_id, args.seat, args.opponents, parse_config(args.config), args.seed,
               record_path=args.record)


def replay(args: argparse.Namespace) -> int:
    from baralho.training import records

    rec = records.load(args.record)
    steps = 0
    for env in records.replay(rec, render_mode="ansi", deck=args.deck):
        if args.verbose:
            print(env.render(), "\n")
        steps += 1
    print(f"{rec.env_id} {rec.config} seed {rec.seed}: {len(rec.actions)} moves replayed exactly; "
          f"returns {rec.returns}")
    if args.images:
        print(f"wrote {records.to_images(rec, args.images, every=args.every, deck=args.deck)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="baralho", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="print a random-vs-random game")
    p.add_argument("env_id", nargs="?", default="rodizio_v1", choices=baralho.ENV_IDS)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=demo)
    p = sub.add_parser("tournament", help="a ladder: win rates with 95%% CIs, head to head, ratings")
    p.add_argument("env_id", choices=baralho.ENV_IDS)
    p.add_argument("--agents", nargs="+", required=True,
                   help="agent specs: random, heuristic, ismcts:200, ismcts:0.5s, ppo:PATH")
    p.add_argument("--games", type=positive(int), default=200, help="at least this many games per player count")
    p.add_argument("--players", default="2", help="a count, a list 2,3 or a range 2..5")
    p.add_argument("--config", nargs="*", default=[], help="env options as key=value")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2 cores)")
    p.add_argument("--out", default="runs/tournament", help="where the .md, .json and .png go")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--records", default=None, help="save every game's record (JSON) in this folder")
    p.add_argument("--resume", action="store_true",
                   help="with --records: count the games already recorded there (same command; each is "
                        "checked and replayed) and play only the rest, e.g. after an interruption or with "
                        "more --games")
    p.add_argument("--verify", action="store_true",
                   help="with --resume: play every recorded game again with its agents and refuse a record "
                        "whose moves are not theirs (as slow as playing; needs simulation budgets, not seconds)")
    p.set_defaults(func=tournament)
    p = sub.add_parser("train", help="PPO self-play: batched over baralho.vector (default), or SB3's MaskablePPO")
    p.add_argument("env_id", choices=baralho.ENV_IDS)
    p.add_argument("--algo", choices=["selfplay", "sb3"], default="selfplay",
                   help="selfplay (default): batched self-play PPO with a league (training/selfplay.py, "
                        "per-game defaults there); sb3: sb3-contrib's MaskablePPO (training/train.py)")
    p.add_argument("--engine", choices=["compiled", "reference"], default=None,
                   help="selfplay: the vector engine (default: compiled where the game has one)")
    p.add_argument("--timesteps", type=int, default=None,
                   help="sb3: learner timesteps; selfplay: env decisions (default: per game)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--n-envs", dest="n_envs", type=int, default=None,
                   help="parallel envs (sb3 default 2; selfplay: the batch, per game)")
    p.add_argument("--vec", choices=["subproc", "dummy"], default=None,
                   help="SubprocVecEnv (default) or DummyVecEnv (cheap envs: the policy is the bottleneck)")
    p.add_argument("--eval-every", dest="eval_every", type=int, default=None)
    p.add_argument("--eval-games", dest="eval_games", type=int, default=None)
    p.add_argument("--snapshot-every", dest="snapshot_every", type=int, default=None)
    p.add_argument("--max-minutes", dest="max_minutes", type=float, default=None,
                   help="wall-clock budget: stop learning after this many minutes (then evaluate and save)")
    p.add_argument("--warm-start", dest="warm_start", choices=["heuristic", "none"], default=None,
                   help="before PPO, fit the policy to the heuristic's moves (behaviour cloning); sb3 then "
                        "fine-tunes with lr 1e-4, no entropy bonus, clip 0.1, heuristic opponent weighted x3; "
                        "selfplay: on by default where its table says so, 'none' turns it off")
    p.add_argument("--warm-start-steps", dest="warm_start_steps", type=positive(int), default=None,
                   help="heuristic decisions to imitate (default 100000, ~1 minute)")
    p.add_argument("--warm-start-epochs", dest="warm_start_epochs", type=positive(int), default=None,
                   help="supervised passes over them (default 10)")
    p.add_argument("--learning-rate", dest="learning_rate", type=positive(float), default=None)
    p.add_argument("--ent-coef", dest="ent_coef", type=float, default=None, help="entropy bonus")
    p.add_argument("--clip-range", dest="clip_range", type=positive(float), default=None, help="PPO's clip")
    p.add_argument("--config", nargs="*", default=[], help="env options as key=value")
    p.add_argument("--out", default=None, help="output folder (default runs/selfplay, sb3: runs/train)")
    p.add_argument("--overwrite", action="store_true", default=None,
                   help="--out holds another run: clear its files and start a new run there")
    p.add_argument("--resume", action="store_true", default=None,
                   help="continue the run in --out (same env and config): its latest policy, its snapshot pool")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=train)
    p = sub.add_parser("train-rllib", help="PPO self-play with Ray RLlib: one masked policy for every seat")
    p.add_argument("env_id", choices=baralho.ENV_IDS)
    p.add_argument("--iterations", type=int, default=10, help="PPO iterations (default 10)")
    p.add_argument("--num-env-runners", dest="num_env_runners", type=int, default=1,
                   help="sampling processes, one CPU each (default 1; 0 samples in the driver)")
    p.add_argument("--envs-per-runner", dest="envs_per_runner", type=int, default=1,
                   help="envs stepped together in each runner, batching the policy's forward pass (default 1)")
    p.add_argument("--train-batch-size", dest="train_batch_size", type=int, default=4000,
                   help="env steps per iteration (default 4000)")
    p.add_argument("--address", default=None,
                   help="a Ray cluster to join ('auto' on a cluster node, or ray://HEAD:10001); default: a local one")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--config", nargs="*", default=[], help="env options as key=value")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--out", default="runs/rllib", help="checkpoint and history.json (default runs/rllib)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=train_rllib)
    p = sub.add_parser("evaluate", help="a trained model against an opponent: win rates with 95%% CIs")
    p.add_argument("model")
    p.add_argument("env_id", choices=baralho.ENV_IDS)
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--games", type=positive(int), default=200)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--config", nargs="*", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=evaluate)
    p = sub.add_parser("play", help="play in the terminal against agents")
    p.add_argument("env_id", choices=baralho.ENV_IDS)
    p.add_argument("--seat", type=int, default=0)
    p.add_argument("--opponents", nargs="+", default=["heuristic"])
    p.add_argument("--config", nargs="*", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--record", default=None, help="save the game record (JSON) here")
    p.set_defaults(func=play)
    p = sub.add_parser("replay", help="replay a game record exactly (refuses one that does not match)")
    p.add_argument("record")
    p.add_argument("--verbose", "-v", action="store_true", help="print the table after every move")
    p.add_argument("--images", default=None, help="also draw it: a .gif animation or a .png strip of frames")
    p.add_argument("--every", type=positive(int), default=1, help="a frame every N moves (default 1)")
    p.add_argument("--deck", default=None,
                   help="the deck file of a record played with a custom deck (checked against its hash)")
    p.set_defaults(func=replay)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:          # bad config: a clear message, no traceback
        print(f"baralho: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:            # `baralho demo | head`: the reader left, stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
