"""Chuche's heuristic compiled (numba), for a batch: ``heuristic.py`` line for line.

The same move from the same observation and mask as ``ChucheHeuristic.act``
(``tests/vector/test_heuristics.py`` plays both in lockstep); the interface is
``baralho/vector/heuristic.py``'s. What differs, and why:

* the fields heuristic.py decodes (``READS``) are slices of the observation row at the
  layout's offsets (``heuristic_tables``), taken where it reads them (no dict of views);
* ``_options_of`` builds every sub-multiset of the table (memoised, as tuples of kind
  lists); here ``_next_option`` steps an odometer of counts by kind through the same
  sub-multisets in its recursion's order (the last kind moves fastest, each count up
  to the table's or the sum's limit), and ``_best_capture`` scores each as it comes:
  no cache, no lists, and the first best is the same one;
* lists become fixed scratch arrays made once per ``act_batch`` call: the hand's
  (slot, kind) rows, the chosen kinds as counts by kind (``cap[1]`` is that multiset
  in ascending kind order, so a walk over the kinds finds its first addable kind);
* ``max(..., key=...)`` is a loop that keeps the first maximum, ``min`` of tuples a
  loop over tuples compared as Python compares them.

ChucheHeuristic draws no tie noise: the memory holds the generator the interface asks
for (``rng``) and nothing reads it.
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.chuche import cards as C
from baralho.envs.chuche.actions import (
    A_ADD,
    A_BLOCK,
    A_BOMBA,
    A_CAPTURE,
    A_COMMIT,
    A_COMMIT_CORINGA,
    A_ESCUDO,
    A_PASS,
    A_PLACE,
    A_ROUBAR,
)
from baralho.envs.chuche.heuristic import CLEAR_BONUS, CORINGA_COST, READS
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, CAPTURE, CARD_ROW, MAIN, PHASES

NUM_KINDS = C.NUM_KINDS
CORINGA = C.CORINGA
KIND_FRONT = np.array(C.KIND_FRONT, np.int64)
KIND_POINTS = np.array(C.KIND_POINTS, np.int64)
NUM_TARGETS = len(C.BACK_VALUES)                   # the "target" one-hot: 6..10
NUM_PHASES = len(PHASES)
HAND_SLOTS = A_PLACE - A_CAPTURE                   # 3: the "hand" rows, one action each
SLOT, KIND = 0, 1                                  # a row of _hand's (slot, kind) list

# Offsets of the fields heuristic.py decodes (READS), an int64 array indexed by these names
(AT_HAND, AT_CAPTURE_SUM, AT_MUST_USE, AT_TABLE, AT_BLOCKED, AT_TARGET, AT_PHASE, AT_CHUCHE_PLAYED,
 AT_CHUCHE_DECK, AT_HAND_SIZE, AT_CHUCHE_HELD) = (READS.index(name) for name in (
    "hand", "capture_sum", "must_use", "table", "blocked", "target", "phase", "chuche_played",
    "chuche_deck", "hand_size", "chuche_held"))


def memory_dtype(game) -> np.dtype:
    return np.dtype([("rng", np.uint64, 6)])       # the interface's generator; no tie noise reads it


def heuristic_tables(game) -> tuple:
    """The offsets of the fields in READS (the layout's) and the number of seats."""
    f = game.obs_layout.fields
    return np.array([f[name].start for name in READS], np.int64), f["hand_size"].shape[0]


@jit(entry=True)
def act_batch(memory, envs, obs, mask, out, at, num_players) -> None:
    """``out[k]``: ChucheHeuristic.act's move in env ``envs[k]`` (``memory`` is unread: no tie noise)."""
    # scratch shared by every env of the call: _hand's rows, _best_capture's counts by kind
    hand = np.empty((HAND_SLOTS, 2), np.int64)
    counts = np.empty(NUM_KINDS, np.int64)
    kinds = np.empty(NUM_KINDS, np.int64)
    take = np.empty(NUM_KINDS, np.int64)
    chosen = np.empty(NUM_KINDS, np.int64)
    for k in range(len(envs)):
        b = envs[k]
        out[k] = act(obs[b], mask[b], at, num_players, hand, counts, kinds, take, chosen)


@jit
def _next_option(counts, kinds, take, total, limit) -> int:
    """_options_of's rec, one leaf a call: the sub-multiset after ``take``, and its sum.

    ``take[k]`` is the number of copies of kind ``k`` chosen, for ``k`` in ``kinds`` (the
    table's, ascending), and sums to ``total``; the next leaf is written over it, and -1
    returned after the last. rec tries 0, 1, ... copies of each kind in turn while the
    sum stays within ``limit``, the last kind innermost: so the last kind that can take
    one more does, and every kind after it goes back to none."""
    for i in range(len(kinds) - 1, -1, -1):
        k = kinds[i]
        if take[k] < counts[k] and total + KIND_FRONT[k] <= limit:
            take[k] += 1
            return total + KIND_FRONT[k]
        total -= take[k] * KIND_FRONT[k]
        take[k] = 0
    return -1


@jit
def _hand(obs, at, hand) -> int:
    """ChucheHeuristic._hand: (slot, kind) of the own hand cards, into ``hand``; their count."""
    rows = obs[at[AT_HAND]:at[AT_HAND] + HAND_SLOTS * CARD_ROW].reshape(HAND_SLOTS, CARD_ROW)
    n = 0
    for i in range(HAND_SLOTS):
        row = rows[i]
        if row.any():
            hand[n, SLOT] = i
            hand[n, KIND] = np.argmax(row[:6]) * 6 + np.argmax(row[6:12])
            n += 1
    return n


@jit
def _best_capture(obs, at, start_sum, free_left, counts, kinds, take, chosen) -> tuple[bool, float]:
    """ChucheHeuristic._best_capture: (found, score) of the best capture from ``start_sum``.

    Its kinds (``cap[1]``) go to ``chosen``, as counts by kind; act reads no ``uses``."""
    target = np.argmax(obs[at[AT_TARGET]:at[AT_TARGET] + NUM_TARGETS]) + 6
    free = obs[at[AT_TABLE]:at[AT_TABLE] + NUM_KINDS]
    own = obs[at[AT_BLOCKED]:at[AT_BLOCKED] + NUM_KINDS]              # blocked[0]: the observer's
    m = 0                                                             # _options_of's kinds
    for k in range(NUM_KINDS):
        counts[k] = int(free[k]) + int(own[k])
        take[k] = 0
        if counts[k]:
            kinds[m] = k
            m += 1
    coringa = obs[at[AT_CHUCHE_HELD] + CORINGA] > 0 and not obs[at[AT_CHUCHE_PLAYED]]
    must_use = obs[at[AT_MUST_USE]:at[AT_MUST_USE] + NUM_KINDS]
    must = np.argmax(must_use) if must_use.any() else -1             # after an Escudo unblock
    exact = target - start_sum                     # need: {exact}, and exact -+ 1 with a Coringa
    limit = exact + 1 if coringa else exact        # max(need)
    found, best = False, 0.0
    total = np.int64(0)             # rec's first leaf: nothing chosen (a literal 0 compiles _next_option twice)
    while total >= 0:
        # a chosen list is non-empty exactly when its total is positive (fronts are 1-6)
        if total > 0 and (total == exact or (coringa and abs(total - exact) == 1)):
            if must < 0 or take[must]:
                points, used_free = 0, 0
                for i in range(m):
                    k = kinds[i]
                    points += KIND_POINTS[k] * take[k]
                    used_free += min(take[k], free[k])
                score = float(points)
                if used_free == free_left and obs[at[AT_CHUCHE_DECK]] > 0:
                    score += CLEAR_BONUS
                uses = total != exact
                if uses:
                    score -= CORINGA_COST
                if not found or score > best:
                    found, best = True, score
                    for k in range(NUM_KINDS):     # not chosen[:] = take: numba compiles that for seconds
                        chosen[k] = take[k]
        total = _next_option(counts, kinds[:m], take, total, limit)
    return found, best


@jit
def act(obs, mask, at, num_players, hand, counts, kinds, take, chosen) -> int:
    """ChucheHeuristic.act."""
    phase = np.argmax(obs[at[AT_PHASE]:at[AT_PHASE] + NUM_PHASES])
    free_left = int(obs[at[AT_TABLE]:at[AT_TABLE] + NUM_KINDS].sum())
    if phase == MAIN:
        n = _hand(obs, at, hand)
        found, best, best_slot = False, 0.0, -1
        for h in range(n):
            slot, kind = hand[h, SLOT], hand[h, KIND]
            if mask[A_CAPTURE + slot]:
                cap_found, cap_score = _best_capture(obs, at, KIND_FRONT[kind], free_left,
                                                     counts, kinds, take, chosen)
                if cap_found:
                    score = cap_score + KIND_POINTS[kind]
                    if not found or score > best:
                        found, best, best_slot = True, score, slot
        if found and (best > 0 or not mask[A_PLACE:A_PLACE + HAND_SLOTS].any()):
            return A_CAPTURE + best_slot
        if mask[A_ROUBAR:A_BOMBA].any():
            sizes = obs[at[AT_HAND_SIZE]:at[AT_HAND_SIZE] + num_players]
            j_best = -1                                # max(js, key=sizes): the first largest
            for j in range(1, num_players):
                if mask[A_ROUBAR + j - 1] and (j_best < 0 or sizes[j] > sizes[j_best]):
                    j_best = j
            return A_ROUBAR + j_best - 1
        if mask[A_BOMBA] and n >= 2:
            return A_BOMBA
        return _place(mask, hand, n)
    if phase == CAPTURE:
        if mask[A_COMMIT]:
            return A_COMMIT
        capture_sum = np.int64(obs[at[AT_CAPTURE_SUM]])     # int() keeps numba's int16: a second compile
        cap_found, _ = _best_capture(obs, at, capture_sum, free_left, counts, kinds, take, chosen)
        if cap_found:
            for k in range(NUM_KINDS):                 # cap[1]: its kinds, ascending
                if chosen[k] and mask[A_ADD + k]:
                    return A_ADD + k
        if mask[A_COMMIT_CORINGA]:
            return A_COMMIT_CORINGA
        return _first_legal(mask)
    if phase == BLOQ_WINDOW:
        k_best = -1                                    # max(kinds, key=KIND_POINTS): the first largest
        for k in range(NUM_KINDS):
            if mask[A_BLOCK + k] and (k_best < 0 or KIND_POINTS[k] > KIND_POINTS[k_best]):
                k_best = k
        if k_best >= 0 and KIND_POINTS[k_best] >= 3:
            return A_BLOCK + k_best
        return A_PASS
    if mask[A_ESCUDO]:          # Roubar window or Bomba: always defend
        return A_ESCUDO
    if phase == BOMBA_ROUND:
        return _place(mask, hand, _hand(obs, at, hand))
    return _first_legal(mask)


@jit
def _place(mask, hand, n) -> int:
    """ChucheHeuristic._place: min of (points, -front, slot) over the placeable hand cards."""
    found, best = False, (0, 0, 0)
    for h in range(n):
        slot, k = hand[h, SLOT], hand[h, KIND]
        if mask[A_PLACE + slot]:
            option = (KIND_POINTS[k], -KIND_FRONT[k], slot)
            if not found or option < best:
                found, best = True, option
    if not found:
        raise ValueError("min() arg is an empty sequence")     # as heuristic.py fails
    return A_PLACE + best[2]


@jit
def _first_legal(mask) -> int:
    """int(legal[0]): the first legal action."""
    for a in range(len(mask)):
        if mask[a]:
            return a
    return -1
