"""Roda de Samba's reward potential for self-play (``baralho train roda_de_samba_v1 --shaping 1``):
potential-based shaping (Ng, Harada & Russell 1999; ``chuche/shaping.py`` says how it enters
the rewards) over the fame margin; without it PPO kept the heuristic's level."""

from __future__ import annotations

import numpy as np

from baralho.core.spaces import lead


def potential(layout, game):
    """phi(observations) for a batch: (the observer's fame if the game ended now - the best
    other seat's) / 20 (a few cards' stars; the observation's ``fame`` rows)."""
    fame = layout["fame"]

    def margin(obs: np.ndarray) -> np.ndarray:
        return lead(obs[:, fame].astype(np.float32)) / 20.0
    return margin
