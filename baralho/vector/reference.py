"""The batched contract over the reference engine: a Python loop, one game at a time.

Slow (the rules engine's speed) but available for every game, so a trainer or a
test written against ``baralho.vector`` runs on a game whose compiled engine is
not there yet; it is also the compiled engines' yardstick."""

from __future__ import annotations

import numpy as np

from baralho.vector.base import VectorEnv


class ReferenceVector(VectorEnv):
    engine = "reference"

    def __init__(self, game, num_envs: int, seed: int | None, threads: int, copy: bool = True) -> None:
        super().__init__(game, num_envs, seed, threads, copy)     # copy=False: fresh arrays all the same
        self._seed_streams(seed)
        self._ready = False

    def _seed_streams(self, seed: int | None) -> None:
        self._check_seed(seed)
        # one independent stream per env: the same seed, the same batch of games
        self._rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(self.num_envs)]

    def reset(self, seed: int | None = None):
        if seed is not None:
            self._seed_streams(seed)
        self._states = [self.game.new_state(rng) for rng in self._rngs]
        self._ready = True
        return self.observe()

    def observe(self):
        self._check_reset()
        game = self.game
        obs = np.empty((self.num_envs, self.obs_size), self.obs_dtype)
        mask = np.empty((self.num_envs, self.num_actions), np.int8)
        seat = np.empty(self.num_envs, np.int64)
        for i, s in enumerate(self._states):
            seat[i] = p = game.current_player(s)
            mask[i] = game.legal_mask(s)
            obs[i] = game.observe(s, p)
        return obs, mask, seat

    def step(self, actions, active=None):
        self._check_reset()
        on = self._active(active)
        a = self._actions(actions, on)
        game = self.game
        for i, s in enumerate(self._states):       # check every action before applying any
            if not on[i]:
                continue
            mask = game.legal_mask(s)
            if not (0 <= a[i] < self.num_actions and mask[a[i]]):
                raise self._illegal(i, int(a[i]), mask)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        done = np.zeros(self.num_envs, bool)
        for i, s in enumerate(self._states):
            if not on[i]:
                continue
            r = game.apply(s, int(a[i]))
            if r is not None:
                rewards[i] = r
            if game.is_over(s):
                done[i] = True
                self._states[i] = game.new_state(self._rngs[i])
        return (*self.observe(), rewards, done)

    def get_state(self, i: int):
        self._check_reset()
        return self._states[self._index(i)].copy()

    def set_state(self, i: int, state) -> None:
        """Load a checked copy of ``state`` into env ``i`` (``base.loadable_state``); a refused
        state leaves env ``i`` as it was."""
        self._check_reset()
        i = self._index(i)
        self._states[i] = self._loadable(i, state)
