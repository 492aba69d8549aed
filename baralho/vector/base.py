"""The batched contract every engine keeps (see ``baralho.vector``)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from gymnasium import spaces

from baralho.core.checks import StateError


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
    def _check_seed(self, seed) -> None:
        """None (fresh entropy) or one integer >= 0: numpy's SeedSequence message names no argument."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            from baralho.core.config import ConfigError

            raise ConfigError(f"{self.env_id}: seed={seed!r} must be None or an integer >= 0")

    def _actions(self, actions, on: np.ndarray) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"{self.env_id}: actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"{self.env_id}: actions must be integers, got dtype {a.dtype}")
        self._refuse_past_int64(a, on)
        # one array type for the kernels, whatever the caller's (strided, read-only, narrower
        # integers): numba compiles a kernel per array type
        a = np.ascontiguousarray(a, dtype=np.int64)
        return a if a.flags.writeable else a.copy()

    def _refuse_past_int64(self, a: np.ndarray, on: np.ndarray) -> None:
        """An active env's uint64 action above int64's range is illegal, reported as given (the
        cast to int64 would wrap 2**64 - 1 to -1, and the error would name -1)."""
        if a.dtype.kind == "u" and a.dtype.itemsize == 8:
            past = np.flatnonzero((a > np.iinfo(np.int64).max) & on)
            if past.size:
                i = int(past[0])
                raise self._illegal(i, int(a[i]), self.game.legal_mask(self.get_state(i)))

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

    def _loadable(self, i: int, state):
        """``state`` as a checked copy of a reference state of this env's game, to load into env
        ``i``; nothing is written before this returns (see :func:`loadable_state`)."""
        return loadable_state(self.game, state, f"set_state({i}, state)")

    def _check_reset(self) -> None:
        if not getattr(self, "_ready", False):
            raise RuntimeError(f"{self.env_id}: call reset() before step() or observe()")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.env_id} num_envs={self.num_envs} threads={self.threads}>"

def state_class(game) -> type:
    """The class of ``game``'s states (a reference game's): its compiled module's ``STATE`` where
    it has one, else the class of a deal."""
    from baralho.core.compiled import compiled_module

    fast = compiled_module(game)
    return fast.STATE if fast is not None else type(game.new_state(np.random.default_rng(0)))


def loadable_state(game, state, where: str = "state"):
    """A copy of ``state`` that an engine of ``game`` (a reference game: ``venv.game``) may load,
    checked in full first: nothing is written anywhere before it returns.

    * the AEC env's compiled state (``env.unwrapped.game_state`` on the compiled engine, a
      ``CompiledState``) is converted, when it is this game's record layout;
    * any other object than this game's state class is a ``TypeError``;
    * every field must have this config's shape and range (the game's
      ``checks.loadable_state``: a card id past the deck, a seat past the table, another player
      count), and the game's invariants must hold (every card in one place, scores that add up):
      else a ``ValueError`` naming the field; the state's derived caches are rebuilt;
    * a finished game is refused: a batch env always holds a game in progress (``step`` re-deals
      a finished one), so a finished one would have no legal action and wedge the batch."""
    from baralho.core.compiled import CompiledState

    env_id, cls = game.env_id, state_class(game)
    fix = (f"load a {cls.__name__} of this config ({_config_text(game)}) from get_state(i), game.new_state(rng) "
           f"or env.unwrapped.game_state of baralho.make({env_id!r}, ...)")
    if isinstance(state, CompiledState):
        state = _from_compiled(game, state, where, fix)
    if type(state) is not cls:
        raise TypeError(f"{env_id}: {where}: expected a {cls.__name__}, got {type(state).__name__}; {fix}")
    checks = importlib.import_module(type(game).__module__.rpartition(".")[0] + ".checks")
    try:
        copy = checks.loadable_state(game, state)
    except StateError as err:
        raise ValueError(f"{env_id}: {where}: {err}; {fix}") from None
    except Exception as err:       # noqa: BLE001 - a field of the wrong kind deeper down
        raise ValueError(f"{env_id}: {where}: a malformed state ({err!r}); {fix}") from None
    try:
        game.check_invariants(copy)
    except Exception as err:       # noqa: BLE001 - AssertionError, or what a broken state makes them raise
        raise ValueError(f"{env_id}: {where}: the state breaks the rules' invariants "
                         f"({str(err) or type(err).__name__}); {fix}") from None
    if game.is_over(copy):
        raise ValueError(f"{env_id}: {where}: the game in this state is over; a batch env always holds a game "
                         f"in progress (step re-deals a finished one), so load a position before its end")
    return copy


def _from_compiled(game, state, where: str, fix: str):
    """The reference state of the AEC env's compiled ``state``, when it is one of ``game``'s config."""
    from baralho.core.compiled import compiled_module

    env_id = game.env_id
    if state.config != game.config:
        other = "config" if type(state.config) is type(game.config) else "game"
        raise ValueError(f"{env_id}: {where}: a compiled state of another {other} ({state.config}); {fix}")
    if state.records is None:              # played by the reference engine while the kernel compiles
        return state.ref
    fast = compiled_module(game)
    records = state.records
    if not (isinstance(records, np.ndarray) and records.shape == (1,)
            and records.dtype == fast.new_records(game, 1).dtype):
        raise ValueError(f"{env_id}: {where}: a compiled state of another game or deck; {fix}")
    try:
        return fast.from_record(records[0], fast.STATE, game)
    except Exception as err:   # noqa: BLE001 - another config's record: say so, whatever broke
        raise ValueError(f"{env_id}: {where}: a compiled state of another config ({err!r}); {fix}") from None


def _config_text(game) -> str:
    import dataclasses

    config = game.config
    if dataclasses.is_dataclass(config):
        return ", ".join(f"{f.name}={getattr(config, f.name)!r}" for f in dataclasses.fields(config))
    return repr(config)
