"""Fuzzing at scale: random games with every invariant checked after every move.

    python -m benchmarks.fuzz --games 100000 --workers 2 --out benchmarks/fuzz_runs
                                                     # per env, spread over its configs
    python -m benchmarks.fuzz --differential --games 100000 --workers 2 --out benchmarks/fuzz_runs
                                                     # compiled engines vs their references
    python -m benchmarks.fuzz --differential --envs scala40_v1 --workers 2 --out benchmarks/fuzz_runs \
        --chunks runs/fuzz_chunks                    # keep each chunk as it ends; run again to resume

A run too long for one sitting (Scala 40's 100k differential: hours on 2 cores) keeps every
finished chunk in ``--chunks DIR`` and, run again with the same arguments, plays only the
chunks it lacks. The chunks are tied to the engine code they played (git's tree hashes of the
game's folder, ``baralho/core`` and ``baralho/vector``): a resume on other code is refused, so
the record's games all ran the same engines.

The conformance suite runs the same checks on 200 games per config in the
default test run; this is the long, opt-in version."""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

import baralho
from benchmarks import git_head


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


def _chunk(job: tuple[str, dict, int, int]) -> dict:
    env_id, config, games, seed = job
    return fuzz(env_id, config, games=games, seed=seed)


def engine_code(env_id: str) -> str:
    """What a run's games played: git's tree hashes at HEAD of the game's folder, baralho/core
    and baralho/vector; refused while the working tree differs from HEAD there."""
    paths = [f"baralho/envs/{env_id.rsplit('_v', 1)[0]}", "baralho/core", "baralho/vector"]
    root = Path(__file__).parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=root, check=True).stdout.strip()

    if git("status", "--porcelain", "--", *paths):
        raise SystemExit(f"--chunks: {', '.join(paths)} differ from HEAD; commit first (a chunk names the "
                         f"engine code it played)")
    return " ".join(git("rev-parse", "--short", f"HEAD:{p}") for p in paths)


def _chunks(env_id: str, games: int, workers: int, chunk: int, play, configs: list[dict] | None = None,
            store: Path | None = None, label=lambda cfg: cfg) -> tuple:
    """``games`` games spread evenly over ``configs`` (the env's TEST_CONFIGS), in chunks of at most
    ``chunk`` games, each chunk with its own seed (config index × 10,000 + chunk index), so a
    run is reproducible whatever the number of workers; ``play(job)`` plays one chunk. With
    ``store`` (a JSON file) every finished chunk is kept there as it ends, and the chunks it
    holds already are not played again (``label(cfg)``: a config as the file names it).
    Returns (configs, each config's chunk results, wall seconds, commit)."""
    configs = configs or baralho.env_module(env_id).TEST_CONFIGS
    per_config = -(-games // len(configs))
    jobs = [(env_id, cfg, min(chunk, per_config - k * chunk), i * 10_000 + k)
            for i, cfg in enumerate(configs) for k in range(-(-per_config // chunk))]
    commit = git_head()      # the code the run imports now, even if the tree moves on during a long run
    kept = dict(code=None, configs=[label(c) for c in configs], games=games, chunk=chunk, wall_s=0.0,
                commits=[], done={})
    if store is not None:
        kept["code"] = engine_code(env_id)
        if store.exists():
            saved = json.loads(store.read_text())
            for key in ("code", "configs", "games", "chunk"):
                if saved[key] != kept[key]:
                    raise SystemExit(f"{store}: its chunks were played with {key} {saved[key]!r}, this run has "
                                     f"{kept[key]!r}; delete the file to start over")
            kept = saved
        kept["commits"].append(commit)
    done = kept["done"]
    key = lambda job: f"{job[3]}:{job[2]}"                 # seed (config, chunk) and games
    todo = [j for j in jobs if key(j) not in done]
    wall_before, start = kept["wall_s"], time.perf_counter()

    def keep(job, part: dict) -> None:
        done[key(job)] = part
        if store is not None:
            kept["wall_s"] = wall_before + time.perf_counter() - start
            store.parent.mkdir(parents=True, exist_ok=True)
            store.with_suffix(".part").write_text(json.dumps(kept))
            store.with_suffix(".part").replace(store)      # whole or not at all

    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            futures = {pool.submit(play, j): j for j in todo}
            for f in as_completed(futures):
                keep(futures[f], f.result())
    else:
        for j in todo:
            keep(j, play(j))
    wall = wall_before + time.perf_counter() - start
    parts = [done[key(j)] for j in jobs]
    by_config = [[p for p, j in zip(parts, jobs) if j[3] // 10_000 == i] for i in range(len(configs))]
    if store is not None:                # a run over several sittings names each one's commit
        commit = ", ".join(dict.fromkeys(kept["commits"]))
    return configs, by_config, wall, commit


def _summary(env: str, rows: list[dict], failures: int, workers: int, wall: float, commit: str) -> dict:
    return dict(env=env, games=sum(r["games"] for r in rows), steps=sum(r["steps"] for r in rows),
                failures=failures, workers=workers, wall_s=wall,
                machine=platform.processor() or platform.machine(), python=platform.python_version(),
                date=time.strftime("%Y-%m-%d"), commit=commit, configs=rows)


def run(env_id: str, games: int, workers: int = 1, chunk: int = 2_000, store: Path | None = None) -> dict:
    """Random games with every invariant checked, spread over the configs (see :func:`_chunks`)."""
    configs, by_config, wall, commit = _chunks(env_id, games, workers, chunk, _chunk, store=store)
    rows = []
    for cfg, mine in zip(configs, by_config):
        g = sum(p["games"] for p in mine)
        rows.append(dict(config=cfg, games=g, steps=sum(p["steps"] for p in mine),
                         failures=[f for p in mine for f in p["failures"]],
                         games_per_s=g / sum(p["seconds"] for p in mine)))
    return _summary(env_id, rows, sum(len(r["failures"]) for r in rows), workers, wall, commit)


def _differential_chunk(job: tuple[str, dict, int, int]) -> dict:
    from baralho.vector.differential import differential

    env_id, config, games, seed = job
    return differential(env_id, config, games=games, batch=64, seed=seed)


def made_up_label(cfg: dict) -> dict:
    """A Roda de Samba config on the made-up deck, as a record names it: its file was a temporary
    copy of MADE_UP (tests/roda_de_samba/made_up_deck.py)."""
    return {**cfg, "deck": "made_up"} if "deck" in cfg else cfg


def run_differential(env_id: str, games: int, workers: int = 1, chunk: int = 5_000,
                     store: Path | None = None) -> dict:
    """The differential harness on ``games`` games spread over the env's configs, as :func:`run`;
    Roda de Samba's configs are played on the bundled deck and on a made-up one with other
    counts (tests/roda_de_samba/made_up_deck.py: the compiled engine takes any deck file)."""
    with tempfile.TemporaryDirectory() as tmp:
        configs = list(baralho.env_module(env_id).TEST_CONFIGS)
        if env_id == "roda_de_samba_v1":
            from tests.roda_de_samba.made_up_deck import write_made_up_deck

            deck = write_made_up_deck(Path(tmp) / "made_up.json")
            configs += [{**cfg, "deck": deck} for cfg in configs]
        configs, by_config, wall, commit = _chunks(env_id, games, workers, chunk, _differential_chunk, configs,
                                                   store, label=made_up_label)
    rows = []
    for cfg, mine in zip(configs, by_config):
        g = sum(p["games"] for p in mine)
        cfg = made_up_label(cfg)
        rows.append(dict(config=cfg, games=g, steps=sum(p["steps"] for p in mine),
                         failures=[f for p in mine for f in p["reports"]],
                         differences=sum(p["differences"] for p in mine),
                         games_per_s=g / sum(p["seconds"] for p in mine)))
    return _summary(f"{env_id} (compiled = reference)", rows, sum(r["differences"] for r in rows),
                    workers, wall, commit)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000, help="per env, spread over its configs")
    ap.add_argument("--envs", nargs="*", default=list(baralho.ENV_IDS), choices=baralho.ENV_IDS)
    ap.add_argument("--workers", type=int, default=1, help="processes (chunks of games run in parallel)")
    ap.add_argument("--differential", action="store_true",
                    help="play each compiled engine against its reference instead (baralho.vector)")
    ap.add_argument("--out", default=None,
                    help="write <env>.json here (benchmarks/fuzz_runs is embedded in RESULTS.md)")
    ap.add_argument("--chunks", default=None,
                    help="keep every finished chunk in DIR/<env>[_differential].chunks.json; run again with the "
                         "same arguments to play only the chunks missing (a long run over several sittings)")
    ap.add_argument("--chunk", type=int, default=None,
                    help="games per chunk (default: 2,000; --differential 5,000)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1 or (args.chunk is not None and args.chunk < 1):
        ap.error("--games, --workers and --chunk must be >= 1")
    bad = 0
    if args.differential:
        from baralho.envs import compiled_ids

        args.envs = [e for e in args.envs if e in compiled_ids()]
    for env_id in args.envs:
        name = f"{env_id}_differential" if args.differential else env_id
        extra = {} if args.chunk is None else dict(chunk=args.chunk)
        store = Path(args.chunks) / f"{name}.chunks.json" if args.chunks else None
        r = (run_differential if args.differential else run)(env_id, args.games, args.workers, store=store, **extra)
        bad += r["failures"]
        for row in r["configs"]:
            print(f"{env_id} {row['config']}: {row['games']} games, {row['steps']} moves, "
                  f"{len(row['failures'])} failures, {row['games_per_s']:.0f} games/s per worker", flush=True)
            for f in row["failures"][:5]:
                print("   ", f)
        print(f"{env_id}: {r['games']:,} games, {r['steps']:,} moves, {r['failures']} failures, "
              f"{r['wall_s']:.0f} s wall on {r['workers']} worker(s)", flush=True)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{name}.json").write_text(json.dumps(r, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
