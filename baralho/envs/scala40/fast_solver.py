"""Scala 40's compiled opening solver (numba): solver.py over arrays (part of the compiled engine).

Can this hand still open this turn (40 points in disjoint melds, or one card left to close)?
``reachable`` and ``opening_selects`` are solver.py's ``opening_reachable`` and
``opening_selects``. The search runs over one table, built once from ``melds.templates()``
(every possible meld of the two-deck game), of the distinct card multisets a meld can have,
each with its best value and a 53-bit mask of its kinds (bit 52: the joker); a hand's melds are
the rows whose kinds it holds. A card multiset that makes several melds keeps the highest
value: the solver only asks whether some set of disjoint melds reaches 40 (or leaves one card
to close), so the lower values never decide anything. The prefilters of ``may_open_with``
(kind_meldable, meldable_kinds, the value bound) are dropped: each only refuses what
``_reachable`` refuses anyway.
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.scala40.fast_melds import MAX_RUN, NUM_KINDS, OPEN_MIN
from baralho.envs.scala40.melds import templates
from baralho.envs.scala40.solver import MAX_VALUE as SOLVER_MAX_VALUE

MAX_VALUE = np.array(SOLVER_MAX_VALUE, np.int64)


def _solver_table():
    """The distinct card multisets of every meld template, each with its best value: the
    kinds (-1 padded), size, value, kind bits (uint64, bit 52 the joker), the upper bound
    of its value (solver.MAX_VALUE summed) and the kind it holds twice (the A…K…A run) or -1;
    and ``first``: rows ``first[k]:first[k + 1]`` are those whose lowest kind is k."""
    _, counts, values, _ = templates()
    best: dict[bytes, int] = {}
    rows: dict[bytes, np.ndarray] = {}
    for c, v in zip(counts, values, strict=True):
        key = c.tobytes()
        if key not in best or v > best[key]:
            best[key], rows[key] = int(v), c
    # grouped by their lowest kind (then as sorted before): a hand's melds are looked for only
    # among the rows whose lowest kind it holds (``S_FIRST``); the solver's answers do not
    # depend on the rows' order (its dfs tries every set of disjoint melds)
    keys = sorted(best, key=lambda key: (int(np.flatnonzero(rows[key])[0]), key))
    cards = np.full((len(keys), MAX_RUN), -1, np.int8)
    size = np.zeros(len(keys), np.int64)
    value = np.zeros(len(keys), np.int64)
    bits = np.zeros(len(keys), np.uint64)
    cut = np.zeros(len(keys), np.int64)
    twice = np.full(len(keys), -1, np.int64)
    for i, key in enumerate(keys):
        c = rows[key]
        ks = [k for k in range(NUM_KINDS) for _ in range(c[k])]
        cards[i, :len(ks)] = ks
        size[i], value[i] = len(ks), best[key]
        bits[i] = np.uint64(sum(1 << k for k in set(ks)))
        cut[i] = sum(SOLVER_MAX_VALUE[k] for k in ks)
        if c.max() > 1:
            twice[i] = int(c.argmax())
    lowest = [int(np.flatnonzero(rows[key])[0]) for key in keys]
    first = np.searchsorted(lowest, np.arange(NUM_KINDS + 1)).astype(np.int64)
    return cards, size, value, bits, cut, twice, first


S_CARDS, S_SIZE, S_VALUE, S_BITS, S_CUT, S_TWICE, S_FIRST = _solver_table()
NUM_SOLVER = len(S_SIZE)


# ---------------------------------------------------------------- the solver
@jit
def _present(h) -> np.uint64:
    bits = np.uint64(0)
    for k in range(NUM_KINDS):
        if h[k] > 0:
            bits |= np.uint64(1) << np.uint64(k)
    return bits


@jit
def _hand_melds(h, opts) -> int:
    """The rows of the solver table the hand ``h`` holds (solver._all_melds), into ``opts``."""
    present = _present(h)
    n = 0
    for k in range(NUM_KINDS):
        if h[k] <= 0:
            continue                              # no meld whose lowest kind is k
        for i in range(S_FIRST[k], S_FIRST[k + 1]):
            if S_BITS[i] & ~present == np.uint64(0) and (S_TWICE[i] < 0 or h[S_TWICE[i]] >= 2):
                opts[n] = i
                n += 1
    return n


@jit
def _melds_among(h, cands, ncands: int, opts) -> int:
    """_hand_melds of a hand with fewer cards than one whose melds are ``cands[:ncands]``:
    its melds are among those (the same rows in the same order, without the table's scan)."""
    present = _present(h)
    n = 0
    for j in range(ncands):
        i = cands[j]
        if S_BITS[i] & ~present == np.uint64(0) and (S_TWICE[i] < 0 or h[S_TWICE[i]] >= 2):
            opts[n] = i
            n += 1
    return n


@jit
def _holds(o: int, k: int) -> bool:
    return S_BITS[o] >> np.uint64(k) & np.uint64(1) == np.uint64(1)


@jit
def _take(h, o: int) -> bool:
    """Take meld ``o``'s cards out of ``h`` if it holds them all (solver._fits)."""
    n = S_SIZE[o]
    for c in range(n):
        h[S_CARDS[o, c]] -= 1
    for c in range(n):
        if h[S_CARDS[o, c]] < 0:
            for d in range(n):
                h[S_CARDS[o, d]] += 1
            return False
    return True


@jit
def _give(h, o: int) -> None:
    for c in range(S_SIZE[o]):
        h[S_CARDS[o, c]] += 1


#: the dfs's levels: a meld taken per level, each >= 3 of the <= 15 cards
DEPTH = 8


@jit
def _dfs(h, opts, nopts: int, need_opts, nneed: int, i0: int, rest0: int, value0: int, used0: bool,
         bound0: int, staged_value: int, keep: int, can_close: bool, stack) -> bool:
    """solver._reachable's dfs: melds commute, so while the needed card is unused its meld
    comes first, then any, in table order. Depth first with an explicit stack (numba's
    cache reloads self-recursive functions called from other cached ones into a segfault):
    ``stack``, (7, DEPTH) int64, the caller's (an allocation per call was a third of an
    unopened player's legal mask). On True ``h`` is left part-used: callers pass a scratch copy."""
    st_i, st_rest, st_value, st_bound = stack[0], stack[1], stack[2], stack[3]
    st_used = stack[4]                    # 0 / 1
    st_t = stack[5]                       # next option to try; -1: the level is just entered
    st_o = stack[6]                       # the meld this level took (given back on return)
    d = 0
    st_i[0], st_rest[0], st_value[0], st_used[0], st_bound[0], st_t[0] = i0, rest0, value0, used0, bound0, -1
    while d >= 0:
        i, rest, value, used, bound = st_i[d], st_rest[d], st_value[d], st_used[d], st_bound[d]
        if st_t[d] < 0:
            if used and (staged_value + value >= OPEN_MIN or (can_close and rest == 1)):
                return True
            if not can_close and staged_value + value + bound < OPEN_MIN:
                d -= 1
                if d >= 0:
                    _give(h, st_o[d])
                continue
            st_t[d] = 0
        count = nopts - i if used else nneed
        pushed = False
        while st_t[d] < count:
            t = st_t[d]
            st_t[d] += 1
            j = i + t if used else need_opts[t]
            o = opts[j]
            if rest - S_SIZE[o] < keep or not _take(h, o):
                continue
            st_o[d] = o
            d += 1
            st_i[d] = j if used else 0
            st_rest[d], st_value[d], st_used[d] = rest - S_SIZE[o], value + S_VALUE[o], True
            st_bound[d], st_t[d] = bound - S_CUT[o], -1
            pushed = True
            break
        if not pushed:
            d -= 1
            if d >= 0:
                _give(h, st_o[d])
    return False


@jit
def _contains(o: int, group, ng: int) -> bool:
    """The group's cards (a multiset) are among meld ``o``'s."""
    for i in range(ng):
        k = group[i]
        if not _holds(o, k):
            return False
        if k == S_TWICE[o]:
            continue
        for j in range(i):
            if group[j] == k:
                return False
    return True


@jit
def reachable(hand, group, ng: int, staged_value: int, need: int, keep: int, can_close: bool) -> bool:
    """solver._reachable: can an unopened player still open (or close in hand) this turn?
    ``hand``: the free cards; ``group``: the meld being built, which must become one meld
    with cards of the hand; ``need``: a kind one of the new melds must contain, or -1."""
    return _reachable(hand, group, ng, staged_value, need, keep, can_close, S_FIRST, -1)


@jit
def _reachable(hand, group, ng: int, staged_value: int, need: int, keep: int, can_close: bool,
               cands, ncands: int) -> bool:
    """reachable; when ``ncands >= 0``, ``cands[:ncands]`` are the melds of a hand that holds
    ``hand`` and ``group`` (opening_selects's), and the hand's own are looked for among them."""
    h = np.zeros(NUM_KINDS, np.int8)
    n = 0
    for k in range(NUM_KINDS):
        h[k] = hand[k]
        n += hand[k]
    for i in range(ng):
        h[group[i]] += 1
    work = np.empty(2 * NUM_SOLVER + 7 * DEPTH, np.int64)     # one allocation: the options, the dfs stack
    opts = work[:NUM_SOLVER]
    nopts = _hand_melds(h, opts) if ncands < 0 else _melds_among(h, cands, ncands, opts)
    need_opts = work[NUM_SOLVER:NUM_SOLVER + nopts]
    stack = work[2 * NUM_SOLVER:].reshape(7, DEPTH)
    nneed = 0
    if need >= 0:
        for j in range(nopts):
            if _holds(opts[j], need):
                need_opts[nneed] = j
                nneed += 1
        if nneed == 0:
            return False
    total = n + ng
    inmeld = np.uint64(0)
    for j in range(nopts):
        inmeld |= S_BITS[opts[j]]
    bound0 = 0
    for k in range(NUM_KINDS):
        if inmeld >> np.uint64(k) & np.uint64(1):
            bound0 += h[k] * MAX_VALUE[k]
    if ng == 0:
        return _dfs(h, opts, nopts, need_opts, nneed, 0, total, 0, need < 0, bound0, staged_value, keep,
                    can_close, stack)
    for j in range(nopts):
        o = opts[j]
        if not _contains(o, group, ng) or total - S_SIZE[o] < keep:
            continue
        _take(h, o)
        ok = _dfs(h, opts, nopts, need_opts, nneed, 0, total - S_SIZE[o], S_VALUE[o],
                  need < 0 or _holds(o, need), bound0 - S_CUT[o], staged_value, keep, can_close, stack)
        _give(h, o)
        if ok:
            return True
    return False


@jit
def opening_selects(hand, group, ng: int, staged_value: int, need: int, keep: int, can_close: bool,
                    mask, at: int) -> None:
    """solver.opening_selects: mark ``mask[at + k]`` for the kinds k such that selecting k next
    keeps the opening reachable."""
    full = np.zeros(NUM_KINDS, np.int8)
    total = 0
    for k in range(NUM_KINDS):
        full[k] = hand[k]
        total += hand[k]
    for i in range(ng):
        full[group[i]] += 1
    total += ng
    opts = np.empty(NUM_SOLVER, np.int64)
    nopts = _hand_melds(full, opts)
    out = np.zeros(NUM_KINDS, np.bool_)
    empty = group[:0]
    left = np.empty(NUM_KINDS, np.int64)
    for j in range(nopts):
        o = opts[j]
        if total - S_SIZE[o] < keep or not _contains(o, group, ng):
            continue
        # the meld's cards beyond the group: nothing new to learn when all are marked already
        left[:] = 0
        for c in range(S_SIZE[o]):
            left[S_CARDS[o, c]] += 1
        for i in range(ng):
            left[group[i]] -= 1
        new = False
        for k in range(NUM_KINDS):
            if left[k] > 0 and not out[k]:
                new = True
        if not new:
            continue
        _take(full, o)
        used = need < 0 or _holds(o, need)
        if _reachable(full, empty, 0, staged_value + S_VALUE[o], -1 if used else need, keep, can_close,
                      opts, nopts):
            for k in range(NUM_KINDS):
                if left[k] > 0:
                    out[k] = True
        _give(full, o)
    for k in range(NUM_KINDS):
        if out[k]:
            mask[at + k] = 1
