"""Scala 40's compiled observation (numba): observation.py's ``observe`` over the state record
(part of the compiled engine, beside ``fast.py``): a player's view written from scratch into the
layout's offsets (the reference keeps it as ready-made pieces)."""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit
from baralho.envs.scala40.fast_mask import _alive
from baralho.envs.scala40.fast_melds import NUM_KINDS, OVER, RUN
from baralho.envs.scala40.observation import (
    DECK_MAX,
    MELD_COLS,
    NO_CARD,
    P_COUNTS,
    P_PILE,
    P_RECENT,
    P_SIZES,
    P_STOCK,
    P_STOCK_COUNTS,
    RECENT,
    STAGED_CAP,
    TOTAL_CAP,
)

OBS_FIELDS = ("building", "to_act", "phase", "turn", "obligation", "progress", "place", "melds",
              "discard_top", "players", "known", "discarded", "taken")
(AT_BUILDING, AT_TO_ACT, AT_PHASE, AT_TURN, AT_OBLIGATION, AT_PROGRESS, AT_PLACE, AT_MELDS, AT_PILE,
 AT_PLAYERS, AT_KNOWN, AT_DISCARDED, AT_TAKEN) = range(len(OBS_FIELDS))


def obs_offsets(game) -> np.ndarray:
    return np.array([game.obs_layout.fields[name].start for name in OBS_FIELDS], np.int64)


# ---------------------------------------------------------------------- observation
@jit
def _copy(dst, src) -> None:
    """dst[:] = src, as a flat loop over two 1-d views: an index that starts at 0 needs no
    negative-index fix per element (an offset read from ``at`` does, ~5 instructions a byte)."""
    for k in range(len(dst)):
        dst[k] = src[k]


@jit
def _meld_row(out, at: int, m, staged: bool) -> None:
    out[at] = 1
    if m[0] == RUN:
        s, lo, hi, jp = m[1], m[2], m[3], m[4]
        out[at + 1] = 1
        out[at + 3 + s] = 1
        for q in range(lo, hi + 1):
            out[at + 6 + q] = 1
        if jp:
            out[at + 21 + s] = 1
            out[at + 24 + jp] = 1
    else:
        v, smask, js = m[1], m[2], m[4]
        for t in range(4):
            if (smask >> t) & 1:
                out[at + 3 + t] = 1
        out[at + 6 + v] = 1
        if js:
            out[at + 20 + js] = 1
            out[at + 24 + v] = 1
    if staged:
        out[at + 2] = 1


@jit
def observe(s, d, at, player: int, out) -> None:
    """``player``'s observation into ``out``; ``at`` holds the fields' offsets (obs_offsets)."""
    n = s.num_players
    # the offsets used in loops read once into locals: ``out`` might alias ``at`` for all numba
    # knows, so an offset read inside a loop is read again after every write
    a_building, a_melds, a_players, a_known, a_discarded, a_taken = (
        at[AT_BUILDING], at[AT_MELDS], at[AT_PLAYERS], at[AT_KNOWN], at[AT_DISCARDED], at[AT_TAKEN])
    out[:] = 0
    for k in range(NUM_KINDS):
        out[k] = s.hands[player, k]
    for i in range(s.pending_n):
        out[a_building + s.pending[i]] += 1
    if s.phase != OVER:
        out[at[AT_TO_ACT] + (s.player - player) % n] = 1
        out[at[AT_PHASE] + s.phase] = 1
        t = at[AT_TURN]
        actor_open = s.opened[s.player]
        out[t] = s.turn >= _alive(s)
        out[t + 1] = s.was_open
        out[t + 2] = actor_open and not s.was_open
        out[t + 3] = s.undos > 0 and not actor_open
        out[t + 4] = min(s.staged_value, STAGED_CAP)
        out[t + 5] = s.took >= 0
        if s.obligation >= 0:
            out[at[AT_OBLIGATION] + s.obligation] = 1
    g = at[AT_PROGRESS]
    out[g] = s.turn
    out[g + 1] = s.turn_limit - s.turn
    out[g + 2] = min(s.turnovers, 10)
    out[at[AT_PLACE]] = s.first == player
    place = 0                        # players still in who play before ``player`` in the first round
    for d in range((player - s.first) % n):
        if not s.eliminated[(s.first + d) % n]:
            place += 1
    out[at[AT_PLACE] + 1] = place
    first_staged = s.n_melds - s.staged
    for i in range(s.n_melds):
        _meld_row(out, a_melds + i * MELD_COLS, s.melds[i], i >= first_staged)
    b = at[AT_PILE]
    out[b + P_PILE:b + P_PILE + DECK_MAX] = NO_CARD           # (slice fills: no per-element index fix)
    out[b + P_STOCK:b + P_STOCK + DECK_MAX] = NO_CARD
    m = s.discard_n
    if m:
        out[b + s.discard[m - 1]] = 1
    for c in range(m):
        k = s.discard[m - 1 - c]
        out[b + P_COUNTS + k] += 1
        if c < RECENT:
            out[b + P_RECENT + c * NUM_KINDS + k] = 1
        out[b + P_PILE + c] = k
    if not s.stock_hidden:
        for c in range(s.stock_n):
            k = s.stock[s.stock_n - 1 - c]
            out[b + P_STOCK_COUNTS + k] += 1
            out[b + P_STOCK + c] = k
    out[b + P_SIZES] = s.stock_n
    out[b + P_SIZES + 1] = m
    for r in range(n):               # seat-relative rows
        i = (player + r) % n
        row = a_players + 4 * r
        out[row] = s.hand_size[i]
        out[row + 1] = s.opened[i]
        out[row + 2] = s.eliminated[i]
        out[row + 3] = min(s.totals[i], TOTAL_CAP)
        at_r = NUM_KINDS * r
        _copy(out[a_known + at_r:a_known + at_r + NUM_KINDS], s.known[i])
        _copy(out[a_discarded + at_r:a_discarded + at_r + NUM_KINDS], s.discarded[i])
        _copy(out[a_taken + at_r:a_taken + at_r + NUM_KINDS], s.taken[i])


