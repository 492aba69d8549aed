"""Chuche's reward potential for self-play (``baralho train chuche_v1 --shaping 1``).

Potential-based shaping (Ng, Harada & Russell 1999): a decision whose seat's next decision
sees potential phi' gets gamma * phi' - phi besides its rewards, the last one of a game -phi.
Along a seat's decisions the bonuses telescope, so the best policy stays the best; the margin
says at once what a capture was worth, where the match's win says it rounds later.
"""

from __future__ import annotations

import numpy as np

from baralho.core.spaces import lead
from baralho.envs.chuche.cards import GOALS


def potential(layout, game):
    """phi(observations) for a batch: (the observer's points - the best other seat's) / the
    goal, points being the match's finished rounds plus this round's so far."""
    scores, points, goal = layout["scores"], layout["round_points"], GOALS[game.num_players]

    def margin(obs: np.ndarray) -> np.ndarray:
        total = obs[:, scores].astype(np.float32) + obs[:, points]
        return lead(total) / goal
    return margin
