"""The Game protocol over a compiled engine (a game's ``fast.py``), for the AEC env.

``baralho.make(env_id)`` runs on the compiled engine where a game has one
(``engine="reference"`` selects the Python one). :class:`CompiledGame` plays
one game through the compiled functions on the hot path (apply, mask,
observe) and hands everything else (text, resampling, invariants, returns) to
the reference engine through an exact state conversion, so both engines give
the same env: same deal from the same seed (the deal is the reference's), same
masks, observations and rewards (``tests/vector`` checks it move for move).

A compiled game module (its ``fast.py``) provides its rules as the primitives of
``core/batch.py`` (which builds the kernel this class calls) and its record's conversion:
``STATE`` (the reference state class), ``new_records(game, count)``, ``to_record(record,
state, game)``, ``from_record(record, STATE, game)``, ``obs_offsets(game)``, optionally
``tables(game)`` (its data tables) and ``new_state_draws(game, rng)`` with ``deal_from``
(the reference's deal from its draws, laid out by the compiled engine: the same game from
the same seed; without them a deal is the reference's, converted).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import json
import os
import pickle
import subprocess
import sys
from types import ModuleType
from typing import Any

import numpy as np

from baralho.core import batch
from baralho.core.config import ConfigError
from baralho.core.jit import is_cached, jit

ENGINES = ("compiled", "reference")
_NO_LEGAL = np.zeros(1, np.int8)    # the legal-mask argument of a kernel call that checks no action
_NO_LEGAL.flags.writeable = False   # as every state's mask (one compiled version for both)


def copy_records(records: np.ndarray) -> np.ndarray:
    """A copy of a record array through its bytes: ``records.copy()`` walks a structured dtype
    field by field (66 us for a Scala 40 record, measured), this is one memcpy (1.5 us)."""
    return np.ndarray(records.shape, records.dtype, bytearray(records.tobytes()))


class RecordLists:
    """Each record of a batch as a dict of its fields' Python values (``tolist()`` of each), for
    the differential harness's every-step state check (a fast module's ``same_state``).

    Converting a whole record costs ~15 ns per number (35 us for a Roda de Samba record), and a
    step changes a few of its fields: each env's last bytes and values are kept, and only the
    fields whose bytes differ from the last call's are converted again (exact: a field's value
    is a function of its bytes). The values are shared with later calls: read them, never
    change them."""

    def __init__(self, records: np.ndarray) -> None:
        dtype = records.dtype
        self.names = dtype.names
        self._bytes = records.view(np.uint8).reshape(len(records), dtype.itemsize)
        self._last = np.empty_like(self._bytes)
        self._starts = np.array([dtype.fields[n][1] for n in self.names])
        order = np.argsort(self._starts)             # fields by offset (_changed_fields walks them so)
        self._starts, self._order = self._starts[order], [self.names[k] for k in order]
        assert self._starts[0] == 0 and records.dtype.itemsize == sum(dtype.fields[n][0].itemsize for n in self.names)
        self._views = {n: records[n] for n in self.names}
        self._values: list[dict | None] = [None] * len(records)
        self._changed = np.empty(len(self.names), np.int64)

    def __call__(self, i: int) -> dict:
        values = self._values[i]
        if values is None:
            self._last[i] = self._bytes[i]
            changed = self._order
            values = self._values[i] = {}
        else:
            count = _changed_fields(self._bytes[i], self._last[i], self._starts, self._changed)
            if not count:
                return values
            order = self._order
            changed = [order[k] for k in self._changed[:count].tolist()]
        views = self._views
        for name in changed:
            values[name] = views[name][i].tolist()
        return values


@jit(entry=True)
def _changed_fields(now, last, starts, out) -> int:
    """The fields (by their start offsets, ascending) whose bytes differ between ``now`` and
    ``last``, into ``out``; returns their count and copies ``now`` into ``last``."""
    count = 0
    for k in range(len(starts)):
        end = starts[k + 1] if k + 1 < len(starts) else len(now)
        differs = False
        for j in range(starts[k], end):
            if now[j] != last[j]:
                differs = True
                last[j] = now[j]
        if differs:
            out[count] = k
            count += 1
    return count


def record_lists(record) -> dict:
    """One record's fields as Python values, as :class:`RecordLists` gives them (uncached: tests)."""
    return {n: v.tolist() if isinstance(v, np.ndarray) else v for n, v in zip(record.dtype.names, record.item())}


class CompiledState:
    """One game as a one-record array, with its current mask and player to act, the
    observation of that player that the last step wrote (handed out once, then forgotten),
    and the config of the game that made it (a game refuses another config's state: its
    kernel would read it with this config's tables).

    While the engine's kernel is still compiling in the background (first use: see
    :class:`CompiledGame`), the game is played by the reference engine: ``records`` is None and
    ``ref`` holds the reference state, until the kernel is ready and the state is converted."""

    __slots__ = ("records", "mask", "player", "obs", "ref", "config")

    def __init__(self, records: np.ndarray | None, mask: np.ndarray, player: int, obs: np.ndarray | None = None,
                 ref=None, config: Any = None) -> None:
        self.records, self.mask, self.player, self.obs, self.ref = records, mask, player, obs, ref
        self.config = config

    def copy(self) -> CompiledState:
        # masks are never written; the observation is not shared (each is handed out once)
        if self.records is None:
            return CompiledState(None, self.mask, self.player, ref=self.ref.copy(), config=self.config)
        return CompiledState(copy_records(self.records), self.mask, self.player, config=self.config)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompiledState) or self.player != other.player:
            return False
        if self.records is None or other.records is None:
            return self.records is other.records and self.ref == other.ref
        return self.records.tobytes() == other.records.tobytes()

    def __reduce__(self):
        # the config as its own pickle: pickled in place, its strings could be memoised as the
        # record's field names ('match') in one state and not in its unpickled copy
        config = pickle.dumps(self.config, pickle.HIGHEST_PROTOCOL)
        if self.records is None:
            return _restore_warm, (self.mask, self.player, self.ref, config)
        # as bytes: equal states pickle to equal bytes (test fingerprints rely on it)
        return _restore, (_descr(self.records.dtype), self.records.tobytes(), self.mask.tobytes(), self.player,
                          config)


@functools.lru_cache(maxsize=64)
def _descr(dtype: np.dtype) -> list:
    # dtype.descr walks the structured dtype each time (~1 ms for a Roda de Samba record)
    return dtype.descr


@functools.lru_cache(maxsize=64)
def _config(raw: bytes) -> Any:
    # one object per config (configs are frozen): a game then knows its own states' config by `is`
    return pickle.loads(raw)


def _restore(descr, records: bytes, mask: bytes, player: int, config: bytes) -> CompiledState:
    m = np.frombuffer(mask, np.int8).copy()
    m.flags.writeable = False
    return CompiledState(np.frombuffer(records, np.dtype(descr)).copy(), m, player, config=_config(config))


def _restore_warm(mask: np.ndarray, player: int, ref: Any, config: bytes) -> CompiledState:
    return CompiledState(None, mask, player, ref=ref, config=_config(config))


class CompiledGame:
    """The reference game's protocol, stepped by its compiled engine (one call of the
    ``one`` kernel of ``core/batch.py`` per step).

    First use: when the kernel is not in numba's cache yet (a compile of 3-15 s), it compiles
    in a background process and the games dealt meanwhile are played by the reference engine
    (their ``CompiledState`` holds a reference state); once the kernel is cached, each such game
    is converted at its next move and goes on compiled. The two engines play the same game move
    for move (the differential tests), so the switch changes nothing but speed. A line on stderr
    says so. ``BARALHO_COMPILE=foreground`` compiles in the process instead, before the first move.
    """

    engine = "compiled"

    def __init__(self, reference: Any, fast: ModuleType) -> None:
        self.reference, self.fast = reference, fast
        for name in ("env_id", "config", "num_players", "num_actions", "obs_layout", "max_decisions"):
            setattr(self, name, getattr(reference, name))
        self.ansi_rules = getattr(reference, "ansi_rules", ())
        if hasattr(reference, "render_image"):
            self.render_image = lambda s, player=None: reference.render_image(self.to_reference(s), player)
        self._offsets = fast.obs_offsets(reference)
        self._tables = batch.tables(fast, reference)
        self._rewards = np.zeros(self.num_players, np.float64)   # as the reference's: -1/3 is no float32
        self._obs_size, self._obs_dtype = self.obs_layout.size, self.obs_layout.dtype
        self._blank = fast.new_records(reference, 1)    # the config's empty record, copied per deal
        self._described = None                          # (record bytes, reference state): describe_action
        self._draws = getattr(fast, "new_state_draws", None)
        self._no_draws = np.zeros(1, np.int64)
        self._no_obs = np.zeros(1, self._obs_dtype)     # the outputs of a call that writes none
        self._no_mask = np.zeros(1, np.int8)
        self._kernel = batch.kernels(fast).one
        self._entry = None                              # the compiled kernel's entry point, once compiled
        self._compiling = _compile_in_background(self)  # the background compile (first use), or None

    def _sample(self) -> tuple:
        """Arguments of the types every call of the kernel has (for the cache lookup)."""
        return (self._blank, self._tables, 0, 0, 0, _NO_LEGAL, self._offsets, self._no_mask, self._rewards,
                self._no_obs, self._no_draws)

    def _ready(self) -> bool:
        """Whether the kernel can run (False while its background compile goes on)."""
        process = self._compiling
        if process is None:
            return True
        if process.poll() is None:
            return False
        self._compiling = None
        if process.returncode != 0:
            print(f"baralho: the background compile of the {self._kernel.what} failed (exit {process.returncode}); "
                  f"compiling it here", file=sys.stderr, flush=True)
        return True

    def _warm(self, ref) -> CompiledState:
        """A game on the reference engine while the kernel compiles (``ref`` is its own)."""
        over = self.reference.is_over(ref)
        mask = np.array(self.reference.legal_mask(ref), np.int8)
        mask.flags.writeable = False
        return CompiledState(None, mask, -1 if over else self.reference.current_player(ref), ref=ref,
                             config=self.config)

    def _compiled(self, s: CompiledState) -> None:
        """A game played so far on the reference engine, converted in place (the kernel is ready)."""
        c = self.from_reference(s.ref)
        s.records, s.mask, s.player, s.ref = c.records, c.mask, c.player, None

    def _one(self, records, op: int, action: int, player: int, legal, mask, obs, draws=None) -> int:
        """The ``one`` kernel on ``records``. numba's dispatcher types every argument on every
        call, and typing a structured (record) array is slow (4-5 us of a 2 us step): once
        compiled, the kernel's entry point is called directly, which checks no types, so only
        for records of the very dtype object the game built (``copy_records`` keeps it; a
        pickled or foreign state goes through the dispatcher); every other array is the game's own."""
        args = (records, self._tables, op, action, player, legal, self._offsets, mask, self._rewards, obs,
                self._no_draws if draws is None else draws)
        entry = self._entry
        if entry is not None and records.dtype is self._blank.dtype:
            return entry(*args)
        out = self._kernel(*args)
        if entry is None and records.dtype is self._blank.dtype:
            d = self._kernel.dispatcher
            overload = d.overloads.get(tuple(d.typeof_pyval(a) for a in args))
            self._entry = overload.entry_point if overload is not None else None
        return out

    def __reduce__(self):
        # by its reference game and its fast module's name: a module (and the jitted entry points)
        # does not pickle, and the env's copies and pickles (search, multiprocessing, RLlib) need it
        return _compiled_game, (self.reference, self.fast.__name__)

    def _check(self, s: CompiledState, action=None) -> None:
        """Refuse a state of another game or config, or an ``action`` that is no action id, before
        the kernel reads them: it indexes its tables with the state's fields without bounds
        checks, and numba would compile another version for another record dtype or action type."""
        if not isinstance(s, CompiledState) or s.config is not self.config:
            self._check_config(s)
        if action is not None and not ((type(action) is int or isinstance(action, np.integer))
                                       and 0 <= action < self.num_actions):
            raise self._illegal(s, action)

    def _check_config(self, s) -> None:
        if isinstance(s, CompiledState) and s.config == self.config:
            s.config = self.config             # an equal config (a pickled state's): the next check is `is`
            return
        got = f"config {s.config}" if isinstance(s, CompiledState) else type(s).__name__
        raise ValueError(f"{self.env_id}: a state of another game or config ({got}); this game's config "
                         f"is {self.config}: use its own states (new_state, env.unwrapped.game_state)")

    def _illegal(self, s: CompiledState, action) -> ValueError:
        legal = np.flatnonzero(s.mask).tolist()
        return ValueError(f"{self.env_id}: illegal action {action!r} for seat {s.player}; legal actions: {legal}")

    # ------------------------------------------------------------ conversion
    def from_reference(self, ref_state) -> CompiledState:
        if not self._ready():
            return self._warm(ref_state.copy())
        records = copy_records(self._blank)            # new_records builds its dtype: 50-160 us
        self.fast.to_record(records[0], ref_state, self.reference)
        mask = np.zeros(self.num_actions, np.int8)
        self._one(records, batch.MASK, 0, 0, _NO_LEGAL, mask, self._no_obs)
        mask.flags.writeable = False
        return CompiledState(records, mask, self.reference.current_player(ref_state), config=self.config)

    def to_reference(self, s: CompiledState):
        self._check(s)
        if s.records is None:
            return s.ref.copy()
        return self.fast.from_record(s.records[0], self.fast.STATE, self.reference)

    # ------------------------------------------------------------ hot path
    def new_state(self, rng: np.random.Generator) -> CompiledState:
        if not self._ready():
            return self._warm(self.reference.new_state(rng))
        if self._draws is None:
            return self.from_reference(self.reference.new_state(rng))
        # the reference's draws, laid out by the compiled deal: a Rodízio game is ~11 steps, and
        # converting the reference's deal cost more than playing it
        records = copy_records(self._blank)
        mask = np.zeros(self.num_actions, np.int8)
        player = self._one(records, batch.DEAL, 0, 0, _NO_LEGAL, mask, self._no_obs, self._draws(self.reference, rng))
        mask.flags.writeable = False
        return CompiledState(records, mask, player, config=self.config)

    def current_player(self, s: CompiledState) -> int:
        return s.player

    def is_over(self, s: CompiledState) -> bool:
        return s.player < 0

    def legal_mask(self, s: CompiledState) -> np.ndarray:
        return s.mask

    def _apply(self, s: CompiledState, action: int, op: int, obs) -> list[float] | None:
        self._check(s, action)
        if s.records is None and self._ready():
            self._compiled(s)
        if s.records is None:                  # still on the reference engine
            if not s.mask[action]:
                raise self._illegal(s, action)
            r = self.reference.apply(s.ref, int(action))
            warm = self._warm(s.ref)
            s.mask, s.player = warm.mask, warm.player
            if op == batch.STEP_OBSERVE and s.player >= 0:
                obs[:] = self.reference.observe(s.ref, s.player)
            return r
        mask = np.empty(self.num_actions, np.int8)
        player = self._one(s.records, op, action, 0, s.mask, mask, obs)
        if player == batch.ILLEGAL:
            raise self._illegal(s, action)
        s.player = player
        mask.setflags(write=False)
        s.mask = mask
        r = self._rewards.tolist()             # any() of a list: 0.3 us; rewards.any(): 5 us
        return r if player < 0 or any(r) else None

    def apply(self, s: CompiledState, action: int) -> list[float] | None:
        s.obs = None
        return self._apply(s, action, batch.APPLY, self._no_obs)

    def apply_observing(self, s: CompiledState, action: int) -> list[float] | None:
        """``apply``, and the next player's observation in the same compiled call (kept for
        the next ``observe`` of that player): the AEC env's step, which observes after every
        move. Search agents, which do not, call ``apply``."""
        obs = np.empty(self._obs_size, self._obs_dtype)
        r = self._apply(s, action, batch.STEP_OBSERVE, obs)
        s.obs = obs if s.player >= 0 else None
        return r

    def observe(self, s: CompiledState, player: int) -> np.ndarray:
        obs = s.obs
        if obs is not None and player == s.player:
            s.obs = None                       # handed out: the caller owns it now
            return obs
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) \
                or not 0 <= player < self.num_players:
            raise ValueError(f"{self.env_id}: observe(state, player={player!r}): player must be a seat in "
                             f"0..{self.num_players - 1}")
        self._check(s)
        if s.records is None:
            return np.asarray(self.reference.observe(s.ref, player), self._obs_dtype)
        out = np.empty(self._obs_size, self._obs_dtype)
        self._one(s.records, batch.OBSERVE_SEAT, 0, player, _NO_LEGAL, self._no_mask, out)
        return out

    # ------------------------------------------------------------ through the reference
    def returns(self, s: CompiledState) -> np.ndarray:
        return self.reference.returns(self.to_reference(s))

    def segment(self, s: CompiledState) -> int:
        """The reference's ``segment`` (a game whose rules define one: Scala 40's hand)."""
        return self.reference.segment(self.to_reference(s))

    def estimate(self, s: CompiledState) -> np.ndarray:
        return self.reference.estimate(self.to_reference(s))

    def resample_hidden(self, s: CompiledState, player: int, rng: np.random.Generator) -> CompiledState:
        return self.from_reference(self.reference.resample_hidden(self.to_reference(s), player, rng))

    def has_hidden(self, s: CompiledState, player: int) -> bool:
        return self.reference.has_hidden(self.to_reference(s), player)

    def describe_action(self, s: CompiledState, action: int) -> str:
        # An illegal-action error describes every legal action of one state: convert it once
        # (a Roda de Samba conversion is ~0.5 ms; the conformance suite raises thousands).
        if s.records is None:
            return self.reference.describe_action(s.ref, action)
        key = s.records.tobytes()
        if self._described is None or self._described[0] != key:
            self._described = (key, self.to_reference(s))
        return self.reference.describe_action(self._described[1], action)

    def render_text(self, s: CompiledState, player: int | None = None) -> str:
        return self.reference.render_text(self.to_reference(s), player)

    def check_invariants(self, s: CompiledState) -> None:
        ref = self.to_reference(s)
        self.reference.check_invariants(ref)
        assert self.reference.current_player(ref) == s.player, "compiled player to act drifted"
        assert np.array_equal(self.reference.legal_mask(ref), s.mask), "compiled mask drifted"


def _compiled_game(reference: Any, module: str) -> CompiledGame:
    return CompiledGame(reference, importlib.import_module(module))


def _compile_in_background(game: CompiledGame):
    """Start compiling ``game``'s kernel in another process when it is not in numba's cache
    (the process plays one step of the env, which compiles the kernel and caches it); returns
    that process, or None when the kernel is cached or compiles here (BARALHO_COMPILE=foreground)."""
    kernel = game._kernel
    if os.environ.get("BARALHO_COMPILE") == "foreground" or is_cached(kernel.build(), game._sample()):
        return None
    code = ("import json, sys, numpy as np, baralho; env = baralho.make(sys.argv[1], **json.loads(sys.argv[2])); "
            "env.reset(seed=0); env.step(int(np.flatnonzero(env.last()[0]['action_mask'])[0]))")
    config = json.dumps(dataclasses.asdict(game.config))
    process = subprocess.Popen([sys.executable, "-c", code, game.env_id, config],
                               env={**os.environ, "BARALHO_COMPILE": "foreground"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"baralho: compiling {kernel.what} in the background, first use only (numba caches it), "
          f"~{kernel.seconds:.0f} s; the reference engine plays the same games until then",
          file=sys.stderr, flush=True)
    return process


def compiled_module(game) -> ModuleType | None:
    """The compiled engine of ``game`` (a reference game): the ``fast.py`` beside the module that
    defines its class, by the folder template (baralho/envs/README.md); None when it has none.
    Found by file name, so the ground floor names no game and imports nothing above it."""
    name = type(game).__module__.rpartition(".")[0] + ".fast"
    return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None


def select_engine(reference: Any, engine: str | None):
    """``reference`` itself, or the compiled game over it (``engine`` from the env's options;
    None: the compiled one where the game has it)."""
    if engine is not None and engine not in ENGINES:
        raise ConfigError(f"{reference.env_id}: engine={engine!r} must be one of {list(ENGINES)}")
    if engine == "reference":
        return reference
    fast = compiled_module(reference)
    if fast is None:
        if engine is None:
            return reference
        raise ConfigError(f"{reference.env_id}: no compiled engine yet; use engine='reference'")
    return CompiledGame(reference, fast)
