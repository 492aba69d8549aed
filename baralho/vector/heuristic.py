"""The game's heuristic for a whole batch: one call decides every env that asks.

    heuristic = BatchHeuristic(venv.game, num_envs=B, seed=0)     # every env: its own tie noise
    actions = heuristic.act(envs, obs, mask)    # the heuristic's move in envs (rows of the batch's arrays)
    heuristic.forget(envs)                      # another move was played there: plan afresh
    heuristic.reset(envs, seeds)                # new games in envs

Each game's ``heuristic.py`` is the heuristic as a person reads it: one Python call per
decision (70-130 µs, measured), far above a compiled engine's step (2-5 µs). Its compiled
twin, the game's ``fast_heuristic.py`` (numba), makes the same move from the same
observation, mask, plan and tie noise (``tests/vector/test_heuristics.py`` plays both in
lockstep), for every env of a batch in one call. A game without one runs a loop over
``heuristic.py`` instances behind the same interface (``engine="reference"`` forces it).

Env ``i`` of a batch plays as ``heuristic_for(env_id, game, seed=seeds[i])`` would: the
tie noise of both is the PCG64 stream ``chance.seeded(seed)``, and a plan kept across a
turn's decisions (Scala 40's) is per env. A compiled module provides:

* ``memory_dtype(game)``: one env's record: ``rng`` (uint64[6], a ``fast_chance``
  generator) and the game's plan fields; ``plan_len`` (if any) is what ``forget`` clears;
* ``heuristic_tables(game)``: a tuple of arrays and numbers (observation offsets, card
  data) passed last to the kernel;
* ``act_batch(memory, envs, obs, mask, out, *tables)`` (``@njit``): ``out[k]`` is env
  ``envs[k]``'s move, read from row ``envs[k]`` of ``obs`` and ``mask``.
"""

from __future__ import annotations

import numpy as np

from baralho.core.chance import pcg64_state
from baralho.envs import game_module, has_module

_M64 = (1 << 64) - 1


def generator_words(seed: int) -> np.ndarray:
    """``chance.pcg64_state(seed, 0)`` as a ``fast_chance`` generator (uint64[6])."""
    st = pcg64_state(int(seed) & _M64, 0)["state"]
    state, inc = st["state"], st["inc"]
    return np.array([state >> 64, state & _M64, inc >> 64, inc & _M64, 0, 0], np.uint64)


class BatchHeuristic:
    """The heuristic of ``game`` in each of ``num_envs`` envs (see the module docstring)."""

    def __init__(self, game, num_envs: int, seed: int = 0, engine: str | None = None) -> None:
        self.game = game
        self.env_id = game.env_id
        self.num_envs = num_envs
        compiled = has_module(self.env_id, "fast_heuristic")
        if engine is None:
            engine = "compiled" if compiled else "reference"
        if engine == "compiled" and not compiled:
            raise ValueError(f"{self.env_id}: no compiled heuristic; use engine='reference'")
        if engine not in ("compiled", "reference"):
            raise ValueError(f"engine={engine!r} must be 'compiled' or 'reference'")
        self.engine = engine
        if engine == "compiled":
            self.fast = game_module(self.env_id, "fast_heuristic")
            self.memory = np.zeros(num_envs, self.fast.memory_dtype(game))
            self._tables = tuple(self.fast.heuristic_tables(game))
        else:
            from baralho.agents.base import heuristic_for

            self.players = [heuristic_for(self.env_id, game, seed=0) for _ in range(num_envs)]
        self.reset(np.arange(num_envs), seed + np.arange(num_envs))

    def reset(self, envs, seeds) -> None:
        """New games in ``envs``: env ``envs[k]`` plays as ``heuristic_for(..., seed=seeds[k])``."""
        envs = self._envs(envs, "reset")
        seeds = [int(s) for s in np.broadcast_to(np.asarray(seeds), envs.shape)]
        if self.engine == "compiled":
            for b, s in zip(envs.tolist(), seeds):
                self.memory[b] = 0
                self.memory["rng"][b] = generator_words(s)
        else:
            for b, s in zip(envs.tolist(), seeds):
                self.players[b].reset(seed=s)
                forget(self.players[b])

    def act(self, envs, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The heuristic's move in each env of ``envs``, from rows ``envs`` of the batch's
        ``obs`` and ``mask`` (the vector env's arrays, whole)."""
        envs, obs, mask = self._envs(envs, "act"), *self._rows(obs, mask)
        out = np.empty(len(envs), np.int64)
        if not len(envs):
            return out
        if self.engine == "compiled":
            self.fast.act_batch(self.memory, envs, obs, mask, out, *self._tables)
        else:
            for k, b in enumerate(envs.tolist()):
                out[k] = self.players[b].act({"observation": obs[b], "action_mask": mask[b]}, "")
        return out

    def forget(self, envs) -> None:
        """Another move than the heuristic's was played in ``envs``: a plan kept across the
        turn's decisions no longer fits the position, so it plans afresh at its next call."""
        envs = self._envs(envs, "forget")
        if self.engine == "compiled":
            if "plan_len" in self.memory.dtype.names:
                self.memory["plan_len"][envs] = 0
        else:
            for b in envs.tolist():
                forget(self.players[b])

    # the compiled kernel indexes its memory and the batch's rows with ``envs`` and reads each
    # observation at the layout's offsets, without bounds checks: checked here, else an index
    # past the batch read (and wrote) outside the arrays, and a negative one wrapped in silence
    def _envs(self, envs, where: str) -> np.ndarray:
        """``envs`` as int64 env indices, each in 0..num_envs-1, else a ValueError naming it."""
        e = np.asarray(envs)
        if e.ndim != 1 or not (e.dtype.kind in "iu" or e.size == 0):
            raise ValueError(f"{self.env_id}: BatchHeuristic.{where}(envs, ...): envs must be a 1-d array of env "
                             f"indices (integers, not a bool mask: np.flatnonzero(mask) gives them), got "
                             f"{e.dtype} of shape {e.shape}")
        e = e.astype(np.int64)
        bad = e[(e < 0) | (e >= self.num_envs)]
        if bad.size:
            raise ValueError(f"{self.env_id}: BatchHeuristic.{where}(envs, ...): env index {int(bad[0])} is not in "
                             f"0..{self.num_envs - 1} (this heuristic was made for num_envs={self.num_envs})")
        return e

    def _rows(self, obs, mask) -> tuple[np.ndarray, np.ndarray]:
        """``obs`` and ``mask`` as the vector env's arrays (one row per env, the layout's width),
        in the dtypes the kernel was compiled for; else a ValueError naming the array."""
        out = []
        for name, a, width, dtype in (("obs", obs, self.game.obs_layout.size, self.game.obs_layout.dtype),
                                      ("mask", mask, self.game.num_actions, np.int8)):
            a = np.asarray(a)
            if a.shape != (self.num_envs, width) or a.dtype.kind not in "biu":
                raise ValueError(f"{self.env_id}: BatchHeuristic.act: {name} must be the vector env's integer "
                                 f"array of shape ({self.num_envs}, {width}) (num_envs, the layout's width), "
                                 f"got {a.dtype} of shape {a.shape}")
            out.append(np.ascontiguousarray(a, dtype))
        return out[0], out[1]


def forget(heuristic) -> None:
    """A heuristic.py instance's plan for the turn (Scala 40 keeps one), dropped."""
    if hasattr(heuristic, "plan"):
        heuristic.plan = []
