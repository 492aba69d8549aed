"""The batched contract every engine keeps (see ``baralho.vector``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class IllegalActionError(ValueError):
    """An action of a batch is not legal in its env; no env was stepped."""


class VectorEnv:
    """``num_envs`` games of one env and config; subclasses are the engines."""

    engine: str

    def __init__(self, game: Any, num_envs: int, seed: int | None, threads: int, copy: bool = True) -> None:
        self.game = game                         # the reference game (its Game protocol)
        self.env_id = game.env_id
        self.num_envs = num_envs
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.threads = threads
        self.copy = copy                         # False: every call may return the same arrays
        self.obs_size = game.obs_layout.size
        self.obs_dtype = game.obs_layout.dtype
        self.single_observation_space = game.obs_layout.box()
        self.single_action_space = spaces.Discrete(game.num_actions)
        self._seed = seed

    # the contract ------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def step(self, actions, active=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Step every env (or only those where ``active`` is True: the others keep their
        decision, get zero rewards and ``done`` False; their actions are not read)."""
        raise NotImplementedError

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def get_state(self, i: int):
        raise NotImplementedError

    def set_state(self, i: int, state) -> None:
        raise NotImplementedError

    # shared checks -----------------------------------------------------------
    def _actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"{self.env_id}: actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"{self.env_id}: actions must be integers, got dtype {a.dtype}")
        # one array type for the kernels, whatever the caller's (strided, read-only, narrower
        # integers): numba compiles a kernel per array type
        a = np.ascontiguousarray(a, dtype=np.int64)
        return a if a.flags.writeable else a.copy()

    def _active(self, active) -> np.ndarray:
        if active is None:
            return np.ones(self.num_envs, bool)
        on = np.asarray(active)
        if on.shape != (self.num_envs,) or on.dtype != np.bool_:
            raise ValueError(f"{self.env_id}: active must be a bool array of shape ({self.num_envs},)")
        return on

    def _index(self, i: int) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"{self.env_id}: env index {i!r} is not in 0..{self.num_envs - 1}")
        return int(i)

    def _illegal(self, i: int, action: int, mask: np.ndarray) -> IllegalActionError:
        state = self.get_state(i)
        legal = np.flatnonzero(mask)
        shown = ", ".join(f"{b} ({self.game.describe_action(state, int(b))})" for b in legal[:24])
        more = f", … {len(legal) - 24} more" if len(legal) > 24 else ""
        what = (f" ({self.game.describe_action(state, action)})"
                if 0 <= action < self.num_actions else " (outside the action space)")
        return IllegalActionError(
            f"{self.env_id}: illegal action {action}{what} in env {i} "
            f"(seat {self.game.current_player(state)}); legal actions: {shown}{more}; no env was stepped")

    def _check_reset(self) -> None:
        if not getattr(self, "_ready", False):
            raise RuntimeError(f"{self.env_id}: call reset() before step() or observe()")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.env_id} num_envs={self.num_envs} threads={self.threads}>"
