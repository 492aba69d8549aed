"""What a search agent pays: bytes per env and per state, time of a state copy
and of one resample_hidden, measured at mid-game positions of random play."""

from __future__ import annotations

import pickle
import time
import tracemalloc

import numpy as np

import baralho


def mid_game_states(env_id: str, config: dict, count: int = 20, seed: int = 0) -> list:
    game = baralho.make(env_id, **config).unwrapped.game
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        s = game.new_state(rng)
        trace = []
        while not game.is_over(s):
            trace.append(s.copy())
            legal = np.flatnonzero(game.legal_mask(s))
            game.apply(s, int(legal[rng.integers(len(legal))]))
        states.append(trace[len(trace) // 2])
    return states


def measure(env_id: str, config: dict) -> dict:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    env = baralho.make(env_id, **config)
    env.reset(seed=0)
    env_bytes = tracemalloc.get_traced_memory()[0] - before
    game = env.unwrapped.game
    states = mid_game_states(env_id, config)
    before = tracemalloc.get_traced_memory()[0]
    copies = [s.copy() for s in states]
    state_bytes = (tracemalloc.get_traced_memory()[0] - before) / len(copies)
    tracemalloc.stop()
    del copies
    rng = np.random.default_rng(0)
    n = 200
    t = time.perf_counter()
    for k in range(n):
        states[k % len(states)].copy()
    copy_us = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for k in range(n):
        s = states[k % len(states)]
        game.resample_hidden(s, game.current_player(s), rng)
    resample_us = (time.perf_counter() - t) / n * 1e6
    pickled = np.mean([len(pickle.dumps(s)) for s in states])
    return dict(env=env_id, config=config, env_bytes=env_bytes, state_bytes=state_bytes,
                pickled_bytes=float(pickled), copy_us=copy_us, resample_us=resample_us)


def ismcts_sims_per_second(env_id: str, config: dict, engine: str, seconds: float = 1.0) -> float:
    """Plain ISMCTS (random rollouts) simulations per second from the first decision of a
    seeded game, on ``engine`` ("reference" or "compiled"): what a search agent gains from
    the compiled engine (its copy, resample, mask and apply on every simulation)."""
    from baralho.agents.ismcts import ISMCTSAgent

    env = baralho.make(env_id, engine=engine, **config)
    env.reset(seed=0)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    seat = game.current_player(state)
    agent = ISMCTSAgent(simulations=4, seed=0)
    agent.search(game, state, seat)                  # warm-up (numba dispatch, caches)
    sims, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        agent.search(game, state, seat)
        sims += 4
    return sims / (time.perf_counter() - start)
