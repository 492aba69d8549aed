"""How Scala 40's ``estimate`` was chosen (RULES.md, a decision): which guess of a match's winner
from the penalty totals at a hand's start fits heuristic self-play best.

    python -m benchmarks.scala40_estimate            # 3,000 matches at 2 players, 2,000 at 3: ~20 s

Heuristic self-play on the batched engine; at every hand's start (``hands_played`` moved on) the
live players' totals are kept, and when the match ends each kept hand gets its winner. Each model
gives a live player a chance of winning; the table is the mean log-likelihood of the real winner
per hand (higher is better; a uniform guess among the live players beside it).
"""

from __future__ import annotations

import argparse

import numpy as np

import baralho.vector as bv
from baralho.envs.scala40.actions import ELIMINATION
from baralho.vector.heuristic import BatchHeuristic


def hands(players: int, games: int, envs: int = 256) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(totals, eliminated, winner) at every hand's start of ``games`` heuristic matches."""
    env = bv.make("scala40_v1", envs, seed=players, num_players=players)
    heuristic = BatchHeuristic(env.game, envs, seed=players)
    obs, mask, _ = env.reset()
    rows = np.arange(envs)
    last = env.roots(rows)["hands_played"]
    kept: list[list[np.ndarray]] = [[] for _ in range(envs)]
    totals, out, winner, finished = [], [], [], 0
    while finished < games:
        obs, mask, _, rewards, done = env.step(heuristic.act(rows, obs, mask))
        for b in np.flatnonzero(done):
            top = rewards[b] == rewards[b].max()
            if top.sum() == 1:                      # a shared win (everyone out at once, tied) says nothing
                for t, e in kept[b]:
                    totals.append(t), out.append(e), winner.append(int(np.argmax(top)))
            kept[b] = []
            finished += 1
            heuristic.reset([b], [finished + 1_000_000])
        records = env.roots(rows)                   # the games' records, copied
        hands_played = records["hands_played"]
        for b in np.flatnonzero((hands_played != last) & ~done & (hands_played > 0)):
            kept[b].append((records["totals"][b, :players], records["eliminated"][b, :players] > 0))
        last = hands_played
    return np.array(totals, float), np.array(out), np.array(winner)


def log_likelihoods(totals: np.ndarray, out: np.ndarray, winner: np.ndarray) -> dict[str, float]:
    rows = np.arange(len(winner))

    def fit(weights: np.ndarray) -> float:
        p = np.where(out, 0.0, weights)
        p /= p.sum(1, keepdims=True)
        return float(np.log(p[rows, winner] + 1e-12).mean())

    room = ELIMINATION + 1 - totals
    models = {"uniform": fit(np.ones_like(totals))}
    models.update({f"room^{k}": fit(np.maximum(room, 0) ** k) for k in (0.5, 1, 1.5, 2, 3)})
    models.update({f"softmax(-total/{T})": fit(np.exp(-(totals - totals.min(1, keepdims=True)) / T))
                   for T in (10, 20, 40, 60)})
    return models


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs=2, default=(3000, 2000), help="matches at 2 and at 3 players")
    args = parser.parse_args()
    fits = {p: log_likelihoods(*hands(p, n)) for p, n in zip((2, 3), args.games)}
    print("| model | 2 players | 3 players |\n|---|---:|---:|")
    for name in fits[2]:
        print(f"| {name} | {fits[2][name]:.3f} | {fits[3][name]:.3f} |")


if __name__ == "__main__":
    main()
