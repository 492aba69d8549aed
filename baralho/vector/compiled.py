"""The batched contract over a game's compiled engine: one call of the ``batch`` kernel that
``core/batch.py`` builds from the game's rules (its ``fast.py``) per step."""

from __future__ import annotations

import numba as nb
import numpy as np

from baralho.core import batch
from baralho.core.compiled import RecordLists, record_lists
from baralho.vector.base import VectorEnv


class CompiledVector(VectorEnv):
    engine = "compiled"

    def __init__(self, game, num_envs: int, seed: int | None, threads: int, copy: bool = True) -> None:
        from baralho.envs import game_module

        super().__init__(game, num_envs, seed, threads, copy)
        self.fast = fast = game_module(game.env_id, "fast")
        self._records = fast.new_records(game, num_envs)
        self._offsets = fast.obs_offsets(game)
        self._tables = batch.tables(fast, game)
        self._seed_streams(seed)
        kernels = batch.kernels(fast)
        self._kernel = kernels.batch if threads == 1 else kernels.batch_threads
        # the last legal masks, private: every action is checked against them in the kernel, so an
        # edited copy of a mask the caller holds changes nothing
        self._legal = np.zeros((num_envs, self.num_actions), np.int8)
        self._everyone = np.ones(num_envs, np.bool_)
        self._no_actions = np.zeros(num_envs, np.int64)
        self._buffers = None                 # copy=False: the arrays every call returns, reused
        self._ready = False
        self._lists = None                   # the records as Python values, for holds (made at first use)

    def _seed_streams(self, seed: int | None) -> None:
        self._check_seed(seed)
        # one splitmix64 stream per env: the same seed, the same batch of games
        self._records["rng"] = np.random.SeedSequence(seed).generate_state(self.num_envs, np.uint64)

    def _outputs(self):
        """(obs, mask, seat, rewards, done): fresh arrays, or with copy=False the same ones each call."""
        if self._buffers is not None:
            return self._buffers
        B = self.num_envs
        out = (np.empty((B, self.obs_size), self.obs_dtype), np.empty((B, self.num_actions), np.int8),
               np.empty(B, np.int64), np.empty((B, self.num_players), np.float32), np.empty(B, np.bool_))
        if not self.copy:
            self._buffers = out
        return out

    def _run(self, mode: int, actions, active) -> tuple:
        obs, mask, seat, rewards, done = out = self._outputs()
        if self.threads > 1:
            nb.set_num_threads(min(self.threads, nb.config.NUMBA_NUM_THREADS))
        bad = self._kernel(self._records, self._tables, self._offsets, mode, actions, active, self._legal,
                           mask, obs, seat, rewards, done)
        if bad >= 0:
            raise self._illegal(bad, int(actions[bad]), self._legal[bad])
        return out

    def reset(self, seed: int | None = None):
        if seed is not None:
            self._seed_streams(seed)
        obs, mask, seat, _, _ = self._run(batch.RESET, self._no_actions, self._everyone)
        self._ready = True
        return obs, mask, seat

    def observe(self):
        self._check_reset()
        obs, mask, seat, _, _ = self._run(batch.OBSERVE, self._no_actions, self._everyone)
        return obs, mask, seat

    def step(self, actions, active=None):
        self._check_reset()
        on = self._everyone if active is None else self._active(active)
        a = self._actions(actions, on)
        return self._run(batch.STEP, a, on)

    def roots(self, rows) -> np.ndarray:
        """The records of envs ``rows`` (a copy): roots for the compiled searches (core/search.py,
        core/net_search.py), which read records, not states."""
        return self._records[np.asarray(rows, np.int64)]

    def get_state(self, i: int):
        self._check_reset()
        return self.fast.from_record(self._records[self._index(i)], self.fast.STATE, self.game)

    def set_state(self, i: int, state) -> None:
        """Load ``state`` into env ``i``: checked in full (``base.loadable_state``), written into a
        copy of the record and read back (every field must fit the record exactly), and only then
        copied in; a refused state leaves env ``i`` as it was."""
        self._check_reset()
        i = self._index(i)
        self._records[i] = self._record_of(i, self._loadable(i, state))
        self._run_one(i)

    def _record_of(self, i: int, state) -> np.ndarray:
        """Env ``i``'s record holding ``state`` (a checked reference state), written into a copy
        and read back: every field must fit the record exactly (a value too wide for its field
        would be cut in silence); its rng is env ``i``'s, so the env's stream goes on."""
        record = self._records[i:i + 1].copy()
        try:
            self.fast.to_record(record[0], state, self.game)
            same = getattr(self.fast, "same_state", None)
            fits = (same(record_lists(record[0]), state, self.game) if same is not None
                    else self.fast.from_record(record[0], self.fast.STATE, self.game) == state)
            why = ""
        except (ValueError, OverflowError, IndexError, TypeError) as err:
            fits, why = False, f" ({err})"
        if not fits:
            raise ValueError(f"{self.env_id}: set_state({i}, state): the state does not fit the compiled "
                             f"engine's record{why}; load a state from get_state(i) or game.new_state(rng)")
        return record[0]

    def _run_one(self, i: int) -> None:
        # env i's legal mask again (the batch kernel on that one env: its decision is rewritten)
        view = slice(i, i + 1)
        B = 1
        self._kernel(self._records[view], self._tables, self._offsets, batch.OBSERVE, self._no_actions[view],
                     self._everyone[view], self._legal[view], np.empty((B, self.num_actions), np.int8),
                     np.empty((B, self.obs_size), self.obs_dtype), np.empty(B, np.int64),
                     np.empty((B, self.num_players), np.float32), np.empty(B, np.bool_))

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
