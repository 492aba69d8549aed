"""Compile the compiled engines' kernels into numba's cache before the test workers start.

    python -m tests.numba_warm_up ENV_ID [ENV_ID ...]      # into $NUMBA_CACHE_DIR
    python -m tests.numba_warm_up roda_de_samba_v1/made_up  # that game on a made-up deck

Each pytest-xdist worker keeps its own numba cache (tests/conftest.py), so on an empty cache
each worker would compile every engine itself: about two minutes per worker of the same work
twice. Instead the controller runs this in two processes at once, each compiling half of the
engines into its own folder, and copies both folders into every worker's (while the workers
collect); the workers then load the kernels (about 1.5 s an engine). Whatever a test needs
that this does not reach is still compiled by the worker on first use, so a kernel left out
here costs time, never a failure.

What it plays is what the tests call: the batch entry points (reset, step, observe, both
state converters, ``holds``), the compiled heuristic, the AEC env and its compiled game (apply with and without
observing, copy, resample_hidden), for one config per game (one record layout serves every
config of a game) and Roda de Samba's made-up deck (another layout). Not the multi-threaded
step (``threads=2``): a test or two per game use it, so one worker compiles it, once."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np


def config(name: str, folder: str) -> tuple[str, dict]:
    """(env id, config) of ENV_ID, or of ``roda_de_samba_v1/made_up``: that game on the
    made-up deck of tests/roda_de_samba/made_up_deck.py, written into ``folder``."""
    import baralho

    env_id, _, deck = name.partition("/")
    first = dict(baralho.env_module(env_id).TEST_CONFIGS[0])
    if not deck:
        return env_id, first
    from tests.roda_de_samba.made_up_deck import write_made_up_deck

    return env_id, {**first, "deck": write_made_up_deck(Path(folder) / f"{deck}.json")}


def play(env_id: str, config: dict) -> None:
    import baralho
    import baralho.vector as bv
    from baralho.envs import has_module
    from baralho.vector.heuristic import BatchHeuristic

    rng = np.random.default_rng(0)
    venv = bv.make(env_id, num_envs=4, seed=0, **config)
    obs, mask, seat = venv.reset()
    heuristic = BatchHeuristic(venv.game, 4) if has_module(env_id, "fast_heuristic") else None
    for _ in range(20):
        if heuristic is not None:                      # the compiled heuristic (trainer, its tests)
            heuristic.act(np.arange(4), obs, mask)
        obs, mask, seat, rewards, done = venv.step((rng.random(mask.shape) * mask).argmax(1))
    venv.observe()
    venv.set_state(0, venv.get_state(1))
    venv.holds(0, venv.get_state(0))                   # the differential's every-step state check
    env = baralho.make(env_id, **config)
    env.reset(seed=0)
    game = env.unwrapped.game
    for agent in env.agent_iter(max_iter=40):
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    s = game.new_state(rng)
    game.resample_hidden(s.copy(), 0, rng)
    for _ in range(10):                                # apply without observing (search agents)
        if not game.is_over(s):
            game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))


def main(names: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            play(*config(name, folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
