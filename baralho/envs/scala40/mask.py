"""The Scala 40 legal mask: which actions the acting player may take now.

The mask only offers actions from which the turn can still end legally (a
selected card can always be completed into a meld or a lay-off; an unopened
player who took the discard is only offered plays that still open with it), so
no sequence of actions dead-ends or loops. checks.py answers the same
question by brute force; the conformance suite checks they agree.

Speed: this is about half of a step, so it is written for CPython. The mask is
filled in a ``bytearray`` (the discard row is one ``bytes.translate`` of the hand
instead of a numpy comparison) and handed out as a read-only numpy view of its
bytes, which the adapter need not lock; the meld arithmetic below it (melds.py)
works on bit masks, from the per-seat presence bits the state keeps.
"""

from __future__ import annotations

import numpy as np

from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.actions import (  # plain names: read in the hot loops below
    COMMIT,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    EXTEND,
    EXTEND_LOW,
    MAX_MELDS,
    NUM_ACTIONS,
    SELECT,
    SWAP,
    UNDO,
)
from baralho.envs.scala40.melds import (
    JOKER,
    NUM_KINDS,
    RUN,
    extend_extra,
    extend_options,
    joker_key,
    joker_standin,
    layoff_kinds,
    meld_value,
    meldable_kinds,
    new_meld_extra,
    parse_group,
    select_extras,
)
from baralho.envs.scala40.solver import may_open_with, opening_reachable, opening_selects

DRAW, PLAY, OVER = 0, 1, 2     # the engine's phases (rules.py)
_PRESENT = bytes([0] + [1] * 255)   # bytes.translate table: a card count -> 0/1


def legal_mask(game, s) -> np.ndarray:
    """int8[NUM_ACTIONS]: 1 for every legal action of the acting player."""
    mask = bytearray(NUM_ACTIONS)
    if s.phase == OVER:
        return np.frombuffer(bytes(mask), np.int8)
    p = s.player
    hand = s.hands[p]
    can_close = s.turn >= s.eliminated.count(False)   # Scala40Game.closing_allowed
    keep = 1 if can_close else 2
    if s.phase == DRAW:
        mask[DRAW_STOCK] = 1
        if s.discard and _may_take(game, s, hand, s.discard[-1], keep, can_close):
            mask[DRAW_DISCARD] = 1
        return np.frombuffer(bytes(mask), np.int8)
    opened = s.opened[p]
    hsize = s.hand_size[p]
    ob = s.obligation
    guided = ob >= 0 and not opened
    pend = s.pending
    if pend:
        if guided:
            for k in opening_selects(hand, pend, s.staged_value, -1 if s.ob_used else ob, keep, can_close):
                mask[SELECT + k] = 1
        else:
            _pending_selects(mask, s, pend, hand, hsize - 1 - keep, opened)
        if len(pend) >= 3 and len(s.melds) < MAX_MELDS and hsize >= keep:
            for a in _commit_actions(s, hand, keep, can_close, guided):
                mask[a] = 1
        if opened and hsize >= keep:
            real = next((k for k in pend if k != JOKER), -1)
            for i, m in enumerate(s.melds):
                if real >= 0 and m[1] != (real // 13 if m[0] == RUN else real % 13 + 1):
                    continue  # wrong suit or rank: cannot take these cards
                opts = extend_options(m, pend)
                if opts:
                    mask[EXTEND + i] = 1
                    if len(opts) > 1:
                        mask[EXTEND_LOW + i] = 1
        if not opened and s.undos:
            mask[UNDO] = 1
        return np.frombuffer(bytes(mask), np.int8)
    # nothing being built
    if opened and ob >= 0:  # must_use: the taken card is the first card played
        hand[ob] -= 1
        if _completable(s, [ob], hand, hsize - 1, keep, True):
            mask[SELECT + ob] = 1
        hand[ob] += 1
        return np.frombuffer(bytes(mask), np.int8)
    room = hsize - 1 - keep
    if guided:
        for k in opening_selects(hand, [], s.staged_value, -1 if s.ob_used else ob, keep, can_close):
            mask[SELECT + k] = 1
    elif room >= 0:
        for k in _single_selects(s, hand, room, opened):
            mask[SELECT + k] = 1
    if opened:
        for i, m in enumerate(s.melds):
            if m[4] and hand[joker_standin(m)]:
                mask[SWAP + i] = 1
    elif s.staged and s.undos:
        mask[UNDO] = 1
    if not guided or (s.ob_used and hsize == 1 and can_close):
        mask[DISCARD:] = bytes(hand).translate(_PRESENT)
    return np.frombuffer(bytes(mask), np.int8)


def _may_take(game, s, hand, top, keep, can_close) -> bool:
    if s.turn == 0:
        return True  # the first player's free pick of the dealt discard
    hsize = s.hand_size[s.player]
    if s.opened[s.player]:
        if game.config.taken_discard == "free":
            return True
        return _completable(s, [top], hand, hsize, keep, True)
    return may_open_with(hand, top, keep, can_close, s.bits[s.player])


def _pending_candidates(pend, hand) -> list[int]:
    """Kinds that may join the cards being built: same suit or same rank, or a joker."""
    real = [k for k in pend if k != JOKER]
    if not real:
        return [k for k in range(NUM_KINDS) if hand[k]]
    r, t = real[0] % 13, real[0] // 13
    out = [k for k in range(t * 13, t * 13 + 13) if hand[k]]
    out.extend(u * 13 + r for u in range(4) if u != t and hand[u * 13 + r])
    if hand[JOKER]:
        out.append(JOKER)
    return out


def _pending_selects(mask: bytearray, s, pend: list[int], hand, room: int, opened: bool) -> None:
    """Mark the kinds k whose selection next (``pend`` + k) can still be completed
    into a new meld or (opened) a lay-off, with ``room`` further cards at most."""
    if room < 0:
        return
    # No memo on the hand here: measured on random play, a key of the hand's counts in
    # the built card's suit and rank hit 4% of the time. select_extras answers
    # new_meld_extra for every candidate in one pass over the hand instead.
    can_new = len(s.melds) < MAX_MELDS
    lone_joker = all(k == JOKER for k in pend)
    extras = select_extras(pend, hand, s.bits[s.player]) if can_new and not lone_joker else None
    for k in _pending_candidates(pend, hand):
        if extras is not None:
            e = extras.get(k)
            if e is not None and e <= room:
                mask[SELECT + k] = 1
                continue
            if not opened:
                continue
        elif not opened and not can_new:
            continue
        hand[k] -= 1
        group = pend + [k]
        if can_new and lone_joker:
            e = new_meld_extra(group, hand)
            ok = e is not None and e <= room
        else:
            ok = False
        if ok or (opened and _extends(s.melds, group, hand, room)):
            mask[SELECT + k] = 1
        hand[k] += 1


def _extends(melds, group: list[int], hand, room: int) -> bool:
    """Can ``group`` plus at most ``room`` hand cards be laid off on a table meld?"""
    real = next((k for k in group if k != JOKER), -1)
    for m in melds:
        if real >= 0 and m[1] != (real // 13 if m[0] == RUN else real % 13 + 1):
            continue
        e = extend_extra(m, group, hand)
        if e is not None and e <= room:
            return True
    return False


def _completable(s, pend, hand, hsize, keep, opened) -> bool:
    """Can ``pend`` still become a new meld or a lay-off, keeping ``keep`` cards in hand?"""
    room = hsize - keep
    if room < 0:
        return False
    if len(s.melds) < MAX_MELDS:
        e = new_meld_extra(pend, hand)
        if e is not None and e <= room:
            return True
    return opened and _extends(s.melds, pend, hand, room)


def _single_selects(s, hand, room, opened) -> list[int]:
    """Kinds k whose selection (nothing being built yet) can be completed."""
    out = meldable_kinds(hand, s.bits[s.player]) if room >= 2 and len(s.melds) < MAX_MELDS else []
    if opened:
        extra = set()
        for m in s.melds:
            extra.update(layoff_kinds(m, hand, room))
        if extra:
            out = sorted(extra.union(out))
    return out


def _commit_actions(s, hand, keep, can_close, guided) -> list[int]:
    out = []
    plain = None
    for m in parse_group(s.pending):
        if guided:
            used = s.ob_used or s.obligation in s.pending
            if not opening_reachable(hand, [], s.staged_value + meld_value(m),
                                     -1 if used else s.obligation, keep, can_close):
                continue
        if m[4]:
            out.append(A.joker_action(*joker_key(m)))
        else:
            plain = COMMIT
    if plain is not None:
        out.append(plain)
    return out
