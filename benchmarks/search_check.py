"""The compiled search plays as the Python search: ``ismcts:N`` against the heuristic on the
default (compiled) engine and on ``engine="reference"`` (the Python search), same N, same deals,
every deal from both seats; the compiled search's win rate should lie in the Python search's
Wilson 95% CI (the two draw from the same generator the same way, so most games are the same
game).

    python -m benchmarks.search_check                       # Rodízio ismcts:200, Chuche ismcts:20, 600 games each
    python -m benchmarks.search_check --games 60 --out runs/search_check.md

Writes ``benchmarks/search_check.md``, which ``python -m benchmarks`` embeds in RESULTS.md
(``python -m benchmarks --search-check`` re-embeds it alone).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from baralho.training.tournament import run, summarize

HERE = Path(__file__).parent
#: N per game: Rodízio at the ladder's budget; Chuche's Python search makes ~500 simulations a second
#: over ~115 searched decisions a game, so 600 games at N=20 are ~15 minutes of one core
BUDGETS = {"rodizio_v1": 200, "chuche_v1": 20}


def check(env_id: str, simulations: int, games: int, seed: int = 0) -> dict:
    specs = ["heuristic", f"ismcts:{simulations}"]
    out = {}
    for engine in ("compiled", "reference"):
        start = time.perf_counter()
        results = run(env_id, specs, games, 2, config={"engine": engine}, seed=seed, progress=False)
        search = summarize(results, specs)["agents"][1]
        out[engine] = dict(search, seconds=time.perf_counter() - start)
    lo, hi = out["reference"]["ci95"]
    out["within"] = lo <= out["compiled"]["win_rate"] <= hi
    return out


def table(rows: dict[str, dict], games: int) -> list[str]:
    md = ["| env | agent | games | compiled: win rate [95% CI] | Python (reference): win rate [95% CI] | "
          "compiled in the Python CI | seconds compiled / Python |", "|---|---|---:|---|---|---|---|"]
    for env_id, r in rows.items():
        c, p = r["compiled"], r["reference"]
        md.append(f"| {env_id} | `{c['agent']}` vs `heuristic` | {c['games']} | {c['win_rate']:.3f} "
                  f"[{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}] | {p['win_rate']:.3f} [{p['ci95'][0]:.3f}, "
                  f"{p['ci95'][1]:.3f}] | {'yes' if r['within'] else '**no**'} | {c['seconds']:.0f} / "
                  f"{p['seconds']:.0f} |")
    return md


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=600, help="games per engine (every deal from both seats)")
    ap.add_argument("--envs", nargs="*", default=list(BUDGETS), choices=list(BUDGETS))
    ap.add_argument("--out", default=str(HERE / "search_check.md"))
    args = ap.parse_args(argv)
    os.environ["BARALHO_COMPILE"] = "foreground"      # the compiled search from the first move
    rows = {e: check(e, BUDGETS[e], args.games) for e in args.envs}
    md = table(rows, args.games)
    Path(args.out).write_text(
        f"Made by `python -m benchmarks.search_check --games {args.games}` ({time.strftime('%Y-%m-%d')}, "
        f"2 workers, alone on the machine).\n\n" + "\n".join(md) + "\n")
    print("\n".join(md))
    return 0 if all(r["within"] for r in rows.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
