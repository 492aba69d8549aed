"""Slow, obviously-correct checks: the reference legal mask and the invariants.

Written independently of the fast paths in rules.py (no shared helpers for
legality or requirements): the conformance suite compares
``reference_legal_mask`` with ``legal_mask`` at sampled positions.
"""

from __future__ import annotations

import itertools
import operator
from itertools import chain

import numpy as np

from baralho.envs.roda_de_samba.actions import (
    PH_CALL,
    PH_DISCARD,
    PH_DRAW,
    PH_LAY,
    PH_PILE,
    PH_PLACE,
    PH_RESERVE,
    PHASES,
)
from baralho.envs.roda_de_samba.cards import MAX_GROUP, REQ_ANY, REQ_INSTRUMENT, REQ_PAIR, ROW, SPACES


def brute_requirements(deck, requires, units) -> bool:
    """``units``: one entry per card the roda offers: ``("i", instrument)`` or ``("j", colour)``
    for a coringa. Try every way to give each token its own cards."""
    per_token = []
    for kind, arg in requires:
        opts = []
        for u, (typ, x) in enumerate(units):
            colour = deck.inst_colour[x] if typ == "i" else x
            if kind == REQ_INSTRUMENT and ((typ == "i" and x == arg) or
                                           (typ == "j" and colour == deck.inst_colour[arg])):
                opts.append((u,))
            if kind == REQ_ANY and colour == arg:
                opts.append((u,))
        if kind == REQ_PAIR:
            for u, w in itertools.combinations(range(len(units)), 2):
                (tu, xu), (tw, xw) = units[u], units[w]
                cu = deck.inst_colour[xu] if tu == "i" else xu
                cw = deck.inst_colour[xw] if tw == "i" else xw
                if cu != arg or cw != arg:
                    continue
                if tu == "i" and tw == "i" and xu != xw:
                    continue  # two different instruments are not a repeated one
                opts.append((u, w))
        per_token.append(opts)
    for choice in itertools.product(*per_token):
        used = [u for opt in choice for u in opt]
        if len(used) != len(set(used)):
            continue
        insts = []
        for opt in choice:
            real = {units[u][1] for u in opt if units[u][0] == "i"}
            insts.extend(real)
        if len(insts) == len(set(insts)):  # every token has its own instrument
            return True
    return False


def roda_units(game, s, p) -> list[tuple[str, int]]:
    d = game.deck
    units = []
    for k in range(d.num_inst_kinds):
        inst = d.kind_inst[k]
        typ = "j" if d.inst_coringa[inst] else "i"
        units.extend([(typ, d.inst_colour[inst] if typ == "j" else inst)] * s.laid[p][k])
    if s.called[p] and d.sambistas[s.called[p][-1]].brings >= 0:
        units.append(("i", d.sambistas[s.called[p][-1]].brings))
    return units


def reference_legal_mask(game, s) -> np.ndarray:
    m = np.zeros(game.num_actions, np.int8)
    if s.over:
        return m
    d, p = game.deck, s.player
    hand = s.hands[p]
    nonempty = [sum(s.piles[c]) > 0 for c in range(len(d.colours))]
    if s.phase in (PH_DRAW, PH_PILE):
        if s.phase == PH_DRAW and len(s.deck) > 0:
            m[game.A_DRAW] = 1
        for c, ok in enumerate(nonempty):
            m[game.A_PILE + c] = ok
    elif s.phase == PH_LAY:
        for k in range(d.num_inst_kinds):
            inst = d.kind_inst[k]
            if hand[k] > 0 and (inst in s.space_inst[p] or s.space_inst[p].count(-1) > 0):
                m[game.A_LAY + k] = 1
    elif s.phase == PH_PLACE:
        inst = d.kind_inst[s.selected[0]]
        for k in range(d.num_inst_kinds):
            if hand[k] > 0 and d.kind_inst[k] == inst and len(s.selected) < MAX_GROUP:
                m[game.A_LAY + k] = 1
        for sp in range(SPACES):
            here = s.space_inst[p][sp]
            if here == inst or (here == -1 and inst not in s.space_inst[p]):
                m[game.A_PLACE + sp] = 1
    elif s.phase == PH_CALL:
        units = roda_units(game, s, p)
        for i in range(ROW):
            sid = s.row[i]
            if sid >= 0 and brute_requirements(d, d.sambistas[sid].requires, units):
                m[game.A_CALL + i] = 1
        r = s.reserved[p]
        if r >= 0 and brute_requirements(d, d.sambistas[r].requires, units):
            m[game.A_CALL_RESERVED] = 1
        m[game.A_CALL_NONE] = 1
    elif s.phase == PH_DISCARD:
        for k in range(d.num_inst_kinds):
            m[game.A_DISCARD + k] = hand[k] > 0
        for c, ok in enumerate(nonempty):
            m[game.A_DISCARD_MAL + c] = ok and hand[d.malandro] > 0
    elif s.phase == PH_RESERVE:
        for i in range(ROW):
            m[game.A_RESERVE + i] = s.row[i] >= 0
        m[game.A_RESERVE_TOP] = len(s.samb_deck) > 0
        m[game.A_RESERVE_NONE] = 1
    return m


def check_invariants(game, s) -> None:
    """Conservation and consistency of the engine state. The incremental
    observation is compared with a full rebuild by :func:`check_observation`
    (kept apart: it is the expensive part; the tests run it on every move)."""
    d, n, K, KI = game.deck, game.num_players, game.K, game.KI
    # every card in exactly one place (column sums over hands, piles, rodas, deck, lay group)
    hands, known, piles = s.hands, s.known, s.piles
    assert all(len(h) == K for h in hands) and min(map(min, hands)) >= 0, "hands malformed"
    assert list(map(sum, hands)) == s.hand_size, "hand sizes"
    assert min(map(min, known)) >= 0 and all(map(operator.le, chain(*known), chain(*hands))), \
        "cards known to be in a hand that are not there"
    assert min(map(min, piles)) >= 0 and list(map(sum, piles)) == s.pile_size, "pile sizes"
    kc = game.kind_colour
    for c, pile in enumerate(piles):
        if s.pile_size[c]:
            wrong = [k for k, x in enumerate(pile[:KI]) if x and kc[k] != c]
            assert not wrong, f"{d.kind_name(wrong[0])} on the {d.colours[c]} pile"
    where = list(map(sum, zip(*hands, *piles)))
    where[:KI] = map(operator.add, where[:KI], map(sum, zip(*s.laid)))
    for k in s.deck:
        where[k] += 1
    for k in s.selected:
        where[k] += 1
    assert where == list(d.kind_copies), "cards are not each in exactly one place"
    # sambistas: each exactly once
    sids = [x for x in s.row if x >= 0] + list(s.samb_deck) + [x for x in s.reserved if x >= 0]
    for p in range(n):
        sids += s.called[p]
    assert sorted(sids) == list(range(len(d.sambistas))), "sambistas are not each in exactly one place"
    assert len(s.row) == ROW
    assert not s.samb_top_known or s.samb_deck, "a known top of an empty sambista deck"
    # rodas: spaces agree with the cards laid
    inst_kinds, kind_number = game.inst_kinds, d.kind_number
    for p in range(n):
        laid, inst_space = s.laid[p], s.inst_space[p]
        occupied = total = 0
        for sp, (inst, cnt, nums) in enumerate(zip(s.space_inst[p], s.space_count[p], s.space_nums[p],
                                                    strict=True)):
            if inst < 0:
                assert cnt == nums == 0, f"empty space {sp} of roda {p} holds cards"
                continue
            assert inst_space[inst] == sp, f"space {sp} of roda {p}: instrument index"
            c = bits = 0
            for k in inst_kinds[inst]:
                if laid[k]:
                    c += laid[k]
                    if kind_number[k]:
                        bits |= 1 << kind_number[k]
            assert cnt == c > 0, f"space {sp} of roda {p}: {cnt} cards stacked, {c} laid"
            assert nums == bits, f"space {sp} of roda {p}: visible numbers"
            occupied += 1
            total += c
        # every laid card sits on its instrument's space, every instrument on one space
        assert total == sum(laid) == s.laid_total[p], f"roda {p}: cards laid off their space"
        assert len(inst_space) - inst_space.count(-1) == occupied, f"roda {p}: instrument index"
        assert s.atrav[p] == game.atravessados(s, p)
        assert 0 <= s.atrav[p] <= SPACES
        assert s.fame[p] == game.fame_of(s, p), f"fame of {p}"
    # turn machinery
    assert 0 <= s.round <= game.config.max_rounds
    assert len(s.selected) <= MAX_GROUP
    if s.over:
        assert s.player == -1 and s.phase == -1
        assert abs(sum(s.returns)) < 1e-9
    else:
        assert 0 <= s.player < n and 0 <= s.phase < len(PHASES)
        assert (s.phase == PH_PLACE) == bool(s.selected)
        if s.selected:
            assert all(d.kind_inst[k] == s.sel_inst for k in s.selected)
        assert s.phase != PH_CALL or not s.called_this_turn
        assert -1 <= s.bang < 4


def check_observation(game, s) -> None:
    """The incrementally written base vector equals a rebuild from the state."""
    fresh = game.encoder.rebuild(s)
    if not np.array_equal(s.obs, fresh):
        bad = np.flatnonzero(s.obs != fresh)
        names = {f.name for f in game.encoder.base_layout.fields.values()
                 for i in bad if f.start <= i < f.stop}
        raise AssertionError(f"incremental observation differs from a rebuild in {sorted(names)}")


def loadable_state(game, s):
    """A copy of ``s`` to load into an engine, after checking that every field has this config's
    shape and range (``baralho.core.checks``: the compiled kernels index tables with them), its
    base observation rebuilt from the other fields (a state's own is not trusted). The
    conservation rules are ``check_invariants``'s, run after this."""
    import copy

    from baralho.core import checks as K

    n, d = game.num_players, game.deck
    C, Kn, KI, NI, S = game.C, game.K, game.KI, game.I, game.S
    T = d.num_instrument_cards + d.kind_copies[-1]          # every card: the most a pile or hand holds
    K.flag(s.over, "over")
    over = bool(s.over)
    for name in ("hands", "known"):
        K.rows(getattr(s, name), name, n, 0, 127, width=Kn)
    K.integers(s.hand_size, "hand_size", 0, T, length=n)
    K.integers(s.deck, "deck", 0, Kn - 1, max_length=T)
    K.rows(s.piles, "piles", C, 0, 127, width=Kn)
    K.integers(s.pile_size, "pile_size", 0, T, length=C)
    K.rows(s.space_inst, "space_inst", n, -1, NI - 1, width=SPACES)
    K.rows(s.space_count, "space_count", n, 0, T, width=SPACES)
    K.rows(s.space_nums, "space_nums", n, 0, 2**31 - 1, width=SPACES)
    K.rows(s.inst_space, "inst_space", n, -1, SPACES - 1, width=NI)
    K.rows(s.laid, "laid", n, 0, 127, width=KI)
    K.integers(s.laid_total, "laid_total", 0, T, length=n)
    K.rows(s.called, "called", n, 0, S - 1, max_width=S)
    K.integers(s.reserved, "reserved", -1, S - 1, length=n)
    K.integers(s.row, "row", -1, S - 1, length=ROW)
    K.integers(s.samb_deck, "samb_deck", 0, S - 1, max_length=S)
    K.integers(s.atrav, "atrav", 0, SPACES, length=n)
    K.integers(s.fame, "fame", -2**15, 2**15 - 1, length=n)
    K.flag(s.samb_top_known, "samb_top_known")
    K.integer(s.player, "player", -1 if over else 0, n - 1)
    K.integer(s.phase, "phase", -1 if over else 0, len(PHASES) - 1)
    K.integer(s.bang, "bang", -1, 3)
    K.integers(s.selected, "selected", 0, KI - 1, max_length=MAX_GROUP)
    K.integer(s.sel_inst, "sel_inst", -1, NI - 1)
    calls = set(range(game.A_CALL, game.A_CALL + ROW)) | {game.A_CALL_RESERVED}
    K.integers(s.callable, "callable", min(calls), max(calls), max_length=ROW + 1)
    K.distinct(s.callable, "callable")
    K.flag(s.called_this_turn, "called_this_turn")
    K.integer(s.turns, "turns", 0, 2**31 - 1)
    K.integer(s.round, "round", 0, game.config.max_rounds)
    K.flag(s.end_triggered, "end_triggered")
    K.numbers(s.returns, "returns", n)
    c = copy.copy(s)
    c.obs = np.zeros(0, np.int16)
    c = c.copy()
    c.obs = game.encoder.rebuild(c)
    return c
