"""Cards and melds of Scala 40: kinds, values, meld parsing, lay-offs, completion
checks and the opening solver. Pure python over small ints (the hot path).

Card kinds: ``suit * 13 + rank_index`` for the 52 French cards (suits ♠ ♥ ♦ ♣,
rank_index 0 = ace … 12 = king) and ``JOKER = 52``. A hand is a count vector
over the 53 kinds (0–2 per card, 0–4 jokers).

Positions in a run are 1…14: the ace is 1 (low, A-2-3) or 14 (high, Q-K-A).
A run never wraps, so K-A-2 is impossible by construction.

A meld on the table is an immutable tuple ``(type, a, b, c, j)``:

* run  ``(RUN, suit, lo, hi, jpos)``: positions lo…hi of one suit; the joker
  stands for position ``jpos`` (0 = no joker);
* set  ``(SET, v, suitmask, 0, js)``: rank v (1…13); ``suitmask`` holds every
  suit the set shows, the joker's stand-in included; the joker stands for suit
  ``js - 1`` (0 = no joker).
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

JOKER = 52
NUM_KINDS = 53
RUN, SET = 0, 1
SUITS = "♠♥♦♣"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
OPEN_MIN = 40
MAX_RUN = 14

# meld value of a position in a run (ace low 1, ace high 11) and of a rank in a set
POS_VALUE = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)
SET_VALUE = (0, 11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
# penalty of a card left in hand (the lone ace is handled by hand_penalty)
PENALTY = tuple([11] + list(range(2, 11)) + [10, 10, 10]) * 4 + (25,)
POPCOUNT = tuple(bin(i).count("1") for i in range(16))
# bytes.translate table: a card count -> "0" or "1" (ASCII), for int(..., 2)
_PRESENT_DIGIT = bytes([0x30] + [0x31] * 255)


def kind_of(suit: int, pos: int) -> int:
    """The card kind at run position ``pos`` (1…14) of ``suit``."""
    return suit * 13 + (0 if pos == 14 else pos - 1)


def card_name(k: int) -> str:
    return "🃏" if k == JOKER else RANKS[k % 13] + SUITS[k // 13]


def hand_penalty(counts) -> int:
    """Penalty points of the cards left in a hand (lone ace = 1)."""
    n = 0
    total = 0
    for k in range(NUM_KINDS):
        c = counts[k]
        if c:
            n += c
            total += c * PENALTY[k]
    if n == 1 and total == 11 and counts[JOKER] == 0:
        return 1
    return total


# ----------------------------------------------------------------- meld tuples
def meld_cards(m: tuple) -> list[int]:
    """The real card kinds of a meld (the joker as JOKER)."""
    return list(_meld_cards(m))


@lru_cache(maxsize=8192)
def _meld_cards(m: tuple) -> tuple[int, ...]:
    if m[0] == RUN:
        _, s, lo, hi, jp = m
        out = [kind_of(s, p) for p in range(lo, hi + 1) if p != jp]
    else:
        _, v, mask, _, js = m
        out = [s * 13 + v - 1 for s in range(4) if mask >> s & 1 and s != js - 1]
    if m[4]:
        out.append(JOKER)
    return tuple(out)


@lru_cache(maxsize=8192)
def valid_meld(m: tuple) -> bool:
    """Is the tuple a meld that can lie on the table?"""
    return m in parse_group(meld_cards(m))


def meld_len(m: tuple) -> int:
    return m[3] - m[2] + 1 if m[0] == RUN else POPCOUNT[m[2]]


def meld_value(m: tuple) -> int:
    if m[0] == RUN:
        return sum(POS_VALUE[m[2]:m[3] + 1])
    return SET_VALUE[m[1]] * POPCOUNT[m[2]]


def joker_standin(m: tuple) -> int:
    """The card kind the meld's joker stands for, or -1."""
    if not m[4]:
        return -1
    if m[0] == RUN:
        return kind_of(m[1], m[4])
    return (m[4] - 1) * 13 + m[1] - 1


def joker_key(m: tuple) -> tuple[int, int]:
    """(suit, position) the meld's joker stands for (position = rank for a set)."""
    return (m[1], m[4]) if m[0] == RUN else (m[4] - 1, m[1])


def swap_joker(m: tuple) -> tuple:
    """The meld after its joker is replaced by the real card it stands for."""
    return (m[0], m[1], m[2], m[3], 0)


def meld_name(m: tuple) -> str:
    if m[0] == RUN:
        _, s, lo, hi, jp = m
        parts = [(f"🃏({card_name(kind_of(s, p))})" if p == jp else card_name(kind_of(s, p)))
                 for p in range(lo, hi + 1)]
    else:
        _, v, mask, _, js = m
        parts = [(f"🃏({card_name(s * 13 + v - 1)})" if s == js - 1 else card_name(s * 13 + v - 1))
                 for s in range(4) if mask >> s & 1]
    return " ".join(parts)


def _positions(real: list[int]) -> list[list[int]]:
    """Every assignment of run positions to the real cards of one suit (aces 1 or 14)."""
    base = [k % 13 + 1 for k in real if k % 13]
    aces = len(real) - len(base)
    if aces == 0:
        return [base]
    if aces == 1:
        return [base + [1], base + [14]]
    if aces == 2:
        return [base + [1, 14]]
    return []


# ------------------------------------------------------------ parse and extend
def parse_group(group: list[int]) -> list[tuple]:
    """Every meld a group of cards can form on its own (one per joker stand-in)."""
    real = [k for k in group if k != JOKER]
    j = len(group) - len(real)
    if j > 1 or len(group) < 3 or len(group) > MAX_RUN:
        return []
    out: list[tuple] = []
    r0, s0 = real[0] % 13, real[0] // 13
    if len(group) <= 4 and all(k % 13 == r0 for k in real):
        mask = 0
        for k in real:
            mask |= 1 << (k // 13)
        if POPCOUNT[mask] == len(real):
            if j:
                out.extend((SET, r0 + 1, mask | 1 << s, 0, s + 1) for s in range(4) if not mask >> s & 1)
            else:
                out.append((SET, r0 + 1, mask, 0, 0))
    if all(k // 13 == s0 for k in real):
        for ps in _positions(real):
            if len(set(ps)) != len(ps):
                continue
            lo, hi = min(ps), max(ps)
            missing = hi - lo + 1 - len(ps)
            if not j:
                if missing == 0:
                    out.append((RUN, s0, lo, hi, 0))
            elif missing == 1:
                gap = next(p for p in range(lo, hi + 1) if p not in ps)
                out.append((RUN, s0, lo, hi, gap))
            elif missing == 0:
                if lo > 1:
                    out.append((RUN, s0, lo - 1, hi, lo - 1))
                if hi < 14:
                    out.append((RUN, s0, lo, hi + 1, hi + 1))
    return sorted(set(out))


def extend_options(m: tuple, group: list[int]) -> list[tuple]:
    """Every meld that meld ``m`` becomes when ``group`` is laid off on it, lowest first."""
    real = [k for k in group if k != JOKER]
    j = len(group) - len(real)
    if not group or j > 1 or (j and m[4]):
        return []
    out: list[tuple] = []
    if m[0] == SET:
        _, v, mask, _, js = m
        add = 0
        for k in real:
            if k % 13 != v - 1:
                return []
            b = 1 << (k // 13)
            if (mask | add) & b:
                return []
            add |= b
        mask |= add
        if POPCOUNT[mask] + j > 4:
            return []
        if j:
            out.extend((SET, v, mask | 1 << s, 0, s + 1) for s in range(4) if not mask >> s & 1)
        else:
            out.append((SET, v, mask, 0, js))
        return out
    _, s, lo, hi, jp = m
    if any(k // 13 != s for k in real):
        return []
    for ps in _positions(real):
        if len(set(ps)) != len(ps) or any(lo <= p <= hi for p in ps):
            continue
        lo2, hi2 = min([lo] + ps), max([hi] + ps)
        missing = (hi2 - lo2 + 1) - (hi - lo + 1) - len(ps)
        if not j:
            if missing == 0:
                out.append((RUN, s, lo2, hi2, jp))
        elif missing == 1:
            gap = next(p for p in range(lo2, hi2 + 1) if p not in ps and not lo <= p <= hi)
            out.append((RUN, s, lo2, hi2, gap))
        elif missing == 0:
            if lo2 > 1:
                out.append((RUN, s, lo2 - 1, hi2, lo2 - 1))
            if hi2 < 14:
                out.append((RUN, s, lo2, hi2 + 1, hi2 + 1))
    return sorted(set(out))


# ---------------------------------------------------------- completion checks
def _suit_bits(hand, s: int) -> int:
    """Bitmask of run positions (1…14) of suit ``s`` present in ``hand``."""
    return run_positions(_suit_ranks(hand, s))


def _suit_ranks(hand, s: int) -> int:
    """Bit r set when ``hand`` holds rank r (ace = 0) of suit ``s``: one C-level pass."""
    base = s * 13
    return int(bytes(hand[base:base + 13][::-1]).translate(_PRESENT_DIGIT), 2)


def run_positions(ranks: int) -> int:
    """Rank bits of one suit (bit r = rank r, ace = 0) as run positions 1…14 (the ace at both ends)."""
    return ranks << 1 | (ranks & 1) << 14


def _run_fill(s: int, lo: int, hi: int, taken: set, hand) -> tuple[int, int]:
    """(free slots, slots the hand cannot fill) of window lo…hi outside ``taken``."""
    free = missing = 0
    ace = hand[s * 13]
    for p in range(lo, hi + 1):
        if p in taken:
            continue
        free += 1
        k = s * 13 + (0 if p == 14 else p - 1)
        if k == s * 13:
            if ace:
                ace -= 1
            else:
                missing += 1
        elif not hand[k]:
            missing += 1
    return free, missing


_BOTH_ACES = 1 << 1 | 1 << 14


@lru_cache(maxsize=1 << 16)
def _run_extra(qm: int, b: int, jp: int, jh: bool, one_ace: bool) -> int | None:
    """Fewest hand cards completing a run around positions ``qm`` (bit p = position p
    taken by the group; ``jp``: the group holds the joker), the hand holding run
    positions ``b`` (``one_ace``: a single ace, which cannot stand at both ends;
    ``jh``: a joker it may add). None: impossible."""
    pmin, pmax = (qm & -qm).bit_length() - 1, qm.bit_length() - 1
    if pmax - pmin + 1 > MAX_RUN:
        return None
    best = None
    for lo in range(max(1, pmin - 2), pmin + 1):
        for hi in range(max(pmax, lo + 2), min(14, pmax + 2) + 1):
            freem = ((1 << (hi + 1)) - (1 << lo)) & ~qm
            free = freem.bit_count()
            missing = (freem & ~b).bit_count()
            if one_ace and freem & _BOTH_ACES == _BOTH_ACES:
                missing += 1  # one ace cannot stand at both ends
            if jp:
                ok = missing <= 1 and free >= 1
                extra = free - 1
            else:
                ok = missing == 0 or (missing == 1 and jh)
                extra = free
            if ok and (best is None or extra < best):
                best = extra
    return best


def new_meld_extra(pending: list[int], hand) -> int | None:
    """Fewest cards from ``hand`` that complete ``pending`` into a new meld (None: impossible)."""
    real = [k for k in pending if k != JOKER]
    jp = len(pending) - len(real)
    if jp > 1:
        return None
    jh = hand[JOKER] > 0 and not jp
    if not real:  # a lone joker: two cards of the hand must go with it
        for r in range(13):
            if sum(1 for s in range(4) if hand[s * 13 + r]) >= 2:
                return 2
        for s in range(4):
            b = _suit_bits(hand, s)
            if b & (b >> 1) or b & (b >> 2):
                return 2
        return None
    best = None
    r0, s0 = real[0] % 13, real[0] // 13
    if all(k % 13 == r0 for k in real):
        suits = {k // 13 for k in real}
        have = len(real) + jp
        if len(suits) == len(real) and have <= 4:
            need = max(0, 3 - have)
            avail = sum(1 for s in range(4) if s not in suits and hand[s * 13 + r0]) + (1 if jh else 0)
            if avail >= need:
                best = need
    if all(k // 13 == s0 for k in real):
        e = _run_part(real, jp, _suit_bits(hand, s0), jh, hand[s0 * 13] == 1)
        if e is not None and (best is None or e < best):
            best = e
    return best


def _run_part(real: list[int], jp: int, b: int, jh: bool, one_ace: bool) -> int | None:
    """new_meld_extra's run half: ``real`` (one suit) and ``jp`` jokers, the hand
    holding run positions ``b`` of that suit (``one_ace``: a single ace) and a
    joker it may add when ``jh``."""
    best = None
    for ps in _positions(real):
        qm = 0
        for p in ps:
            qm |= 1 << p
        if qm.bit_count() != len(ps):
            continue
        # only the hand's cards within two places of the group matter (a window
        # reaches at most two beyond it): memoise on that slice of the suit
        lo = max(1, min(ps) - 2)
        span = (1 << (min(14, max(ps) + 2) + 1)) - (1 << lo)
        e = _run_extra(qm, b & span, jp, jh, one_ace and span & _BOTH_ACES == _BOTH_ACES)
        if e is not None and (best is None or e < best):
            best = e
    return best


def select_extras(pending: list[int], hand, bits: int = -1) -> dict[int, int]:
    """For every card kind k the hand holds: ``new_meld_extra(pending + [k], hand - k)``
    where that is not None, computed in one pass (the mask's candidate loop).

    ``pending`` must hold a real card (a lone joker goes through new_meld_extra).
    The suit bits, the set's suits and the jokers are read once; each candidate
    only adjusts them for the card it takes out of the hand (``bits``:
    ``hand_bits(hand)`` when the caller keeps it)."""
    real = [k for k in pending if k != JOKER]
    jp = len(pending) - len(real)
    out: dict[int, int] = {}
    if not real:
        raise ValueError("select_extras needs a group with a real card (a lone joker: new_meld_extra)")
    if jp > 1:
        return out
    hj = hand[JOKER]
    r0, s0 = real[0] % 13, real[0] // 13
    # sets: every real card of rank r0, in distinct suits
    if all(k % 13 == r0 for k in real):
        suits = 0
        for k in real:
            suits |= 1 << (k // 13)
        if POPCOUNT[suits] == len(real):
            free = [t for t in range(4) if not suits >> t & 1 and hand[t * 13 + r0]]
            have = len(real) + jp
            if have + 1 <= 4:
                need = max(0, 2 - have)
                spare = 1 if hj and not jp else 0   # a joker the set may still take
                for t in free:   # k = the card of suit t: the others (and a joker) may complete
                    if len(free) - 1 + spare >= need:
                        out[t * 13 + r0] = need
                if hj and not jp and len(free) >= need:   # k = a joker
                    out[JOKER] = need
    # runs: every real card of suit s0
    if all(k // 13 == s0 for k in real):
        b = _suit_bits(hand, s0) if bits < 0 else run_positions(bits >> 13 * s0 & 8191)
        base = s0 * 13
        aces = hand[base]
        jh = hj > 0 and not jp
        if aces:   # the ace may take either end: the general path
            e = _run_part(real + [base], jp, b & ~_BOTH_ACES if aces == 1 else b, jh, aces == 2)
            if e is not None:
                old = out.get(base)
                if old is None or e < old:
                    out[base] = e
        # any other card adds one position to each way of placing the group
        # (_run_part inlined: the group's positions are worked out once)
        variants = []
        for ps in _positions(real):
            qm = 0
            for p in ps:
                qm |= 1 << p
            if qm.bit_count() == len(ps):
                variants.append((qm, min(ps), max(ps)))
        one_ace = aces == 1
        for r in range(1, 13):
            c = hand[base + r]
            if not c:
                continue
            p = r + 1
            bk = b & ~(1 << p) if c == 1 else b
            best = None
            for qv, mn, mx in variants:
                if qv >> p & 1:
                    continue
                lo = max(1, min(mn, p) - 2)
                span = (1 << (min(14, max(mx, p) + 2) + 1)) - (1 << lo)
                e = _run_extra(qv | 1 << p, bk & span, jp, jh, one_ace and span & _BOTH_ACES == _BOTH_ACES)
                if e is not None and (best is None or e < best):
                    best = e
            if best is not None:
                k = base + r
                old = out.get(k)
                if old is None or best < old:
                    out[k] = best
        if hj and not jp:
            e = _run_part(real, 1, b, False, aces == 1)
            if e is not None:
                old = out.get(JOKER)
                if old is None or e < old:
                    out[JOKER] = e
    return out


def extend_extra(m: tuple, pending: list[int], hand) -> int | None:
    """Fewest cards from ``hand`` that, with ``pending``, extend meld ``m`` (None: impossible)."""
    real = [k for k in pending if k != JOKER]
    jp = len(pending) - len(real)
    if jp > 1 or (jp and m[4]):
        return None
    if m[0] == SET:
        return 0 if extend_options(m, pending) else None
    _, s, lo, hi, mj = m
    if not real:
        return 0 if (lo > 1 or hi < 14) else None
    if any(k // 13 != s for k in real):
        return None
    jh = hand[JOKER] > 0 and not jp and not mj
    best = None
    for ps in _positions(real):
        if len(set(ps)) != len(ps) or any(lo <= p <= hi for p in ps):
            continue
        lo2, hi2 = min([lo] + ps), max([hi] + ps)
        taken = set(ps) | set(range(lo, hi + 1))
        free, missing = _run_fill(s, lo2, hi2, taken, hand)
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
        if best is None or extra < best:
            best = extra
    return best


@cache
def _run_meldable(pattern: int, jok: bool) -> int:
    """Ranks (bit r, ace = 0) of a suit holding ``pattern`` that lie in a 3-card
    window of present cards (two present and a joker when ``jok``)."""
    pos = run_positions(pattern)
    out = 0
    for lo in range(1, 13):
        c = pos >> lo & 7
        if c == 7 or (jok and c in (3, 5, 6)):
            for p in range(lo, lo + 3):
                if c >> (p - lo) & 1:
                    out |= 1 << (0 if p == 14 else p - 1)
    return out




def hand_bits(hand) -> int:
    """Bit k set when ``hand`` holds card kind k (k < 52). One C-level pass
    (bytes → translate → int) instead of 52 python-level tests: it is on the hot path."""
    return int(bytes(hand[51::-1]).translate(_PRESENT_DIGIT), 2)


@cache
def _suit_kinds(s: int, ranks: int) -> tuple[int, ...]:
    """The card kinds of suit ``s`` whose rank bits (ace = bit 0) are set in ``ranks``."""
    return tuple(s * 13 + r for r in range(13) if ranks >> r & 1)


def meldable_kinds(hand, bits: int = -1) -> list[int]:
    """Kinds of the hand that belong to some meld made only of hand cards
    (``bits``: ``hand_bits(hand)`` when the caller keeps it)."""
    if bits < 0:
        bits = hand_bits(hand)
    jok = hand[JOKER] > 0
    pats = (bits & 8191, bits >> 13 & 8191, bits >> 26 & 8191, bits >> 39)
    a, b, c, d = pats
    if jok:   # ranks held in >= 2 suits: a set with the joker
        ranks = a & b | a & c | a & d | b & c | b & d | c & d
    else:     # ranks held in >= 3 suits
        ranks = a & b & (c | d) | c & d & (a | b)
    out: list[int] = []
    runs = 0
    for s in range(4):
        run = _run_meldable(pats[s], jok)
        runs |= run
        sel = pats[s] & (ranks | run)
        if sel:
            out.extend(_suit_kinds(s, sel))
    if jok and (ranks or runs):
        out.append(JOKER)
    return out


def kind_meldable(hand, k: int, bits: int = -1) -> bool:
    """``k in meldable_kinds(hand)`` for one real card kind ``k`` (k < 52), without
    working out the whole hand: its rank across the suits, its suit's run windows
    (``bits``: ``hand_bits(hand)`` when the caller keeps it)."""
    r, s = k % 13, k // 13
    jok = hand[JOKER] > 0
    suits = (hand[r] > 0) + (hand[13 + r] > 0) + (hand[26 + r] > 0) + (hand[39 + r] > 0)
    if suits >= (2 if jok else 3):
        return True
    pattern = _suit_ranks(hand, s) if bits < 0 else bits >> 13 * s & 8191
    return bool(_run_meldable(pattern, jok) >> r & 1)


def layoff_kinds(m: tuple, hand, room: int) -> list[int]:
    """Kinds k of the hand such that selecting k can end in a lay-off on meld ``m``
    using at most ``room`` further hand cards (the cards between, or one joker)."""
    out = []
    if m[0] == SET:
        _, v, mask, _, js = m
        if POPCOUNT[mask] < 4:
            out = [t * 13 + v - 1 for t in range(4) if not mask >> t & 1 and hand[t * 13 + v - 1]]
            if not js and hand[JOKER]:
                out.append(JOKER)
        return out
    _, s, lo, hi, jp = m
    jok = hand[JOKER] > 0 and not jp
    if jok and (lo > 1 or hi < 14):
        out.append(JOKER)
    for rng in (range(lo - 1, 0, -1), range(hi + 1, 15)):
        between = 0
        used = False
        for p in rng:
            k = kind_of(s, p)
            if hand[k]:
                if between <= room:
                    out.append(k)
                between += 1
            elif jok and not used:
                used = True
                between += 1
            else:
                break
    return out


@lru_cache(maxsize=1)
def templates():
    """(melds, card counts [T, 53], values [T], lengths [T]) of every possible meld."""
    melds = []
    for s in range(4):
        for lo in range(1, 13):
            for hi in range(lo + 2, 15):
                for jp in [0, *range(lo, hi + 1)]:
                    melds.append((RUN, s, lo, hi, jp))
    for v in range(1, 14):
        for mask in range(16):
            if bin(mask).count("1") >= 3:
                for js in [0] + [t + 1 for t in range(4) if mask >> t & 1]:
                    melds.append((SET, v, mask, 0, js))
    counts = np.zeros((len(melds), NUM_KINDS), np.int16)
    values = np.zeros(len(melds), np.int32)
    for i, m in enumerate(melds):
        if m[0] == RUN:
            _, s, lo, hi, jp = m
            for p in range(lo, hi + 1):
                counts[i, JOKER if p == jp else kind_of(s, p)] += 1
            values[i] = sum(POS_VALUE[p] for p in range(lo, hi + 1))
        else:
            _, v, mask, _, js = m
            for t in range(4):
                if mask >> t & 1:
                    counts[i, JOKER if t == js - 1 else t * 13 + v - 1] += 1
            values[i] = SET_VALUE[v] * bin(mask).count("1")
    return melds, counts, values, counts.sum(1)
