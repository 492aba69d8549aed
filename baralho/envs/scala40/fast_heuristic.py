"""Scala 40's heuristic compiled (numba), for a batch: ``heuristic.py`` line for line.

The same move from the same observation, mask, plan and tie noise as
``Scala40Heuristic.act`` (``tests/vector/test_heuristics.py`` plays both in lockstep;
``tests/scala40/test_fast_heuristic.py`` checks the meld search where play seldom goes);
the interface is ``baralho/vector/heuristic.py``'s. What differs, and why:

* a meld is a row of 5 small ints ``(type, a, b, c, j)``, melds.py's tuple, as in the
  compiled engine, whose ``fast_melds.py`` has melds.py's ``meld_cards``, ``extend_options``,
  ``joker_standin`` and ``actions.joker_action(*joker_key(m))`` over such rows: used here;
* the plan is a fixed row of the env's memory record, ``plan[plan_at:plan_len]``;
  ``plan_len = 0`` (what ``BatchHeuristic.forget`` writes) is ``self.plan = []``. A plan is
  one turn's plays, so it holds at most ``rules.MAX_TURN_DECISIONS`` actions;
* ``solver.all_melds`` is ported (fast_solver.py's table keeps one row per card
  multiset, in another order, and ``best_melds`` searches the first 40): the melds go into
  rows, then a counting sort on value orders them, stable as ``list.sort``;
* ``best_melds``'s recursive ``dfs`` is a loop over an explicit stack (numba's cache and
  self-recursion do not mix, see fast_solver.py's ``_dfs``); once the budget is spent the loop
  stops, where the Python returns at once from every later call: the best found is the same;
* numba's allocations cost: the rows of all_melds and of the search are allocated once per
  batch (``Found``, ``Search``; per decision they took a third of its time) and
  ``extend_options``'s one-card group once per call (per lay-off test: a third of ``_plan``'s);
* ``decode_melds`` decodes the rows at every call (its memo saves Python time only).

The kernels compile with ``core.jit.jit``: ``act_batch`` an entry, the others linked into it,
each in one version whatever literal a caller passes (numba otherwise compiled ``best_melds``
twice, for ``need=-1`` and for a variable).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.jit import jit
from baralho.envs.scala40 import actions as A
from baralho.envs.scala40 import fast_melds as F
from baralho.envs.scala40 import heuristic as H
from baralho.envs.scala40 import solver
from baralho.envs.scala40.fast_melds import PENALTY, POS_VALUE, SET_VALUE  # melds.py's tables as arrays
from baralho.envs.scala40.melds import JOKER, MAX_RUN, NUM_KINDS, OPEN_MIN, RUN, SET
from baralho.envs.scala40.observation import MELD_COLS
from baralho.envs.scala40.rules import MAX_TURN_DECISIONS

PLAN_MAX = MAX_TURN_DECISIONS       # a plan is one turn's plays
OPTIONS = 40                        # best_melds searches all_melds(hand)[:40]
BUDGET = 4000                       # best_melds's search nodes
ALL_MAX = len(solver.all_melds([2] * 52 + [4]))   # the most melds a hand forms: every card twice and a joker
BEST_VALUE = int(POS_VALUE.sum())   # the most a meld is worth (A…K…A)
BY_PENALTY = np.array(H._BY_PENALTY)   # the order lay-offs are tried in
# the observation fields act reads (heuristic._FIELDS and the hand), in heuristic_tables' order
FIELDS = ("hand", "melds", "players", "phase", "building", "discard_top", "turn", "obligation")
HAND, MELDS, PLAYERS, PHASE, BUILDING, DISCARD_TOP, TURN, OBLIGATION = range(len(FIELDS))


def memory_dtype(game) -> np.dtype:
    return np.dtype([("rng", np.uint64, 6),                # the tie noise: chance.seeded(seed)
                     ("plan", np.int16, PLAN_MAX),          # Scala40Heuristic.plan: plan[plan_at:plan_len]
                     ("plan_at", np.int64), ("plan_len", np.int64)])


def heuristic_tables(game) -> tuple:
    """The offsets of the observation fields act reads (FIELDS, in that order)."""
    f = game.obs_layout.fields
    assert f["hand_jokers"].start == f["hand"].start + JOKER     # the hand: 53 counts, the jokers last
    return (np.array([f[name].start for name in FIELDS], np.int64),)


@jit
def forget_one(memory, row) -> None:
    """``self.plan = []`` for row ``row`` (what ``BatchHeuristic.forget`` writes): its next call plans
    afresh (the net-guided search asks the heuristic at nodes of many positions)."""
    memory[row].plan_len = 0


@jit(entry=True)   # compiled.jit; the kernels below it are compiled.LINKED into it, one version each
def act_batch(memory, envs, obs, mask, out, at):
    found, search = _found(), _search()     # scratch for every env of the batch
    for k in range(len(envs)):
        b = envs[k]
        out[k] = act(memory[b], obs[b], mask[b], at, found, search)


Found = namedtuple("Found", "rows values order")   # all_melds's melds, their values, best first
# best_melds's options (opt_*: cards, how often each card is there, size, value, holds the needed
# card), its dfs stack (st_*: the arguments, st_j the next option to try or -1 entering; chosen: the
# option taken) and the best melds found
Search = namedtuple("Search", "opt_cards opt_count opt_size opt_v opt_need "
                              "st_i st_rest st_value st_used st_j chosen best")


@jit
def _found():
    """Rows for any hand's melds (ALL_MAX)."""
    return Found(np.empty((ALL_MAX, 5), np.int8), np.empty(ALL_MAX, np.int64), np.empty(ALL_MAX, np.int64))


@jit
def _search():
    """Rows for the OPTIONS searched and a stack for any hand."""
    options, depth = OPTIONS, A.MAX_MELDS + 1     # a level per meld taken (a hand's disjoint melds), the root
    return Search(np.empty((options, MAX_RUN), np.int8), np.empty((options, MAX_RUN), np.int8),
                  np.empty(options, np.int64), np.empty(options, np.int64), np.empty(options, np.bool_),
                  np.empty(depth, np.int64), np.empty(depth, np.int64), np.empty(depth, np.int64),
                  np.empty(depth, np.bool_), np.empty(depth, np.int64), np.empty(depth, np.int64),
                  np.empty(depth, np.int64))


@jit
def decode_melds(obs, start):
    """decode_melds: the observation's meld rows (from ``start``) as meld rows."""
    n = 0
    for i in range(A.MAX_MELDS):
        n += obs[start + i * MELD_COLS]
    out = np.empty((n, 5), np.int8)
    for i in range(n):
        _decode_row(obs[start + i * MELD_COLS:start + (i + 1) * MELD_COLS], out[i])
    return out


@jit
def _decode_row(row, m):
    """_decode_rows for one row, into ``m``."""
    suit, suits, lo, hi, js, jp = -1, 0, 0, 0, -1, 0    # suits[0], the suits, pos[0], pos[-1], js[0], jp[0]
    for s in range(4):
        if row[3 + s] > 0:
            suit = s if suit < 0 else suit
            suits |= 1 << s
        if row[21 + s] > 0 and js < 0:
            js = s
    for p in range(1, 15):
        if row[6 + p] > 0:
            lo = p if lo == 0 else lo
            hi = p
        if row[24 + p] > 0 and jp == 0:
            jp = p
    if row[1] > 0:
        m[0], m[1], m[2], m[3], m[4] = RUN, suit, lo, hi, jp
    else:
        m[0], m[1], m[2], m[3], m[4] = SET, lo, suits, 0, (js + 1 if js >= 0 else 0)


# ------------------------------------------------------------------ best_melds
@jit
def best_melds(hand, need, keep, can_close, staged, found, search):
    """best_melds: (value, the melds as rows, closes)."""
    rows, values, order = found
    opt_cards, opt_count, opt_size, opt_v, opt_need, st_i, st_rest, st_value, st_used, st_j, chosen, best = search
    n = min(all_melds(hand, found), OPTIONS)
    # each option with its cards counted once (the search tests them at every node)
    for j in range(n):
        m = rows[order[j]]
        opt_size[j] = F.meld_cards(m, opt_cards[j])
        _counts(opt_cards[j], opt_size[j], opt_count[j])
        opt_v[j] = values[order[j]]
        opt_need[j] = need >= 0 and F.meld_has(m, need)
    total = hand.sum()
    best_value, best_n, best_closes = -1, 0, False
    h = hand.copy()
    budget = BUDGET  # search nodes: a heuristic, not a solver
    # dfs(i, rest, value, chosen, used) as a loop over the stack st_*: the level d node has taken chosen[:d]
    d = 0
    st_i[0], st_rest[0], st_value[0], st_used[0], st_j[0] = 0, total, 0, need < 0, -1
    while d >= 0:
        rest, value = st_rest[d], st_value[d]
        if st_j[d] < 0:  # entering dfs
            budget -= 1
            if budget < 0:
                break  # the Python returns at once from every later call: the best stays
            closes = can_close and rest == 1
            if st_used[d] and (value + staged > best_value or closes) and (value + staged >= OPEN_MIN or closes):
                if not best_closes or closes:
                    best_value, best_n, best_closes = value + staged, d, closes
                    best[:d] = chosen[:d]
            st_j[d] = st_i[d]
        j = st_j[d]
        while j < n and (rest - opt_size[j] < keep or not _holds(h, opt_cards[j], opt_count[j], opt_size[j])):
            j += 1
        if j < n:  # dfs(j, rest - len(cards), value + v, chosen + [m], used or need in cards)
            _take(h, opt_cards[j], opt_size[j])
            st_j[d] = j + 1
            chosen[d] = j
            d += 1
            st_i[d], st_rest[d], st_value[d], st_j[d] = j, rest - opt_size[j], value + opt_v[j], -1
            st_used[d] = st_used[d - 1] or opt_need[j]
        else:  # back from dfs: give the cards of the meld taken back
            d -= 1
            if d >= 0:
                _give(h, opt_cards[chosen[d]], opt_size[chosen[d]])
    out = np.empty((best_n, 5), np.int8)
    for c in range(best_n):
        out[c] = rows[order[best[c]]]
    return best_value, out, best_closes


@jit
def _counts(cards, n, count):
    """best_melds's ``cards.count(k)`` of each card into ``count`` (2 for the ace of A…K…A, else 1)."""
    for c in range(n):
        count[c] = 0
        for e in range(n):
            count[c] += cards[e] == cards[c]


@jit
def _holds(h, cards, count, n):
    """best_melds's ``not any(h[k] < c for k, c in counts)``."""
    for c in range(n):
        if h[cards[c]] < count[c]:
            return False
    return True


@jit
def _take(h, cards, n):
    """best_melds's ``for k in cards: h[k] -= 1``."""
    for c in range(n):
        h[cards[c]] -= 1


@jit
def _give(h, cards, n):
    """best_melds's ``for k in cards: h[k] += 1``."""
    for c in range(n):
        h[cards[c]] += 1


@jit
def meld_actions(m, plan, n):
    """meld_actions(m), appended to ``plan[:n]``; returns the new length."""
    cards = np.empty(MAX_RUN, np.int8)
    for i in range(F.meld_cards(m, cards)):
        n = _push(plan, n, A.SELECT + cards[i])
    return _push(plan, n, F.joker_action(m) if m[4] else A.COMMIT)


@jit
def _push(plan, n, a):
    """``plan.append(a)`` onto ``plan[:n]``; returns the new length."""
    if n == len(plan):
        raise IndexError("a Scala 40 heuristic plan longer than a turn (PLAN_MAX)")
    plan[n] = a
    return n + 1


# ------------------------------------------------------------------ act
@jit
def act(mem, obs, mask, at, found, search):
    """Scala40Heuristic.act."""
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return legal[0]
    hand = obs[at[HAND]:at[HAND] + NUM_KINDS].astype(np.int64)     # "hand" (52) then "hand_jokers" (1)
    melds = decode_melds(obs, at[MELDS])
    opened = obs[at[PLAYERS] + 1] > 0
    if obs[at[PHASE]] > 0:  # draw
        mem.plan_len = 0
        return _draw(mask, obs, at, hand, melds, opened, found)
    a = _pop(mem, mask)
    if a >= 0:
        return a
    if obs[at[BUILDING]:at[BUILDING] + NUM_KINDS].any():  # finish what is being built (should not happen)
        for a in range(A.COMMIT, A.SWAP):                  # COMMIT…EXTEND, then EXTEND…SWAP
            if mask[a]:
                return a
        for a in legal:
            if A.SELECT <= a < A.COMMIT:
                return a
        return legal[0]
    mem.plan_at, mem.plan_len = 0, _plan(mem.plan, obs, at, hand, melds, opened, found, search)
    a = _pop(mem, mask)
    if a >= 0:
        return a
    return _discard(mem.rng, mask, hand)


@jit
def _pop(mem, mask):
    """act's ``while self.plan: a = self.plan.pop(0); if mask[a]: return a; self.plan = []``
    (-1: the plan ran out)."""
    while mem.plan_at < mem.plan_len:
        a = mem.plan[mem.plan_at]
        mem.plan_at += 1
        if mask[a]:
            return np.int64(a)
        mem.plan_len = 0
    return -1


# ------------------------------------------------------------------ draw
@jit
def _draw(mask, obs, at, hand, melds, opened, found):
    """Scala40Heuristic._draw."""
    if not mask[A.DRAW_DISCARD]:
        return A.DRAW_STOCK
    top = np.argmax(obs[at[DISCARD_TOP]:at[DISCARD_TOP] + NUM_KINDS])
    if not opened or top == JOKER:
        return A.DRAW_DISCARD  # before opening the mask only allows it when it opens
    card, opts = np.full(1, top, np.int8), np.empty((F.MAX_OPTS, 5), np.int8)   # extend_options(m, [top])
    for i in range(len(melds)):
        if _fits(melds[i], top) and F.extend_options(melds[i], card, 1, opts):
            return A.DRAW_DISCARD
    h = hand.copy()
    h[top] += 1
    for i in range(all_melds(h, found)):
        if F.meld_has(found.rows[i], top):
            return A.DRAW_DISCARD
    return A.DRAW_STOCK


# ------------------------------------------------------------------ play
@jit
def _plan(plan, obs, at, hand, melds, opened, found, search):
    """Scala40Heuristic._plan, into ``plan``; returns its length."""
    n = 0
    can_close = obs[at[TURN]] > 0
    keep = 1 if can_close else 2
    obligation = obs[at[OBLIGATION]:at[OBLIGATION] + NUM_KINDS]
    ob = np.argmax(obligation) if obligation.any() else -1
    if not opened:
        value, chosen, closes = best_melds(hand, ob, keep, can_close, obs[at[TURN] + 4], found, search)
        if value < 0:
            return 0
        for c in range(len(chosen)):
            n = meld_actions(chosen[c], plan, n)
        return n
    h = hand.copy()
    value, chosen, _ = best_melds(h, -1, keep, can_close, OPEN_MIN, found, search)   # any melds at all
    cards = np.empty(MAX_RUN, np.int8)
    for c in range(len(chosen)):
        n = meld_actions(chosen[c], plan, n)
        for i in range(F.meld_cards(chosen[c], cards)):
            h[cards[i]] -= 1
    table = np.concatenate((melds, chosen))
    for i in range(len(melds)):
        m = melds[i]
        if m[4] and h[F.joker_standin(m)]:
            n = _push(plan, n, A.SWAP + i)
            h[F.joker_standin(m)] -= 1
            h[JOKER] += 1
            table[i, 4] = 0
    left = h.sum()
    card, opts = np.empty(1, np.int8), np.empty((F.MAX_OPTS, 5), np.int8)   # extend_options(m, [k])
    for k in BY_PENALTY:
        card[0] = k
        while h[k] and left > keep:
            hit = -1
            for i in range(len(table)):
                if _fits(table[i], k) and F.extend_options(table[i], card, 1, opts):
                    hit = i
                    break
            if hit < 0:
                break
            n = _push(plan, n, A.SELECT + k)
            n = _push(plan, n, A.EXTEND + hit)
            table[hit] = opts[F.extend_options(table[hit], card, 1, opts) - 1]
            h[k] -= 1
            left -= 1
    return n


@jit
def _discard(rng, mask, hand):
    """Scala40Heuristic._discard."""
    best, best_score = -1, 0.0
    for k in range(NUM_KINDS):
        if not mask[A.DISCARD + k]:
            continue
        score = -100.0 if k == JOKER else discard_score(hand, k) + R.random(rng) * 0.1
        if best < 0 or score > best_score:
            best, best_score = k, score
    if best < 0:
        return np.flatnonzero(mask)[0]
    return A.DISCARD + best


@jit
def _fits(m, k):
    """_fits: a joker, or the run's suit, or the set's rank (extend_options decides the rest)."""
    return k == JOKER or (k // 13 == m[1] if m[0] == RUN else k % 13 + 1 == m[1])


@jit
def discard_score(hand, k):
    """discard_score: how much the heuristic wants to discard real card ``k``."""
    return PENALTY[k] - 7.0 * _links(hand, k)


@jit
def _links(hand, k):
    """_links: how many other hand cards could form a meld with card ``k``."""
    r, s = k % 13, k // 13
    links = 0
    for t in range(4):
        if t != s and hand[t * 13 + r]:
            links += 1
    for d in (-2, -1, 1, 2):
        q = r + d
        if 0 <= q < 13 and hand[s * 13 + q]:
            links += 1
        elif q == 13 and hand[s * 13]:  # Q-K-A
            links += 1
    if hand[k] > 1:
        links -= 1  # a duplicate helps nothing
    return links


# ------------------------------------------------------------------ solver.all_melds
@jit
def all_melds(hand, found):
    """solver.all_melds: every meld the hand forms into ``found`` (rows, values, and order: the
    rows by value, best first, ties in the order found as list.sort keeps them); returns how many."""
    rows, values, order = found
    jok = hand[JOKER] > 0
    a, b, c, d = _suit_ranks(hand, 0), _suit_ranks(hand, 1), _suit_ranks(hand, 2), _suit_ranks(hand, 3)
    # ranks held in >= 3 suits (>= 2 with a joker): the only ones that make a set
    ranks = a & b | a & c | a & d | b & c | b & d | c & d if jok else a & b & (c | d) | c & d & (a | b)
    n = 0
    while ranks:
        r = F.low_bit(ranks)
        ranks &= ranks - 1
        n = _set_melds(r, (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3, jok, found, n)
    for s, pat in enumerate((a, b, c, d)):
        if pat:
            n = _run_melds(s, pat, min(hand[s * 13], 2), jok, found, n)
    # out.sort(key=_neg_value): a counting sort (stable) on the key BEST_VALUE - value
    start = np.zeros(BEST_VALUE + 2, np.int64)      # where the melds of each key go in order
    for i in range(n):
        start[BEST_VALUE - values[i] + 1] += 1
    for key in range(1, BEST_VALUE + 2):
        start[key] += start[key - 1]
    for i in range(n):
        key = BEST_VALUE - values[i]
        order[start[key]] = i
        start[key] += 1
    return n


@jit
def _suit_ranks(hand, s):
    """melds._suit_ranks: bit r set when ``hand`` holds rank r (ace = 0) of suit ``s``."""
    bits = 0
    for r in range(13):
        if hand[s * 13 + r]:
            bits |= 1 << r
    return bits


@jit
def _set_melds(r, suits_mask, jok, found, n):
    """solver._set_melds, appended to ``found[:n]``; returns the new count."""
    v = r + 1
    for mask in range(1, 16):
        if mask & ~suits_mask:
            continue
        size = F.popcount(mask)
        if size >= 3:
            n = _add(found, n, SET, v, mask, 0, 0, SET_VALUE[v] * size)
        if jok and 2 <= size <= 3:
            s = 0
            while mask >> s & 1:
                s += 1
            n = _add(found, n, SET, v, mask | 1 << s, 0, s + 1, SET_VALUE[v] * (size + 1))
    return n


@jit
def _run_melds(s, pat, aces, jok, found, n):
    """solver._run_melds, appended to ``found[:n]``; returns the new count."""
    b = pat << 1 | (pat & 1) << 14     # melds.run_positions
    for lo in range(1, 13):
        if not b >> lo & 1 and not (jok and b >> (lo + 1) & 3 == 3):
            continue  # a window starting here would hold two holes
        missing, gap = 0, 0            # the missing positions: how many, the last
        for hi in range(lo, 15):
            present = b >> hi & 1 and not (hi == 14 and lo == 1 and aces < 2)
            if not present:
                missing, gap = missing + 1, hi
                if missing > (1 if jok else 0):
                    break
            if hi < lo + 2:
                continue
            value = 0
            for p in range(lo, hi + 1):
                value += POS_VALUE[p]
            if not missing:
                n = _add(found, n, RUN, s, lo, hi, 0, value)
                if jok:
                    for jpos in range(lo, hi + 1):
                        n = _add(found, n, RUN, s, lo, hi, jpos, value)
            else:
                n = _add(found, n, RUN, s, lo, hi, gap, value)
    return n


@jit
def _add(found, n, t, a, b, c, j, value):
    """``out.append((cards, value, (t, a, b, c, j)))`` (the cards are meld_cards of the row)."""
    rows, values, _ = found
    rows[n, 0], rows[n, 1], rows[n, 2], rows[n, 3], rows[n, 4] = t, a, b, c, j
    values[n] = value
    return n + 1


# ------------------------------------------------------------------ for tests
@jit(entry=True)   # play seldom spends best_melds's budget: tests/scala40/test_fast_heuristic.py
def best_melds_one(hand, need, keep, can_close, staged):
    """best_melds on its own."""
    return best_melds(hand, need, keep, can_close, staged, _found(), _search())


@jit(entry=True)   # from tests
def all_melds_one(hand):
    """all_melds on its own: the meld rows, best first."""
    found = _found()
    n = all_melds(hand, found)
    return found.rows[found.order[:n]]
