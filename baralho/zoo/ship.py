"""Ship a finished self-play run into the zoo: its policy, its model card, its learning curve.

    python -m baralho.zoo.ship runs/rodizio                  # -> baralho/zoo/v1/rodizio_v1.{json,npz,md,png}
    python -m baralho.zoo.ship runs/rodizio --to /tmp/zoo    # elsewhere (a try-out)

The run is a ``baralho train ENV`` (``--algo selfplay`` or ``--algo exit``) folder: ``final.json`` + ``final.npz``
(the policy, copied through ``baralho.zoo.export``: checked, weights only) and ``summary.json``
(the figures the card quotes: the command, wall time, decisions, throughput, every evaluation
with its Wilson 95% CI, the machine's load while it ran). The card states the load it was
measured under, so "measured alone" is a reading, not a claim. A policy over MAX_BYTES is refused.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from baralho.zoo import MAX_BYTES, zoo_name  # issue 24: each shipped policy under 10 MB


def plot(summary: dict, path: Path) -> None:
    """Win rate vs the heuristic (with its CI band) over decisions, the heuristic-vs-heuristic line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals, base = summary["evals"], summary["baseline"]
    x = [e["decisions"] for e in evals]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(x, [e["ci_low"] for e in evals], [e["ci_high"] for e in evals], alpha=0.25)
    ax.plot(x, [e["win_rate"] for e in evals], marker="o", label="policy vs heuristic")
    ax.axhline(base["win_rate"], color="grey", ls="--", lw=0.8, label="heuristic vs heuristic")
    ax.axhline(0.5, color="black", lw=0.5)
    ax.set_xlabel("searched decisions" if summary.get("algo") == "exit" else "env decisions (every seat's)")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{summary['config']['env_id']}: " + ("expert iteration" if summary.get("algo") == "exit" else
                 "self-play PPO" + (" after a warm start" if summary.get("warm_start") else "")))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def rate(e: dict) -> str:
    return f"{e['win_rate']:.3f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}] over {e['games']} games"


def asks_the_heuristic(cfg: dict) -> str:
    """The card's line on whether the policy calls the heuristic in play."""
    if cfg.get("prior", "none") == "heuristic":
        return ("- **Asks the heuristic at play time**: yes, at every decision (the heuristic prior: its move is "
                "an input and gets a logit bonus).")
    return "- **Asks the heuristic at play time**: no (the net alone: observation in, move out)."


def exit_lines(summary: dict, command: str) -> list[str]:
    """The head of an expert iteration run's card (``--algo exit``)."""
    cfg, split = summary["config"], summary["seconds_this_invocation"]
    return [
        f"# Model card: {cfg['env_id']} (expert iteration on the compiled net-guided search)", "",
        f"- **Made by**: {command} (training/exit.py; {cfg['num_envs']} games at once, ismcts:{cfg['simulations']}:p "
        f"with PUCT c {cfg['exploration']:g}, the prior at temperature {cfg.get('temperature', 1.0):g} and a random "
        f"rollout's share {cfg['mix']:g} at new nodes, the visits "
        f"sampled for a game's first {cfg['explore_moves']} decisions; MLP {'x'.join(map(str, cfg['net_arch']))} on "
        f"{cfg.get('inputs', 'raw')} inputs, {cfg['updates']} Adam steps of {cfg['minibatch']} every "
        f"{cfg['round_decisions']:,} searched decisions, lr {cfg['learning_rate']:g}, replay {cfg['replay']:,}, "
        f"started from {cfg.get('init') or 'a fresh net'}, seed {cfg['seed']}, env config "
        f"{cfg['env_config'] or 'default rules'}).",
        asks_the_heuristic(cfg),
        f"- **Decisions**: {summary['decisions']:,} searched decisions in {summary['games']:,} games, "
        f"{summary['rounds']:,} learning phases.",
        f"- **Wall time**: {summary['wall_seconds'] / 60:.1f} min (evaluations and saving included); where the time "
        f"went (s): " + ", ".join(f"{k} {v:.0f}" for k, v in split.items()) + ".",
    ]


def selfplay_lines(summary: dict, command: str) -> list[str]:
    """The head of a self-play run's card (``--algo selfplay``)."""
    cfg, split, env_id = summary["config"], summary["seconds_this_invocation"], summary["config"]["env_id"]
    return [
        f"# Model card: {env_id} (self-play PPO over baralho.vector)", "",
        f"- **Made by**: {command} (training/selfplay.py; {cfg['engine'] or 'compiled'} engine, "
        f"{cfg['num_envs']} envs x rollout {cfg['rollout']}, MLP {'x'.join(map(str, cfg['net_arch']))} on "
        f"{cfg.get('inputs', 'raw')} inputs, gamma {cfg['gamma']:g}, {cfg['epochs']} PPO epoch(s) of minibatch "
        f"{cfg['minibatch']}, lr {cfg['learning_rate']:g}, entropy {cfg['ent_coef']:g}, clip {cfg['clip_range']:g}, "
        + (f"score-margin shaping x{cfg['shaping']:g}, " if cfg.get("shaping") else "") +
        (f"the heuristic prior (a learned bonus on the heuristic's move, from {cfg['prior_weight']:g}; "
         f"the policy calls the heuristic at every decision), " if cfg.get("prior", "none") == "heuristic" else "") +
        f"opponents self {cfg['self_share']:g} / heuristic {cfg['heuristic_share']:g} / "
        f"league {1 - cfg['self_share'] - cfg['heuristic_share']:g}, seed {cfg['seed']}, "
        f"env config {cfg['env_config'] or 'default rules'}).",
        f"- **Decisions**: {summary['decisions']:,} env decisions, every seat's "
        f"({summary['learner_decisions']:,} learned from), {summary['updates']:,} PPO updates.",
        f"- **Wall time**: {summary['wall_seconds'] / 60:.1f} min (warm start, evaluations and saving included); "
        f"{summary['decisions_per_second']:,.0f} decisions/s over the whole run "
        f"({summary['learner_decisions_per_second']:,.0f} learned from per second, the figure SB3's fps "
        f"compares with). Where the time went (s): "
        + ", ".join(f"{k} {v:.0f}" for k, v in split.items()) + ".",
        asks_the_heuristic(cfg),
    ]


def model_card(summary: dict, curve: str, size: int, alone: bool = False, held_out: list[str] = ()) -> str:
    """The markdown card of a run, from its summary.json (and ``held_out``: evaluations on other deals,
    each as ``baralho evaluate`` printed it, with the command that printed it as its first line)."""
    final, base = summary["final"], summary["baseline"]
    command = (f"`{summary['command']}`" if summary.get("command")
               else "a command not recorded (the run was started from Python, not `baralho train`)")
    loads = [e["load_average"] for e in summary["evals"] if e.get("load_average") is not None]
    if summary.get("algo") == "exit":
        lines = exit_lines(summary, command)
    else:
        lines = selfplay_lines(summary, command)
    if summary.get("warm_start"):
        w = summary["warm_start"]
        lines.append(f"- **Warm start**: behaviour cloning of the heuristic on {w['steps']:,} decisions "
                     f"({w['episodes']:,} games); held-out agreement {w['accuracy']:.3f} "
                     f"({w['choice_accuracy']:.3f} where there was a choice).")
    if alone:
        lines.append("- **Measured alone**: nothing else ran on the 2-core machine during the run (no test run, "
                     "no second training, no helper), so its wall time and throughput are the machine's.")
    if loads:
        lines.append(f"- **Machine**: 1-minute load average {min(loads):.1f}-{max(loads):.1f} at the evaluations "
                     f"(2 cores; the run's own two torch threads make about 2: more means other work ran "
                     f"beside it).")
    lines += [f"- **Size**: {size / 2**20:.2f} MB.", "",
              "## Win rates against the heuristic (every deal from every seat, Wilson 95% CI)", "",
              f"- **Policy (deterministic) vs heuristic: {rate(final)}**",
              f"- heuristic vs heuristic, same deals: {rate(base)}", ""]
    if held_out:
        lines += ["## On deals it was not evaluated on during training", ""]
    for text in held_out:               # each: the command, then what it printed
        command, _, table = text.strip().partition("\n")
        lines += [f"`{command.strip()}`:", "", table.strip().replace("### ", "#### "), ""]
    lines += ["## Learning curve", "", f"![learning curve]({curve})", "",
              "| decisions | win rate vs heuristic | 95% CI |", "|---:|---:|---|"]
    lines += [f"| {e['decisions']:,} | {e['win_rate']:.3f} | [{e['ci_low']:.3f}, {e['ci_high']:.3f}] |"
              for e in summary["evals"]]
    return "\n".join(lines) + "\n"


def ship(run: str | Path, to: str | Path | None = None, alone: bool = False,
         held_out: str | Path | list[str | Path] | None = None) -> Path:
    """Copy the run's policy into ``to`` (default baralho/zoo/v1) as NAME.json/.npz, with NAME.md (the
    card) and NAME_curve.png, NAME the env id (``zoo_name``: ENV_ID_3p at 3 players); returns the card."""
    from baralho.zoo import V1, export

    run = Path(run)
    summary = json.loads((run / "summary.json").read_text())
    if not summary.get("final"):
        raise ValueError(f"{run}: the run has no final evaluation")
    env_id = summary["config"]["env_id"]
    import baralho

    name = zoo_name(env_id, len(baralho.make(env_id, **summary["config"]["env_config"]).possible_agents))
    to = Path(to) if to is not None else V1
    to.mkdir(parents=True, exist_ok=True)
    size = (run / "final.npz").stat().st_size + (run / "final.json").stat().st_size
    if size > MAX_BYTES:
        raise ValueError(f"{run}: the policy is {size / 2**20:.1f} MB, over the zoo's {MAX_BYTES / 2**20:.0f} MB")
    export(run / "final.json", to / name, env_id, summary["config"]["env_config"])
    curve = f"{name}_curve.png"
    plot(summary, to / curve)
    card = to / f"{name}.md"
    held = [held_out] if isinstance(held_out, (str, Path)) else held_out or []
    card.write_text(model_card(summary, curve, size, alone, [Path(f).read_text() for f in held]))
    return card


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m baralho.zoo.ship", description=__doc__.splitlines()[0])
    p.add_argument("run", help="a finished `baralho train ENV` folder (final.json, final.npz, summary.json)")
    p.add_argument("--to", default=None, help="the zoo folder (default: baralho/zoo/v1)")
    p.add_argument("--alone", action="store_true",
                   help="the card states that nothing else ran on the machine during the run (say it only "
                        "when it is true: issue 24's figures count only then)")
    p.add_argument("--held-out", nargs="+", default=None, metavar="FILE",
                   help="files each holding the command of a `baralho evaluate` on other deals, then what it "
                        "printed: quoted in the card, in order")
    args = p.parse_args(argv)
    print(ship(args.run, args.to, args.alone, args.held_out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
