"""The batched contract over a game's compiled engine (its ``fast.py``, numba)."""

from __future__ import annotations

import numba as nb
import numpy as np

from baralho.core.compiled import RecordLists, fast_tables
from baralho.vector.base import VectorEnv


@nb.njit(cache=True, nogil=True)
def first_illegal(masks, actions) -> int:
    """The first env whose action is outside its mask, or -1."""
    num_actions = masks.shape[1]
    for i in range(len(actions)):
        a = actions[i]
        if a < 0 or a >= num_actions or masks[i, a] == 0:
            return i
    return -1


class CompiledVector(VectorEnv):
    engine = "compiled"

    def __init__(self, game, num_envs: int, seed: int | None, threads: int) -> None:
        from baralho.envs import game_module

        super().__init__(game, num_envs, seed, threads)
        self.fast = fast = game_module(game.env_id, "fast")
        self._records = fast.new_records(game, num_envs)
        self._offsets = fast.obs_offsets(game)
        self._tables = fast_tables(fast, game)             # passed last to every kernel
        self._seed_streams(seed)
        self._mask = np.zeros((num_envs, self.num_actions), np.int8)   # private: the legality check
        self._step = fast.step_batch if threads == 1 else fast.step_batch_threads
        self._ready = False
        self._lists = None                   # the records as Python values, for holds (made at first use)

    def _seed_streams(self, seed: int | None) -> None:
        # one splitmix64 stream per env: the same seed, the same batch of games
        self._records["rng"] = np.random.SeedSequence(seed).generate_state(self.num_envs, np.uint64)

    def _outputs(self):
        return (np.empty((self.num_envs, self.obs_size), self.obs_dtype),
                np.empty((self.num_envs, self.num_actions), np.int8), np.empty(self.num_envs, np.int64))

    def _threads(self):
        if self.threads > 1:
            nb.set_num_threads(min(self.threads, nb.config.NUMBA_NUM_THREADS))

    def reset(self, seed: int | None = None):
        if seed is not None:
            self._seed_streams(seed)
        obs, mask, seat = self._outputs()
        self.fast.reset_batch(self._records, self._offsets, mask, obs, seat, *self._tables)
        self._mask[:] = mask
        self._ready = True
        return obs, mask, seat

    def observe(self):
        self._check_reset()
        obs, mask, seat = self._outputs()
        self.fast.observe_batch(self._records, self._offsets, mask, obs, seat, *self._tables)
        return obs, mask, seat

    def step(self, actions, active=None):
        self._check_reset()
        a = self._actions(actions)
        on = self._active(active)
        if active is not None:      # the envs left out play their first legal move, then are put back
            a = np.where(on, a, self._mask.argmax(1))
            kept = self._records[~on].copy()
        bad = first_illegal(self._mask, a)
        if bad >= 0:
            raise self._illegal(bad, int(a[bad]), self._mask[bad])
        obs, mask, seat = self._outputs()
        rewards = np.empty((self.num_envs, self.num_players), np.float32)
        done = np.empty(self.num_envs, np.bool_)
        self._threads()
        self._step(self._records, self._offsets, a, mask, obs, seat, rewards, done, *self._tables)
        if active is not None and not on.all():
            self._records[~on] = kept
            obs, mask, seat = self.observe()
            rewards[~on] = 0
            done[~on] = False
        self._mask[:] = mask
        return obs, mask, seat, rewards, done

    def get_state(self, i: int):
        self._check_reset()
        return self.fast.from_record(self._records[self._index(i)], self.fast.STATE, self.game)

    def set_state(self, i: int, state) -> None:
        self._check_reset()
        i = self._index(i)
        self.fast.to_record(self._records[i], state, self.game)
        self.fast.mask_one(self._records[i:i + 1], self._mask[i], *self._tables)

    def holds(self, i: int, state) -> bool:
        """Whether env ``i`` holds exactly ``state`` (for the differential harness): the fast
        module's cheap ``same_state(fields, state, game)`` over the record's fields as Python
        values (:class:`RecordLists`) where it has one, else ``get_state(i) == state``."""
        same = getattr(self.fast, "same_state", None)
        if same is None:
            return self.get_state(i) == state
        if self._lists is None:
            self._lists = RecordLists(self._records)
        return same(self._lists(self._index(i)), state, self.game)

    def memory_per_env(self) -> int:
        """Bytes of state per env (the record), plus its mask row."""
        return self._records.itemsize + self.num_actions
