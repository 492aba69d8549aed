"""The Game protocol over a compiled engine (a game's ``fast.py``), for the AEC env.

``baralho.make(env_id)`` runs on the compiled engine where a game has one
(``engine="reference"`` selects the Python one). :class:`CompiledGame` plays
one game through the compiled functions on the hot path (apply, mask,
observe) and hands everything else (text, resampling, invariants, returns) to
the reference engine through an exact state conversion, so both engines give
the same env: same deal from the same seed (the deal is the reference's), same
masks, observations and rewards (``tests/vector`` checks it move for move).

A compiled game module provides: ``STATE`` (the reference state class),
``new_records(game, count)``, ``to_record(record, state, game)``,
``from_record(record, STATE, game)``, ``obs_offsets(game)``, and the compiled
entry points ``apply_one(records, action, mask, rewards) -> player``,
``step_one(records, action, mask, rewards, offsets, obs) -> player`` (apply_one, then the
observation of the player to act: the AEC step in one compiled call),
``observe_one(records, offsets, player, out)`` and ``mask_one(records, mask)``;
optionally ``tables(game)``: data arrays (a deck's) passed after the other
arguments of every compiled entry point, and ``new_state_one(records, rng, mask) -> player``:
the reference's ``new_state(rng)`` dealt straight into a blank record with its mask (the
same draws from ``rng``, so the same game; without it a deal is the reference's, converted).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import numba as nb
import numpy as np
from numba.core import caching
from numba.core import codegen as _codegen
from numba.core import types as _types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.dispatcher import Dispatcher as _Dispatcher
from numba.core.typed_passes import AnnotateTypes
from numba.core.types import npytypes

from baralho.core.config import ConfigError

ENGINES = ("compiled", "reference")


def _record_mangling_args(self):
    return type(self).__name__, ("r" + hashlib.sha1(self.name.encode()).hexdigest()[:24],)


# numba names a compiled function after its argument types, and a record type by a per-process
# counter (Record._code): two record dtypes (two player counts, two decks) compiled in two processes
# can get one symbol name, and once both are loaded from the cache the second calls the first's code,
# at the first's field offsets (wrong masks, silently). Name a record by its layout instead (its
# name lists every field with its type and offset). Every fast module compiles through `jit` below,
# so the fix is in place before any of them compiles or loads.
npytypes.Record.mangling_args = property(_record_mangling_args)

_PACKAGE = Path(__file__).resolve().parents[1]
_CORE = Path(__file__).resolve().parent


@functools.cache
def _folder_stamp(folder: Path) -> tuple:
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.glob("*.py")))


def _with_folder_stamps(base: type) -> type:
    """``base`` (a numba cache locator) for baralho's own functions, whose cache is out of date
    when any module of their folder or of ``baralho/core`` changes, not only their own file.

    numba checks only the stamp of the file a function is defined in ("cache invalidation fails
    to recognize changes in functions defined in a different file", numba's documented caching
    limitation): after an edit of ``fast_rules.py`` a cached ``fast.step_one``, which has
    ``fast_rules.apply`` compiled into it, kept running the old rules (and a constant imported
    from ``cards.py`` is compiled in as well)."""

    class Locator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(_PACKAGE):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            folder = Path(self._py_file).resolve().parent
            return super().get_source_stamp(), _folder_stamp(folder), _folder_stamp(_CORE)

    Locator.__name__ = Locator.__qualname__ = "Baralho" + base.__name__
    return Locator


# before any fast module decorates a function (each compiles through `jit` below, from here)
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # its name differs across numba versions
_CACHE_IMPL._locator_classes[:0] = [
    _with_folder_stamps(b) for b in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                                     caching.UserWideCacheLocator)]

class _LinkedLibrary(_codegen.JITCodeLibrary):
    """The code of a kernel that only other compiled kernels call (no CPython or C wrapper).

    numba links every callee's module into its caller's and runs LLVM's module optimisation and
    machine code generation on the whole again there, so a kernel's own optimised module and
    machine code are work that nothing runs: each caller redoes it from the linked IR. This
    library keeps only numba's per-function passes and hands that IR to its callers, which
    optimise it once, with their own code (same O3 pipeline over the same linked functions:
    instructions per AEC step unchanged, measured with callgrind). It is never added to the JIT
    engine: there is no machine code, so no function pointer (none without a CPython wrapper
    anyway) and no environment global of its own to set (its callers' copies are set as for any
    callee they link, a cached caller's as well). Its cache entry is the IR a new caller links."""

    def _optimize_final_module(self):
        pass                                   # each caller optimises this code where it is linked

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True                 # not handed to the JIT engine: no machine code

    def serialize_using_object_code(self):
        return self.serialize_using_bitcode()  # no object code: the cache keeps the IR callers link

    @property
    def codegen(self):
        return _EnginelessCodegen(self._codegen)


class _EnginelessCodegen:
    """The JIT codegen as a :class:`_LinkedLibrary` shows it: numba's lowering sets a compiled
    function's environment in the JIT engine, where a linked-only library has nothing."""

    def __init__(self, codegen) -> None:
        self._codegen = codegen

    def __getattr__(self, name: str):
        return getattr(self._codegen, name)

    def set_env(self, env_name, env) -> None:
        pass


@register_pass(mutates_CFG=False, analysis_only=True)
class _LinkedLibraryPass(AnalysisPass):
    """Lowers the kernel into a :class:`_LinkedLibrary` (numba's lowering makes a plain one
    when the pipeline has none yet)."""

    _name = "baralho_linked_library"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state) -> bool:
        if state.library is None:
            state.library = _LinkedLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
        return False


class LinkedCompiler(CompilerBase):
    """numba's nopython pipeline, lowering into a :class:`_LinkedLibrary`."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(_LinkedLibraryPass, AnnotateTypes)
        pm.finalize()
        return [pm]


#: the options of a kernel only compiled kernels call: no CPython or C wrapper (numba otherwise
#: generates, optimises, compiles and caches both for every function), and its module optimised
#: and compiled only inside its callers' (:class:`_LinkedLibrary`)
LINKED = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True, pipeline_class=LinkedCompiler)
if not all(hasattr(_codegen.JITCodeLibrary, name) for name in (
        "_optimize_final_module", "_finalize_final_module", "_finalize_dynamic_globals",
        "_verify_declare_only_symbols", "serialize_using_bitcode")):   # a numba whose library differs:
    del LINKED["pipeline_class"]                                       # its own pipeline, slower to compile



def _plain(t):
    t = _types.unliteral(t)
    return _types.int64 if isinstance(t, _types.Integer) and t.signed else t


def jit(fn=None, *, entry: bool = False, **options):
    """The one decorator of every compiled module (engines, heuristics, search): cached on
    disk, releases the GIL, and compiles each function once per array types: a scalar argument
    is compiled as int64 (or bool) whatever a caller passes (a constant 0, an int8 field).
    numba otherwise compiles a version per literal and integer width at the call sites, and
    each version is re-optimised inside every caller: most of the empty-cache compile time.

    Only an ``entry`` (a function called from Python: the kernels ``core/batch.py`` builds, a
    heuristic's batch call) gets numba's CPython and C wrappers and machine code of its own;
    any other compiles with ``LINKED``: no wrappers (numba otherwise generates, optimises,
    compiles and caches both for every function) and its LLVM module optimised and compiled
    only inside the entry points that link it (:class:`_LinkedLibrary`). An entry that steps
    one env keeps the GIL (``nogil=False``): releasing and re-acquiring it costs more than the
    call's own work (about a microsecond of an AEC step, callgrind)."""
    if fn is None:
        return lambda f: jit(f, entry=entry, **options)
    if not entry:
        options = {**LINKED, **options}
    d = nb.njit(**{"cache": True, "nogil": True, **options})(fn)

    def get_call_template(args, kws):
        return _Dispatcher.get_call_template(d, tuple(map(_plain, args)), {k: _plain(v) for k, v in kws.items()})

    d.get_call_template = get_call_template
    return d


def fast_tables(fast, game) -> tuple:
    """The game's data arrays its kernels take after their other arguments (``fast.tables(game)``,
    built once per config: a game whose card list is a data file, as Roda de Samba's); none
    for a game whose tables are constants of its fast module."""
    return tuple(fast.tables(game)) if hasattr(fast, "tables") else ()


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
    """One game as a one-record array, with its current mask and player to act, and the
    observation of that player that the last step wrote (handed out once, then forgotten)."""

    __slots__ = ("records", "mask", "player", "obs")

    def __init__(self, records: np.ndarray, mask: np.ndarray, player: int, obs: np.ndarray | None = None) -> None:
        self.records, self.mask, self.player, self.obs = records, mask, player, obs

    def copy(self) -> CompiledState:
        # masks are never written; the observation is not shared (each is handed out once)
        return CompiledState(copy_records(self.records), self.mask, self.player)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CompiledState) and self.player == other.player
                and self.records.tobytes() == other.records.tobytes())

    def __reduce__(self):
        # as bytes: equal states pickle to equal bytes (test fingerprints rely on it)
        return _restore, (_descr(self.records.dtype), self.records.tobytes(), self.mask.tobytes(), self.player)


@functools.lru_cache(maxsize=64)
def _descr(dtype: np.dtype) -> list:
    # dtype.descr walks the structured dtype each time (~1 ms for a Roda de Samba record)
    return dtype.descr


def _restore(descr, records: bytes, mask: bytes, player: int) -> CompiledState:
    m = np.frombuffer(mask, np.int8).copy()
    m.flags.writeable = False
    return CompiledState(np.frombuffer(records, np.dtype(descr)).copy(), m, player)


class _Direct:
    """A jitted entry point of a fast module, called past numba's dispatcher once compiled.

    The dispatcher types every argument on every call, and typing a structured (record) array
    is slow: ``mask_one`` cost 4.2-5.5 us through it and 0.57 us through its compiled
    overload's ``entry_point`` (measured), which is most of an AEC step. ``entry_point`` does not
    check types, so it is used only when the records array has the very dtype object the game
    built (``copy_records`` keeps it; a pickled or foreign state goes through the dispatcher),
    and the other array arguments are the game's own, of fixed types; scalars are converted
    as by the dispatcher."""

    __slots__ = ("fn", "dtype", "entry")

    def __init__(self, fn, dtype: np.dtype) -> None:
        self.fn, self.dtype, self.entry = fn, dtype, None

    def __reduce__(self):
        return _Direct, (self.fn, self.dtype)      # the entry point is found again after loading

    def __call__(self, records: np.ndarray, *args):
        entry = self.entry
        if entry is not None and records.dtype is self.dtype:
            return entry(records, *args)
        out = self.fn(records, *args)
        if entry is None and records.dtype is self.dtype:
            sig = tuple(self.fn.typeof_pyval(a) for a in (records, *args))
            overload = self.fn.overloads.get(sig)
            self.entry = overload.entry_point if overload is not None else self.fn
        return out


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
        self._tables = fast_tables(fast, reference)
        self._rewards = np.zeros(self.num_players, np.float64)   # as the reference's: -1/3 is no float32
        self._obs_size, self._obs_dtype = self.obs_layout.size, self.obs_layout.dtype
        self._blank = fast.new_records(reference, 1)    # the config's empty record, copied per deal
        self._described = None                          # (record bytes, reference state): describe_action
        self._deal = getattr(fast, "new_state_one", None)
        dtype = self._blank.dtype
        self._apply_one, self._step_one, self._observe_one, self._mask_one = (
            _Direct(getattr(fast, name), dtype) for name in ("apply_one", "step_one", "observe_one", "mask_one"))

    # ------------------------------------------------------------ conversion
    def from_reference(self, ref_state) -> CompiledState:
        records = copy_records(self._blank)            # new_records builds its dtype: 50-160 us
        self.fast.to_record(records[0], ref_state, self.reference)
        mask = np.zeros(self.num_actions, np.int8)
        self._mask_one(records, mask, *self._tables)
        mask.flags.writeable = False
        return CompiledState(records, mask, self.reference.current_player(ref_state))

    def to_reference(self, s: CompiledState):
        return self.fast.from_record(s.records[0], self.fast.STATE, self.reference)

    # ------------------------------------------------------------ hot path
    def new_state(self, rng: np.random.Generator) -> CompiledState:
        deal = self._deal
        if deal is None:
            return self.from_reference(self.reference.new_state(rng))
        # a Rodízio game is ~11 steps: converting the reference's deal cost more than playing it
        records = copy_records(self._blank)
        mask = np.zeros(self.num_actions, np.int8)
        player = deal(records, rng, mask, *self._tables)
        mask.flags.writeable = False
        return CompiledState(records, mask, player)

    def current_player(self, s: CompiledState) -> int:
        return s.player

    def is_over(self, s: CompiledState) -> bool:
        return s.player < 0

    def legal_mask(self, s: CompiledState) -> np.ndarray:
        return s.mask

    def apply(self, s: CompiledState, action: int) -> list[float] | None:
        mask = np.empty(self.num_actions, np.int8)
        rewards = self._rewards
        s.player = self._apply_one(s.records, action, mask, rewards, *self._tables)
        mask.setflags(write=False)
        s.mask, s.obs = mask, None
        r = rewards.tolist()                   # any() of a list: 0.3 us; rewards.any(): 5 us
        return r if s.player < 0 or any(r) else None

    def apply_observing(self, s: CompiledState, action: int) -> list[float] | None:
        """``apply``, and the next player's observation in the same compiled call (kept for
        the next ``observe`` of that player): the AEC env's step, which observes after every
        move. Search agents, which do not, call ``apply``."""
        mask = np.empty(self.num_actions, np.int8)
        obs = np.empty(self._obs_size, self._obs_dtype)
        rewards, records, step = self._rewards, s.records, self._step_one
        if step.entry is not None and records.dtype is step.dtype:     # _Direct's test, one frame less
            s.player = step.entry(records, action, mask, rewards, self._offsets, obs, *self._tables)
        else:
            s.player = step(records, action, mask, rewards, self._offsets, obs, *self._tables)
        mask.setflags(write=False)
        s.mask = mask
        s.obs = obs if s.player >= 0 else None
        r = rewards.tolist()
        return r if s.player < 0 or any(r) else None

    def observe(self, s: CompiledState, player: int) -> np.ndarray:
        obs = s.obs
        if obs is not None and player == s.player:
            s.obs = None                       # handed out: the caller owns it now
            return obs
        out = np.empty(self._obs_size, self._obs_dtype)
        self._observe_one(s.records, self._offsets, player, out, *self._tables)
        return out

    # ------------------------------------------------------------ through the reference
    def returns(self, s: CompiledState) -> np.ndarray:
        return self.reference.returns(self.to_reference(s))

    def resample_hidden(self, s: CompiledState, player: int, rng: np.random.Generator) -> CompiledState:
        return self.from_reference(self.reference.resample_hidden(self.to_reference(s), player, rng))

    def has_hidden(self, s: CompiledState, player: int) -> bool:
        return self.reference.has_hidden(self.to_reference(s), player)

    def describe_action(self, s: CompiledState, action: int) -> str:
        # An illegal-action error describes every legal action of one state: convert it once
        # (a Roda de Samba conversion is ~0.5 ms; the conformance suite raises thousands).
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
