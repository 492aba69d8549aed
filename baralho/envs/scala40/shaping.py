"""Scala 40's reward potential for self-play (``baralho train scala40_v1 --shaping 1``):
potential-based shaping (Ng, Harada & Russell 1999; ``chuche/shaping.py`` says how it enters
the rewards) over the penalty margin."""

from __future__ import annotations

import numpy as np

from baralho.core.spaces import lead
from baralho.envs.scala40.melds import NUM_KINDS, PENALTY


def potential(layout, game):
    """phi(observations) for a batch: (the best other seat's standing - the observer's) / 100,
    a standing being the match's penalty total plus this hand's cards if it ended now: the
    observer's own penalty points, and for the others their cards times a card's mean penalty
    (their hands are hidden); an eliminated seat stands out of reach. Lower is better, so
    lead() of minus it."""
    n, hand, players = game.num_players, layout["hand"], layout["players"]
    hand_jokers = layout.fields["hand_jokers"].start
    penalty = np.asarray(PENALTY[:NUM_KINDS - 1], np.float32)
    deck = list(range(NUM_KINDS - 1)) * 2 + [NUM_KINDS - 1] * game.config.num_jokers
    mean_card = float(np.mean([PENALTY[k] for k in deck]))    # 7.7 with two jokers

    def margin(obs: np.ndarray) -> np.ndarray:
        rows = obs[:, players].reshape(len(obs), n, 4).astype(np.float32)  # cards, opened, eliminated, total
        standing = rows[:, :, 3] + rows[:, :, 0] * mean_card
        standing[:, 0] = rows[:, 0, 3] + obs[:, hand] @ penalty + PENALTY[NUM_KINDS - 1] * obs[:, hand_jokers]
        standing[:, 1:] += 1000.0 * rows[:, 1:, 2]
        return lead(-standing) / 100.0
    return margin
