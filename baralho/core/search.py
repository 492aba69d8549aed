"""Information-set MCTS over a game's compiled engine: ``agents/ismcts.py``'s search, compiled.

The same algorithm as the Python search (single-observer ISMCTS with availability counts,
Cowling, Powley & Whitehouse 2012; random rollouts, or the game's compiled heuristic playing
them: ``ismcts:N:h``), built once for every game from its
compiled primitives (``core/batch.py``) and one more, ``resample_hidden(s, d, seat, g)``: a
determinization drawn in place from a ``fast_chance`` generator ``g``, the same draws as the
reference's ``resample_hidden`` from numpy's Generator. The search draws every number (the
determinization, the expansion, each rollout move) from ``g`` in the order the Python search
draws them from its Generator, so from the same generator state both searches make the same
simulations and end with the same visit counts (``tests/agents/test_compiled_search.py``):
the Python search is the compiled one's readable twin and its oracle. With heuristic rollouts
the game's ``fast_heuristic.act_batch`` (heuristic.py's move, tie noise and plan included)
plays every seat of the rollout from that seat's observation, written by the compiled
``observe``.

The tree lives in preallocated arrays, one row of ``num_actions`` entries per node (the child
node, visits, summed value, availability); each simulation copies the root's record into a
scratch record, determinizes it, walks the tree, rolls out to the end and backs the returns
up. Rollouts step the compiled engine without writing observations. One call searches every
root of a batch, one after another, each with its own budget; ``threads=k`` spreads the roots
over k numba threads, each with its own tree.
"""

from __future__ import annotations

import functools
import math
from types import ModuleType

import numba as nb
import numpy as np

from baralho.core import batch
from baralho.core import fast_chance as R
from baralho.core.jit import jit, linked

#: what a Python numpy Generator's state becomes for the compiled search (``generator_words``)
_M64 = (1 << 64) - 1
#: log(n) for the availability counts UCB reads, by Python's math.log (the C library's, as numba's
#: math.log calls it: the same bits as the Python search's); past the table the kernel calls log
LOGS = np.array([-math.inf] + [math.log(n) for n in range(1, 1 << 15)])


def generator_words(rng: np.random.Generator) -> np.ndarray:
    """A PCG64 numpy Generator's state as a ``fast_chance`` generator (uint64[6]): the compiled
    search then draws the numbers ``rng`` would."""
    st = rng.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"the compiled search draws as numpy's PCG64, not {st['bit_generator']}")
    s, inc = st["state"]["state"], st["state"]["inc"]
    return np.array([s >> 64, s & _M64, inc >> 64, inc & _M64, st["has_uint32"], st["uinteger"]], np.uint64)


def set_generator(rng: np.random.Generator, g: np.ndarray) -> None:
    """Advance ``rng`` to the compiled generator ``g``'s state (the draws the search made)."""
    st = rng.bit_generator.state
    st["state"] = {"state": (int(g[0]) << 64) | int(g[1]), "inc": (int(g[2]) << 64) | int(g[3])}
    st["has_uint32"], st["uinteger"] = int(g[4]), int(g[5])
    rng.bit_generator.state = st


@jit
def clear_node(child, visits, value, avail, node: int) -> None:
    """A tree node's row, empty: no child, no visit, no value, never available."""
    for b in range(child.shape[1]):
        child[node, b] = -1
        visits[node, b] = 0
        value[node, b] = 0.0
        avail[node, b] = 0


@jit
def backup(path, depth: int, visits, value, ret) -> None:
    """Each (node, action, actor) of the walk's ``path[:depth]`` gets a visit and its actor's return."""
    for k in range(depth):
        nd, a, actor = path[k, 0], path[k, 1], path[k, 2]
        visits[nd, a] += 1
        value[nd, a] += ret[actor]


@jit
def _one_segment(s, d) -> int:
    """A game in one piece: a rollout runs to its end."""
    return 0


def segment_of(fast: ModuleType):
    """The game's ``segment(s, d)`` (Scala 40: the hand being played), or one segment."""
    return getattr(fast, "segment", _one_segment)


def _random_rollout(fast: ModuleType):
    """A random rollout (ISMCTSAgent._rollout without a policy): a uniform legal move, drawn from
    ``g``, at most ``max_rollout`` of them, and with ``until`` >= 0 only while the game's segment
    is ``until`` (a rollout to a match's hand's end: ``net_search``'s horizon); returns how many
    (``benchmarks/search.py`` times it)."""
    apply, legal_mask, current_player = fast.apply, fast.legal_mask, fast.current_player
    segment = segment_of(fast)

    def rollout(s, d, g, max_rollout, mask, legal, slot, hmemory, hrows, hobs, hmasks, hout, obs_at, htables,
                until):
        steps = 0
        while steps < max_rollout and current_player(s, d) >= 0 and (until < 0 or segment(s, d) == until):
            legal_mask(s, d, mask)
            count = 0
            for a in range(mask.size):
                if mask[a]:
                    legal[count] = a
                    count += 1
            apply(s, d, legal[R.integers(g, count)])
            steps += 1
        return steps
    return linked(rollout)


def _heuristic_rollout(fast: ModuleType, heuristic: ModuleType):
    """A heuristic rollout (ISMCTSAgent._rollout with the heuristic): the game's compiled heuristic
    (``fast_heuristic.act_batch``, heuristic.py's move draw for draw) plays every seat from that
    seat's own observation; its tie noise and plan are the slot's ``hmemory`` row, kept from one
    simulation to the next as the Python search's one heuristic object keeps them."""
    apply, legal_mask, current_player, observe = fast.apply, fast.legal_mask, fast.current_player, fast.observe
    act_batch = heuristic.act_batch

    segment = segment_of(fast)

    def rollout(s, d, g, max_rollout, mask, legal, slot, hmemory, hrows, hobs, hmasks, hout, obs_at, htables,
                until):
        row = hrows[slot:slot + 1]
        steps = 0
        while steps < max_rollout:
            seat = current_player(s, d)
            if seat < 0 or (until >= 0 and segment(s, d) != until):
                break
            legal_mask(s, d, hmasks[slot])
            observe(s, d, obs_at, seat, hobs[slot])
            act_batch(hmemory, row, hobs, hmasks, hout[slot:slot + 1], *htables)
            apply(s, d, hout[slot])
            steps += 1
        return steps
    return linked(rollout)


def search_kernel(fast: ModuleType, parallel: bool, heuristic: ModuleType | None = None):
    """The search over ``fast``'s primitives, with random rollouts or (``heuristic``: the game's
    ``fast_heuristic`` module) heuristic ones (``search_kernels`` compiles it)."""
    legal_mask, current_player, returns, resample, apply = (
        fast.legal_mask, fast.current_player, fast.returns, fast.resample_hidden, fast.apply)
    rollout = _random_rollout(fast) if heuristic is None else _heuristic_rollout(fast, heuristic)

    def run(root_bytes, tables, seats, sims, c, max_rollout, gens, resume, scratch, scratch_bytes, child, visits,
            value, avail, nodes, masks, fresh, paths, rets, out_visits, out_value, hmemory, hrows, hobs, hmasks,
            hout, obs_at, htables, logs, first, last, slot) -> None:
        """Roots ``first..last-1``, one after another in tree slot ``slot``: each root's budget of
        simulations from a fresh tree (or, with ``resume``, from the slot's tree as the last call
        left it: a search run in chunks), then its root's visits and values into the outputs."""
        d = tables[0]
        A = masks.shape[1]
        s = scratch[slot]
        mask, fresh_row, ret, path = masks[slot], fresh[slot], rets[slot], paths[slot]
        tree_child, tree_visits, tree_value, tree_avail = child[slot], visits[slot], value[slot], avail[slot]
        for r in range(first, last):
            g = gens[r]
            seat = seats[r]
            if not resume:
                nodes[slot] = 0
            if nodes[slot] == 0:                              # the root
                clear_node(tree_child, tree_visits, tree_value, tree_avail, 0)
                nodes[slot] = 1
            for _ in range(sims[r]):
                scratch_bytes[slot, :] = root_bytes[r, :]     # the root's record, copied
                resample(s, d, seat, g)                       # a determinization (_determinize)
                node, depth = 0, 0
                while True:                                   # down the tree (ISMCTSAgent._tree_step)
                    actor = current_player(s, d)
                    if actor < 0:
                        break
                    legal_mask(s, d, mask)
                    nfresh = 0
                    for a in range(A):
                        if mask[a]:
                            tree_avail[node, a] += 1
                            if tree_child[node, a] < 0:
                                fresh_row[nfresh] = a
                                nfresh += 1
                    if nfresh:                                # expand an untried action, then roll out
                        a = fresh_row[R.integers(g, nfresh)]
                        new = nodes[slot]
                        nodes[slot] = new + 1
                        clear_node(tree_child, tree_visits, tree_value, tree_avail, new)
                        tree_child[node, a] = new
                        path[depth, 0], path[depth, 1], path[depth, 2] = node, a, actor
                        depth += 1
                        apply(s, d, a)
                        break
                    best, best_score = -1, -math.inf          # UCB over the legal actions (_ucb)
                    for a in range(A):
                        if mask[a]:
                            v = tree_visits[node, a]
                            if v == 0:
                                best = a
                                break
                            n = tree_avail[node, a]              # log(n) from the table: most of a walk's time
                            score = tree_value[node, a] / v + c * math.sqrt((logs[n] if n < logs.size
                                                                             else math.log(n)) / v)
                            if best < 0 or score > best_score:
                                best, best_score = a, score
                    path[depth, 0], path[depth, 1], path[depth, 2] = node, best, actor
                    depth += 1
                    apply(s, d, best)
                    node = tree_child[node, best]
                rollout(s, d, g, max_rollout, mask, fresh_row, slot, hmemory, hrows, hobs, hmasks, hout, obs_at,
                        htables, -1)                          # to the end (_rollout)
                for p in range(ret.size):
                    ret[p] = 0.0
                returns(s, d, ret)
                backup(path, depth, tree_visits, tree_value, ret)      # (_backup)
            for a in range(A):
                out_visits[r, a] = tree_visits[0, a]
                out_value[r, a] = tree_value[0, a]

    run = linked(run)
    suffix = "" if heuristic is None else "_heuristic"

    if parallel:
        def search_batch_threads(root_bytes, tables, seats, sims, c, max_rollout, gens, resume, scratch,
                                 scratch_bytes, child, visits, value, avail, nodes, masks, fresh, paths, rets,
                                 out_visits, out_value, hmemory, hrows, hobs, hmasks, hout, obs_at, htables, logs):
            count, slots = len(seats), len(nodes)
            per = (count + slots - 1) // slots
            for slot in nb.prange(slots):
                run(root_bytes, tables, seats, sims, c, max_rollout, gens, resume, scratch, scratch_bytes, child,
                    visits, value, avail, nodes, masks, fresh, paths, rets, out_visits, out_value, hmemory, hrows,
                    hobs, hmasks, hout, obs_at, htables, logs, min(slot * per, count), min((slot + 1) * per, count),
                    slot)
        search_batch_threads.__name__ += suffix        # the kernel's name in numba's cache
        return search_batch_threads

    def search_batch(root_bytes, tables, seats, sims, c, max_rollout, gens, resume, scratch, scratch_bytes,
                     child, visits, value, avail, nodes, masks, fresh, paths, rets, out_visits, out_value, hmemory,
                     hrows, hobs, hmasks, hout, obs_at, htables, logs):
        run(root_bytes, tables, seats, sims, c, max_rollout, gens, resume, scratch, scratch_bytes, child, visits,
            value, avail, nodes, masks, fresh, paths, rets, out_visits, out_value, hmemory, hrows, hobs, hmasks,
            hout, obs_at, htables, logs, 0, len(seats), 0)
    search_batch.__name__ += suffix
    return search_batch


@functools.cache
def search_kernels(fast: ModuleType, parallel: bool, heuristic: ModuleType | None = None) -> batch.Kernel:
    """The search kernel of ``fast`` (a game's compiled engine), built and compiled at its first call;
    with ``heuristic`` (its ``fast_heuristic`` module), the search with heuristic rollouts."""
    k = batch.kernels(fast)
    seconds = getattr(fast, "COMPILE_SECONDS", {}).get("search", 10) * (1 if heuristic is None else 2)
    options = {"parallel": True} if parallel else {}
    return batch.Kernel(lambda: k.kernel(search_kernel(fast, parallel, heuristic), **options),
                        f"the {k.title} search" + (" with heuristic rollouts" if heuristic else "")
                        + (" for threads" if parallel else ""), seconds)


#: (kernel, record dtype, tables dtype) -> the compiled search's entry point
_ENTRY_POINTS: dict = {}


class Searcher:
    """The compiled search of one compiled game (a ``CompiledGame``): trees for ``threads``
    slots, grown as a search needs. ``search`` is the batched call; the agent's ``act`` calls
    it on one root."""

    def __init__(self, game, threads: int = 1, nodes: int = 1024, max_rollout: int = 10_000,
                 rollout: str = "random", heuristic_seed: int | None = None) -> None:
        """``rollout="heuristic"``: the game's compiled heuristic plays the rollouts, every slot's as
        ``heuristic_for(env_id, game, seed=heuristic_seed)`` would (its tie noise and plan carry
        over from one search to the next, as one heuristic object's do)."""
        if not hasattr(game.fast, "resample_hidden"):
            raise NotImplementedError(f"{game.env_id}: no compiled resample_hidden yet (the Python search runs)")
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"rollout={rollout!r} must be 'random' or 'heuristic'")
        self.game, self.threads, self.max_rollout, self.rollout = game, threads, max_rollout, rollout
        heuristic = (self._heuristic(game, threads, heuristic_seed) if rollout == "heuristic"
                     else self._no_heuristic(threads))
        self._slots(game, threads, search_kernels(game.fast, threads > 1, heuristic))
        # the argument types are the game's record and table layouts (every other argument is of
        # a fixed type): a new Searcher of the same layouts (an agent bound to each new game's env)
        # finds the entry point here instead of typing the arguments again (~0.3 ms, measured)
        self._key = (self._kernel, game._blank.dtype, self._tables.dtype, self._hmemory.dtype,
                     tuple((getattr(t, "dtype", type(t)), np.ndim(t)) for t in self._htables))
        self._grow(nodes)

    def _heuristic(self, game, threads: int, seed: int | None) -> ModuleType:
        """The game's compiled heuristic (its ``fast_heuristic``) for every slot: its memory rows
        (tie noise from ``seed``, no plan), tables, and an observation and move per slot."""
        from baralho.envs import game_module, has_module

        if not has_module(game.env_id, "fast_heuristic"):
            raise NotImplementedError(f"{game.env_id}: no compiled heuristic (the Python search runs)")
        heuristic = game_module(game.env_id, "fast_heuristic")
        self._hmemory = np.zeros(threads, heuristic.memory_dtype(game.reference))
        self.reset_heuristic(seed)
        self._htables = tuple(heuristic.heuristic_tables(game.reference))
        self._hobs = np.zeros((threads, game.obs_layout.size), game.obs_layout.dtype)
        self._hrows, self._hout = np.arange(threads, dtype=np.int64), np.zeros(threads, np.int64)
        return heuristic

    def _no_heuristic(self, threads: int) -> None:
        """The heuristic's arguments where the kernel reads none (of fixed types)."""
        # htables: one array, not an empty tuple, which numba's threads (parfor) cannot take in
        self._hmemory, self._htables = np.zeros(threads, np.int64), (np.zeros(1, np.int8),)
        self._hobs = np.zeros((threads, 1), np.int8)
        self._hrows, self._hout = np.arange(threads, dtype=np.int64), np.zeros(threads, np.int64)

    def _slots(self, game, threads: int, kernel) -> None:
        """What every search kernel reads per tree slot (net_search.NetSearcher's too): the game's
        tables, a scratch record, a mask, a legal-action list and a return row per slot."""
        self.game, self.threads, self._kernel = game, threads, kernel
        self._tables, self._obs_at = game._tables, game._offsets
        self.A, self.P = game.num_actions, game.num_players
        blank = game._blank
        self._scratch = np.repeat(blank, threads)
        self._scratch_bytes = self._scratch.view(np.uint8).reshape(threads, blank.itemsize)
        self._masks = np.zeros((threads, self.A), np.int8)
        self._fresh = np.zeros((threads, self.A), np.int64)
        self._rets = np.zeros((threads, self.P), np.float64)
        self.nodes = np.zeros(threads, np.int64)
        self._seat, self._sims = np.zeros(1, np.int64), np.zeros(1, np.int64)     # search_one's root
        self._entry = None

    @property
    def has_heuristic(self) -> bool:
        """Whether this searcher holds the compiled heuristic (rollouts or hints by it)."""
        return bool(self._hmemory.dtype.names)

    def reset_heuristic(self, seed: int | None) -> None:
        """The rollouts' heuristic as ``heuristic_for(env_id, game, seed=seed)`` makes it: its tie
        noise from ``seed`` (None: fresh entropy), no plan."""
        from baralho.vector.heuristic import generator_words as heuristic_words

        self._hmemory[:] = 0
        self._hmemory["rng"][:] = heuristic_words(int(np.random.SeedSequence().entropy if seed is None else seed))

    def _grow(self, capacity: int) -> None:
        """Trees of ``capacity`` nodes per slot (their contents kept)."""
        old = getattr(self, "_child", None)
        T, A = self.threads, self.A
        child, visits = np.full((T, capacity, A), -1, np.int32), np.zeros((T, capacity, A), np.int32)
        value, avail = np.zeros((T, capacity, A), np.float64), np.zeros((T, capacity, A), np.int32)
        if old is not None:
            n = old.shape[1]
            child[:, :n], visits[:, :n] = self._child, self._visits
            value[:, :n], avail[:, :n] = self._value, self._avail
        self._child, self._visits, self._value, self._avail = child, visits, value, avail
        self._paths = np.zeros((T, capacity, 3), np.int64)
        self.capacity = capacity

    # the kernel indexes the records, the seats' hands and the generators without bounds checks:
    # everything a caller passes is checked here first (a state of another game or config, a seat
    # past the table or a short generator read outside the arrays)
    def _checked(self, states, seats, simulations, gens, resume: bool):
        B = len(states)
        for k, st in enumerate(states):
            records = getattr(st, "records", None)
            if records is None or records.dtype != self.game._blank.dtype or records.shape != (1,):
                raise ValueError(f"{self.game.env_id}: states[{k}] is not a compiled state of this game and config "
                                 f"(a CompiledState from this game's engine; one playing on the reference engine "
                                 f"while the kernel compiles has no record yet)")
        seats = np.asarray(seats)
        if seats.shape != (B,) or seats.dtype.kind not in "iu" or ((seats < 0) | (seats >= self.P)).any():
            raise ValueError(f"{self.game.env_id}: seats must be {B} integers in 0..{self.P - 1}, got {seats!r}")
        sims = np.asarray(simulations)
        if sims.dtype.kind not in "iu" or (sims < 0).any() or sims.size not in (1, B) or sims.ndim > 1:
            raise ValueError(f"{self.game.env_id}: simulations must be an integer >= 0 or {B} of them, got "
                             f"{simulations!r}")
        sims = np.broadcast_to(sims.astype(np.int64).reshape(-1), (B,)).copy()
        if not (isinstance(gens, np.ndarray) and gens.dtype == np.uint64 and gens.shape == (B, 6)
                and gens.flags.c_contiguous and gens.flags.writeable):
            raise ValueError(f"{self.game.env_id}: gens must be a writeable C-contiguous uint64 array of shape "
                             f"({B}, 6) (generator_words per root; it is advanced in place)")
        if resume and (B != 1 or self.threads != 1):
            raise ValueError("resume grows the last call's tree: one root, one thread")
        return seats.astype(np.int64), sims, gens

    def search(self, states, seats, simulations, exploration: float, gens: np.ndarray,
               resume: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``simulations[k]`` simulations from each root ``states[k]`` (``CompiledState``s) for its
        ``seats[k]``, drawing from ``gens[k]`` (uint64[6] each, advanced in place). Returns the
        roots' visit counts and summed values, (B, num_actions) each; with ``resume`` (one root,
        one thread) the tree of the last call grows on."""
        B = len(states)
        seats, sims, gens = self._checked(states, seats, simulations, gens, resume)
        roots = states[0].records if B == 1 else np.concatenate([s.records for s in states])
        return self._run(roots, seats, sims, float(exploration), gens, bool(resume))

    def search_one(self, state, seat: int, simulations: int, exploration: float, gens: np.ndarray,
                   resume: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``search([state], [seat], simulations, exploration, gens, resume)`` for the agent's one
        root, with the checks an agent's own arguments need (the general ones cost as much as a
        short search: ~50 µs a call, measured on Rodízio's ``ismcts:200``); (num_actions,) each."""
        records = getattr(state, "records", None)
        if records is None or records.dtype != self.game._blank.dtype or records.shape != (1,):
            self._checked([state], [seat], simulations, gens, resume)     # raises, saying what is wrong
        if not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.P and isinstance(simulations, int)
                and simulations >= 0 and isinstance(gens, np.ndarray) and gens.shape == (1, 6)
                and gens.dtype == np.uint64 and gens.flags.c_contiguous and gens.flags.writeable):
            self._checked([state], [seat], simulations, gens, resume)
        if resume and self.threads != 1:
            raise ValueError("resume grows the last call's tree: one root, one thread")
        self._seat[0], self._sims[0] = seat, simulations
        visits, values = self._run(records, self._seat, self._sims, float(exploration), gens, bool(resume))
        return visits[0], values[0]

    def _args(self, root_bytes, seats, sims, exploration, gens, resume, out_visits, out_value) -> tuple:
        """The kernel's arguments (net_search.NetSearcher's are its own)."""
        return (root_bytes, self._tables, seats, sims, exploration, self.max_rollout, gens, resume, self._scratch,
                self._scratch_bytes, self._child, self._visits, self._value, self._avail, self.nodes, self._masks,
                self._fresh, self._paths, self._rets, out_visits, out_value, self._hmemory, self._hrows,
                self._hobs, self._masks, self._hout, self._obs_at, self._htables, LOGS)

    def _run(self, roots, seats, sims, exploration: float, gens, resume: bool) -> tuple[np.ndarray, np.ndarray]:
        B = len(roots)
        need = (int(self.nodes.max()) if resume else 0) + int(sims.max(initial=0)) + 1
        if need > self.capacity:
            self._grow(max(need, 2 * self.capacity))
        root_bytes = roots.view(np.uint8).reshape(B, roots.itemsize)
        out_visits, out_value = np.zeros((B, self.A), np.int64), np.zeros((B, self.A), np.float64)
        args = self._args(root_bytes, seats, sims, exploration, gens, resume, out_visits, out_value)
        # every argument is an array this class made, of fixed types (or a plain number): once
        # compiled, the kernel's entry point is called past numba's dispatcher, which types every
        # argument on every call (two record arrays among them: most of a short search's time)
        if self._entry is None:
            self._entry = _ENTRY_POINTS.get(self._key)
        if self._entry is None:
            self._kernel(*args)
            d = self._kernel.dispatcher
            self._entry = _ENTRY_POINTS[self._key] = d.overloads[tuple(d.typeof_pyval(a) for a in args)].entry_point
        else:
            self._entry(*args)
        return out_visits, out_value
