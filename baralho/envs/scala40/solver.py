"""The opening solver: every meld a hand can form, and whether (and how) an
unopened player can still reach the opening this turn.

Used by the mask when a player took the discard before opening (the card must
be used in the opening, so only plays that keep that possible are offered) and
when deciding whether the discard may be taken at all. Exhaustive over the
melds of the hand (a hand holds at most 14 cards), memoised on the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from baralho.envs.scala40.melds import (
    JOKER,
    NUM_KINDS,
    OPEN_MIN,
    POPCOUNT,
    POS_VALUE,
    RUN,
    SET,
    SET_VALUE,
    hand_bits,
    kind_meldable,
    kind_of,
    meldable_kinds,
    run_positions,
)

# the most a card can be worth in a meld (ace high 11, a joker up to 11)
MAX_VALUE = tuple([11] + list(range(2, 11)) + [10, 10, 10]) * 4 + (11,)


def all_melds(hand) -> list[tuple[tuple[int, ...], int, tuple]]:
    """Every meld (cards, value, meld tuple) that can be formed from ``hand``, best value first."""
    out: list[tuple[tuple[int, ...], int, tuple]] = []
    jok = hand[JOKER] > 0
    bits = hand_bits(hand)
    a, b, c, d = bits & 8191, bits >> 13 & 8191, bits >> 26 & 8191, bits >> 39
    # ranks held in >= 3 suits (>= 2 with a joker): the only ones that make a set
    ranks = a & b | a & c | a & d | b & c | b & d | c & d if jok else a & b & (c | d) | c & d & (a | b)
    while ranks:
        r = (ranks & -ranks).bit_length() - 1
        ranks &= ranks - 1
        out.extend(_set_melds(r, (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3,
                              jok))
    for s, pat in enumerate((a, b, c, d)):
        if pat:
            out.extend(_run_melds(s, pat, min(hand[s * 13], 2), jok))
    out.sort(key=_neg_value)
    return out


def _neg_value(o) -> int:
    return -o[1]


@cache
def _set_melds(r: int, suits_mask: int, jok: bool) -> tuple:
    """Sets of rank index ``r`` from the suits present (``suits_mask``) and maybe a joker."""
    out = []
    v = r + 1
    for mask in range(1, 16):
        if mask & ~suits_mask:
            continue
        size = POPCOUNT[mask]
        cards = tuple(s * 13 + r for s in range(4) if mask >> s & 1)
        if size >= 3:
            out.append((cards, SET_VALUE[v] * size, (SET, v, mask, 0, 0)))
        if jok and 2 <= size <= 3:
            s = next(t for t in range(4) if not mask >> t & 1)
            out.append((cards + (JOKER,), SET_VALUE[v] * (size + 1), (SET, v, mask | 1 << s, 0, s + 1)))
    return tuple(out)


@cache
def _run_melds(s: int, pat: int, aces: int, jok: bool) -> tuple:
    """Runs of suit ``s`` from the ranks present (``pat``, bit 0 = ace) and maybe a joker."""
    out = []
    b = run_positions(pat)
    for lo in range(1, 13):
        if not b >> lo & 1 and not (jok and b >> (lo + 1) & 3 == 3):
            continue  # a window starting here would hold two holes
        missing: list[int] = []
        for hi in range(lo, 15):
            present = b >> hi & 1 and not (hi == 14 and lo == 1 and aces < 2)
            if not present:
                missing.append(hi)
                if len(missing) > jok:
                    break
            if hi < lo + 2:
                continue
            value = sum(POS_VALUE[lo:hi + 1])
            if not missing:
                out.append((tuple(kind_of(s, p) for p in range(lo, hi + 1)), value, (RUN, s, lo, hi, 0)))
                jposs: Sequence[int] = range(lo, hi + 1) if jok else ()
            else:
                jposs = missing
            for jpos in jposs:
                cards = tuple(kind_of(s, p) for p in range(lo, hi + 1) if p != jpos) + (JOKER,)
                out.append((cards, value, (RUN, s, lo, hi, jpos)))
    return tuple(out)


def _fits(cards, hand) -> bool:
    if len(cards) < 14:  # only the A…K…A run repeats a card kind
        for k in cards:
            if not hand[k]:
                return False
        return True
    for k in cards:
        hand[k] -= 1
    ok = all(hand[k] >= 0 for k in cards)
    for k in cards:
        hand[k] += 1
    return ok


def opening_reachable(hand, pending: list[int], staged_value: int, need: int,
                      keep: int, can_close: bool) -> bool:
    return _reachable(tuple(hand), tuple(sorted(pending)), staged_value, need, keep, can_close)


@lru_cache(maxsize=4096)
def _all_melds(hand: tuple) -> list:
    return all_melds(hand)


@lru_cache(maxsize=16384)
def _reachable(key: tuple, pending: tuple, staged_value: int, need: int, keep: int, can_close: bool) -> bool:
    """Can an unopened player still open (or close in hand) this turn?

    ``key``: the free cards (count vector, a tuple: the memo key); ``pending``: the meld being built, which
    must become one meld with cards of the hand; ``staged_value``: the value
    already staged; ``need``: a card kind one of the new melds must contain
    (the taken discard), or -1. Success: ``need`` used and either the staged
    total reaches 40 or, when closing is allowed, exactly one card is left.
    At least ``keep`` cards always stay in hand (the discard, two before
    closing is allowed).
    """
    hand = list(key)
    n = sum(hand)
    for k in pending:
        hand[k] += 1
    opts = _all_melds(tuple(hand))
    if need >= 0:
        if not any(need in o[0] for o in opts):
            return False
    total = n + len(pending)
    need_opts = [j for j, o in enumerate(opts) if need in o[0]] if need >= 0 else []
    # value the remaining cards could still add (a bound; only cards in some meld count)
    inmeld = {k for o in opts for k in o[0]}
    bound0 = sum(hand[k] * MAX_VALUE[k] for k in inmeld)

    def dfs(i: int, rest: int, value: int, used: bool, bound: int) -> bool:
        if used and (staged_value + value >= OPEN_MIN or (can_close and rest == 1)):
            return True
        if not can_close and staged_value + value + bound < OPEN_MIN:
            return False
        # melds commute: while the needed card is unused, take its meld first, then any
        for j in (range(i, len(opts)) if used else need_opts):
            cards, v, _ = opts[j]
            if rest - len(cards) < keep or not _fits(cards, hand):
                continue
            for k in cards:
                hand[k] -= 1
            cut = sum(MAX_VALUE[k] for k in cards)
            ok = dfs(j if used else 0, rest - len(cards), value + v, True, bound - cut)
            for k in cards:
                hand[k] += 1
            if ok:
                return True
        return False

    if not pending:
        return dfs(0, total, 0, need < 0, bound0)
    pc = [0] * NUM_KINDS
    for k in pending:
        pc[k] += 1
    for cards, v, _ in opts:
        cc = [0] * NUM_KINDS
        for k in cards:
            cc[k] += 1
        if any(cc[k] < pc[k] for k in pending) or total - len(cards) < keep:
            continue
        for k in cards:
            hand[k] -= 1
        ok = dfs(0, total - len(cards), v, need < 0 or need in cards,
                 bound0 - sum(MAX_VALUE[k] for k in cards))
        for k in cards:
            hand[k] += 1
        if ok:
            return True
    return False


def opening_selects(hand, pending: list[int], staged_value: int, need: int,
                    keep: int, can_close: bool) -> set[int]:
    """Kinds k such that selecting k next keeps the opening reachable (see
    ``opening_reachable``): the cards, beyond ``pending``, of every meld that
    contains ``pending`` and starts a successful plan."""
    full = list(hand)
    for k in pending:
        full[k] += 1
    total = sum(full)
    out: set[int] = set()
    for cards, v, _ in _all_melds(tuple(full)):
        if total - len(cards) < keep:
            continue
        extra = list(cards)
        try:
            for k in pending:
                extra.remove(k)
        except ValueError:
            continue
        if out.issuperset(extra):
            continue
        for k in cards:
            full[k] -= 1
        used = need < 0 or need in cards
        if _reachable(tuple(full), (), staged_value + v, -1 if used else need, keep, can_close):
            out.update(extra)
        for k in cards:
            full[k] += 1
    return out


def may_open_with(hand, top: int, keep: int, can_close: bool, bits: int = -1) -> bool:
    """Can an unopened player who takes ``top`` open with it this turn?
    (``bits``: ``hand_bits(hand)`` when the caller keeps it.)"""
    if bits >= 0 and top != JOKER:
        bits |= 1 << top
    hand[top] += 1
    try:
        # most draws are refused here: test the one card before working out the hand
        if top != JOKER and not kind_meldable(hand, top, bits):
            return False
        kinds = meldable_kinds(hand, bits)
        if top not in kinds:
            return False
        bound = sum(hand[k] * MAX_VALUE[k] for k in kinds)
        if bound < OPEN_MIN and not (can_close and sum(hand[k] for k in kinds) >= sum(hand) - 1):
            return False
        return _reachable(tuple(hand), (), 0, top, keep, can_close)
    finally:
        hand[top] -= 1


