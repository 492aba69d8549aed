"""Roda de Samba's compiled rules (numba): ``rules.py``, ``scoring.py`` and
``cards.requirements_met`` over a game record ``s`` and the deck's tables ``d``
(the records of :mod:`.fast`, which holds the records, the deal, the
observation and the batch entry points; its docstring says what differs
from the reference and why). Each function is the reference's of the same
name, line for line.
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.roda_de_samba.actions import (
    PH_CALL,
    PH_DISCARD,
    PH_DRAW,
    PH_LAY,
    PH_PILE,
    PH_PLACE,
    PH_RESERVE,
)
from baralho.envs.roda_de_samba.cards import (
    BANG_BAIXA,
    BANG_COMPRA,
    BANG_DESCARTE,
    BANG_MALANDRAGEM,
    MAX_GROUP,
    REQ_ANY,
    REQ_INSTRUMENT,
    REQ_PAIR,
    ROW,
    SPACES,
)

MAX_TOKENS = 6      # requirement tokens per sambista (cards.parse_deck)

# ---------------------------------------------------------------------- queries
@jit
def _free_space(s, p: int) -> bool:
    for sp in range(SPACES):
        if s.space_inst[p, sp] < 0:
            return True
    return False


@jit
def _any_pile(s) -> bool:
    for c in range(len(s.pile_size)):
        if s.pile_size[c]:
            return True
    return False


@jit
def _any_row(s) -> bool:
    for i in range(ROW):
        if s.row[i] >= 0:
            return True
    return False


@jit
def legal_mask(s, d, out) -> None:
    """actions.legal_mask / legal_actions."""
    out[:] = 0
    if s.over:
        return
    ph, p = s.phase, s.player
    if ph == PH_DRAW or ph == PH_PILE:
        for c in range(d.C):
            if s.pile_size[c]:
                out[d.A_PILE + c] = 1
        if ph == PH_DRAW and s.deck_len:
            out[0] = 1                                    # A_DRAW
    elif ph == PH_LAY:
        free = _free_space(s, p)
        for k in range(d.KI):
            if s.hands[p, k] and (free or s.inst_space[p, d.kind_inst[k]] >= 0):
                out[d.A_LAY + k] = 1
    elif ph == PH_PLACE:
        inst = s.sel_inst
        if s.sel_len < MAX_GROUP:
            for j in range(d.inst_nkinds[inst]):
                k = d.inst_kinds[inst, j]
                if s.hands[p, k]:
                    out[d.A_LAY + k] = 1
        sp = s.inst_space[p, inst]
        if sp >= 0:
            out[d.A_PLACE + sp] = 1
        else:
            for i in range(SPACES):
                if s.space_inst[p, i] < 0:
                    out[d.A_PLACE + i] = 1
    elif ph == PH_CALL:
        for j in range(s.callable_len):
            out[s.callable[j]] = 1
        out[d.A_CALL_NONE] = 1
    elif ph == PH_DISCARD:
        for k in range(d.KI):
            if s.hands[p, k]:
                out[d.A_DISCARD + k] = 1
        if s.hands[p, d.mal]:
            for c in range(d.C):
                if s.pile_size[c]:
                    out[d.A_DISCARD_MAL + c] = 1
    else:                                                 # PH_RESERVE
        for i in range(ROW):
            if s.row[i] >= 0:
                out[d.A_RESERVE + i] = 1
        if s.samb_len:
            out[d.A_RESERVE_TOP] = 1
        out[d.A_RESERVE_NONE] = 1


# ---------------------------------------------------------------------- requirements (cards.py)
@jit
def _used(inst_at, j: int, i: int) -> bool:
    for t in range(j):
        if inst_at[t] == i:
            return True
    return False


@jit
def _match(d, sid: int, counts, coringas) -> bool:
    """cards._match as a loop: give each token its own instrument (or coringas), backtracking."""
    L = d.req_len[sid]
    work = np.empty(3 * MAX_TOKENS + coringas.size, np.int64)     # one allocation for the four rows
    choice = work[:MAX_TOKENS]                       # the option tried at each token
    inst_at = work[MAX_TOKENS:2 * MAX_TOKENS]        # the instrument it took (-1: coringas only)
    cost_at = work[2 * MAX_TOKENS:3 * MAX_TOKENS]    # the coringas it took
    cor = work[3 * MAX_TOKENS:]
    for t in range(MAX_TOKENS):
        choice[t], inst_at[t], cost_at[t] = -1, -1, 0
    for c in range(coringas.size):
        cor[c] = coringas[c]
    j = 0
    while j >= 0:
        if j == L:
            return True
        kind, arg = d.req_kind[sid, j], d.req_arg[sid, j]
        colour = d.inst_colour[arg] if kind == REQ_INSTRUMENT else arg
        ncand = 1 if kind == REQ_INSTRUMENT else d.colour_ninsts[colour]
        if choice[j] >= 0:                           # undo the option tried last
            cor[colour] += cost_at[j]
            inst_at[j] = -1
        o = choice[j] + 1
        inst = cost = -1
        while o <= ncand:
            if o < ncand:                            # one instrument, a coringa repeating it for a pair
                i = arg if kind == REQ_INSTRUMENT else d.colour_insts[colour, o]
                if counts[i] >= 1 and not _used(inst_at, j, i):
                    cost = 1 if kind == REQ_PAIR and counts[i] < 2 else 0
                    if cor[colour] >= cost:
                        inst = i
                        break
            else:                                    # coringas alone
                cost = 2 if kind == REQ_PAIR else 1
                if cor[colour] >= cost:
                    inst = -1
                    break
            o += 1
        if o <= ncand:
            choice[j], cost_at[j], inst_at[j] = o, cost, inst
            cor[colour] -= cost
            j += 1
            if j < L:
                choice[j] = -1
        else:
            choice[j] = -1
            j -= 1
    return False


@jit
def requirements_met(d, sid: int, counts, coringas) -> bool:
    """cards.requirements_met: each token alone, then (tokens sharing a colour) the matching."""
    for j in range(d.req_len[sid]):
        kind, arg = d.req_kind[sid, j], d.req_arg[sid, j]
        if kind == REQ_INSTRUMENT:
            if not counts[arg] and not coringas[d.inst_colour[arg]]:
                return False
        elif kind == REQ_ANY:
            ok = coringas[arg] > 0
            for t in range(d.colour_ninsts[arg]):
                ok |= counts[d.colour_insts[arg, t]] > 0
            if not ok:
                return False
        else:
            jk = coringas[arg]
            ok = jk >= 2
            for t in range(d.colour_ninsts[arg]):
                i = d.colour_insts[arg, t]
                ok |= counts[i] >= 2 or (counts[i] > 0 and jk > 0)
            if not ok:
                return False
    if d.independent[sid]:
        return True
    return _match(d, sid, counts, coringas)


# ---------------------------------------------------------------------- harmony and fame (scoring.py)
@jit
def _share_number(s, p: int, a: int, b: int) -> bool:
    for i in range(s.space_num.shape[2]):
        if s.space_num[p, a, i] and s.space_num[p, b, i]:
            return True
    return False


@jit
def _bad_around(s, d, p: int, sp: int) -> int:
    a = s.space_inst[p, sp]
    if a < 0:
        return 0
    bad = 0
    for t in (sp - 1 if sp else SPACES - 1, sp + 1 if sp + 1 < SPACES else 0):
        b = s.space_inst[p, t]
        if b >= 0 and d.inst_colour[a] != d.inst_colour[b] and (
                d.inst_coringa[a] or d.inst_coringa[b] or not _share_number(s, p, sp, t)):
            bad += 1
    return bad


@jit
def fame_of(s, d, p: int) -> int:
    """Stars + colour bonuses (points per occupied space of the colour) − 2 per atravessado."""
    total = 0
    for j in range(s.called_len[p]):
        sid = s.called[p, j]
        spaces = 0
        for sp in range(SPACES):
            inst = s.space_inst[p, sp]
            if inst >= 0 and d.inst_colour[inst] == d.bonus_colour[sid]:
                spaces += 1
        total += d.stars[sid] + d.bonus_points[sid] * spaces
    return total - 2 * s.atrav[p]


@jit
def rewards_for(s) -> None:
    """+1 to the winner, −1/(n−1) to each other seat; tied winners share the +1's worth."""
    n = s.num_players
    best = 0
    for p in range(1, n):
        if (s.fame[p], s.laid_total[p]) > (s.fame[best], s.laid_total[best]):
            best = p
    w = 0
    for p in range(n):
        w += s.fame[p] == s.fame[best] and s.laid_total[p] == s.laid_total[best]
    win = (n - w) / (w * (n - 1))
    for p in range(n):
        if w == n:
            s.returns[p] = 0.0
        elif s.fame[p] == s.fame[best] and s.laid_total[p] == s.laid_total[best]:
            s.returns[p] = win
        else:
            s.returns[p] = -1.0 / (n - 1)


# ---------------------------------------------------------------------- the steps
@jit
def _draw(s, d, p: int, count: int) -> None:
    for _ in range(min(count, s.deck_len)):
        s.deck_len -= 1
        k = s.deck[s.deck_len]
        s.deck[s.deck_len] = 0
        s.hands[p, k] += 1
        s.hand_size[p] += 1
    if s.deck_len == 0:
        _trigger_end(s)


@jit
def _take_pile(s, d, p: int, c: int) -> None:
    for k in range(d.K):
        x = s.piles[c, k]
        if x:
            s.hands[p, k] += x
            s.known[p, k] += x                           # cards taken from a pile are public knowledge
            s.piles[c, k] = 0
    s.hand_size[p] += s.pile_size[c]
    s.pile_size[c] = 0


@jit
def _take_from_hand(s, p: int, k: int) -> None:
    s.hands[p, k] -= 1
    s.hand_size[p] -= 1
    if s.known[p, k]:                                    # the public cannot tell which copy left
        s.known[p, k] -= 1


@jit
def _place(s, d, p: int, sp: int) -> None:
    inst = s.sel_inst
    bad_before = _bad_around(s, d, p, sp)
    fame = s.fame[p]
    if s.space_inst[p, sp] < 0:                          # a new space: colour bonuses of the called grow
        colour = d.inst_colour[inst]
        s.space_inst[p, sp] = inst
        s.inst_space[p, inst] = sp
        for j in range(s.called_len[p]):
            sid = s.called[p, j]
            if d.bonus_colour[sid] == colour:
                fame += d.bonus_points[sid]
    for j in range(s.sel_len):
        k = s.selected[j]
        s.laid[p, k] += 1
        if d.kind_num[k] >= 0:
            s.space_num[p, sp, d.kind_num[k]] += 1
        s.selected[j] = 0
    g = s.sel_len
    s.space_count[p, sp] += g
    s.laid_total[p] += g
    s.sel_len = 0
    s.sel_inst = -1
    atrav = s.atrav[p] - bad_before + _bad_around(s, d, p, sp)
    if atrav != s.atrav[p]:
        fame -= 2 * (atrav - s.atrav[p])
        s.atrav[p] = atrav
    s.fame[p] = fame
    if not _free_space(s, p):
        _trigger_end(s)


@jit
def _update_fame(s, d, p: int) -> None:
    s.fame[p] = fame_of(s, d, p) if s.called_len[p] else -2 * s.atrav[p]


@jit
def _pop_sambista(s) -> int:
    """The top of the sambista deck; below it nothing is known."""
    s.samb_len -= 1
    sid = s.samb_deck[s.samb_len]
    s.samb_deck[s.samb_len] = 0
    s.samb_top_known = False
    return sid


@jit
def _refill(s, slot: int) -> None:
    s.row[slot] = _pop_sambista(s) if s.samb_len else -1


@jit
def _call(s, d, p: int, action: int) -> None:
    if action == d.A_CALL_RESERVED:
        sid = s.reserved[p]
        s.reserved[p] = -1
    else:
        slot = action - d.A_CALL
        sid = s.row[slot]
        _refill(s, slot)
    s.called[p, s.called_len[p]] = sid
    s.called_len[p] += 1
    s.called_this_turn = True
    _update_fame(s, d, p)
    bang = d.bang[sid]
    if bang == BANG_COMPRA:
        _draw(s, d, p, 2)
    elif bang == BANG_DESCARTE and _any_pile(s):
        s.bang = bang
        s.phase = PH_PILE
        return
    elif bang == BANG_BAIXA and _can_lay(s, d, p):
        s.bang = bang
        s.phase = PH_LAY
        return
    elif bang == BANG_MALANDRAGEM and (_any_row(s) or s.samb_len):
        s.bang = bang
        s.phase = PH_RESERVE
        return
    _to_discard(s, d)


@jit
def _reserve(s, d, p: int, action: int) -> None:
    """Attract a sambista beside the roda; a previously reserved one swaps places with it."""
    old = s.reserved[p]
    if action == d.A_RESERVE_TOP:
        sid = _pop_sambista(s)
        if old >= 0:                                     # the old one goes on the deck's top, face up
            s.samb_deck[s.samb_len] = old
            s.samb_len += 1
            s.samb_top_known = True
    else:
        slot = action - d.A_RESERVE
        sid = s.row[slot]
        if old >= 0:
            s.row[slot] = old
        else:
            _refill(s, slot)
    s.reserved[p] = sid


# ---------------------------------------------------------------------- transitions
@jit
def _can_lay(s, d, p: int) -> bool:
    if s.hand_size[p] == s.hands[p, d.mal]:
        return False                                     # no instrument in hand
    if _free_space(s, p):
        return True
    for k in range(d.KI):
        if s.hands[p, k] and s.inst_space[p, d.kind_inst[k]] >= 0:
            return True
    return False


@jit
def _to_lay(s, d) -> None:
    if _can_lay(s, d, s.player):
        s.phase = PH_LAY
    else:
        _to_call(s, d)


@jit
def _to_call(s, d) -> None:
    """Enter the call phase when some sambista can come (roda_resources, then each candidate)."""
    p = s.player
    both = np.zeros(d.I + d.C, np.int64)             # one allocation for the two rows
    counts, coringas = both[:d.I], both[d.I:]
    for sp in range(SPACES):
        inst = s.space_inst[p, sp]
        if inst >= 0:
            if d.inst_coringa[inst]:
                coringas[d.inst_colour[inst]] += s.space_count[p, sp]
            else:
                counts[inst] += s.space_count[p, sp]
    if s.called_len[p]:
        b = d.brings[s.called[p, s.called_len[p] - 1]]
        if b >= 0:                                       # the top sambista's instrument counts once more
            counts[b] += 1
    s.callable[:] = 0
    m = 0
    for i in range(ROW):
        sid = s.row[i]
        if sid >= 0 and requirements_met(d, sid, counts, coringas):
            s.callable[m] = d.A_CALL + i
            m += 1
    r = s.reserved[p]
    if r >= 0 and requirements_met(d, r, counts, coringas):
        s.callable[m] = d.A_CALL_RESERVED
        m += 1
    s.callable_len = m
    if m:
        s.phase = PH_CALL
    else:
        _to_discard(s, d)


@jit
def _to_discard(s, d) -> None:
    p = s.player
    mal = s.hands[p, d.mal]
    if s.hand_size[p] > mal or (mal and _any_pile(s)):
        s.phase = PH_DISCARD
    else:
        s.phase = -1                                     # nothing to discard: the turn ends


@jit
def _trigger_end(s) -> None:
    s.end_triggered = True


@jit
def _end_turn(s, d) -> bool:
    """The turn is over; True when the game is (``s.returns`` then holds the rewards)."""
    n = s.num_players
    while True:                                          # rules.py recurses on a skipped turn
        s.turns += 1
        s.callable[:] = 0
        s.callable_len = 0
        s.called_this_turn = False
        s.phase = PH_DRAW
        if s.player == n - 1:
            s.round += 1
            if s.end_triggered or s.round >= s.max_rounds:
                _finish(s)
                return True
        s.player = (s.player + 1) % n
        if s.deck_len == 0 and not _any_pile(s):
            _to_lay(s, d)                                # nothing to draw: the draw is skipped
            if s.phase == -1:
                continue
        return False


@jit
def _finish(s) -> None:
    s.over = True
    s.phase = -1
    s.player = -1
    rewards_for(s)


@jit
def apply(s, d, action: int) -> bool:
    """Play a legal ``action``; True when it ended the game."""
    p = s.player
    if action < d.A_LAY:                                 # draw, or take a whole pile
        if action == 0:                                  # A_DRAW
            _draw(s, d, p, 2)
        else:
            _take_pile(s, d, p, action - d.A_PILE)
        if s.phase == PH_PILE:
            s.bang = -1
            _to_discard(s, d)
        else:
            _to_lay(s, d)
    elif action < d.A_PLACE:                             # one more card of the lay group
        k = action - d.A_LAY
        _take_from_hand(s, p, k)
        s.selected[s.sel_len] = k
        s.sel_len += 1
        if s.phase == PH_LAY:
            s.sel_inst = d.kind_inst[k]
            s.phase = PH_PLACE
    elif action < d.A_CALL:
        _place(s, d, p, action - d.A_PLACE)
        if s.bang == BANG_BAIXA:
            s.bang = -1
            _to_discard(s, d)
        else:
            _to_call(s, d)
    elif action < d.A_DISCARD:
        if action != d.A_CALL_NONE:
            _call(s, d, p, action)
        else:
            _to_discard(s, d)
    elif action < d.A_RESERVE:
        if action < d.A_DISCARD_MAL:
            k = action - d.A_DISCARD
            c = d.kind_colour[k]
        else:
            k, c = d.mal, action - d.A_DISCARD_MAL
        _take_from_hand(s, p, k)
        s.piles[c, k] += 1
        s.pile_size[c] += 1
        if k == d.mal and (_any_row(s) or s.samb_len):
            s.phase = PH_RESERVE
        else:
            s.phase = -1
    else:
        if action != d.A_RESERVE_NONE:
            _reserve(s, d, p, action)
        if s.bang == BANG_MALANDRAGEM:
            s.bang = -1
            _to_discard(s, d)
        else:
            s.phase = -1
    if s.phase == -1:                                    # the turn is over
        return _end_turn(s, d)
    return False
