"""Roda de Samba's heuristic compiled (numba), for a batch: ``heuristic.py`` line for line.

The same move from the same observation, mask and tie noise as ``RodaDeSambaHeuristic.act``
(``tests/vector/test_heuristics.py`` plays both in lockstep); the interface is
``baralho/vector/heuristic.py``'s. The deck is data: its tables are the compiled engine's
record ``d`` (``fast.tables``), built per config by :func:`heuristic_tables` with the
observation's offsets, never constants of this module. What differs, and why:

* ``r``, what ``_read`` takes from the observation (a dict of lists there), is a record of
  :func:`read_dtype`: fixed rows, -1 for "none", ``targets`` with its length, and the rows the
  heuristic's short-lived lists become (``legal``, ``kinds``, ``empty``, ``spaces``). One record per
  ``act_batch`` call, refilled for each env: no allocation per decision (but in the engine's
  ``_match``, for a sambista whose tokens share a colour);
* ``_wanted``'s two sets are a flag per instrument and per colour in ``r`` (only membership is
  asked of them, so no iteration order matters);
* ``_missing`` marks the missing tokens in ``r.missing`` and returns how many (``_wanted`` reads
  the marks, ``_reserve_score`` the count); a token alone is ``_token_met``
  (``cards.requirements_met`` of one token), a sambista's whole list the engine's
  ``fast_rules.requirements_met``;
* ``_place_score`` and ``_lay_value`` change ``r`` in place and restore it where
  ``heuristic.py`` works on copies of its lists;
* a space's numbers are two int64 words (bits 0-63, 64-127) where ``heuristic.py`` has a Python
  int: the observation's come through numpy's int64 (``1 << i`` is 0 past bit 63, and bit 63
  reads as a negative int, every higher bit set), a group's bits are exact up to bit 98
  (``cards.MAX_NUMBER``); two words hold both, so any deck's number sets compare as there;
* ``_reserve_choice``'s None is -1, and its ``legal_reserve=None`` is ``use_mask=False``;
* ``act``'s closure ``call_value`` is a function of its own.
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.jit import jit
from baralho.envs.roda_de_samba.actions import PH_CALL, PH_DISCARD, PH_DRAW, PH_LAY, PH_PILE, PH_PLACE, PHASES
from baralho.envs.roda_de_samba.cards import MAX_GROUP, REQ_ANY, REQ_INSTRUMENT, ROW, SPACES
from baralho.envs.roda_de_samba.fast import tables
from baralho.envs.roda_de_samba.fast_rules import MAX_TOKENS, requirements_met
from baralho.envs.roda_de_samba.heuristic import _DRAW_VALUE

# the observation fields read (heuristic._FIELDS but "sambistas", which _read takes and nothing uses)
FIELDS = ("space_instrument", "space_numbers", "space_cards", "brought", "open_row", "reserved", "hand",
          "phase", "piles", "selected", "sambista_deck_top")
(AT_SP_INST, AT_SP_NUM, AT_SP_CARDS, AT_BROUGHT, AT_ROW, AT_RESERVED, AT_HAND, AT_PHASE, AT_PILES,
 AT_SELECTED, AT_SAMB_TOP) = range(len(FIELDS))
WORD = 64                      # bits in a number set's word (numpy's int64 in heuristic._read)


def memory_dtype(game) -> np.dtype:
    return np.dtype([("rng", np.uint64, 6)])       # the tie noise: chance.seeded(seed)


def read_dtype(game) -> np.dtype:
    """``_read``'s dict as one record, and the rows of the heuristic's short-lived lists."""
    game = getattr(game, "reference", game)
    NI, C, K = game.I, game.C, game.K
    return np.dtype([
        ("insts", np.int64, SPACES),           # instrument on each own space, -1: free
        ("nums", np.int64, (SPACES, 2)),       # its visible numbers: bits 0-63, 64-127
        ("counts", np.int64, NI),
        ("coringas", np.int64, C),
        ("row", np.int64, ROW),                # open sambistas, -1: an empty slot
        ("reserved", np.int64),
        ("targets", np.int64, ROW + 1),        # row + [reserved], the -1s left out
        ("n_targets", np.int64),
        ("samb_top", np.int64),
        ("hand", np.int64, K),
        ("legal", np.int64, game.num_actions),  # act's legal actions
        ("wanted_inst", np.int8, NI),          # _wanted's sets
        ("wanted_colour", np.int8, C),
        ("missing", np.int8, MAX_TOKENS),      # _missing's list, a mark per token
        ("kinds", np.int64, MAX_GROUP),        # a lay group, each card a kind
        ("empty", np.int64, SPACES),           # the free spaces
        ("spaces", np.int64, SPACES),          # the spaces a placement may take
    ])


def heuristic_tables(game) -> tuple:
    """The engine's deck record, the observation's offsets, a blank ``_read`` record, the draw action."""
    game = getattr(game, "reference", game)       # the deck's tables: the rules game's (as heuristic.py)
    f = game.obs_layout.fields
    at = np.array([f[name].start for name in FIELDS], np.int64)
    deck = tables(game)
    return deck, at, np.zeros(1, read_dtype(game)), game.A_DRAW


@jit(entry=True)
def act_batch(memory, envs, obs, mask, out, deck, at, blank, a_draw):
    d = deck[0]
    scratch = blank.copy()                         # one _read record for the call, refilled per env
    for k in range(len(envs)):
        b = envs[k]
        out[k] = act(memory[b].rng, obs[b], mask[b], d, at, scratch[0], a_draw)


# ---------------------------------------------------------------------- reading obs
@jit
def _read(o, d, at, r) -> None:
    """RodaDeSambaHeuristic._read: what the heuristic reads, into ``r``."""
    NI, NUM, S = d.I, d.NUM, d.S
    for s in range(SPACES):
        r.insts[s] = _argmax_row(o, at[AT_SP_INST] + s * NI, NI)
        lo = 0
        for i in range(min(NUM, WORD)):            # numpy's 1 << i is 0 past bit 63
            if o[at[AT_SP_NUM] + s * NUM + i] != 0:
                lo |= 1 << i
        r.nums[s, 0] = lo
        r.nums[s, 1] = -1 if lo < 0 else 0         # the int64 as a Python int: bit 63 sets every higher bit
    r.counts[:] = 0
    r.coringas[:] = 0
    for s in range(SPACES):
        inst = r.insts[s]
        if inst >= 0:
            if d.inst_coringa[inst]:
                r.coringas[d.inst_colour[inst]] += o[at[AT_SP_CARDS] + s]
            else:
                r.counts[inst] += o[at[AT_SP_CARDS] + s]
    brought = _argmax_row(o, at[AT_BROUGHT], NI)
    if brought >= 0:
        r.counts[brought] += 1
    for i in range(ROW):
        r.row[i] = _argmax_row(o, at[AT_ROW] + i * S, S)
    r.reserved = _argmax_row(o, at[AT_RESERVED], S)
    r.n_targets = 0
    for i in range(ROW + 1):
        sid = r.row[i] if i < ROW else r.reserved
        if sid >= 0:
            r.targets[r.n_targets] = sid
            r.n_targets += 1
    r.samb_top = _argmax_row(o, at[AT_SAMB_TOP], S)   # known when a malandro swap put it there
    for k in range(d.K):
        r.hand[k] = o[at[AT_HAND] + k]


@jit
def _token_met(d, kind, arg, counts, coringas) -> bool:
    """cards.requirements_met(deck, (token,), counts, coringas, True): one token alone."""
    if kind == REQ_INSTRUMENT:
        return counts[arg] > 0 or coringas[d.inst_colour[arg]] > 0
    if kind == REQ_ANY:
        ok = coringas[arg] > 0
        for t in range(d.colour_ninsts[arg]):
            ok |= counts[d.colour_insts[arg, t]] > 0
        return ok
    j = coringas[arg]                              # REQ_PAIR
    ok = j >= 2
    for t in range(d.colour_ninsts[arg]):
        i = d.colour_insts[arg, t]
        ok |= counts[i] >= 2 or (counts[i] > 0 and j > 0)
    return ok


@jit
def _missing(d, sid, counts, coringas, missing) -> int:
    """RodaDeSambaHeuristic._missing: marks the tokens of ``sid`` the roda does not fill on its
    own in ``missing``; returns how many."""
    n = 0
    for j in range(d.req_len[sid]):
        missing[j] = not _token_met(d, d.req_kind[sid, j], d.req_arg[sid, j], counts, coringas)
        n += missing[j]
    return n


@jit
def _wanted(d, r) -> None:
    """RodaDeSambaHeuristic._wanted: instruments and colours that would fill a missing
    requirement of a target, flagged in ``r``."""
    r.wanted_inst[:] = 0
    r.wanted_colour[:] = 0
    for t in range(r.n_targets):
        sid = r.targets[t]
        _missing(d, sid, r.counts, r.coringas, r.missing)
        for j in range(d.req_len[sid]):
            if r.missing[j]:
                if d.req_kind[sid, j] == REQ_INSTRUMENT:
                    r.wanted_inst[d.req_arg[sid, j]] = 1
                else:
                    r.wanted_colour[d.req_arg[sid, j]] = 1


@jit
def _card_value(d, k, r) -> float:
    """RodaDeSambaHeuristic._card_value."""
    if k == d.mal:
        return 1.2
    inst = d.kind_inst[k]
    v = 1.0
    if r.wanted_inst[inst] or r.wanted_colour[d.inst_colour[inst]]:
        v += 1.5
    if _index(r.insts, inst) >= 0:
        v += 0.5  # goes onto its space: more numbers for harmony, no new neighbour
    return v


# ---------------------------------------------------------------------- harmony
@jit
def _bad_pairs(d, insts, nums, s) -> int:
    """RodaDeSambaHeuristic._bad_pairs."""
    bad = 0
    for t in ((s - 1) % SPACES, (s + 1) % SPACES):
        a, b = insts[s], insts[t]
        if a < 0 or b < 0 or d.inst_colour[a] == d.inst_colour[b]:
            continue
        share = (nums[s, 0] & nums[t, 0]) != 0 or (nums[s, 1] & nums[t, 1]) != 0
        if d.inst_coringa[a] or d.inst_coringa[b] or not share:
            bad += 1
    return bad


@jit
def _place_score(d, r, inst, bits, s) -> float:
    """RodaDeSambaHeuristic._place_score (on ``r`` itself, restored: heuristic.py copies)."""
    before = _bad_pairs(d, r.insts, r.nums, s)
    old_inst, old_lo, old_hi = r.insts[s], r.nums[s, 0], r.nums[s, 1]
    r.insts[s] = inst
    r.nums[s, 0] |= bits[0]
    r.nums[s, 1] |= bits[1]
    after = _bad_pairs(d, r.insts, r.nums, s)
    free_neighbours = (r.insts[(s - 1) % SPACES] < 0) + (r.insts[(s + 1) % SPACES] < 0)
    r.insts[s], r.nums[s, 0], r.nums[s, 1] = old_inst, old_lo, old_hi
    return -2.0 * (after - before) + 0.1 * free_neighbours


@jit
def _group_bits(d, kinds, n):
    """RodaDeSambaHeuristic._group_bits of ``kinds[:n]``: (bits 0-63, bits 64-127)."""
    lo = hi = 0
    for j in range(n):
        i = d.kind_num[kinds[j]]
        if i >= WORD:
            hi |= 1 << (i - WORD)
        elif i >= 0:
            lo |= 1 << i
    return lo, hi


@jit
def _best_space(d, r, inst, bits, spaces, n):
    """RodaDeSambaHeuristic._best_space over ``spaces[:n]``: (score, space)."""
    s = _index(r.insts, inst)
    if s >= 0:
        return _place_score(d, r, inst, bits, s), s
    best = (-np.inf, -1)
    for j in range(n):
        option = (_place_score(d, r, inst, bits, spaces[j]), spaces[j])
        if option > best:                          # a tuple's max: an equal score goes to the higher space
            best = option
    return best


@jit
def _lay_value(d, r, inst, kinds, n):
    """RodaDeSambaHeuristic._lay_value of ``kinds[:n]``: harmony, sambistas it unlocks, cards laid."""
    score, space = _best_space(d, r, inst, _group_bits(d, kinds, n), r.empty, _empty(r))
    _count(d, r, inst, n)                          # counts, coringas: r's with the group laid
    best_call = 0.0
    for t in range(r.n_targets):
        sid = r.targets[t]
        if requirements_met(d, sid, r.counts, r.coringas):
            best_call = max(best_call, _sambista_value(d, sid, r))
    _count(d, r, inst, -n)
    return score + best_call + 0.3 * n, space


@jit
def _count(d, r, inst, n) -> None:
    """``n`` more cards of ``inst`` in ``r.counts`` or ``r.coringas`` (what _lay_value adds to its copies)."""
    if d.inst_coringa[inst]:
        r.coringas[d.inst_colour[inst]] += n
    else:
        r.counts[inst] += n


@jit
def _sambista_value(d, sid, r) -> float:
    """RodaDeSambaHeuristic._sambista_value."""
    spaces = 0
    for s in range(SPACES):
        inst = r.insts[s]
        if inst >= 0 and d.inst_colour[inst] == d.bonus_colour[sid]:
            spaces += 1
    benefit = 0.5 if d.brings[sid] >= 0 or d.bang[sid] >= 0 else 0.0
    return d.stars[sid] + d.bonus_points[sid] * (spaces + 1) + benefit


# ---------------------------------------------------------------------- act
@jit
def act(rng, o, mask, d, at, r, a_draw) -> int:
    """RodaDeSambaHeuristic.act."""
    legal = _flatnonzero(mask, r.legal)
    if len(legal) == 1:
        return legal[0]
    _read(o, d, at, r)
    phase = np.argmax(o[at[AT_PHASE]:at[AT_PHASE] + len(PHASES)])
    _wanted(d, r)
    if phase == PH_DRAW or phase == PH_PILE:
        best, best_a = (_DRAW_VALUE if mask[a_draw] and phase == PH_DRAW else -1.0), a_draw
        for c in range(d.C):
            a = d.A_PILE + c
            if mask[a]:
                pile = at[AT_PILES] + c * d.K
                v = 0.0
                for k in range(d.K):
                    if o[pile + k]:
                        v += _card_value(d, k, r) * o[pile + k]
                if v > best:
                    best, best_a = v, a
        return best_a
    if phase == PH_LAY:
        best_a, best = -1, -np.inf                 # max over options: instruments by their first legal kind
        for j in range(len(legal)):
            inst = d.kind_inst[legal[j] - d.A_LAY]
            seen = False
            for a in legal[:j]:
                seen |= d.kind_inst[a - d.A_LAY] == inst
            if seen:
                continue                           # an option already: options[inst] starts earlier
            n = 0                                  # its legal kinds, each as often as held, [:4]
            for a in legal[j:]:
                k = a - d.A_LAY
                if d.kind_inst[k] == inst:
                    for _ in range(r.hand[k]):
                        if n < MAX_GROUP:
                            r.kinds[n] = k
                            n += 1
            v = _lay_value(d, r, inst, r.kinds, n)[0]
            if v > best:
                best_a, best = legal[j], v
        return best_a
    if phase == PH_PLACE:
        for a in legal:
            if d.A_LAY <= a < d.A_PLACE:  # lay every copy at once: more numbers for harmony, more cards laid
                return a
        for j in range(len(legal)):
            r.spaces[j] = legal[j] - d.A_PLACE
        n = 0                                      # sel: the selected kinds, each as often as selected
        for k in range(d.KI):
            for _ in range(o[at[AT_SELECTED] + k]):
                if n < MAX_GROUP:                  # the rules select MAX_GROUP cards at most
                    r.kinds[n] = k
                    n += 1
        inst = d.kind_inst[r.kinds[0]]
        _, s = _best_space(d, r, inst, _group_bits(d, r.kinds, n), r.spaces, len(legal))
        return d.A_PLACE + s
    if phase == PH_CALL:
        best_a, best = -1, -np.inf
        for a in legal:
            v = call_value(d, r, a)
            if v > best:
                best_a, best = a, v
        return best_a
    if phase == PH_DISCARD:
        mal = -1                                   # mal[0]
        for a in legal:
            if a >= d.A_DISCARD_MAL:
                mal = a
                break
        if mal >= 0 and _reserve_choice(d, r, mask, False) >= 0:
            best_a, best = -1, np.inf              # min over mal by pile size
            for a in legal:
                if a >= d.A_DISCARD_MAL:
                    pile = at[AT_PILES] + (a - d.A_DISCARD_MAL) * d.K
                    size = o[pile:pile + d.K].sum()
                    if size < best:
                        best_a, best = a, size
            return best_a
        best_a, best = -1, np.inf                  # min over inst_discards by _discard_value
        for a in legal:
            if a < d.A_DISCARD_MAL:
                v = _discard_value(d, a - d.A_DISCARD, r, rng)
                if v < best:
                    best_a, best = a, v
        return mal if best_a < 0 else best_a
    # PH_RESERVE
    choice = _reserve_choice(d, r, mask, True)
    return choice if choice >= 0 else d.A_RESERVE_NONE


@jit
def call_value(d, r, a) -> float:
    """RodaDeSambaHeuristic.act's call_value."""
    if a == d.A_CALL_NONE:
        return -1.0
    sid = r.reserved if a == d.A_CALL_RESERVED else r.row[a - d.A_CALL]
    return _sambista_value(d, sid, r)


@jit
def _discard_value(d, k, r, rng) -> float:
    """RodaDeSambaHeuristic._discard_value."""
    v = _card_value(d, k, r)
    inst = d.kind_inst[k]
    if _index(r.insts, inst) < 0:
        n = _empty(r)
        if n:
            r.kinds[0] = k
            v += 0.5 * max(0.0, _best_space(d, r, inst, _group_bits(d, r.kinds, 1), r.empty, n)[0])
        else:
            v -= 2.0  # can never be laid
    return v + 0.01 * R.random(rng)


@jit
def _reserve_score(d, sid, r) -> float:
    """RodaDeSambaHeuristic._reserve_score."""
    missing = _missing(d, sid, r.counts, r.coringas, r.missing)
    return _sambista_value(d, sid, r) - 2.0 * missing


@jit
def _reserve_choice(d, r, legal_reserve, use_mask) -> int:
    """RodaDeSambaHeuristic._reserve_choice: the reserve action worth taking now (-1: keep what
    we have); ``use_mask`` False is heuristic.py's ``legal_reserve=None``."""
    current = _reserve_score(d, r.reserved, r) if r.reserved >= 0 else -99.0
    best, best_a = current + 1.0, -1
    for i in range(ROW + 1):                       # options: the open row, then the deck's known top
        a, sid = (d.A_RESERVE + i, r.row[i]) if i < ROW else (d.A_RESERVE_TOP, r.samb_top)
        if sid < 0 or (use_mask and not legal_reserve[a]):
            continue
        v = _reserve_score(d, sid, r)
        if v > best:
            best, best_a = v, a
    if (best_a < 0 and r.reserved < 0 and r.samb_top < 0 and use_mask
            and legal_reserve[d.A_RESERVE_TOP]):   # an unknown top beats nothing
        best_a = d.A_RESERVE_TOP
    return best_a


# ---------------------------------------------------------------------- lists and rows
@jit
def _argmax_row(o, start, width) -> int:
    """heuristic._argmax_rows of one row, ``o[start:start + width]``: the index of its largest
    entry (the first one), or -1 for an all-zero row (also ``argmax() if any() else -1`` there)."""
    top = 0
    at = -1
    for i in range(width):
        if o[start + i] > top:
            top, at = o[start + i], i
    return at


@jit
def _flatnonzero(mask, out):
    """``np.flatnonzero(mask)``, written into ``out``: a view of its first entries."""
    n = 0
    for a in range(len(mask)):
        if mask[a]:
            out[n] = a
            n += 1
    return out[:n]


@jit
def _index(values, x) -> int:
    """``values.index(x)`` if ``x in values`` else -1."""
    for i in range(len(values)):
        if values[i] == x:
            return i
    return -1


@jit
def _empty(r) -> int:
    """heuristic.py's ``empty = [s for s in range(SPACES) if r["insts"][s] < 0]``, into ``r.empty``:
    how many."""
    n = 0
    for s in range(SPACES):
        if r.insts[s] < 0:
            r.empty[n] = s
            n += 1
    return n
