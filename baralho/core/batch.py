"""Every entry point of a compiled engine, built once from a game's rules.

A game's ``fast.py`` writes only its rules and its record layout (Pgx's split: the game
writes ``_init/_step/_observe``, the core writes ``step`` once). It provides, compiled with
``core.jit.jit`` and taking one game's record ``s`` and the game's tables record ``d``
(``tables(game)``'s row: a deck's data, or nothing):

| primitive | what it does |
|---|---|
| ``deal(s, d)`` | a new game from the record's own random stream ``s.rng`` (splitmix64) |
| ``apply(s, d, action) -> bool`` | play a legal action; True when it ended the game |
| ``legal_mask(s, d, out)`` | the acting seat's exact legal mask into ``out`` (int8[A]) |
| ``observe(s, d, at, player, out)`` | ``player``'s observation into ``out`` (``at``: the layout's offsets) |
| ``current_player(s, d) -> int`` | the seat to act, -1 once the game is over |
| ``returns(s, d, out)`` | the finished game's rewards into ``out[:num_players]`` |

and optionally ``deal_from(s, d, draws)``: the reference engine's deal from its random draws
(``new_state_draws(game, rng)``), so the AEC env deals a seed's game on both engines without
converting a reference state. Everything else is built here, once for every game:

* :attr:`Kernels.batch` (and :attr:`Kernels.batch_threads`, over numba threads): the vector
  env's one call: step every active env with auto-reset, or reset, or observe; every action is
  checked against the last legal mask before any env moves;
* :attr:`Kernels.one`: the AEC env's one call per step on one game (apply and observe, or
  observe a seat, or the mask), its action checked first.

Each is compiled on first use only (the AEC env never compiles the batch kernels, nor the
vector env the AEC's), with a line on stderr when that compile is not in numba's cache yet.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path
from types import ModuleType

import numba as nb
import numpy as np

from baralho.core.jit import is_cached, jit, kernel, linked

PRIMITIVES = ("deal", "apply", "legal_mask", "observe", "current_player", "returns")
#: what a batch call does: every env (or those ``active``) plays its action, then its decision
#: is written; or every env is dealt a new game; or every env's decision is written again
STEP, RESET, OBSERVE = 0, 1, 2
#: what a one-game call does: apply the action (and observe the next seat: STEP_OBSERVE), write
#: a seat's observation, write the legal mask, or deal from the reference's draws
APPLY, STEP_OBSERVE, OBSERVE_SEAT, MASK, DEAL = 0, 1, 2, 3, 4
#: what a one-game call returns for an illegal action (nothing was applied)
ILLEGAL = -2

NO_TABLES = np.zeros(1, np.dtype([("none", np.int8)]))   # the tables of a game without data tables
_CORE = Path(__file__).resolve().parent


@jit
def _no_deal_from(s, d, draws) -> None:
    pass


@jit
def first_illegal(mode, actions, active, legal) -> int:
    """The first active env whose action its last mask refuses, or -1 (then every env moves)."""
    if mode != STEP:
        return -1
    num_actions = legal.shape[1]
    for i in range(actions.size):
        if active[i]:
            a = actions[i]
            if a < 0 or a >= num_actions or legal[i, a] == 0:
                return i
    return -1


def _batch(fast: ModuleType, parallel: bool):
    deal, apply, legal_mask, observe, current_player, returns = (getattr(fast, n) for n in PRIMITIVES)

    def decision(states, i, d, at, mode, actions, active, legal, masks, obs, seats, rewards, dones):
        s = states[i]
        if mode == STEP:
            for p in range(rewards.shape[1]):
                rewards[i, p] = 0
            dones[i] = False
            if active[i]:
                if apply(s, d, actions[i]):
                    returns(s, d, rewards[i])
                    dones[i] = True
                    deal(s, d)                              # auto-reset
        elif mode == RESET:
            deal(s, d)
        player = current_player(s, d)
        seats[i] = player
        row = legal[i]
        legal_mask(s, d, row)
        out = masks[i]
        for a in range(row.size):
            out[a] = row[a]
        observe(s, d, at, player, obs[i])

    decision = linked(decision, inline="always")

    if parallel:
        def step_batch_threads(states, tables, at, mode, actions, active, legal, masks, obs, seats, rewards, dones):
            bad = first_illegal(mode, actions, active, legal)
            if bad >= 0:
                return bad
            for i in nb.prange(len(states)):         # (a record is no parfor argument: index it inside)
                decision(states, i, tables[0], at, mode, actions, active, legal, masks, obs, seats, rewards, dones)
            return -1
        fn = step_batch_threads
    else:
        def step_batch(states, tables, at, mode, actions, active, legal, masks, obs, seats, rewards, dones):
            bad = first_illegal(mode, actions, active, legal)
            if bad >= 0:
                return bad
            d = tables[0]
            for i in range(len(states)):
                decision(states, i, d, at, mode, actions, active, legal, masks, obs, seats, rewards, dones)
            return -1
        fn = step_batch
    return fn


def _one(fast: ModuleType):
    deal_from = getattr(fast, "deal_from", _no_deal_from)
    apply, legal_mask, observe, current_player, returns = (
        getattr(fast, n) for n in ("apply", "legal_mask", "observe", "current_player", "returns"))

    def step_one(states, tables, op, action, player, legal, at, mask, rewards, obs, draws):
        """One game's call: ``op`` says which (module docstring); returns the player to act
        (-1: over), or ILLEGAL when ``action`` is not in ``legal`` (the state's last mask)."""
        s, d = states[0], tables[0]
        # each primitive has one call site: LLVM inlines a callee at each, and a second site
        # of observe or legal_mask is a second copy to optimise (compile time)
        if op == DEAL:
            deal_from(s, d, draws)
        elif op == APPLY or op == STEP_OBSERVE:
            if action < 0 or action >= legal.size or legal[action] == 0:
                return ILLEGAL
            for p in range(rewards.size):
                rewards[p] = 0
            if apply(s, d, action):
                returns(s, d, rewards)
        if op != OBSERVE_SEAT:
            legal_mask(s, d, mask)
        now = current_player(s, d)
        seat = player if op == OBSERVE_SEAT else now
        if (op == OBSERVE_SEAT or op == STEP_OBSERVE) and seat >= 0:
            observe(s, d, at, seat, obs)
        return now

    return step_one


class Kernel:
    """An entry point built for one game, compiled (or loaded from numba's cache) at its first
    call, which says so on stderr when it compiles: ``what`` names it, ``seconds`` is about how
    long that takes."""

    def __init__(self, build, what: str, seconds: float) -> None:
        self._build, self.what, self.seconds = build, what, seconds
        self.dispatcher = None

    def build(self):
        """The kernel's dispatcher (built, not compiled)."""
        if self.dispatcher is None:
            self.dispatcher = self._build()
        return self.dispatcher

    def __call__(self, *args):
        d = self.dispatcher
        if d is None or not d.overloads:
            d = self.build()
            if not is_cached(d, args):
                print(f"baralho: compiling {self.what}, first use only (numba caches it), ~{self.seconds:.0f} s",
                      file=sys.stderr, flush=True)
                start = time.perf_counter()
                out = d(*args)
                self.compile_seconds = time.perf_counter() - start
                return out
        return d(*args)


class Kernels:
    """The entry points of one game's compiled engine (``fast``, its ``fast.py``), each built and
    compiled on first use."""

    def __init__(self, fast: ModuleType, title: str) -> None:
        missing = [n for n in PRIMITIVES if not hasattr(fast, n)]
        if missing:
            raise TypeError(f"{fast.__name__} lacks the compiled primitives {missing} (core/batch.py)")
        self.fast, self.title = fast, title
        self.folder = fast.__name__.split(".")[-2]
        self._sources = (Path(fast.__file__).resolve().parent, _CORE)
        self._seconds = getattr(fast, "COMPILE_SECONDS", {})

    def kernel(self, fn, **options):
        """``fn``, a closure over this game's rules, as a cached entry point (``core.jit.kernel``)."""
        return kernel(fn, self.folder, self._sources, **options)

    @functools.cached_property
    def batch(self) -> Kernel:
        return Kernel(lambda: self.kernel(_batch(self.fast, False)),
                      f"the {self.title} batch engine", self._seconds.get("batch", 20))

    @functools.cached_property
    def batch_threads(self) -> Kernel:
        return Kernel(lambda: self.kernel(_batch(self.fast, True), parallel=True),
                      f"the {self.title} batch engine for threads", self._seconds.get("batch", 20) * 1.5)

    @functools.cached_property
    def one(self) -> Kernel:
        return Kernel(lambda: self.kernel(_one(self.fast), nogil=False),    # one env: keeps the GIL
                      f"the {self.title} engine", self._seconds.get("one", 10))


@functools.cache
def kernels(fast: ModuleType) -> Kernels:
    """The kernels of ``fast`` (one set per process)."""
    return Kernels(fast, getattr(fast, "TITLE", fast.__name__.split(".")[-2]))


def tables(fast: ModuleType, game) -> np.ndarray:
    """The game's data tables record (a one-row array) passed to every kernel: ``fast.tables(game)``
    where the game's card data are a config (Roda de Samba's deck file), else none."""
    return fast.tables(game) if hasattr(fast, "tables") else NO_TABLES
