"""The peers measured in the same run: PettingZoo classic card envs and
OpenSpiel's C++ gin rummy through pyspiel (``pip install ".[bench]"``; each is
skipped cleanly when its package is missing)."""

from __future__ import annotations

import random
import time

import numpy as np


def pettingzoo_classic(name: str):
    """texas_holdem_v4 / leduc_holdem_v4 as a constructor, or None if not installed."""
    try:
        import importlib

        module = importlib.import_module(f"pettingzoo.classic.{name}")
    except Exception:        # rlcard or pygame missing: skip
        return None
    return module.env


def openspiel_gin_rummy(seconds: float, seed: int = 0):
    """Random legal play with observation tensor + legal mask read every decision;
    returns (steps/s, games/s, steps/game) or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    chance = random.Random(seed)   # random.choices: ~3 µs a draw; rng.choice(p=...) took ~40
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(chance.choices(outcomes, probs)[0])
                continue
            p = state.current_player()
            state.observation_tensor(p)
            legal = np.flatnonzero(state.legal_actions_mask(p))
            state.apply_action(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    dt = time.perf_counter() - start
    return steps / dt, games / dt, steps / max(games, 1)
