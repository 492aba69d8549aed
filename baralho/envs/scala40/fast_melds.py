"""Scala 40's compiled meld arithmetic (numba): melds.py over arrays (part of the compiled engine).

Each function here is the function of melds.py with the same name, over fixed-shape arrays:

* a meld is a row of 5 small ints ``(type, a, b, c, j)``, the tuple of melds.py;
* a group of cards (the meld being built) is an array of kinds plus its length;
* ``select_extras`` (one pass over the hand for every candidate) is replaced by
  its definition, ``new_meld_extra(pending + [k], hand - k)`` per candidate.
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.scala40 import actions as A
from baralho.envs.scala40 import melds as M

JOKER, NUM_KINDS, RUN, SET, OPEN_MIN, MAX_RUN = M.JOKER, M.NUM_KINDS, M.RUN, M.SET, M.OPEN_MIN, M.MAX_RUN
MAX_MELDS = A.MAX_MELDS
DRAW_STOCK, DRAW_DISCARD, SELECT, COMMIT, COMMIT_JOKER = (A.DRAW_STOCK, A.DRAW_DISCARD, A.SELECT, A.COMMIT,
                                                         A.COMMIT_JOKER)
EXTEND, EXTEND_LOW, SWAP, UNDO, DISCARD = A.EXTEND, A.EXTEND_LOW, A.SWAP, A.UNDO, A.DISCARD
DRAW, PLAY, OVER = A.DRAW, A.PLAY, A.OVER
POS_VALUE = np.array(M.POS_VALUE, np.int64)
SET_VALUE = np.array(M.SET_VALUE, np.int64)
PENALTY = np.array(M.PENALTY, np.int64)
BOTH_ACES = 1 << 1 | 1 << 14
MAX_OPTS = 16            # options of one parse_group / extend_options call (at most 8 are possible)




# ---------------------------------------------------------------- small helpers
@jit
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@jit
def low_bit(x: int) -> int:
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@jit
def high_bit(x: int) -> int:
    i = 0
    while x >> (i + 1):
        i += 1
    return i


@jit
def kind_of(suit: int, pos: int) -> int:
    return suit * 13 + (0 if pos == 14 else pos - 1)


@jit
def meld_cards(m, out) -> int:
    """The real card kinds of meld row ``m`` into ``out`` (the joker as JOKER); returns how many."""
    n = 0
    if m[0] == RUN:
        for p in range(m[2], m[3] + 1):
            if p != m[4]:
                out[n] = kind_of(m[1], p)
                n += 1
    else:
        for t in range(4):
            if (m[2] >> t) & 1 and t != m[4] - 1:
                out[n] = t * 13 + m[1] - 1
                n += 1
    if m[4]:
        out[n] = JOKER
        n += 1
    return n


@jit
def meld_has(m, k: int) -> bool:
    """``k in meld_cards(m)``."""
    if k == JOKER:
        return m[4] != 0
    if m[0] == RUN:
        if k // 13 != m[1]:
            return False
        r = k % 13
        for p in range(m[2], m[3] + 1):
            if p != m[4] and (0 if p == 14 else p - 1) == r:
                return True
        return False
    t = k // 13
    return k % 13 == m[1] - 1 and (m[2] >> t) & 1 == 1 and t != m[4] - 1


@jit
def meld_value(m) -> int:
    if m[0] == RUN:
        v = 0
        for p in range(m[2], m[3] + 1):
            v += POS_VALUE[p]
        return v
    return SET_VALUE[m[1]] * popcount(m[2])


@jit
def joker_standin(m) -> int:
    if not m[4]:
        return -1
    if m[0] == RUN:
        return kind_of(m[1], m[4])
    return (m[4] - 1) * 13 + m[1] - 1


@jit
def joker_action(m) -> int:
    """The COMMIT_JOKER action of meld row ``m`` (actions.joker_action(*joker_key(m)))."""
    if m[0] == RUN:
        return COMMIT_JOKER + 14 * m[1] + m[4] - 1
    return COMMIT_JOKER + 14 * (m[4] - 1) + m[1] - 1


@jit
def _put(out, n: int, t: int, a: int, b: int, c: int, j: int) -> int:
    out[n, 0], out[n, 1], out[n, 2], out[n, 3], out[n, 4] = t, a, b, c, j
    return n + 1


@jit
def _sort_unique(out, n: int) -> int:
    """sorted(set(rows)): the rows of ``out[:n]`` in tuple order, without repeats."""
    for i in range(1, n):                      # insertion sort, lexicographic
        j = i
        while j > 0:
            less = False
            for f in range(5):
                if out[j, f] != out[j - 1, f]:
                    less = out[j, f] < out[j - 1, f]
                    break
            if not less:
                break
            for f in range(5):
                out[j, f], out[j - 1, f] = out[j - 1, f], out[j, f]
            j -= 1
    w = 0
    for i in range(n):
        same = w > 0
        if same:
            for f in range(5):
                if out[i, f] != out[w - 1, f]:
                    same = False
                    break
        if not same:
            for f in range(5):
                out[w, f] = out[i, f]
            w += 1
    return w


@jit
def _positions(group, n: int) -> tuple[int, int, int, int, int, int, int]:
    """_positions of the real cards of ``group`` (one suit): how many ways of placing them (0 to 2),
    then each way's bit mask of run positions, its card count and 1 when two cards share a position
    (the reference's ``len(set(ps)) != len(ps)``); zeros for a way that is not there. A tuple, not
    an array: this runs for every kind of a legal mask, and an allocation each time was most of it."""
    base = 0
    dup = 0
    count = 0
    aces = 0
    for i in range(n):
        k = group[i]
        if k == JOKER:
            continue
        if k % 13 == 0:
            aces += 1
            continue
        b = 1 << (k % 13 + 1)
        if base & b:
            dup = 1
        base |= b
        count += 1
    if aces == 0:
        return 1, base, count, dup, 0, 0, 0
    if aces == 1:
        return 2, base | 1 << 1, count + 1, dup, base | 1 << 14, count + 1, dup
    if aces == 2:
        return 1, base | 1 << 1 | 1 << 14, count + 2, dup, 0, 0, 0
    return 0, 0, 0, 0, 0, 0, 0


@jit
def _real(group, n: int) -> tuple[int, int, int, bool, bool]:
    """(real cards, jokers, first real card, all real cards one rank, all one suit)."""
    first = -1
    real = 0
    same_rank = True
    same_suit = True
    for i in range(n):
        k = group[i]
        if k == JOKER:
            continue
        if first < 0:
            first = k
        else:
            same_rank &= k % 13 == first % 13
            same_suit &= k // 13 == first // 13
        real += 1
    return real, n - real, first, same_rank, same_suit


# ------------------------------------------------------------ parse and extend
@jit
def parse_group(group, n: int, out) -> int:
    """Every meld the group can form on its own, in tuple order, into ``out``; returns how many."""
    real, j, first, same_rank, same_suit = _real(group, n)
    if j > 1 or n < 3 or n > MAX_RUN:
        return 0
    c = 0
    r0, s0 = first % 13, first // 13
    if n <= 4 and same_rank:
        mask = 0
        for i in range(n):
            if group[i] != JOKER:
                mask |= 1 << (group[i] // 13)
        if popcount(mask) == real:
            if j:
                for t in range(4):
                    if not (mask >> t) & 1:
                        c = _put(out, c, SET, r0 + 1, mask | 1 << t, 0, t + 1)
            else:
                c = _put(out, c, SET, r0 + 1, mask, 0, 0)
    if same_suit:
        nv, q0, c0, d0, q1, c1, d1 = _positions(group, n)
        for v in range(nv):
            qm, cnt, dup = (q0, c0, d0) if v == 0 else (q1, c1, d1)
            if dup or popcount(qm) != cnt:
                continue
            lo, hi = low_bit(qm), high_bit(qm)
            missing = hi - lo + 1 - cnt
            if not j:
                if missing == 0:
                    c = _put(out, c, RUN, s0, lo, hi, 0)
            elif missing == 1:
                gap = lo
                while (qm >> gap) & 1:
                    gap += 1
                c = _put(out, c, RUN, s0, lo, hi, gap)
            elif missing == 0:
                if lo > 1:
                    c = _put(out, c, RUN, s0, lo - 1, hi, lo - 1)
                if hi < 14:
                    c = _put(out, c, RUN, s0, lo, hi + 1, hi + 1)
    return _sort_unique(out, c)


@jit
def extend_options(m, group, n: int, out) -> int:
    """Every meld that meld ``m`` becomes when ``group`` is laid off on it, lowest first."""
    real, j, first, _, _ = _real(group, n)
    if n == 0 or j > 1 or (j and m[4]):
        return 0
    c = 0
    if m[0] == SET:
        v, mask, js = m[1], m[2], m[4]
        add = 0
        for i in range(n):
            k = group[i]
            if k == JOKER:
                continue
            if k % 13 != v - 1:
                return 0
            b = 1 << (k // 13)
            if (mask | add) & b:
                return 0
            add |= b
        mask |= add
        if popcount(mask) + j > 4:
            return 0
        if j:
            for t in range(4):
                if not (mask >> t) & 1:
                    c = _put(out, c, SET, v, mask | 1 << t, 0, t + 1)
        else:
            c = _put(out, c, SET, v, mask, 0, js)
        return c
    s, lo, hi, jp = m[1], m[2], m[3], m[4]
    for i in range(n):
        if group[i] != JOKER and group[i] // 13 != s:
            return 0
    window = (1 << (hi + 1)) - (1 << lo)
    nv, q0, c0, d0, q1, c1, d1 = _positions(group, n)
    for v in range(nv):
        qm, cnt, dup = (q0, c0, d0) if v == 0 else (q1, c1, d1)
        if dup or popcount(qm) != cnt or qm & window:
            continue
        lo2 = min(lo, low_bit(qm)) if qm else lo
        hi2 = max(hi, high_bit(qm)) if qm else hi
        missing = (hi2 - lo2 + 1) - (hi - lo + 1) - cnt
        if not j:
            if missing == 0:
                c = _put(out, c, RUN, s, lo2, hi2, jp)
        elif missing == 1:
            gap = lo2
            while (qm >> gap) & 1 or lo <= gap <= hi:
                gap += 1
            c = _put(out, c, RUN, s, lo2, hi2, gap)
        elif missing == 0:
            if lo2 > 1:
                c = _put(out, c, RUN, s, lo2 - 1, hi2, lo2 - 1)
            if hi2 < 14:
                c = _put(out, c, RUN, s, lo2, hi2 + 1, hi2 + 1)
    return _sort_unique(out, c)


# ---------------------------------------------------------- completion checks
@jit
def suit_bits(hand, s: int) -> int:
    """Bitmask of run positions (1…14) of suit ``s`` present in ``hand`` (the ace at both ends)."""
    b = 0
    for r in range(13):
        if hand[s * 13 + r]:
            b |= 1 << (r + 1)
    if hand[s * 13]:
        b |= 1 << 14
    return b


@jit
def _run_extra(qm: int, b: int, jp: int, jh: bool, one_ace: bool) -> int:
    """melds._run_extra; -1 for None."""
    pmin, pmax = low_bit(qm), high_bit(qm)
    if pmax - pmin + 1 > MAX_RUN:
        return -1
    best = -1
    for lo in range(max(1, pmin - 2), pmin + 1):
        for hi in range(max(pmax, lo + 2), min(14, pmax + 2) + 1):
            freem = ((1 << (hi + 1)) - (1 << lo)) & ~qm
            free = popcount(freem)
            missing = popcount(freem & ~b)
            if one_ace and freem & BOTH_ACES == BOTH_ACES:
                missing += 1
            if jp:
                ok = missing <= 1 and free >= 1
                extra = free - 1
            else:
                ok = missing == 0 or (missing == 1 and jh)
                extra = free
            if ok and (best < 0 or extra < best):
                best = extra
    return best


@jit
def _run_part(group, n: int, jp: int, b: int, jh: bool, one_ace: bool) -> int:
    best = -1
    nv, q0, c0, d0, q1, c1, d1 = _positions(group, n)
    for v in range(nv):
        qm, cnt, dup = (q0, c0, d0) if v == 0 else (q1, c1, d1)
        if dup or popcount(qm) != cnt:
            continue
        lo = max(1, low_bit(qm) - 2)
        span = (1 << (min(14, high_bit(qm) + 2) + 1)) - (1 << lo)
        e = _run_extra(qm, b & span, jp, jh, one_ace and span & BOTH_ACES == BOTH_ACES)
        if e >= 0 and (best < 0 or e < best):
            best = e
    return best


@jit
def new_meld_extra(group, n: int, hand) -> int:
    """Fewest cards from ``hand`` that complete ``group`` into a new meld (-1: impossible)."""
    real, jp, first, same_rank, same_suit = _real(group, n)
    if jp > 1:
        return -1
    jh = hand[JOKER] > 0 and not jp
    if real == 0:
        for r in range(13):
            c = 0
            for t in range(4):
                if hand[t * 13 + r]:
                    c += 1
            if c >= 2:
                return 2
        for t in range(4):
            b = suit_bits(hand, t)
            if b & (b >> 1) or b & (b >> 2):
                return 2
        return -1
    best = -1
    r0, s0 = first % 13, first // 13
    if same_rank:
        suits = 0
        for i in range(n):
            if group[i] != JOKER:
                suits |= 1 << (group[i] // 13)
        have = real + jp
        if popcount(suits) == real and have <= 4:
            need = max(0, 3 - have)
            avail = 1 if jh else 0
            for t in range(4):
                if not (suits >> t) & 1 and hand[t * 13 + r0]:
                    avail += 1
            if avail >= need:
                best = need
    if same_suit:
        e = _run_part(group, n, jp, suit_bits(hand, s0), jh, hand[s0 * 13] == 1)
        if e >= 0 and (best < 0 or e < best):
            best = e
    return best


@jit
def _run_fill(s: int, lo: int, hi: int, taken: int, hand) -> tuple[int, int]:
    free = 0
    missing = 0
    ace = hand[s * 13]
    for p in range(lo, hi + 1):
        if (taken >> p) & 1:
            continue
        free += 1
        k = kind_of(s, p)
        if k == s * 13:
            if ace:
                ace -= 1
            else:
                missing += 1
        elif not hand[k]:
            missing += 1
    return free, missing


@jit
def extend_extra(m, group, n: int, hand) -> int:
    """Fewest cards from ``hand`` that, with ``group``, extend meld ``m`` (-1: impossible)."""
    real, jp, _, _, _ = _real(group, n)
    if jp > 1 or (jp and m[4]):
        return -1
    if m[0] == SET:
        out = np.empty((MAX_OPTS, 5), np.int8)
        return 0 if extend_options(m, group, n, out) else -1
    s, lo, hi, mj = m[1], m[2], m[3], m[4]
    if real == 0:
        return 0 if (lo > 1 or hi < 14) else -1
    for i in range(n):
        if group[i] != JOKER and group[i] // 13 != s:
            return -1
    jh = hand[JOKER] > 0 and not jp and not mj
    window = (1 << (hi + 1)) - (1 << lo)
    best = -1
    nv, q0, c0, d0, q1, c1, d1 = _positions(group, n)
    for v in range(nv):
        qm, cnt, dup = (q0, c0, d0) if v == 0 else (q1, c1, d1)
        if dup or popcount(qm) != cnt or qm & window:
            continue
        lo2, hi2 = min(lo, low_bit(qm)), max(hi, high_bit(qm))
        free, missing = _run_fill(s, lo2, hi2, qm | window, hand)
        if jp:
            if missing > 1:
                continue
            if free:
                extra = free - 1
            elif lo2 > 1 or hi2 < 14:
                extra = 0
            else:
                continue
        elif missing == 0 or (missing == 1 and jh):
            extra = free
        else:
            continue
        if best < 0 or extra < best:
            best = extra
    return best


@jit
def _run_meldable(pattern: int, jok: bool) -> int:
    pos = pattern << 1 | (pattern & 1) << 14
    out = 0
    for lo in range(1, 13):
        c = (pos >> lo) & 7
        if c == 7 or (jok and (c == 3 or c == 5 or c == 6)):
            for p in range(lo, lo + 3):
                if (c >> (p - lo)) & 1:
                    out |= 1 << (0 if p == 14 else p - 1)
    return out


@jit
def _rank_bits(hand, t: int) -> int:
    """Bit r set for each rank r (0 = ace) of suit ``t`` in ``hand``."""
    bits = 0
    for r in range(13):
        if hand[t * 13 + r]:
            bits |= 1 << r
    return bits


@jit
def kind_meldable(hand, k: int) -> bool:
    """melds.kind_meldable: one real card kind ``k`` (k < 52) is in some meld of hand cards only
    (its rank across the suits, its suit's run windows), without working out the whole hand."""
    r, s = k % 13, k // 13
    jok = hand[JOKER] > 0
    suits = (hand[r] > 0) + (hand[13 + r] > 0) + (hand[26 + r] > 0) + (hand[39 + r] > 0)
    if suits >= (2 if jok else 3):
        return True
    return (_run_meldable(_rank_bits(hand, s), jok) >> r) & 1 == 1


@jit
def meldable_kinds(hand, mask, at: int) -> None:
    """Mark ``mask[at + k]`` for the kinds k of the hand that belong to some meld of hand cards only."""
    jok = hand[JOKER] > 0
    a, b, c, d = _rank_bits(hand, 0), _rank_bits(hand, 1), _rank_bits(hand, 2), _rank_bits(hand, 3)
    if jok:
        ranks = a & b | a & c | a & d | b & c | b & d | c & d
    else:
        ranks = a & b & (c | d) | c & d & (a | b)
    runs = 0
    for t in range(4):
        pat = a if t == 0 else b if t == 1 else c if t == 2 else d
        run = _run_meldable(pat, jok)
        runs |= run
        sel = pat & (ranks | run)
        for r in range(13):
            if (sel >> r) & 1:
                mask[at + t * 13 + r] = 1
    if jok and (ranks or runs):
        mask[at + JOKER] = 1


@jit
def layoff_kinds(m, hand, room: int, mask, at: int) -> None:
    """Mark ``mask[at + k]`` for the kinds k whose selection can end in a lay-off on ``m``."""
    if m[0] == SET:
        v, smask, js = m[1], m[2], m[4]
        if popcount(smask) < 4:
            for t in range(4):
                if not (smask >> t) & 1 and hand[t * 13 + v - 1]:
                    mask[at + t * 13 + v - 1] = 1
            if not js and hand[JOKER]:
                mask[at + JOKER] = 1
        return
    s, lo, hi, jp = m[1], m[2], m[3], m[4]
    jok = hand[JOKER] > 0 and not jp
    if jok and (lo > 1 or hi < 14):
        mask[at + JOKER] = 1
    for side in range(2):
        between = 0
        used = False
        p = lo - 1 if side == 0 else hi + 1
        while 1 <= p <= 14:
            k = kind_of(s, p)
            if hand[k]:
                if between <= room:
                    mask[at + k] = 1
                between += 1
            elif jok and not used:
                used = True
                between += 1
            else:
                break
            p = p - 1 if side == 0 else p + 1
