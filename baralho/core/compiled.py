"""The Game protocol over a compiled engine (a game's ``fast.py``), for the AEC env.

``baralho.make(env_id)`` runs on the compiled engine where a game has one
(``engine="reference"`` selects the Python one). :class:`CompiledGame` plays
one game through the compiled functions on the hot path (apply, mask,
observe) and hands everything else (text, resampling, invariants, returns) to
the reference engine through an exact state conversion, so both engines give
the same env: same deal from the same seed (the deal is the reference's), same
masks, observations and rewards (``tests/vector`` checks it move for move).

A compiled game module provides: ``STATE`` (the reference state class),
``new_records(game, count)``, ``to_record(record, state)``,
``from_record(record, STATE)``, ``obs_offsets(game)``, and the compiled entry
points ``apply_one(records, action, mask, rewards) -> player``,
``observe_one(records, offsets, player, out)`` and ``mask_one(records, mask)``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np

from baralho.core.config import ConfigError

ENGINES = ("compiled", "reference")


class CompiledState:
    """One game as a one-record array, with its current mask and player to act."""

    __slots__ = ("records", "mask", "player")

    def __init__(self, records: np.ndarray, mask: np.ndarray, player: int) -> None:
        self.records, self.mask, self.player = records, mask, player

    def copy(self) -> CompiledState:
        return CompiledState(self.records.copy(), self.mask, self.player)   # masks are never written

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CompiledState) and self.player == other.player
                and self.records.tobytes() == other.records.tobytes())

    def __reduce__(self):
        # as bytes: equal states pickle to equal bytes (test fingerprints rely on it)
        return _restore, (self.records.dtype.descr, self.records.tobytes(), self.mask.tobytes(), self.player)


def _restore(descr, records: bytes, mask: bytes, player: int) -> CompiledState:
    m = np.frombuffer(mask, np.int8).copy()
    m.flags.writeable = False
    return CompiledState(np.frombuffer(records, np.dtype(descr)).copy(), m, player)


class CompiledGame:
    """The reference game's protocol, stepped by its compiled engine."""

    engine = "compiled"

    def __init__(self, reference: Any, fast: ModuleType) -> None:
        self.reference, self.fast = reference, fast
        for name in ("env_id", "config", "num_players", "num_actions", "obs_layout", "max_decisions"):
            setattr(self, name, getattr(reference, name))
        self.ansi_rules = getattr(reference, "ansi_rules", ())
        if hasattr(reference, "render_image"):
            self.render_image = lambda s, player=None: reference.render_image(self.to_reference(s), player)
        self._offsets = fast.obs_offsets(reference)
        # float64: the AEC env hands out the reference's exact rewards (Scala 40's -penalty/100 is not a float32)
        self._rewards = np.zeros(self.num_players, np.float64)

    # ------------------------------------------------------------ conversion
    def from_reference(self, ref_state) -> CompiledState:
        records = self.fast.new_records(self.reference, 1)
        self.fast.to_record(records[0], ref_state)
        mask = np.zeros(self.num_actions, np.int8)
        self.fast.mask_one(records, mask)
        mask.flags.writeable = False
        return CompiledState(records, mask, self.reference.current_player(ref_state))

    def to_reference(self, s: CompiledState):
        return self.fast.from_record(s.records[0], self.fast.STATE)

    # ------------------------------------------------------------ hot path
    def new_state(self, rng: np.random.Generator) -> CompiledState:
        return self.from_reference(self.reference.new_state(rng))

    def current_player(self, s: CompiledState) -> int:
        return s.player

    def is_over(self, s: CompiledState) -> bool:
        return s.player < 0

    def legal_mask(self, s: CompiledState) -> np.ndarray:
        return s.mask

    def apply(self, s: CompiledState, action: int) -> list[float] | None:
        mask = np.empty(self.num_actions, np.int8)
        rewards = self._rewards
        s.player = self.fast.apply_one(s.records, action, mask, rewards)
        mask.flags.writeable = False
        s.mask = mask
        return rewards.tolist() if s.player < 0 or rewards.any() else None

    def observe(self, s: CompiledState, player: int) -> np.ndarray:
        out = np.empty(self.obs_layout.size, self.obs_layout.dtype)
        self.fast.observe_one(s.records, self._offsets, player, out)
        return out

    # ------------------------------------------------------------ through the reference
    def returns(self, s: CompiledState) -> np.ndarray:
        return self.reference.returns(self.to_reference(s))

    def resample_hidden(self, s: CompiledState, player: int, rng: np.random.Generator) -> CompiledState:
        return self.from_reference(self.reference.resample_hidden(self.to_reference(s), player, rng))

    def has_hidden(self, s: CompiledState, player: int) -> bool:
        return self.reference.has_hidden(self.to_reference(s), player)

    def describe_action(self, s: CompiledState, action: int) -> str:
        return self.reference.describe_action(self.to_reference(s), action)

    def render_text(self, s: CompiledState, player: int | None = None) -> str:
        return self.reference.render_text(self.to_reference(s), player)

    def check_invariants(self, s: CompiledState) -> None:
        ref = self.to_reference(s)
        self.reference.check_invariants(ref)
        assert self.reference.current_player(ref) == s.player, "compiled player to act drifted"
        assert np.array_equal(self.reference.legal_mask(ref), s.mask), "compiled mask drifted"


def compiled_module(env_id: str) -> ModuleType | None:
    """The game's compiled engine module, or None when it has none yet."""
    from baralho.vector import COMPILED

    name = COMPILED.get(env_id)
    return importlib.import_module(name) if name else None


def select_engine(reference: Any, engine: str):
    """``reference`` itself, or the compiled game over it (``engine`` from the env's options)."""
    if engine not in ENGINES:
        raise ConfigError(f"{reference.env_id}: engine={engine!r} must be one of {list(ENGINES)}")
    if engine == "reference":
        return reference
    fast = compiled_module(reference.env_id)
    if fast is None:
        raise ConfigError(f"{reference.env_id}: no compiled engine yet; use engine='reference'")
    return CompiledGame(reference, fast)


def default_engine(env_id: str) -> str:
    from baralho.vector import COMPILED

    return "compiled" if env_id in COMPILED else "reference"
