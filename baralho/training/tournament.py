"""Tournaments: every seat arrangement equally often, on every core, with
win rates (Wilson 95% CIs), mean rewards, a head-to-head matrix and
openskill ratings; written as markdown, JSON and a PNG heatmap.

    baralho tournament rodizio_v1 --agents random heuristic ismcts:200 --games 300 --players 2..3

A *deal* (seed) is played once under every seat arrangement (duplicate
format), so luck of the deal and the first-seat advantage cancel out.
Results are deterministic for a given ``--seed`` whatever the worker count.

A ``--records`` folder belongs to one tournament: ``tournament.manifest`` (JSON:
env, agents, seed, config, the digest of every net the agents play) is written on
first use, another tournament's folder (or this one's after a net changed) is
refused, the same tournament's needs ``--resume`` (nothing recorded is replaced), and
a lock file keeps a second writer out while one runs. Pool workers die with the main
process (they watch it), so a killed tournament leaves none playing on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import signal
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

try:  # POSIX; elsewhere no lock, and the unique temporary names still keep writers apart
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

import baralho
from baralho.agents import bind_if_needed, make_agent, net_of
from baralho.agents.policy import policy_digest, policy_files
from baralho.core.files import read_regular
from baralho.training import records
from baralho.training.records import play_and_record
from baralho.training.stats import mean_interval, wilson_interval


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
               records_dir: str | None = None, expect: list[int] | None = None,
               source: str = "") -> MatchResult:
    """Play one match (and record it in ``records_dir``). With ``expect`` (the moves of
    a record at ``source``), check that the agents play exactly those moves instead."""
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
    def choose(env, name, obs):
        action = players[name].act(obs, name)
        if expect is not None:
            k = len(rec_moves)
            if k >= len(expect) or expect[k] != action:
                recorded = expect[k] if k < len(expect) else "nothing"
                raise records.RecordError(f"{source}: move {k}: the record has {recorded}, but {name} "
                                          f"({specs[match.seats[int(name.split('_')[1])]]}) plays {action}: "
                                          f"these are not the agents' moves")
            rec_moves.append(action)
        return action

    rec_moves: list[int] = []
    rec = play_and_record(env_id, config, deal_seed(seed, match), choose,
                          players=[specs[i] for i in match.seats], env=env)
    if expect is not None and len(rec.actions) != len(expect):
        raise records.RecordError(f"{source}: the agents' game has {len(rec.actions)} moves, the record {len(expect)}")
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
                    seed: int) -> tuple[MatchResult, records.Record]:
    """The result of a match already played and recorded at ``path`` (``--resume``).

    The record must be this match's game (env, config, deal seed and the agent in every
    seat) and must replay exactly (legal moves, same returns and trajectory digest); any
    other file is refused with a RecordError rather than counted."""
    rec = records.load(path)
    want = dict(env_id=env_id, config=records.recorded_config(config), seed=deal_seed(seed, match),
                players=[specs[i] for i in match.seats])
    got = dict(env_id=rec.env_id, config=rec.config, seed=rec.seed, players=rec.players)
    if got != want:
        diff = ", ".join(f"{k} {got[k]!r} (this tournament: {want[k]!r})" for k in want if got[k] != want[k])
        raise records.RecordError(f"{path}: recorded by another tournament: {diff}; "
                                  f"resume into the folder of the same command, or drop --resume")
    for _ in records.replay(rec, deck=config.get("deck")):
        pass
    return MatchResult(match.deal, match.seats, rec.returns, len(rec.actions)), rec


MANIFEST, LOCK = "tournament.manifest", ".lock"
MAX_MANIFEST_BYTES = 1 << 20


def records_identity(env_id: str, specs, seed: int, config: dict) -> dict:
    """What makes a records folder one tournament's (any player count, any number of games):
    with the nets its agents play (``policy_digests``), so a spec whose net was retrained or
    re-shipped since is another agent."""
    return dict(format="baralho-tournament-records", env_id=env_id, agents=list(specs), seed=seed,
                config=records.recorded_config({k: v for k, v in config.items() if k != "num_players"}),
                policies=policy_digests(env_id, specs))


def policy_files_of(env_id: str, spec: str) -> list[Path]:
    """The policy cards an agent spec plays with: ``ppo:PATH`` and ``ismcts:N:p:PATH`` that
    file's; ``ppo``, ``ppo:NAME`` of the zoo and ``ismcts:N:p`` the zoo's (every player count:
    a records folder serves any); other agents none."""
    from baralho.zoo import V1, is_zoo_name

    net = net_of(spec)
    if net is None:
        return []
    if net and not is_zoo_name(net):
        return [policy_files(net)[0]]
    return sorted(V1.glob(f"{net or env_id}.json")) + ([] if net else sorted(V1.glob(f"{env_id}_*p.json")))


def policy_digests(env_id: str, specs) -> dict[str, str]:
    """Each spec that plays a net -> the sha256 of its cards and weights (``policy_files_of``).
    Resuming a tournament after ``ppo``'s net changed would count the old net's games as the
    new one's; with the digests in the folder's manifest it is refused instead."""
    digests = {}
    for spec in dict.fromkeys(specs):
        cards = policy_files_of(env_id, spec)
        if cards:
            digests[spec] = hashlib.sha256("".join(map(policy_digest, cards)).encode()).hexdigest()
    return digests


def claim_records(records_dir: str | Path, identity: dict, resume: bool, replay_changed: bool = False):
    """Lock ``records_dir`` for this tournament and check it is this tournament's folder;
    returns the open lock file (held until closed). Refused, with a ValueError: a path that
    is not a folder, a folder another tournament is writing into, another tournament's
    folder (its manifest, or records without one), this tournament's folder without
    ``resume`` (its records would be replaced), and this tournament's folder after a net
    changed, unless ``replay_changed``: then the records of the agents whose net changed
    move aside (``supersede``) and the manifest takes the new digests."""
    folder = Path(records_dir)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--records {folder} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    lock = open(folder / LOCK, "a+")
    try:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise ValueError(f"--records {folder}: another tournament is writing into it now; "
                         f"wait for it or use another folder") from None
    try:
        manifest = folder / MANIFEST
        identity = json.loads(json.dumps(identity))       # as JSON reads it back (tuples are lists)
        identity.setdefault("policies", {})
        if manifest.exists():
            try:
                old = json.loads(read_regular(manifest, MAX_MANIFEST_BYTES, "a tournament's manifest").decode("utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
                raise ValueError(f"{manifest}: unreadable manifest ({err})") from None
            if isinstance(old, dict):       # a manifest from before the digests: no nets recorded
                old = {**old, "policies": old.get("policies") or {}}
            if old != identity and isinstance(old, dict) and {**old, "policies": identity["policies"]} == identity:
                was = old["policies"] if isinstance(old["policies"], dict) else None    # None: damaged
                changed = sorted(k for k in set(identity["policies"]) | set(was or {})
                                 if (was or {}).get(k) != identity["policies"].get(k)) or ["its agents"]
                if resume and replay_changed and was is not None:
                    supersede(folder, identity, [s for s in changed if s in identity["agents"]])
                    return lock
                raise ValueError(f"--records {folder}: the net of {', '.join(changed)} is not the one its games "
                                 f"were played with (its card or weights changed since, or the folder is from "
                                 f"an older baralho); resuming would count two nets as one agent: add "
                                 f"--replay-changed to play their games again (the old records move aside), "
                                 f"or use another folder")
            if old != identity:
                diff = ", ".join(f"{k} {old.get(k)!r}" for k in identity
                                 if k != "policies" and old.get(k) != identity[k]) if isinstance(old, dict) else "?"
                raise ValueError(f"--records {folder} belongs to another tournament ({diff}); use another folder")
            if not resume:
                raise ValueError(f"--records {folder} holds this tournament's records already: add --resume "
                                 f"to count them (and play the rest), or use another folder")
        else:
            if any(p.suffix == ".json" for p in folder.iterdir()):
                raise ValueError(f"--records {folder} holds records without a {MANIFEST}, from another "
                                 f"tournament or an older baralho; use another folder")
            manifest.write_text(json.dumps(identity, indent=1))
    except BaseException:
        lock.close()
        raise
    return lock


def supersede(folder: Path, identity: dict, changed: list[str]) -> Path:
    """Move the records of ``changed`` agents (and the manifest they were recorded under) to
    ``folder``/superseded-N/, nothing deleted, and write ``identity`` as the manifest: a resume
    then plays those games again with the new nets and counts the rest. A record that does not
    load is left where it is (the resume refuses it, naming it)."""
    n = 1
    while (folder / f"superseded-{n}").exists():
        n += 1
    aside = folder / f"superseded-{n}"
    aside.mkdir()
    for path in sorted(folder.glob("*.json")):
        try:
            players = records.load(path).players
        except records.RecordError:
            continue
        if any(p in changed for p in players):
            path.rename(aside / path.name)
    (folder / MANIFEST).rename(aside / MANIFEST)
    (folder / MANIFEST).write_text(json.dumps(identity, indent=1))
    return aside


def _watch_parent(parent: int) -> None:
    """Pool worker initializer: die with the main process. SIGTERM or SIGKILL of the
    main process otherwise leaves the workers playing (and recording) the queued games.
    Linux: the kernel sends SIGKILL when the parent dies; elsewhere a thread polls."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:          # the parent died before prctl took effect
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _play(args):
    return play_match(*args)


def _verify(args):
    """Re-play a recorded match with its agents, checking every move is theirs."""
    *job, path, rec = args
    return play_match(*job, expect=rec.actions, source=str(path))


def run(env_id: str, specs: list[str], games: int, num_players: int, config: dict | None = None,
        seed: int = 0, workers: int | None = None, progress: bool = True,
        records_dir: str | None = None, resume: bool = False, verify: bool = False,
        claim: bool = True, replay_changed: bool = False) -> list[MatchResult]:
    """Play the schedule and return every match's result, sorted by deal and seats.

    With ``records_dir`` every game is saved there as it ends; with ``resume`` too, the
    matches already recorded there are read back (checked: same tournament, exact replay)
    instead of played again, so an interrupted tournament goes on where it stopped, and a
    longer one (more ``games``, same seed) plays only the deals the shorter one did not.
    The result is the one an uninterrupted run gives with the same code. With ``verify``
    too, every recorded game is played again by its agents (seeded, so deterministic)
    and refused unless they make exactly the recorded moves: a record rewritten to other
    legal moves with its digest recomputed replays, but is not what the agents play."""
    if type(games) is not int or games < 1:
        raise ValueError(f"games={games!r}: a tournament plays at least 1 game")
    config = dict(config or {}, num_players=num_players)
    baralho.make(env_id, **config)          # a bad config fails here, not in a worker
    for spec in specs:
        make_agent(spec, env_id, config=config)
    if resume and not records_dir:
        raise ValueError("resume needs records_dir: the folder the interrupted tournament recorded into")
    if verify and not resume:
        raise ValueError("verify checks recorded games: it needs resume (and records_dir)")
    if replay_changed and not resume:
        raise ValueError("replay_changed replays a changed net's games in a folder being resumed: it needs resume")
    if verify:
        timed = [s for s in specs if getattr(make_agent(s, env_id, config=config), "seconds", None) is not None]
        if timed:
            raise ValueError(f"verify re-plays the agents, but {timed} search for a time, not a number of "
                             f"simulations, so their moves depend on the machine's speed")
    lock = None
    if records_dir and claim:       # main() claims once for all its player counts and passes claim=False
        lock = claim_records(records_dir, records_identity(env_id, specs, seed, config), resume, replay_changed)
    try:
        results: list[MatchResult] = []
        jobs, checks = [], []
        for m in schedule(len(specs), num_players, games):
            path = record_path(records_dir, env_id, m) if resume else None
            if path is not None and path.exists():
                result, rec = recorded_result(path, env_id, config, tuple(specs), m, seed)
                if verify:
                    checks.append((env_id, config, tuple(specs), m, seed, None, path, rec))
                else:
                    results.append(result)
            else:
                jobs.append((env_id, config, tuple(specs), m, seed, records_dir))
        results += _map(_verify, checks, workers, progress, f"{env_id} · {num_players} players · verify")
        results += _map(_play, jobs, workers, progress, f"{env_id} · {num_players} players")
    finally:
        if lock is not None:
            lock.close()
    return sorted(results, key=lambda r: (r.deal, r.seats))


def one_seat_games(env_id: str, model: str, opponent: str, deals: int, num_players: int, config: dict | None,
                   seed: int, workers: int | None, progress: bool, field: bool = False) -> list[MatchResult]:
    """``model`` alone in one seat, each seat in turn, ``opponent`` in the others, on every deal;
    with ``field`` also the deal's game of opponents only (seats all 1)."""
    if type(deals) is not int or deals < 1:
        raise ValueError(f"deals={deals!r}: at least 1 deal")
    config = dict(config or {}, num_players=num_players)
    baralho.make(env_id, **config)
    specs = (model, opponent)
    for spec in specs:
        make_agent(spec, env_id, config=config)
    seatings = [tuple(0 if s == k else 1 for s in range(num_players)) for k in range(num_players)]
    seatings += [tuple([1] * num_players)] if field else []
    jobs = [(env_id, config, specs, Match(d, seats), seed, None) for d in range(deals) for seats in seatings]
    return _map(_play, jobs, workers, progress, f"{env_id} · {num_players} players · {model} in one seat")


def one_seat(env_id: str, model: str, opponent: str, deals: int, num_players: int, config: dict | None = None,
             seed: int = 0, workers: int | None = None, progress: bool = True) -> dict:
    """``model`` in one seat and ``opponent`` in every other, each seat in turn on every deal, beside
    the opponent itself in that seat on the same deal (one game of opponents only per deal; an agent
    is seeded by its deal and seat, so it draws the same in both games): the comparison at 3+
    players, where a heuristic in one seat does not win 1/2. Wins with Wilson 95% CIs, and how
    often the model did better, the same, or worse than the opponent in its seat."""
    results = one_seat_games(env_id, model, opponent, deals, num_players, config, seed, workers, progress, field=True)
    field = tuple([1] * num_players)
    field_returns = {r.deal: r.returns for r in results if r.seats == field}
    wins = base = better = worse = 0
    for r in results:
        if r.seats != field:
            k = r.seats.index(0)
            won, was = is_win(r.returns, k), is_win(field_returns[r.deal], k)
            wins, base = wins + won, base + was
            better, worse = better + (won and not was), worse + (was and not won)
    games = deals * num_players
    return dict(env_id=env_id, num_players=num_players, model=model, opponent=opponent, games=games,
                win_rate=wins / games, ci95=list(wilson_interval(wins, games)),
                opponent_win_rate=base / games, opponent_ci95=list(wilson_interval(base, games)),
                won_where_opponent_lost=better, lost_where_opponent_won=worse)


def one_seat_markdown(r: dict) -> str:
    return "\n".join([
        f"### {r['env_id']} · {r['num_players']} players · {r['model']} in one seat, {r['opponent']} in the others",
        "", "| in the seat | games | win rate | 95% CI |", "|---|---:|---:|---|",
        f"| {r['model']} | {r['games']} | {r['win_rate']:.3f} | [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] |",
        f"| {r['opponent']} (same deals, same seat) | {r['games']} | {r['opponent_win_rate']:.3f} | "
        f"[{r['opponent_ci95'][0]:.3f}, {r['opponent_ci95'][1]:.3f}] |", "",
        f"Paired by deal and seat: {r['model']} won {r['won_where_opponent_lost']} games the opponent lost "
        f"there, and lost {r['lost_where_opponent_won']} it won."])


def paired(env_id: str, model: str, baseline: str, opponent: str, games: int, num_players: int,
           config: dict | None = None, seed: int = 0, workers: int | None = None, progress: bool = True,
           one_seat: bool = False) -> dict:
    """``model`` and ``baseline`` each against ``opponent`` on the same deals from the same seats
    (``evaluate``'s tournament, or with ``one_seat`` each alone in one seat in turn), paired game
    by game: the difference of their win rates with a 95% CI from the paired differences (normal
    approximation). The two share every deal's luck, so where they play alike the difference is
    measured tighter than two Wilson CIs apart tell (the seeded agents draw the same in both).
    Ties as in the tables: a seat wins with the best return and someone below it."""
    wins = {}
    for spec in (model, baseline):
        if one_seat:
            results = one_seat_games(env_id, spec, opponent, games, num_players, config, seed, workers, progress)
        else:
            results = run(env_id, [spec, opponent], games, num_players, config, seed, workers, progress)
        wins[spec] = {(r.deal, r.seats, k): is_win(r.returns, k)
                      for r in results for k, idx in enumerate(r.seats) if idx == 0}
    keys = sorted(wins[model])
    a = [float(wins[model][key]) for key in keys]
    b = [float(wins[baseline][key]) for key in keys]
    n = len(keys)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean, low, high = mean_interval(diffs)
    return dict(env_id=env_id, num_players=num_players, model=model, baseline=baseline, opponent=opponent,
                one_seat=one_seat, games=n, win_rate=sum(a) / n, ci95=list(wilson_interval(sum(a), n)),
                baseline_win_rate=sum(b) / n, baseline_ci95=list(wilson_interval(sum(b), n)),
                difference=mean, difference_ci95=[low, high],
                won_where_baseline_lost=sum(d > 0 for d in diffs), lost_where_baseline_won=sum(d < 0 for d in diffs))


def paired_markdown(r: dict) -> str:
    where = "alone in one seat, each seat in turn" if r["one_seat"] else "the tournament's seats"
    low, high = r["difference_ci95"]
    return "\n".join([
        f"### {r['env_id']} · {r['num_players']} players · {r['model']} and {r['baseline']} against "
        f"{r['opponent']}, paired ({where})", "",
        "| agent | games | win rate | 95% CI |", "|---|---:|---:|---|",
        f"| {r['model']} | {r['games']} | {r['win_rate']:.3f} | [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] |",
        f"| {r['baseline']} (same deals, same seats) | {r['games']} | {r['baseline_win_rate']:.3f} | "
        f"[{r['baseline_ci95'][0]:.3f}, {r['baseline_ci95'][1]:.3f}] |", "",
        f"Paired difference {r['model']} − {r['baseline']}: {r['difference']:+.3f} [{low:+.3f}, {high:+.3f}] "
        f"(95%, over the {r['games']} paired games); {r['model']} won {r['won_where_baseline_lost']} games "
        f"{r['baseline']} lost, and lost {r['lost_where_baseline_won']} it won."])


def _map(fn, jobs: list, workers: int | None, progress: bool, label: str) -> list:
    """fn over jobs, in order: in this process (1 worker) or a pool whose workers die with it."""
    if not jobs:
        return []
    workers = workers or min(os.cpu_count() or 1, 2)
    out = []
    with _progress(progress, len(jobs), label) as advance:
        if workers == 1:
            for job in jobs:
                out.append(fn(job))
                advance()
        else:
            with ProcessPoolExecutor(workers, initializer=_watch_parent, initargs=(os.getpid(),)) as pool:
                for r in pool.map(fn, jobs, chunksize=max(1, len(jobs) // (workers * 8))):
                    out.append(r)
                    advance()
    return out


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
    """``2``, ``2,3`` or ``2..4``; an empty range or a non-number is a ValueError."""
    try:
        if ".." in text:
            lo, hi = text.split("..")
            counts = list(range(int(lo), int(hi) + 1))
        else:
            counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--players {text!r}: use a count (2), a list (2,3) or a range (2..4)") from None
    if not counts:
        raise ValueError(f"--players {text!r} is an empty range: no player count to play")
    return counts


def main(args) -> int:
    counts = parse_players(args.players)
    if args.games < 1:
        raise ValueError(f"--games {args.games}: a tournament plays at least 1 game")
    if getattr(args, "replay_changed", False) and not args.resume:
        raise ValueError("--replay-changed goes with --resume (and --records): it replays the games of a "
                         "changed net in a folder being resumed")
    lock = claim_records(args.records, records_identity(args.env_id, args.agents, args.seed, args.config),
                         args.resume, getattr(args, "replay_changed", False)) if args.records else None
    try:
        return _main(args, counts)
    finally:
        if lock is not None:
            lock.close()


def _main(args, counts: list[int]) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {"env_id": args.env_id, "agents": args.agents, "seed": args.seed, "config": args.config,
              "by_players": {}}
    cfg = " ".join(f"{k}={v}" for k, v in args.config.items())
    command = (f"baralho tournament {args.env_id} --agents {' '.join(args.agents)} --games {args.games} "
               f"--players {args.players} --seed {args.seed}" + (f" --config {cfg}" if cfg else ""))
    md = [f"# Tournament: {args.env_id}", "", f"`{command}`", ""]
    # the player counts in the name: ladders of one env at other counts, in the same folder, stay
    stem = args.env_id + "".join(f"_{n}p" for n in counts)
    for n in counts:
        results = run(args.env_id, args.agents, args.games, n, args.config, args.seed, args.workers,
                      progress=not args.quiet, records_dir=args.records,
                      resume=args.resume, verify=getattr(args, "verify", False), claim=False)
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
