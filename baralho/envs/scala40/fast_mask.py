"""Scala 40's compiled legal mask (numba): mask.py over the state record (part of the compiled engine).

Each function is the function of mask.py with the same name; the meld arithmetic is in
``fast_melds.py`` (melds.py) and the opening solver in ``fast_solver.py`` (solver.py).
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.scala40 import fast_melds as F
from baralho.envs.scala40.fast_melds import (
    COMMIT,
    DISCARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    EXTEND,
    EXTEND_LOW,
    JOKER,
    MAX_MELDS,
    MAX_OPTS,
    NUM_KINDS,
    OVER,
    SELECT,
    SWAP,
    UNDO,
)
from baralho.envs.scala40.fast_solver import opening_selects, reachable


# ---------------------------------------------------------------------- state queries (rules.py)
@jit
def _alive(s) -> int:
    c = 0
    for i in range(s.num_players):
        if not s.eliminated[i]:
            c += 1
    return c


@jit
def _pending_has(s, k: int) -> bool:
    for i in range(s.pending_n):
        if s.pending[i] == k:
            return True
    return False



# ---------------------------------------------------------------------- mask (mask.py)
@jit
def _extends(s, group, n: int, hand, room: int) -> bool:
    """Can ``group`` plus at most ``room`` hand cards be laid off on a table meld?"""
    for i in range(s.n_melds):
        e = F.extend_extra(s.melds[i], group, n, hand)
        if e >= 0 and e <= room:
            return True
    return False


@jit
def _completable(s, group, n: int, hand, hsize: int, keep: int, opened: bool) -> bool:
    room = hsize - keep
    if room < 0:
        return False
    if s.n_melds < MAX_MELDS:
        e = F.new_meld_extra(group, n, hand)
        if e >= 0 and e <= room:
            return True
    return opened and _extends(s, group, n, hand, room)


@jit
def _may_take(s, hand, top: int, keep: int, can_close: bool) -> bool:
    if s.turn == 0:
        return True                  # the first player's free pick of the dealt discard
    p = s.player
    if s.opened[p]:
        if not s.must_use:
            return True
        group = np.empty(1, np.int8)
        group[0] = top
        return _completable(s, group, 1, hand, s.hand_size[p], keep, True)
    hand[top] += 1                   # solver.may_open_with
    # most draws are refused here: test the one card before working out the hand
    ok = (top == JOKER or F.kind_meldable(hand, top)) and reachable(hand, s.pending[:0], 0, 0, top, keep, can_close)
    hand[top] -= 1                   # (reachable: no group, an empty view, no allocation)
    return ok


@jit
def _pending_selects(s, hand, room: int, opened: bool, mask) -> None:
    """Mark the kinds k whose selection next (pending + k) can still be completed into a
    new meld or (opened) a lay-off, with ``room`` further cards at most."""
    if room < 0:
        return
    n = s.pending_n
    group = np.empty(n + 1, np.int8)
    first = -1
    for i in range(n):
        group[i] = s.pending[i]
        if first < 0 and group[i] != JOKER:
            first = group[i]
    can_new = s.n_melds < MAX_MELDS
    for k in range(NUM_KINDS):       # mask._pending_candidates: same suit or rank, or a joker
        if not hand[k]:
            continue
        if first >= 0 and k != JOKER and k // 13 != first // 13 and k % 13 != first % 13:
            continue
        hand[k] -= 1
        group[n] = k
        ok = False
        if can_new:
            e = F.new_meld_extra(group, n + 1, hand)
            ok = e >= 0 and e <= room
        if not ok and opened:
            ok = _extends(s, group, n + 1, hand, room)
        if ok:
            mask[SELECT + k] = 1
        hand[k] += 1


@jit
def _commit_actions(s, hand, keep: int, can_close: bool, guided: bool, mask) -> None:
    opts = np.empty((MAX_OPTS, 5), np.int8)
    empty = s.pending[:0]
    for o in range(F.parse_group(s.pending[:s.pending_n], s.pending_n, opts)):
        m = opts[o]
        if guided:
            used = s.ob_used or _pending_has(s, s.obligation)
            if not reachable(hand, empty, 0, s.staged_value + F.meld_value(m), -1 if used else s.obligation,
                               keep, can_close):
                continue
        mask[F.joker_action(m) if m[4] else COMMIT] = 1


@jit
def legal_mask(s, d, mask) -> None:
    """mask.legal_mask: 1 for every legal action of the acting player."""
    mask[:] = 0
    if s.phase == OVER:
        return
    p = s.player
    hand = s.hands[p]
    can_close = s.turn >= _alive(s)
    keep = 1 if can_close else 2
    if s.phase == DRAW:
        mask[DRAW_STOCK] = 1
        if s.discard_n and _may_take(s, hand, s.discard[s.discard_n - 1], keep, can_close):
            mask[DRAW_DISCARD] = 1
        return
    opened = s.opened[p]
    hsize = s.hand_size[p]
    ob = s.obligation
    guided = ob >= 0 and not opened
    if s.pending_n:
        if guided:
            opening_selects(hand, s.pending[:s.pending_n], s.pending_n, s.staged_value, -1 if s.ob_used else ob, keep,
                              can_close, mask, SELECT)
        else:
            _pending_selects(s, hand, hsize - 1 - keep, opened, mask)
        if s.pending_n >= 3 and s.n_melds < MAX_MELDS and hsize >= keep:
            _commit_actions(s, hand, keep, can_close, guided, mask)
        if opened and hsize >= keep:
            opts = np.empty((MAX_OPTS, 5), np.int8)
            for i in range(s.n_melds):
                c = F.extend_options(s.melds[i], s.pending[:s.pending_n], s.pending_n, opts)
                if c:
                    mask[EXTEND + i] = 1
                    if c > 1:
                        mask[EXTEND_LOW + i] = 1
        if not opened and s.undos:
            mask[UNDO] = 1
        return
    if opened and ob >= 0:           # must_use: the taken card is the first card played
        hand[ob] -= 1
        group = np.empty(1, np.int8)
        group[0] = ob
        if _completable(s, group, 1, hand, hsize - 1, keep, True):
            mask[SELECT + ob] = 1
        hand[ob] += 1
        return
    room = hsize - 1 - keep
    if guided:
        opening_selects(hand, s.pending[:0], 0, s.staged_value, -1 if s.ob_used else ob, keep, can_close,
                          mask, SELECT)
    elif room >= 0:                  # mask._single_selects
        if room >= 2 and s.n_melds < MAX_MELDS:
            F.meldable_kinds(hand, mask, SELECT)
        if opened:
            for i in range(s.n_melds):
                F.layoff_kinds(s.melds[i], hand, room, mask, SELECT)
    if opened:
        for i in range(s.n_melds):
            if s.melds[i, 4] and hand[F.joker_standin(s.melds[i])]:
                mask[SWAP + i] = 1
    elif s.staged and s.undos:
        mask[UNDO] = 1
    if not guided or (s.ob_used and hsize == 1 and can_close):
        for k in range(NUM_KINDS):
            if hand[k]:
                mask[DISCARD + k] = 1
