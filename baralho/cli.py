"""The baralho command line: demo, tournament, train, train-rllib, evaluate, play, replay."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import baralho
from baralho.agents.policy import INPUTS, PRIORS


def demo(args: argparse.Namespace) -> int:
    """Play one random-vs-random game, printing the table after every move."""
    config = with_players({}, args.players)
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


PYTHON_LITERALS = {"True": True, "False": False, "None": None}


def parse_config(items: list[str]) -> dict:
    """``key=value`` pairs; values are JSON where they parse (true, 3, 0.5), Python's
    True / False / None as what they say, else strings."""
    config = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--config takes key=value pairs, got {item!r}")
        if value in PYTHON_LITERALS:
            config[key] = PYTHON_LITERALS[value]
            continue
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            config[key] = value
    return config


def with_players(config: dict, players: int | None) -> dict:
    """``--players N`` as ``num_players``; refused when ``--config num_players`` says otherwise."""
    if players is None:
        return config
    if "num_players" in config and config["num_players"] != players:
        raise ValueError(f"--players {players} and --config num_players={config['num_players']} disagree; "
                         f"give one of them")
    return {**config, "num_players": players}


def natural(text: str) -> int:
    """An argparse type: an integer >= 0 (a seed), else a clear usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def nonnegative(text: str) -> float:
    """An argparse type: a finite number >= 0 (a coefficient, 0: off), else a clear usage error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def positive(kind: type) -> Callable[[str], int | float]:
    """An argparse type: a number of ``kind`` above zero, else a clear usage error."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a{'n integer' if kind is int else ' number'}") from None
        if not (value > 0 and math.isfinite(value)):       # nan and inf parse as floats
            raise argparse.ArgumentTypeError(f"must be above 0{' and finite' if kind is float else ''}, got {text}")
        return value

    return parse


def tournament(args: argparse.Namespace) -> int:
    from baralho.training import tournament as t

    args.config = parse_config(args.config)
    if "num_players" in args.config:       # the tournament sets num_players from --players
        n = args.config.pop("num_players")
        if args.players is not None and t.parse_players(args.players) != [n]:
            raise ValueError(f"--players {args.players} and --config num_players={n} disagree; give one of them")
        args.players = str(n)
    args.players = args.players or "2"
    return t.main(args)


def _refuse(args: argparse.Namespace, flags, algo: str) -> None:
    for flag in flags:
        if getattr(args, flag, None) not in (None, False):
            raise SystemExit(f"baralho train: --{flag.replace('_', '-')} is not a setting of --algo {algo}")


def train(args: argparse.Namespace) -> int:
    if args.algo != "exit":
        _refuse(args, EXIT_ONLY, args.algo)
    if args.algo == "exit":
        from dataclasses import fields

        from baralho.training import exit as t
        from baralho.training.selfplay import FLAG_OF
        takes = {FLAG_OF.get(f.name, f.name) for f in fields(t.ExitConfig)}
        _refuse(args, [k for k in vars(args) if k not in takes and k not in COMMON], "exit")
        out = Path(args.out or t.ExitConfig.out)
    elif args.algo == "sb3":
        from baralho.training import train as t
        for flag in ("shaping", "inputs", "prior", *SELFPLAY_ONLY):
            if getattr(args, flag) not in (None, False):
                raise SystemExit(f"baralho train: --{flag.replace('_', '-')} is a selfplay setting "
                                 f"(--algo sb3 has no {flag})")
        if args.warm_start == "none":
            args.warm_start = None
        out = Path(args.out or t.TrainConfig.out)
    else:
        from baralho.training import selfplay as t
        out = Path(args.out or t.SelfPlayConfig.out)

    args.config = parse_config(args.config)
    try:
        return t.main(args)
    except KeyboardInterrupt:
        # the trainers catch Ctrl-C while PPO learns; before it (the heuristic warm start,
        # the first evaluation) it lands here: say what is on disk, not a traceback
        print(f"\nbaralho train: interrupted; {saved_so_far(out)}", file=sys.stderr)
        return 130


def saved_so_far(out: Path) -> str:
    """What an interrupted run left in ``out`` that can be used, in words."""
    if (out / "final.json").is_file():
        return f"the policy saved last is {out / 'final.json'}"
    checkpoint = out / "checkpoint" / "policy.json"      # selfplay's, written after every evaluation
    if checkpoint.is_file():
        return f"the last checkpoint is {checkpoint}; --resume --out {out} continues from it"
    pool = sorted((out / "pool").glob("snapshot_*.json"))
    if pool:                                              # the warm start's clone joins the pool first
        return (f"no PPO yet; the newest snapshot is {pool[-1]} (the heuristic's clone after a warm start); "
                f"run again with --overwrite --out {out} to train")
    return f"nothing was trained yet, no policy saved in {out}; run again with --overwrite --out {out} to start afresh"


def train_rllib(args: argparse.Namespace) -> int:
    try:
        from baralho.training import rllib as t
    except ImportError as err:
        print(f"baralho: train-rllib needs Ray RLlib ({err}); install it with: pip install 'baralho[rllib]'",
              file=sys.stderr)
        return 2
    args.config = with_players(parse_config(args.config), args.players)
    return t.main(args)


def model_spec(model: str) -> str:
    """evaluate's MODEL: a policy card's path, or an agent spec as tournament takes (ppo, ppo:PATH,
    heuristic, random, ismcts:...)."""
    kind = model.partition(":")[0]
    return model if kind in ("ppo", "ismcts") or model in ("heuristic", "random") else f"ppo:{model}"


def evaluate(args: argparse.Namespace) -> int:
    from baralho.training import tournament as t

    config = with_players(parse_config(args.config), args.players)
    players = config.pop("num_players", 2)
    specs = [model_spec(args.model), args.opponent]
    if args.paired:
        report = t.paired(args.env_id, specs[0], model_spec(args.paired), args.opponent, args.games, players,
                          config, args.seed, args.workers, progress=not args.quiet, one_seat=args.one_seat)
        print(t.paired_markdown(report))
        return 0
    if args.one_seat:
        report = t.one_seat(args.env_id, specs[0], specs[1], args.games, players, config, args.seed,
                            args.workers, progress=not args.quiet)
        print(t.one_seat_markdown(report))
        return 0
    results = t.run(args.env_id, specs, args.games, players, config, args.seed,
                    args.workers, progress=not args.quiet)
    print(t.markdown(args.env_id, players, t.summarize(results, specs), specs))
    return 0


def play(args: argparse.Namespace) -> int:
    from baralho.training.play import play as run

    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    return run(args.env_id, args.seat, args.opponents, with_players(parse_config(args.config), args.players),
               seed, record_path=args.record, auto=not args.no_auto)


def replay(args: argparse.Namespace) -> int:
    from baralho.training import records

    rec = records.load(args.record)
    view = int(args.view) if args.view.isdigit() else args.view     # -v and --images show the same view
    steps = 0
    for env in records.replay(rec, render_mode="ansi", deck=args.deck):
        if args.verbose:
            env.unwrapped.render_view = view
            print(env.render(), "\n")
        steps += 1
    print(f"{rec.env_id} {rec.config} seed {rec.seed}: {len(rec.actions)} moves replayed exactly; "
          f"returns {rec.returns}")
    if args.images:
        print(f"wrote {records.to_images(rec, args.images, every=args.every, deck=args.deck, view=view)}")
    return 0


AGENT_SPECS = ("random · heuristic (the game's rule-based player) · ismcts:N (N simulations a move) · "
               "ismcts:Ts (T seconds a move) · ismcts:N:h (heuristic rollouts) · ismcts:N:g (guided: the "
               "heuristic proposes, the search checks key decisions) · ismcts:N:p[:PATH] (guided by a policy "
               "net: the zoo's, or PATH's; :ph with heuristic rollouts) · ppo (the env's zoo model) · "
               "ppo:PATH (a policy card .json written by baralho train)")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless the default is None (the help
    then says what happens) or a flag's False."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("%(default)" in text or default is None or default is False or default == argparse.SUPPRESS
                or not action.option_strings
                or isinstance(action, argparse._VersionAction)):
            return text
        shown = (" ".join(map(str, default)) or "none") if isinstance(default, list) else default
        return f"{text} (default: {shown})"


#: the train flags only --algo selfplay has (generated from SelfPlayConfig by build_parser)
SELFPLAY_ONLY: list[str] = []
#: the train flags only --algo exit has (generated from exit.ExitConfig by build_parser)
EXIT_ONLY: list[str] = []
#: the train arguments every trainer reads
COMMON = ("command", "func", "env_id", "algo", "config", "quiet", "out", "overwrite", "resume")


def build_parser() -> argparse.ArgumentParser:
    from baralho.training import exit as exit_
    from baralho.training import selfplay

    parser = argparse.ArgumentParser(
        prog="baralho", formatter_class=HelpFormatter,
        description="Card games for multi-agent RL: play, train, evaluate and compare agents.",
        epilog="Envs: " + ", ".join(baralho.ENV_IDS) + ". `baralho COMMAND --help` shows a command's options.")
    parser.add_argument("--version", action="version", version=f"baralho {baralho.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, description: str | None = None) -> argparse.ArgumentParser:
        # help is %-formatted by argparse, a description is not
        return sub.add_parser(name, help=help, description=description or help.replace("%%", "%"),
                              formatter_class=HelpFormatter)

    def config_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                       help="env options, e.g. spicy=true num_players=3 (see help(baralho.env_module(ENV)))")

    p = command("demo", "print a random-vs-random game")
    p.add_argument("env_id", nargs="?", default="rodizio_v1", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--players", type=int, default=None, help="player count (default: the env's)")
    p.add_argument("--seed", type=int, default=0, help="deal seed")
    p.set_defaults(func=demo)
    p = command("tournament", "a ladder: win rates with 95%% CIs, head to head, ratings")
    p.add_argument("env_id", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="agent specs: " + AGENT_SPECS)
    p.add_argument("--games", type=positive(int), default=200, help="at least this many games per player count")
    p.add_argument("--players", default=None,
                   help="a count, a list 2,3 or a range 2..5 (default: --config num_players, else 2)")
    config_option(p)
    p.add_argument("--seed", type=int, default=0, help="tournament seed (every deal's seed follows from it)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2 cores)")
    p.add_argument("--out", default="runs/tournament", help="where the .md, .json and .png go")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--records", default=None, help="save every game's record (JSON) in this folder (default: none)")
    p.add_argument("--resume", action="store_true",
                   help="with --records: count the games already recorded there (same command; each is "
                        "checked and replayed) and play only the rest, e.g. after an interruption or with "
                        "more --games")
    p.add_argument("--verify", action="store_true",
                   help="with --resume: play every recorded game again with its agents and refuse a record "
                        "whose moves are not theirs (as slow as playing; needs simulation budgets, not seconds)")
    p.add_argument("--replay-changed", action="store_true",
                   help="with --resume: the games of an agent whose net changed since they were recorded (ppo "
                        "re-shipped, a ppo:PATH retrained) move to RECORDS/superseded-N/ and are played again; "
                        "the others are counted")
    p.set_defaults(func=tournament)
    p = command("train", "PPO self-play: batched over baralho.vector (training/selfplay.py), or SB3's MaskablePPO")
    p.add_argument("env_id", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--algo", choices=["selfplay", "sb3", "exit"], default="selfplay",
                   help="selfplay: batched self-play PPO with a league (training/selfplay.py, per-game defaults "
                        "there); sb3: sb3-contrib's MaskablePPO (training/train.py); exit: expert iteration on "
                        "the compiled net-guided search (training/exit.py) (default: selfplay)")
    p.add_argument("--engine", choices=["compiled", "reference"], default=None,
                   help="selfplay: the vector engine (default: compiled where the game has one)")
    p.add_argument("--timesteps", type=int, default=None,
                   help="sb3: learner env steps to learn; selfplay: env decisions, every seat's "
                        "(default: per game, training/train.py or training/selfplay.py)")
    p.add_argument("--seed", type=natural, default=None, help="training seed, an integer >= 0 (default: 0)")
    p.add_argument("--num-envs", "--n-envs", dest="num_envs", type=int, default=None,
                   help="parallel envs; selfplay: the batch (default: sb3 2, selfplay per game)")
    p.add_argument("--vec", choices=["subproc", "dummy"], default=None,
                   help="SubprocVecEnv or DummyVecEnv (cheap envs: the policy is the bottleneck) (default: subproc)")
    p.add_argument("--eval-every", dest="eval_every", type=int, default=None,
                   help="timesteps (selfplay: decisions) between evaluations (default: per game, "
                        "training/train.py or training/selfplay.py)")
    p.add_argument("--eval-games", dest="eval_games", type=int, default=None,
                   help="games per evaluation (selfplay: deals, each played from every seat) (default: per "
                        "game, training/train.py or training/selfplay.py)")
    p.add_argument("--snapshot-every", dest="snapshot_every", type=int, default=None,
                   help="timesteps (selfplay: decisions) between self-play snapshots (default: per game, "
                        "training/train.py or training/selfplay.py)")
    p.add_argument("--max-minutes", dest="max_minutes", type=positive(float), default=None,
                   help="wall-clock budget: stop learning after this many minutes, then evaluate and save "
                        "(default: sb3 no limit, selfplay 18)")
    p.add_argument("--warm-start", dest="warm_start", choices=["heuristic", "none"], default=None,
                   help="before PPO, fit the policy to the heuristic's moves (behaviour cloning); PPO then "
                        "fine-tunes with lr 1e-4, no entropy bonus, clip 0.1 (sb3: heuristic opponent weighted "
                        "x3); 'none' turns selfplay's per-game one off (default: sb3 none, selfplay per game)")
    p.add_argument("--warm-start-steps", dest="warm_start_steps", type=positive(int), default=None,
                   help="heuristic decisions to imitate (default: 100000, ~1 minute)")
    p.add_argument("--warm-start-epochs", dest="warm_start_epochs", type=positive(int), default=None,
                   help="supervised passes over them (default: 10; selfplay 5)")
    p.add_argument("--learning-rate", dest="learning_rate", type=positive(float), default=None,
                   help="Adam's learning rate (default: 3e-4; 1e-4 after --warm-start)")
    p.add_argument("--ent-coef", dest="ent_coef", type=nonnegative, default=None,
                   help="entropy bonus (default: 0.01; 0 after --warm-start)")
    p.add_argument("--clip-range", dest="clip_range", type=positive(float), default=None,
                   help="PPO's clip (default: 0.2; 0.1 after --warm-start)")
    p.add_argument("--inputs", choices=INPUTS, default=None,
                   help="selfplay: the policy's inputs as they are, or each scaled to [-1, 1] by sign(x) log(1+|x|) "
                        "/ log(1+bound) (default: per game, training/selfplay.py)")
    p.add_argument("--prior", choices=PRIORS, default=None,
                   help="selfplay, exit: 'heuristic' adds a learned bonus to the logit of the heuristic's move at "
                        "every decision (the policy starts as the heuristic; PPO learns where to depart from it; the "
                        "policy then calls the heuristic in play too); replaces a warm start; exit takes it from "
                        "--init's card and needs --mix 1 (default: per game, training/selfplay.py)")
    p.add_argument("--shaping", type=nonnegative, default=None,
                   help="selfplay: weight of the score-margin potential added to the rewards (potential-based, "
                        "so the best policy stays the best; 0: off) (default: per game, training/selfplay.py)")
    config_option(p)
    p.add_argument("--out", default=None, help="output folder (default: runs/selfplay; sb3 runs/train)")
    p.add_argument("--overwrite", action="store_true", default=None,
                   help="--out holds another run: clear its files and start a new run there")
    p.add_argument("--resume", action="store_true", default=None,
                   help="continue the run in --out (same env and config): its latest policy, its snapshot pool")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    SELFPLAY_ONLY[:] = selfplay.add_flags(p)     # every other SelfPlayConfig field: --gamma, --epochs, ...
    EXIT_ONLY[:] = selfplay.add_flags(p, exit_.ExitConfig, exit_.HELP, "exit")   # --simulations, --mix, ...
    p.set_defaults(func=train)
    p = command("train-rllib", "PPO self-play with Ray RLlib: one masked policy for every seat")
    p.add_argument("env_id", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--iterations", type=int, default=10, help="PPO iterations")
    p.add_argument("--num-env-runners", dest="num_env_runners", type=int, default=1,
                   help="sampling processes, one CPU each; 0 samples in the driver")
    p.add_argument("--envs-per-runner", dest="envs_per_runner", type=int, default=1,
                   help="envs stepped together in each runner, batching the policy's forward pass")
    p.add_argument("--train-batch-size", dest="train_batch_size", type=int, default=4000,
                   help="env steps per iteration")
    p.add_argument("--address", default=None,
                   help="a Ray cluster to join ('auto' on a cluster node, or ray://HEAD:10001) (default: a local one)")
    p.add_argument("--players", type=int, default=None, help="player count (default: the env's)")
    config_option(p)
    p.add_argument("--seed", type=int, default=None, help="seed (default: random)")
    p.add_argument("--out", default="runs/rllib", help="checkpoint and history.json")
    p.add_argument("--quiet", action="store_true", help="less output")
    p.set_defaults(func=train_rllib)
    p = command("evaluate", "a trained model against an opponent: win rates with 95%% CIs")
    p.add_argument("model", help="a policy card (.json, written by baralho train), or an agent spec: "
                                 "ppo (the zoo model), ppo:PATH, heuristic, random, ismcts:...")
    p.add_argument("env_id", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--opponent", default="heuristic", help="agent spec: " + AGENT_SPECS)
    p.add_argument("--games", type=positive(int), default=200, help="games to play (with --one-seat: deals)")
    p.add_argument("--players", type=int, default=None, help="player count (default: --config num_players, else 2)")
    p.add_argument("--one-seat", action="store_true",
                   help="the model in one seat and the opponent in every other, each seat in turn on every deal, "
                        "beside the opponent itself in that seat on the same deals (the comparison at 3+ players)")
    p.add_argument("--paired", metavar="BASELINE",
                   help="also play BASELINE (a policy card or agent spec, as MODEL) on the same deals from the same "
                        "seats against the same opponent, and report the difference of the two win rates with a "
                        "95%% CI from the paired games: the two share every deal's luck, so a small gain shows "
                        "where two CIs apart overlap (with --one-seat: each alone in one seat in turn) "
                        "(default: none, the model alone)")
    config_option(p)
    p.add_argument("--seed", type=int, default=0, help="seed")
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2 cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=evaluate)
    from baralho.training.play import HOW_TO_ANSWER

    p = command("play", "play in the terminal against agents",
                "Play in the terminal against agents. At your turn the legal moves are listed: "
                + HOW_TO_ANSWER + ". Opponents' moves are narrated.")
    p.add_argument("env_id", choices=baralho.ENV_IDS, help="the env")
    p.add_argument("--seat", type=int, default=0, help="your seat")
    p.add_argument("--players", type=int, default=None, help="player count (default: the env's)")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="agent specs, used in turn for the other seats: " + AGENT_SPECS)
    config_option(p)
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: a random one, printed)")
    p.add_argument("--no-auto", dest="no_auto", action="store_true",
                   help="ask even when only one move is legal (by default it is played for you)")
    p.add_argument("--record", default=None, help="save the game record (JSON) here (default: none)")
    p.set_defaults(func=play)
    p = command("replay", "replay a game record exactly (refuses one that does not match)")
    p.add_argument("record", help="a record saved by play --record or tournament --records")
    p.add_argument("--verbose", "-v", action="store_true", help="print the table after every move")
    p.add_argument("--images", default=None,
                   help="also draw it: a .gif animation or a .png strip of frames (default: none)")
    p.add_argument("--every", type=positive(int), default=1, help="a frame every N moves")
    p.add_argument("--view", default="omniscient",
                   help="what -v and --images show: omniscient (every card), current (the acting player's "
                        "view) or a seat number")
    p.add_argument("--deck", default=None,
                   help="the deck file of a record played with a custom deck, checked against its hash "
                        "(default: none, the record's own packaged deck)")
    p.set_defaults(func=replay)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
