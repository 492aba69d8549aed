"""All benchmarks in one command; writes benchmarks/RESULTS.md and its charts.

    python -m benchmarks            # ~15 minutes on 2 cores
    python -m benchmarks --quick    # ~1 minute: every section, tiny budgets (to runs/benchmarks-quick/)
    python -m benchmarks --ladders  # only re-embed benchmarks/ladder/*.md in RESULTS.md
    python -m benchmarks --long-runs  # only re-embed benchmarks/fuzz_runs/*.json in RESULTS.md
    python -m benchmarks --search-check  # only re-embed benchmarks/search_check.md in RESULTS.md
    python -m benchmarks --search        # only measure the search speed again (~5 minutes) and re-embed it
    python -m benchmarks --vector        # only measure the vector step vs its floor again and re-embed it
    python -m benchmarks --instructions  # only re-embed benchmarks/instructions.md (callgrind counts)

Sections: throughput of every env next to the floors and the peers (same run),
fuzzing with invariants, memory and copy/resample cost, SB3 training fps next
to a trivial env, and a profile of each env's step. RESULTS.md is generated,
never hand-edited.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import re
import time
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import baralho
from baralho.envs import compiled_ids
from benchmarks import anchors, costs, fuzz, git_head, throughput, training_fps
from benchmarks import search as search_bench
from benchmarks import vector as vector_bench

HERE = Path(__file__).parent
GIN = "OpenSpiel gin_rummy (C++, pyspiel)"
# the self-play row's decisions, in SB3 timesteps (fps_steps): long enough that the trainer's setup
# (imports, policy, the numba cache, ~9 s) weighs on it as in a run of minutes, not a run of seconds
SELFPLAY_RUN = 50
# the vector section's comparison: the last commit before the batch machinery became one kernel builder
BEFORE = "2366323"


def versions() -> dict:
    out = {}
    for p in ("baralho", "pettingzoo", "gymnasium", "numpy", "stable-baselines3", "sb3-contrib", "torch",
              "open_spiel", "rlcard"):
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"


def profile_step(env_id: str, seconds: float) -> str:
    """Top functions by own time in the throughput loop (cProfile, stdlib)."""
    env = baralho.make(env_id)
    prof = cProfile.Profile()
    prof.enable()
    throughput.run_loop(env, seconds)
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).sort_stats("tottime")
    rows = []
    total = sum(v[2] for v in stats.stats.values())
    for (file, line, func), (_, ncalls, tottime, _, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:8]:
        short = file.split("site-packages/")[-1].split("/work/main/")[-1].replace(str(HERE.parent) + "/", "")
        rows.append(f"| `{short}:{line}` {func} | {ncalls} | {100 * tottime / total:.1f}% |")
    return "\n".join(["| function | calls | own time |", "|---|---:|---:|", *rows])


def chart_label(row: dict) -> str:
    """A bar's label: the env and its config as key=value (values alone, "3,hand", said nothing)."""
    config = row.get("config") or {}
    return row["env"] + ("" if not config else " " + ",".join(f"{k}={v}" for k, v in config.items()))


def chart(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [chart_label(r) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    kinds = {"floor": ("#888", "adapter floor"), "peer": ("#c66", "peer")}
    colors = [kinds.get(r.get("kind"), ("#3a7", ""))[0] for r in rows]
    ax.barh(range(len(rows)), [r["sps"] for r in rows], color=colors)
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color="#3a7", label="baralho env")] + [Patch(color=c, label=n) for c, n in kinds.values()],
              fontsize=7, loc="lower right")
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("AEC steps/s, obs + mask read every step (log scale)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def default_out(quick: bool) -> Path:
    """Where the report goes: the committed RESULTS.md for a full run; a quick run's tiny
    budgets are a smoke test, not results, so it writes under runs/ (git-ignored)."""
    return Path("runs/benchmarks-quick/RESULTS.md") if quick else HERE / "RESULTS.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="every section with tiny budgets (~1 minute)")
    ap.add_argument("--out", default=None,
                    help="the report; its charts go beside it (default: benchmarks/RESULTS.md, "
                         "with --quick runs/benchmarks-quick/RESULTS.md)")
    ap.add_argument("--before", default=BEFORE,
                    help="the commit whose vector step the full run measures beside this tree's "
                         f"(default {BEFORE}: the engines before the kernel builder)")
    ap.add_argument("--ladders", action="store_true",
                    help="only re-embed benchmarks/ladder/*.md in the existing RESULTS.md (seconds)")
    ap.add_argument("--long-runs", action="store_true",
                    help="only re-embed benchmarks/fuzz_runs/*.json (the 100,000-game runs) in the existing "
                         "RESULTS.md (seconds)")
    ap.add_argument("--search", action="store_true",
                    help="only measure the search speed section again and replace it in the existing RESULTS.md "
                         "(~5 minutes, alone)")
    ap.add_argument("--vector", action="store_true",
                    help="only measure the vector step against its write floor (and --before) again and replace "
                         "that table in the existing RESULTS.md (~5 minutes, alone)")
    ap.add_argument("--instructions", action="store_true",
                    help="only re-embed benchmarks/instructions.md (python -m benchmarks.instructions --out) in the "
                         "existing RESULTS.md (seconds)")
    ap.add_argument("--search-check", action="store_true",
                    help="only re-embed benchmarks/search_check.md (python -m benchmarks.search_check) in the "
                         "existing RESULTS.md (seconds)")
    args = ap.parse_args(argv)
    args.out = args.out or str(default_out(args.quick and not (args.ladders or args.long_runs or args.search_check
                                                               or args.search or args.vector
                                                               or args.instructions)))
    if args.ladders:
        return embed_ladders(Path(args.out))
    if args.long_runs:
        return embed_long_runs(Path(args.out))
    if args.search_check:
        return embed_search_check(Path(args.out))
    if args.search:
        return embed_search(Path(args.out))
    if args.vector:
        return embed_vector(Path(args.out), args.before)
    if args.instructions:
        return embed_instructions(Path(args.out))
    q = args.quick
    secs, reps = (0.3, 1) if q else (2.0, 3)
    fuzz_secs = 1.0 if q else 60.0
    fps_steps = 1024 if q else 20_000
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    md = ["# baralho benchmarks", "",
          f"Generated by `python -m benchmarks{' --quick' if q else ''}` on "
          f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC — do not edit by hand.", "",
          f"- Machine: {machine()}",
          "- Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()),
          f"- Commit: {git_head()}", ""]

    # 1. throughput --------------------------------------------------------------
    print("throughput ...", flush=True)
    peers: dict = {}
    for name in ("texas_holdem_v4", "leduc_holdem_v4"):
        make = anchors.pettingzoo_classic(name)
        if make is not None:
            peers[f"PettingZoo {name}"] = throughput.env_runner(make)
    peers[GIN] = anchors.openspiel_gin_rummy
    result = throughput.measure(list(baralho.ENV_IDS), secs, reps, peers)
    rows = result["rows"]
    floor, chain = rows[0]["sps"], rows[1]["sps"]
    gin = next((r for r in rows if r["env"] == GIN), None)
    chart(rows, out.parent / "throughput.png")
    md += ["## Throughput", "",
           f"Random legal play through `env()`, observation and mask read every step; best of {reps} runs "
           f"of {secs:g} s, in {reps} interleaved rounds (each round runs every row once, so the floors, "
           "the envs and the peers share the machine's slow and fast stretches). × floor = ratio to the "
           "adapter over a do-nothing game; × chain = ratio to "
           "PettingZoo's classic wrapper chain over the same do-nothing game (target ≥ 2).", "",
           "| env | config | steps/s | games/s | steps/game | × floor | × chain |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        cfg = ", ".join(f"{k}={v}" for k, v in r["config"].items())
        md.append(f"| {r['env']} | {cfg} | {r['sps']:,.0f} | {r['gps']:,.1f} | {r['spg']:.1f} | "
                  f"{r['sps'] / floor:.2f} | {r['sps'] / chain:.1f} |")
    if gin is not None:
        scala = [r for r in rows if r["env"] == "scala40_v1" and "engine" not in r["config"]]   # the default engine
        if scala:
            md += ["", f"Scala 40 vs OpenSpiel gin rummy: {min(r['sps'] for r in scala) / gin['sps']:.2f}× "
                       f"(slowest config) to {max(r['sps'] for r in scala) / gin['sps']:.2f}× (fastest)."]
    else:
        md += ["", "OpenSpiel not installed (`pip install \".[bench]\"`): gin rummy skipped."]
    md += ["", "![throughput](throughput.png)", ""]

    # 1b. the batched engines ---------------------------------------------------------
    print("vector ...", flush=True)
    envs = sorted(compiled_ids())
    md += vector_floor_section(envs, secs, reps, None if q else args.before)
    md += ["Steps/s by batch size (the draw included, as a learner's sampling would be):", "",
           "| env | config | " + " | ".join(f"B={b:,}" for b in vector_bench.BATCHES) + " |",
           "|---|---|" + "---:|" * len(vector_bench.BATCHES)]
    extra = []
    for env_id in envs:
        cfg = baralho.env_module(env_id).TEST_CONFIGS[0]
        sps = {b: max(vector_bench.run_vector(env_id, cfg, b, secs, seed=k) for k in range(reps))
               for b in vector_bench.BATCHES}
        label = ", ".join(f"{k}={v}" for k, v in cfg.items())
        md.append(f"| {env_id} | {label} | " + " | ".join(f"{sps[b]:,.0f}" for b in vector_bench.BATCHES) + " |")
        mem = vector_bench.memory_per_env(env_id, cfg)
        if q:           # a compile from an empty cache is 3-15 s a game of the default test run's 10 minutes
            times = "— (--quick) | — | — | — | —"
        else:
            c = vector_bench.compile_seconds(env_id, cfg)
            times = (f"{c['vector_first']:.1f} | {c['vector_cached']:.1f} | {c['aec_first']:.1f} | "
                     f"{c['aec_foreground']:.1f} | {c['aec_cached']:.1f}")
        extra.append(f"| {env_id} | {mem['state']} | {mem['obs']} | {mem['total']} | {times} |")
    if gin is not None and "scala40_v1" in compiled_ids():
        cfg = baralho.env_module("scala40_v1").TEST_CONFIGS[0]
        best4096 = max(vector_bench.run_vector("scala40_v1", cfg, 4096, secs, seed=k) for k in range(reps))
        md += ["", f"Scala 40 batched (B=4,096, one core) vs OpenSpiel gin rummy (C++, same run, throughput "
                   f"section): {best4096 / gin['sps']:.1f}×."]
    md += ["", "Memory per env in the batch (bytes: the state record; the observation row; everything a "
           "step holds per env: state, obs, mask, seat, rewards, done) and first use, each in a fresh process, "
           "import included (seconds): `bv.make(env_id, 4096)` + reset + one step with an empty numba cache "
           "(*vector first*) and with the cache it wrote (*vector cached*); `baralho.make(env_id)` + reset + "
           "one step with an empty cache (*AEC first*: the kernel compiles in the background while the "
           "reference engine plays), with `BARALHO_COMPILE=foreground` (*AEC compiled first*: the compile "
           "itself) and cached (*AEC cached*).", "",
           "| env | state | obs | total per env | vector first | vector cached | AEC first | AEC compiled first "
           "| AEC cached |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
           *extra, ""]

    # 1c. the compiled search ---------------------------------------------------------
    print("search ...", flush=True)
    md += search_section(q)
    md += search_check_block()

    # 2. fuzzing -----------------------------------------------------------------
    print("fuzzing ...", flush=True)
    md += ["## Fuzzing", "",
           f"Random games, every invariant checked after every move, {fuzz_secs:g} s per env "
           "(spread over its configs). The long run is `python -m benchmarks.fuzz --games 100000`.", "",
           "| env | games | moves | failures | games/s |", "|---|---:|---:|---:|---:|"]
    for env_id in baralho.ENV_IDS:
        configs = baralho.env_module(env_id).TEST_CONFIGS
        parts = [fuzz.fuzz(env_id, c, seconds=fuzz_secs / len(configs), seed=i) for i, c in enumerate(configs)]
        g, s = sum(p["games"] for p in parts), sum(p["steps"] for p in parts)
        f = sum(len(p["failures"]) for p in parts)
        md.append(f"| {env_id} | {g:,} | {s:,} | {f} | {g / sum(p['seconds'] for p in parts):,.0f} |")
    md.append("")
    md += long_runs_table()

    # 3. memory and copies ---------------------------------------------------------
    print("memory ...", flush=True)
    md += ["## Memory and copy cost", "",
           "Per env instance (tracemalloc, after reset) and per mid-game state; time of one "
           "`state.copy()` and one `resample_hidden` (what a search agent pays per determinization), on the "
           "env's default engine (compiled where the game has one); plain ISMCTS (random rollouts) "
           "simulations per second from a game's first decision on each engine.", "",
           "| env | config | env bytes | state bytes | pickled state | copy µs | resample µs "
           "| ISMCTS sims/s reference | ISMCTS sims/s compiled |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for env_id in baralho.ENV_IDS:
        cfg = baralho.env_module(env_id).TEST_CONFIGS[0]
        c = costs.measure(env_id, cfg)       # on the env's default engine (compiled where it has one)
        sims = {e: costs.ismcts_sims_per_second(env_id, cfg, e, 0.5 if q else 3.0) for e in ("reference", "compiled")
                if e == "reference" or env_id in compiled_ids()}
        compiled = f"{sims['compiled']:,.0f}" if "compiled" in sims else "—"
        md.append(f"| {env_id} | {cfg} | {c['env_bytes']:,} | {c['state_bytes']:,.0f} | "
                  f"{c['pickled_bytes']:,.0f} | {c['copy_us']:.1f} | {c['resample_us']:.1f} | "
                  f"{sims['reference']:,.0f} | {compiled} |")
    md.append("")

    # 4. training fps --------------------------------------------------------------
    print("training fps ...", flush=True)
    md += ["## Training throughput", "",
           f"MaskablePPO (sb3-contrib), 2 envs, {fps_steps:,} timesteps after a warm-up, against a "
           "trivial env with the same observation and action sizes, same run. Self-play: "
           f"`training/selfplay.py` with the game's defaults (no warm start), {SELFPLAY_RUN * fps_steps:,} "
           "env decisions (a training run's first minutes: its setup is as in a long run), whole run "
           "(setup and two one-deal evaluations included); learner decisions are the ones PPO trained on, "
           "SB3's timesteps' counterpart; × SB3 = learner decisions/s over SB3 fps on baralho (the "
           "issue's bar: 10). A real run's whole figures, its evaluations included, are in its model "
           "card (`baralho/zoo/v1/`).", "",
           "| env | SB3 fps on baralho | SB3 fps on trivial env | ratio | self-play decisions/s "
           "| self-play learner decisions/s | × SB3 |", "|---|---:|---:|---:|---:|---:|---:|"]
    for env_id in baralho.ENV_IDS:
        if q and env_id != "rodizio_v1":   # each row builds two trainers and their envs: one in --quick
            md.append(f"| {env_id} | — (--quick) | — | — | — | — | — |")
            continue
        f = training_fps.measure(env_id, fps_steps)
        g = training_fps.selfplay_fps(env_id, (10 if q else SELFPLAY_RUN) * fps_steps, quick=q)
        md.append(f"| {env_id} | {f['fps']:,.0f} | {f['trivial_fps']:,.0f} | {f['ratio']:.2f} | "
                  f"{g['decisions_per_s']:,.0f} | {g['learner_per_s']:,.0f} | {g['learner_per_s'] / f['fps']:.1f} |")
    md.append("")

    # 5. profiles ------------------------------------------------------------------
    print("profiles ...", flush=True)
    md += ["## Where the step time goes", "",
           "cProfile of the throughput loop (own time; the profiler inflates Python-call costs). "
           "What each env keeps incremental is described in its rules module.", ""]
    for env_id in baralho.ENV_IDS:
        md += [f"### {env_id}", "", profile_step(env_id, 0.5 if q else 3.0), ""]

    # 6. agent ladders (from `baralho tournament ... --out benchmarks/ladder`, not re-run here) ----
    md += ladder_section()

    md.append(f"_Total benchmark time: {time.perf_counter() - started:.0f} s._")
    out.write_text("\n".join(md) + "\n")
    print(f"wrote {out}")
    return 0


VECTOR = "## Batched engines (baralho.vector)"
VECTOR_END = "Steps/s by batch size"


def vector_floor_section(envs: list[str], secs: float, reps: int, before: str | None,
                         stamp: str | None = None) -> list[str]:
    """The vector section's head: the step against the native write floor (measured now), and the
    instruction counts of ``python -m benchmarks.instructions --out benchmarks/instructions.md``
    (embedded as last run: counts do not depend on the machine's load)."""
    rows_floor, _ = vector_bench.floor_table(envs, secs, reps, before)
    md = [VECTOR, "",
          f"`baralho.vector.make(env_id, num_envs={vector_bench.B_FLOOR:,})`, random legal play, one core "
          "(threads=1): ns per env-step of `step()` alone (the numpy draw of the actions from the masks is "
          "timed apart: *draw*), against the game's **native write floor**, a numba kernel writing as many "
          "observation, mask, seat, reward and done bytes per env into the same kind of arrays (fresh per "
          "call; with `copy=False`, the same arrays each call) and computing nothing: × floor is the ratio, "
          "same process, same round. *rules*: the step's own work alone, from the game's compiled primitives "
          "(apply, deal again at a game's end, the next seat and its legal mask), nothing written out; a step "
          "returning the observation costs at least rules + floor, so *(rules + floor) / floor* is the best "
          f"ratio these rules allow. Best of {reps} interleaved rounds of {secs:g} s."
          + ("" if before is None else f" *before*: the same step on commit `{before}` (the engines before the "
                                       "kernel builder), run in its own process in the same rounds."), "",
          *([stamp, ""] if stamp else []), *rows_floor, ""]
    return md + instructions_block()


INSTRUCTIONS = "Instructions per env-step, counted by callgrind"


def instructions_block() -> list[str]:
    """benchmarks/instructions.md (``python -m benchmarks.instructions --out``), as last run."""
    counts = HERE / "instructions.md"
    if not counts.exists():
        return []
    return [INSTRUCTIONS + " (the host's timings move 30-50% between runs; these do not), step and observe (the "
            "OBSERVE mode: the mask and the observation written again), this tree and earlier commits, embedded "
            "as last run:", "", counts.read_text().strip(), ""]


def embed_instructions(out: Path) -> int:
    """Replace only the instruction counts in the vector section of an existing RESULTS.md (seconds)."""
    text = out.read_text()
    head, sep, rest = text.partition("\n" + VECTOR + "\n")
    end = rest.find(VECTOR_END)
    if not sep or end < 0:
        raise SystemExit(f"{out}: not a RESULTS.md written by python -m benchmarks (no vector section)")
    section = rest[:end]
    at = section.find(INSTRUCTIONS)
    kept = (section if at < 0 else section[:at]).rstrip("\n")
    out.write_text(head + sep + kept + "\n\n" + "\n".join(instructions_block()) + "\n" + rest[end:])
    print(f"re-embedded the instruction counts in {out}")
    return 0


def embed_vector(out: Path, before: str) -> int:
    """Measure the step-vs-floor table again (alone: a few minutes) and replace only it (and the
    instruction counts) in an existing RESULTS.md; the rest stays as measured in the header's run."""
    text = out.read_text()
    head, sep, rest = text.partition("\n" + VECTOR + "\n")
    end = rest.find(VECTOR_END)
    if not sep or end < 0:
        raise SystemExit(f"{out}: not a RESULTS.md written by python -m benchmarks (no vector section)")
    stamp = (f"_Table measured again by `python -m benchmarks --vector` on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_head()}, alone; the rest of the "
             f"report is from the run in the header._")
    secs, reps = 2.0, 3
    md = vector_floor_section(sorted(compiled_ids()), secs, reps, before, stamp)
    out.write_text(head.rstrip("\n") + "\n\n" + "\n".join(md) + "\n" + rest[end:])
    print(f"re-measured the vector step table in {out}")
    return 0


LADDERS = "## Agent ladders"


def _reports(folder: Path) -> tuple[list[Path], list[str]]:
    """The tournament reports of ``folder`` and, from its notes.md if it has one, what they alone
    do not say (as lines to embed before them)."""
    notes = folder / "notes.md"
    return (sorted(p for p in folder.glob("*.md") if p != notes),
            [notes.read_text().strip(), ""] if notes.exists() else [])


def ladder_section(stamp: str | None = None) -> list[str]:
    """The ladders section: every report in benchmarks/ladder, after ``stamp`` if given."""
    ladders, notes = _reports(HERE / "ladder")
    retired = sorted((HERE / "ladder" / "v0").glob("*.md"))
    if not ladders and not retired:
        return []
    md = [LADDERS, "",
          "Made by `baralho tournament ENV --agents ... --out benchmarks/ladder` (commands and seeds in "
          "each block); embedded here as they were last run.", ""]
    if retired:
        md += [f"The {len(retired)} ladders of the retired v0 envs are kept in `benchmarks/ladder/v0/` "
               "(not embedded: v1 changed rules and observations)."
               + (" No v1 ladder has been run yet." if not ladders else ""), ""]
    if stamp:
        md += [stamp, ""]
    md += notes
    for path in ladders:
        body = path.read_text().replace("# Tournament", "### Tournament").replace("![head to head](",
                                                                                "![head to head](ladder/")
        md += [body, ""]
    equal, notes = _reports(HERE / "ladder" / "equal_time")
    if equal:
        md += [EQUAL_TIME, "",
               "The net-guided search (`ismcts:Ts:p`: PUCT with the zoo net's policy as prior, random rollouts) "
               "against the plain compiled search (`ismcts:Ts`: UCB, random rollouts) with the same seconds per "
               "move, 2 players, every deal from both seats, alone on the machine (`baralho tournament ENV "
               "--agents ismcts:Ts:p ismcts:Ts --games 600 --out benchmarks/ladder/equal_time`).", ""]
        md += notes
        for path in equal:
            body = re.sub(r"^#+ ", "#### ", path.read_text(), flags=re.M).replace(   # below this heading
                "![head to head](", "![head to head](ladder/equal_time/")
            md += [body, ""]
    return md


EQUAL_TIME = "### Net-guided search against plain search, equal time per move"


LONG_RUNS = "Long runs (`python -m benchmarks.fuzz --games 100000 --workers 2 --out benchmarks/fuzz_runs`"


def long_runs_table(stamp: str | None = None) -> list[str]:
    """The records of benchmarks/fuzz_runs (each long run's own JSON), as a table ending in a blank line."""
    long_runs = [json.loads(p.read_text()) for p in sorted((HERE / "fuzz_runs").glob("*.json"))]
    if not long_runs:
        return []
    md = [LONG_RUNS + " and `--differential`, each embedded as its last run):", ""]
    if stamp:
        md += [stamp, ""]
    md += ["| env | configs | games | moves | failures | wall s | workers | date | commit |",
           "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in long_runs:
        md.append(f"| {r['env']} | {len(r['configs'])} | {r['games']:,} | {r['steps']:,} | {r['failures']} | "
                  f"{r['wall_s']:.0f} | {r['workers']} | {r['date']} | {r.get('commit', '—')} |")
    return md + [""]


def embed_long_runs(out: Path) -> int:
    """Replace only the long-runs table of an existing RESULTS.md: a 100,000-game run is a run of
    its own (minutes to hours), recorded in its JSON; the measured sections stay as they are."""
    lines = out.read_text().split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith(LONG_RUNS))
    except StopIteration:
        raise SystemExit(f"{out}: no long-runs table (a RESULTS.md written by python -m benchmarks has one "
                         f"once benchmarks/fuzz_runs holds a run)") from None
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("|"))   # the table's first row
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    stamp = (f"_Table re-embedded by `python -m benchmarks --long-runs` on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_head()}._")
    table = long_runs_table(stamp)[:-1]          # the blank line after the table is kept from the file
    out.write_text("\n".join(lines[:start] + table + lines[end:]))
    print(f"re-embedded {sum(line.startswith('| ') for line in table) - 1} long runs in {out}")
    return 0


def search_section(quick: bool, stamp: str | None = None) -> list[str]:
    """The search speed section's head and table, measured now."""
    sims, count = (20, 2) if quick else (200, 6)
    return ["## Search speed (ISMCTS)", "",
            f"`make_agent(\"ismcts:{sims}\")` bound to the env, as a tournament runs it, on {count} positions of "
            "random play from seeded deals (2 players), on the default (compiled) engine and on "
            "`engine=\"reference\"` (the Python search): simulations per second, whole moves timed. The rollout "
            "bound is 1 / (mean rollout length x the compiled step without observations), both measured in the "
            "same run from the same positions (random play to the end in a numba loop over the game's "
            "primitives): what a search could reach if a simulation cost only its rollout. "
            "`python -m benchmarks.search` runs this section alone.", "", *([stamp, ""] if stamp else []),
            *search_bench.search_table(list(baralho.ENV_IDS), sims, count, 0.2 if quick else 2.0), ""]


def embed_search(out: Path) -> int:
    """Measure the search section again (alone: ~5 minutes) and replace only it in an existing
    RESULTS.md, its search check kept; the other sections stay as measured in the header's run."""
    text = out.read_text()
    head, sep, rest = text.partition("\n## Search speed (ISMCTS)\n")
    check = rest.find("\n" + SEARCH_CHECK)
    if not sep or check < 0:
        raise SystemExit(f"{out}: not a RESULTS.md written by python -m benchmarks (no search section and check)")
    stamp = (f"_Section measured again by `python -m benchmarks --search` on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_head()}, alone; the sections "
             f"above and below are from the run in the header._")
    md = search_section(False, stamp)
    out.write_text(head.rstrip("\n") + "\n\n" + "\n".join(md) + rest[check:])
    print(f"re-measured the search section in {out}")
    return 0


SEARCH_CHECK = ("The compiled search against the heuristic beside the Python search against it (same N, same "
                "deals; `python -m benchmarks.search_check`, embedded as it was last run):")


def search_check_block(stamp: str | None = None) -> list[str]:
    """benchmarks/search_check.md (a tournament run on its own), for the search section."""
    if not (HERE / "search_check.md").exists():
        return []
    return [SEARCH_CHECK, "", *([stamp, ""] if stamp else []), (HERE / "search_check.md").read_text(), ""]


def embed_search_check(out: Path) -> int:
    """Replace only the search check at the end of the search section of an existing RESULTS.md."""
    text = out.read_text()
    head, sep, tail = text.partition("\n## Fuzzing\n")
    if not sep or "## Search speed (ISMCTS)" not in head:
        raise SystemExit(f"{out}: not a RESULTS.md written by python -m benchmarks (no search section)")
    head = head.split("\n" + SEARCH_CHECK)[0].rstrip("\n")
    stamp = (f"_Re-embedded by `python -m benchmarks --search-check` on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_head()}._")
    out.write_text(head + "\n\n" + "\n".join(search_check_block(stamp)) + sep + tail)
    print(f"re-embedded the search check in {out}")
    return 0


def embed_ladders(out: Path) -> int:
    """Replace only the ladders section of an existing RESULTS.md: a ladder is a tournament run
    on its own (an hour for Scala 40), so embedding a new one should not need the ~10 minutes of
    timing on a quiet machine that the other sections do; those stay as measured, header included."""
    text = out.read_text()
    head, sep, tail = text.partition("\n" + LADDERS + "\n")
    total = [line for line in (tail if sep else text).splitlines() if line.startswith("_Total benchmark time")]
    if not total:
        raise SystemExit(f"{out}: not a RESULTS.md written by python -m benchmarks (no total-time line)")
    stamp = (f"_Ladders section re-embedded by `python -m benchmarks --ladders` on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_head()}; "
             f"the sections above are from the run in the header._")
    md = ladder_section(stamp)
    out.write_text(head.rstrip("\n") + "\n\n" + "\n".join(md + total) + "\n")
    print(f"re-embedded {sum(line.startswith('### Tournament') for line in md)} ladders in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
