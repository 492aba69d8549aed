"""Tournaments: every seat arrangement equally often, on every core, with
win rates (Wilson 95% CIs), mean rewards, a head-to-head matrix and
openskill ratings; written as markdown, JSON and a PNG heatmap.

    baralho tournament rodizio_v1 --agents random heuristic ismcts:200 --games 300 --players 2..3

A *deal* (seed) is played once under every seat arrangement (duplicate
format), so luck of the deal and the first-seat advantage cancel out.
Results are deterministic for a given ``--seed`` whatever the worker count.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.training import records
from baralho.training.records import play_and_record
from baralho.training.stats import wilson_interval


@dataclass(frozen=True)
class Match:
    deal: int
    seats: tuple[int, ...]      # agent index per seat


@dataclass
class MatchResult:
    deal: int
    seats: tuple[int, ...]
    returns: list[float]
    steps: int


def arrangements(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """Seat arrangements in which every agent sits in every seat equally often.

    With at least as many agents as seats: every ordered choice of distinct
    agents. With fewer: the agents repeated round-robin, in every rotation."""
    if num_agents >= num_players:
        return list(itertools.permutations(range(num_agents), num_players))
    out = []
    for shift in range(num_agents):
        base = [(shift + i) % num_agents for i in range(num_players)]
        for r in range(num_players):
            out.append(tuple(base[r:] + base[:r]))
    return out


def schedule(num_agents: int, num_players: int, games: int) -> list[Match]:
    arr = arrangements(num_agents, num_players)
    deals = max(1, math.ceil(games / len(arr)))
    return [Match(d, seats) for d in range(deals) for seats in arr]


_AGENTS: dict = {}   # per worker process: agents built once, reseeded every game


def play_match(env_id: str, config: dict, specs: tuple[str, ...], match: Match, seed: int,
               records_dir: str | None = None) -> MatchResult:
    env = baralho.make(env_id, **config)
    players = {}
    for seat, idx in enumerate(match.seats):
        key = (env_id, tuple(sorted(config.items())), specs[idx], seat)
        agent = _AGENTS.get(key)
        if agent is None:
            agent = _AGENTS[key] = make_agent(specs[idx], env_id, config=config)
        agent.reset(seed=(seed * 7919 + match.deal) * 64 + seat)
        bind_if_needed(agent, env)
        players[f"player_{seat}"] = agent
    rec = play_and_record(env_id, config, deal_seed(seed, match),
                          lambda env, name, obs: players[name].act(obs, name),
                          players=[specs[i] for i in match.seats], env=env)
    if records_dir:
        rec.save(record_path(records_dir, env_id, match))
    return MatchResult(match.deal, match.seats, rec.returns, len(rec.actions))


def deal_seed(seed: int, match: Match) -> int:
    """The env seed of a match's deal (every seat arrangement of a deal shares it)."""
    return seed * 1_000_003 + match.deal


def record_path(records_dir: str | Path, env_id: str, match: Match) -> Path:
    return Path(records_dir) / (f"{env_id}_{len(match.seats)}p_deal{match.deal}_"
                                f"{'-'.join(map(str, match.seats))}.json")


def recorded_result(path: Path, env_id: str, config: dict, specs: tuple[str, ...], match: Match,
                    seed: int) -> MatchResult:
    """The result of a match already played and recorded at ``path`` (``--resume``).

    The record must be this match's game (env, config, deal seed and the agent in every
    seat) and must replay exactly (legal moves, same returns and trajectory digest); any
    other file is refused with a RecordError rather than counted."""
    rec = records.load(path)
    want = dict(env_id=env_id, config=config, seed=deal_seed(seed, match),
                players=[specs[i] for i in match.seats])
    got = dict(env_id=rec.env_id, config=rec.config, seed=rec.seed, players=rec.players)
    if got != want:
        diff = ", ".join(f"{k} {got[k]!r} (this tournament: {want[k]!r})" for k in want if got[k] != want[k])
        raise records.RecordError(f"{path}: recorded by another tournament: {diff}; "
                                  f"resume into the folder of the same command, or drop --resume")
    for _ in records.replay(rec):
        pass
    return MatchResult(match.deal, match.seats, rec.returns, len(rec.actions))


def _play(args):
    return play_match(*args)


def run(env_id: str, specs: list[str], games: int, num_players: int, config: dict | None = None,
        seed: int = 0, workers: int | None = None, progress: bool = True,
        records_dir: str | None = None, resume: bool = False) -> list[MatchResult]:
    """Play the schedule and return every match's result, sorted by deal and seats.

    With ``records_dir`` every game is saved there as it ends; with ``resume`` too, the
    matches already recorded there are read back (checked: same tournament, exact replay)
    instead of played again, so an interrupted tournament goes on where it stopped, and a
    longer one (more ``games``, same seed) plays only the deals the shorter one did not.
    The result is the one an uninterrupted run gives with the same code."""
    config = dict(config or {}, num_players=num_players)
    baralho.make(env_id, **config)          # a bad config fails here, not in a worker
    for spec in specs:
        make_agent(spec, env_id, config=config)
    if resume and not records_dir:
        raise ValueError("resume needs records_dir: the folder the interrupted tournament recorded into")
    if records_dir:
        Path(records_dir).mkdir(parents=True, exist_ok=True)
    results: list[MatchResult] = []
    jobs = []
    for m in schedule(len(specs), num_players, games):
        path = record_path(records_dir, env_id, m) if resume else None
        if path is not None and path.exists():
            results.append(recorded_result(path, env_id, config, tuple(specs), m, seed))
        else:
            jobs.append((env_id, config, tuple(specs), m, seed, records_dir))
    workers = workers or min(os.cpu_count() or 1, 2)
    bar = _progress(progress, len(jobs), f"{env_id} · {num_players} players")
    with bar as (advance):
        if workers == 1:
            for job in jobs:
                results.append(_play(job))
                advance()
        else:
            with ProcessPoolExecutor(workers) as pool:
                for r in pool.map(_play, jobs, chunksize=max(1, len(jobs) // (workers * 8))):
                    results.append(r)
                    advance()
    return sorted(results, key=lambda r: (r.deal, r.seats))


class _progress:
    """A rich progress bar (or nothing), as a context manager yielding advance()."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled, self.total, self.label = enabled, total, label

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                            TimeRemainingColumn())
        self.bar.__enter__()
        task = self.bar.add_task(self.label, total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.__exit__(*exc)
        return False


def is_win(returns: list[float], seat: int) -> bool:
    """A seat wins when it holds the best return and someone did worse (ties share)."""
    best, worst = max(returns), min(returns)
    return returns[seat] == best and best > worst


def agent_labels(specs: list[str]) -> list[str]:
    """One name per agent for the tables: a spec listed twice (``random random``, a
    mirror match) gets ``random (2)`` the second time instead of two rows named alike."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec} ({seen[spec]})")
    return labels


def summarize(results: Iterable[MatchResult], specs: list[str]) -> dict:
    """Win rates, CIs, ratings and the head-to-head matrix (None where two agents never
    met: the report is JSON, which has no NaN)."""
    results = list(results)
    k = len(specs)
    games = np.zeros(k)
    wins = np.zeros(k)
    reward = np.zeros(k)
    h2h_score = np.zeros((k, k))
    h2h_n = np.zeros((k, k))
    for r in results:
        for seat, i in enumerate(r.seats):
            games[i] += 1
            wins[i] += is_win(r.returns, seat)
            reward[i] += r.returns[seat]
            for seat2, j in enumerate(r.seats):
                if j != i:
                    h2h_n[i, j] += 1
                    h2h_score[i, j] += 1.0 if r.returns[seat] > r.returns[seat2] else (
                        0.5 if r.returns[seat] == r.returns[seat2] else 0.0)
    ratings = _ratings(results, specs)
    agents = []
    for i, label in enumerate(agent_labels(specs)):
        lo, hi = wilson_interval(wins[i], int(games[i]))
        agents.append(dict(agent=label, games=int(games[i]), wins=int(wins[i]),
                           win_rate=wins[i] / max(games[i], 1), ci95=[lo, hi],
                           mean_reward=reward[i] / max(games[i], 1), **ratings[i]))
    with np.errstate(invalid="ignore", divide="ignore"):
        h2h = h2h_score / np.maximum(h2h_n, 1)
    head_to_head = [[float(v) if n > 0 else None for v, n in zip(row, row_n)] for row, row_n in zip(h2h, h2h_n)]
    return dict(agents=agents, head_to_head=head_to_head, matches=len(results),
                mean_steps=float(np.mean([r.steps for r in results])) if results else 0.0)


def _ratings(results: list[MatchResult], specs: list[str]) -> list[dict]:
    """openskill Plackett-Luce ratings, games applied in a fixed order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = [model.rating(name=s) for s in specs]
    for r in results:
        teams = [[rating[i]] for i in r.seats]
        new = model.rate(teams, scores=list(r.returns))
        for seat, i in enumerate(r.seats):
            rating[i] = new[seat][0]
    return [dict(mu=x.mu, sigma=x.sigma, ordinal=x.ordinal()) for x in rating]


def markdown(env_id: str, num_players: int, summary: dict, specs: list[str]) -> str:
    lines = [f"### {env_id} · {num_players} players · {summary['matches']} games "
             f"(mean {summary['mean_steps']:.0f} decisions)", "",
             "| agent | games | win rate | 95% CI | mean reward | openskill μ ± σ |",
             "|---|---:|---:|---|---:|---|"]
    for a in summary["agents"]:
        lines.append(f"| {a['agent']} | {a['games']} | {a['win_rate']:.3f} | "
                     f"[{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}] | {a['mean_reward']:+.3f} | "
                     f"{a['mu']:.1f} ± {a['sigma']:.1f} |")
    lines += ["", "Head to head (row beats column; ties count half):", "",
              "| | " + " | ".join(agent_labels(specs)) + " |", "|---" * (len(specs) + 1) + "|"]
    for i, (label, row) in enumerate(zip(agent_labels(specs), summary["head_to_head"])):
        cells = ["—" if (i == j or v is None) else f"{v:.2f}" for j, v in enumerate(row)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def heatmap(summary: dict, specs: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = np.array(summary["head_to_head"], dtype=float)      # None (never met) -> nan: no number drawn
    specs = agent_labels(specs)
    fig, ax = plt.subplots(figsize=(1.2 * len(specs) + 2.5, 1.0 * len(specs) + 1.8))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(specs)), specs, rotation=30, ha="right")
    ax.set_yticks(range(len(specs)), specs)
    for i in range(len(specs)):
        for j in range(len(specs)):
            if m[i, j] == m[i, j]:
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, label="row beats column")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_players(text: str) -> list[int]:
    if ".." in text:
        lo, hi = text.split("..")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(",")]


def main(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {"env_id": args.env_id, "agents": args.agents, "seed": args.seed, "config": args.config,
              "by_players": {}}
    cfg = " ".join(f"{k}={v}" for k, v in args.config.items())
    command = (f"baralho tournament {args.env_id} --agents {' '.join(args.agents)} --games {args.games} "
               f"--players {args.players} --seed {args.seed}" + (f" --config {cfg}" if cfg else ""))
    md = [f"# Tournament: {args.env_id}", "", f"`{command}`", ""]
    counts = parse_players(args.players)
    # the player counts in the name: ladders of one env at other counts, in the same folder, stay
    stem = args.env_id + "".join(f"_{n}p" for n in counts)
    for n in counts:
        results = run(args.env_id, args.agents, args.games, n, args.config, args.seed, args.workers,
                      progress=not args.quiet, records_dir=args.records,
                      resume=args.resume)
        summary = summarize(results, args.agents)
        report["by_players"][n] = dict(summary, results=[asdict(r) for r in results])
        md += [markdown(args.env_id, n, summary, args.agents), "",
               f"![head to head]({args.env_id}_{n}p_h2h.png)", ""]
        heatmap(summary, args.agents, out / f"{args.env_id}_{n}p_h2h.png",
                f"{args.env_id}, {n} players: head to head")
        print(markdown(args.env_id, n, summary, args.agents), "\n")
    (out / f"{stem}.md").write_text("\n".join(md))
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1, allow_nan=False))
    print(f"wrote {out / stem}.md, .json and the heatmaps")
    return 0
