"""Roda de Samba's compiled engine (numba): the rules of ``rules.py`` over fixed-shape arrays.

One game is one record of :func:`state_dtype` (a numpy structured array row);
a batch is an array of them. The card list is data (any deck file the
reference accepts), so its tables become ONE record of :func:`deck_dtype`,
built once at make time by :func:`tables` and passed to every kernel after
its other arguments. Each function below is the method of ``rules.py`` with
the same name, line for line, over those two records; the differential tests
(``tests/vector``) play both engines in lockstep and compare masks,
observations, rewards and states after every step.

What differs from ``rules.py``, and why:

* a list (the deck, a called pile, the lay group, the callable actions) is a
  fixed row plus its length; unused entries stay 0 so equal games are equal
  records;
* per-seat rows are sized for ``MAX_PLAYERS`` seats whatever ``num_players``
  (the seats past it stay 0) and every loop over seats is bounded by the
  record's ``num_players``: one record type per deck for every player count,
  so numba compiles the engine once per deck, not once per (deck, count);
* ``space_nums`` (a bit set of visible numbers, up to 1 << 99) is kept as a
  count per number index, ``space_num`` (what the observation shows); two
  spaces share a number when both counts of some index are non-zero;
* the base observation vector is not kept: :func:`observe` writes a player's
  view from the state (the reference gathers it from its incremental base;
  ``from_record`` rebuilds that base with the encoder);
* the recursions become loops (``_end_turn``'s skipped draws, ``_match``'s
  backtracking);
* ``deal`` (the vector's auto-reset) draws from the game's own splitmix64
  stream (``fast_chance.below``); the reference's ``new_state`` draws from numpy's
  Generator: same distribution, other numbers. There is no chance during
  play (the deck orders are dealt), so a state loaded from the reference
  plays on exactly as there. The AEC env on this engine deals with the
  reference's ``new_state``, so a seed gives the same game on both engines.

The batch and AEC entry points are built from the primitives (``deal``, ``apply``,
``legal_mask``, ``observe``, ``current_player``, ``returns``) once for every game
(``baralho/core/batch.py``).
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.compiled import record_lists
from baralho.core.fast_chance import below
from baralho.core.jit import jit
from baralho.envs.roda_de_samba.actions import PH_DRAW
from baralho.envs.roda_de_samba.cards import MAX_GROUP, ROW, SPACES, tokens_independent
from baralho.envs.roda_de_samba.fast_rules import MAX_TOKENS, _pop_sambista, apply, legal_mask  # noqa: F401  (primitives core/batch.py builds on)
from baralho.envs.roda_de_samba.rules import HAND_SIZE, MAX_PLAYERS, RodaState

STATE = RodaState
TITLE = "Roda de Samba"
COMPILE_SECONDS = {"one": 8, "batch": 10}    # about how long a first use compiles (core/batch.py)
# the differential harness's sampling for this game (baralho/vector/differential.py): the reference
# and its heuristic are slow, so fewer heuristic players and full state checks than the defaults
# keep the 1,000-game default run affordable; the cheap state check (same_state) runs every step
DIFFERENTIAL = dict(heuristic_share=0.2, invariants_every=20)


# ---------------------------------------------------------------------- the deck's tables
def deck_dtype(game) -> np.dtype:
    d = game.deck
    C, K, KI, NI, S = game.C, game.K, game.KI, game.I, game.S
    scalars = ("C", "K", "KI", "I", "S", "NUM", "mal", "A_PILE", "A_LAY", "A_PLACE", "A_CALL",
               "A_CALL_RESERVED", "A_CALL_NONE", "A_DISCARD", "A_DISCARD_MAL", "A_RESERVE", "A_RESERVE_TOP",
               "A_RESERVE_NONE")
    return np.dtype([(name, np.int16) for name in scalars] + [
        ("kind_inst", np.int16, KI),
        ("kind_colour", np.int16, K),          # -1: the malandro
        ("kind_num", np.int16, KI),            # index into deck.numbers, -1: a coringa
        ("inst_colour", np.int16, NI),
        ("inst_coringa", np.int8, NI),         # 0/1: numba records take no nested bool arrays
        ("colour_insts", np.int16, (C, NI)),    # deck.colour_insts, each row padded
        ("colour_ninsts", np.int16, C),
        ("inst_kinds", np.int16, (NI, KI)),     # game.inst_kinds, each row padded
        ("inst_nkinds", np.int16, NI),
        ("req_kind", np.int16, (S, MAX_TOKENS)),
        ("req_arg", np.int16, (S, MAX_TOKENS)),
        ("req_len", np.int16, S),
        ("independent", np.int8, S),
        ("stars", np.int16, S),
        ("bonus_colour", np.int16, S),
        ("bonus_points", np.int16, S),
        ("brings", np.int16, S),
        ("bang", np.int16, S),
        ("cards", np.int16, d.num_instrument_cards + d.kind_copies[-1]),   # game._cards: the deal's multiset
    ])


def tables(game) -> np.ndarray:
    """The deck as one record (a 1-element array: numba takes an array by pointer)."""
    d = game.deck
    t = np.zeros(1, deck_dtype(game))
    t["C"], t["K"], t["KI"], t["I"], t["S"] = game.C, game.K, game.KI, game.I, game.S
    t["NUM"], t["mal"] = len(d.numbers), game.mal
    for name in ("A_PILE", "A_LAY", "A_PLACE", "A_CALL", "A_CALL_RESERVED", "A_CALL_NONE", "A_DISCARD",
                 "A_DISCARD_MAL", "A_RESERVE", "A_RESERVE_TOP", "A_RESERVE_NONE"):
        t[name] = getattr(game, name)
    r = t[0]
    r["kind_inst"] = d.kind_inst
    r["kind_colour"] = game.kind_colour
    r["kind_num"] = game.num_idx
    r["inst_colour"], r["inst_coringa"] = d.inst_colour, d.inst_coringa
    for c, insts in enumerate(d.colour_insts):
        r["colour_insts"][c, :len(insts)] = insts
        r["colour_ninsts"][c] = len(insts)
    for i, kinds in enumerate(game.inst_kinds):
        r["inst_kinds"][i, :len(kinds)] = kinds
        r["inst_nkinds"][i] = len(kinds)
    for sid, sb in enumerate(d.sambistas):
        for j, (kind_, arg) in enumerate(sb.requires):
            r["req_kind"][sid, j], r["req_arg"][sid, j] = kind_, arg
        r["req_len"][sid] = len(sb.requires)
        r["independent"][sid] = tokens_independent(d, sb.requires)
        r["stars"][sid], r["bonus_colour"][sid], r["bonus_points"][sid] = sb.stars, sb.bonus_colour, \
            sb.bonus_points
        r["brings"][sid], r["bang"][sid] = sb.brings, sb.bang
    r["cards"] = game._cards
    return t


# ---------------------------------------------------------------------- one game's record
def state_dtype(game) -> np.dtype:
    """The fields of ``RodaState`` at fixed shapes, and the config it is played by. The deck's
    counts shape it; the player count does not (per-seat rows for ``MAX_PLAYERS`` seats, the
    first ``num_players`` used): one dtype per deck."""
    n, C, K, KI, NI, S = MAX_PLAYERS, game.C, game.K, game.KI, game.I, game.S
    NUM, T = len(game.deck.numbers), game.deck.num_instrument_cards + game.deck.kind_copies[-1]
    return np.dtype([
        ("num_players", np.int16),
        ("max_rounds", np.int16),
        ("hands", np.int8, (n, K)),
        ("hand_size", np.int16, n),
        ("known", np.int8, (n, K)),
        ("deck", np.int16, T),                  # bottom -> top
        ("deck_len", np.int16),
        ("piles", np.int8, (C, K)),
        ("pile_size", np.int16, C),
        ("space_inst", np.int16, (n, SPACES)),
        ("space_count", np.int16, (n, SPACES)),
        ("space_num", np.int8, (n, SPACES, NUM)),   # the reference's space_nums, as counts
        ("inst_space", np.int16, (n, NI)),
        ("laid", np.int8, (n, KI)),
        ("laid_total", np.int16, n),
        ("called", np.int16, (n, S)),            # in call order, top last
        ("called_len", np.int16, n),
        ("reserved", np.int16, n),
        ("row", np.int16, ROW),
        ("samb_deck", np.int16, S),              # bottom -> top
        ("samb_len", np.int16),
        ("atrav", np.int16, n),
        ("fame", np.int16, n),
        ("samb_top_known", np.bool_),
        ("player", np.int16),
        ("phase", np.int16),
        ("bang", np.int16),
        ("selected", np.int16, MAX_GROUP),
        ("sel_len", np.int16),
        ("sel_inst", np.int16),
        ("callable", np.int16, ROW + 1),
        ("callable_len", np.int16),
        ("called_this_turn", np.bool_),
        ("turns", np.int32),
        ("round", np.int16),
        ("end_triggered", np.bool_),
        ("over", np.bool_),
        ("returns", np.float64, n),
        ("rng", np.uint64),                      # splitmix64 state for deal()
    ])


OBS_FIELDS = ("phase", "bang", "selected", "hand", "deck_size", "piles", "open_row", "sambista_deck_size",
              "sambista_deck_top", "round", "rounds_left", "end_triggered", "position", "current", "hand_size",
              "known", "space_instrument", "space_colour", "space_numbers", "space_cards", "laid", "sambistas",
              "top_sambista", "brought", "reserved", "atravessados", "fame", "cards_laid")
(AT_PHASE, AT_BANG, AT_SELECTED, AT_HAND, AT_DECK_SIZE, AT_PILES, AT_ROW, AT_SDECK, AT_STOP, AT_ROUND, AT_LEFT,
 AT_END, AT_POSITION, AT_CURRENT, AT_HAND_SIZE, AT_KNOWN, AT_SP_INST, AT_SP_COL, AT_SP_NUM, AT_SP_CARDS, AT_LAID,
 AT_CALLED, AT_TOP, AT_BROUGHT, AT_RESERVED, AT_ATRAV, AT_FAME, AT_CARDS_LAID) = range(len(OBS_FIELDS))


def obs_offsets(game) -> np.ndarray:
    return np.array([game.obs_layout.fields[name].start for name in OBS_FIELDS], np.int64)


def new_records(game, count: int) -> np.ndarray:
    """``count`` empty games of ``game``'s config (deal() or to_record() fills them)."""
    st = np.zeros(count, state_dtype(game))
    st["num_players"], st["max_rounds"] = game.num_players, game.config.max_rounds
    return st



# ---------------------------------------------------------------------- chance
@jit
def _shuffle(s, a, n: int) -> None:
    for i in range(n - 1, 0, -1):                        # Fisher-Yates
        j = below(s, i + 1)
        a[i], a[j] = a[j], a[i]


@jit
def deal(s, d) -> None:
    """new_state: shuffle the cards, 5 to each hand, reveal one instrument onto its pile
    (a revealed malandro: reshuffle, reveal again), open 4 sambistas."""
    n, T = s.num_players, len(d.cards)
    s.deck[:] = d.cards
    _shuffle(s, s.deck, T)
    s.deck_len = T
    s.hands[:, :] = 0
    for p in range(n):
        for _ in range(HAND_SIZE):
            s.deck_len -= 1
            s.hands[p, s.deck[s.deck_len]] += 1
            s.deck[s.deck_len] = 0
        s.hand_size[p] = HAND_SIZE
    s.piles[:, :] = 0
    while s.deck[s.deck_len - 1] == d.mal:
        _shuffle(s, s.deck, s.deck_len)
    s.deck_len -= 1
    first = s.deck[s.deck_len]
    s.deck[s.deck_len] = 0
    s.piles[d.kind_colour[first], first] += 1
    s.pile_size[:] = 0
    s.pile_size[d.kind_colour[first]] = 1
    for i in range(d.S):
        s.samb_deck[i] = i
    _shuffle(s, s.samb_deck, d.S)
    s.samb_len = d.S
    for i in range(ROW):
        s.row[i] = _pop_sambista(s) if s.samb_len else -1
    s.known[:, :] = 0
    s.space_inst[:n, :] = -1                             # the seats past num_players stay 0
    s.space_count[:, :] = 0
    s.space_num[:, :, :] = 0
    s.inst_space[:n, :] = -1
    s.laid[:, :] = 0
    s.laid_total[:] = 0
    s.called[:, :] = 0
    s.called_len[:] = 0
    s.reserved[:n] = -1
    s.atrav[:] = 0
    s.fame[:] = 0
    s.samb_top_known = False
    s.player = 0
    s.phase = PH_DRAW
    s.bang = -1
    s.selected[:] = 0
    s.sel_len = 0
    s.sel_inst = -1
    s.callable[:] = 0
    s.callable_len = 0
    s.called_this_turn = False
    s.turns = 0
    s.round = 0
    s.end_triggered = False
    s.over = False
    s.returns[:] = 0.0


# ---------------------------------------------------------------------- observation
@jit
def _copy(dst, src) -> None:
    """dst[:] = src, as a flat loop over two 1-d views (what numba vectorises; indexing the
    record's 2-d fields inside nested loops it does not)."""
    for k in range(len(dst)):
        dst[k] = src[k]


@jit
def observe(s, d, at, player: int, out) -> None:
    """``player``'s observation (observation.py's layout) into ``out``, written from the state;
    ``at`` holds the fields' offsets (obs_offsets)."""
    n, K, KI, NI, C, S = s.num_players, d.K, d.KI, d.I, d.C, d.S
    NUM = s.space_num.shape[2]
    # every offset is read once into a local: ``out`` might alias ``at`` for all numba knows, so an
    # offset read inside a loop is re-read after every write and the loop cannot be vectorised
    a_hand, a_piles, a_known, a_laid = at[AT_HAND], at[AT_PILES], at[AT_KNOWN], at[AT_LAID]
    a_sp_inst, a_sp_col, a_sp_num, a_sp_cards = at[AT_SP_INST], at[AT_SP_COL], at[AT_SP_NUM], at[AT_SP_CARDS]
    a_called, a_top, a_brought, a_reserved = at[AT_CALLED], at[AT_TOP], at[AT_BROUGHT], at[AT_RESERVED]
    a_current, a_hand_size, a_atrav, a_fame, a_cards_laid = (at[AT_CURRENT], at[AT_HAND_SIZE], at[AT_ATRAV],
                                                             at[AT_FAME], at[AT_CARDS_LAID])
    out[:] = 0
    if s.phase >= 0:
        out[at[AT_PHASE] + s.phase] = 1
    if s.bang >= 0:
        out[at[AT_BANG] + s.bang] = 1
    a = at[AT_SELECTED]
    for j in range(s.sel_len):
        out[a + s.selected[j]] += 1
    _copy(out[a_hand:a_hand + K], s.hands[player])
    out[at[AT_DECK_SIZE]] = s.deck_len
    _copy(out[a_piles:a_piles + C * K], s.piles.ravel())
    a = at[AT_ROW]
    for i in range(ROW):
        if s.row[i] >= 0:
            out[a + i * S + s.row[i]] = 1
    out[at[AT_SDECK]] = s.samb_len
    if s.samb_top_known:
        out[at[AT_STOP] + s.samb_deck[s.samb_len - 1]] = 1
    out[at[AT_ROUND]] = s.round
    out[at[AT_LEFT]] = s.max_rounds - s.round
    out[at[AT_END]] = s.end_triggered
    out[at[AT_POSITION] + player] = 1
    space_inst = s.space_inst
    for r in range(n):                                   # seat-relative: the observer is row 0
        q = (player + r) % n
        if s.player == q:
            out[a_current + r] = 1
        out[a_hand_size + r] = s.hand_size[q]
        _copy(out[a_known + r * K:a_known + (r + 1) * K], s.known[q])
        for sp in range(SPACES):
            inst = space_inst[q, sp]
            if inst >= 0:
                rs = r * SPACES + sp
                out[a_sp_inst + rs * NI + inst] = 1
                out[a_sp_col + rs * C + d.inst_colour[inst]] = 1
        # a free space's numbers and cards are 0: the seat's rows copy whole
        b, space_num = a_sp_num + r * SPACES * NUM, s.space_num[q]
        for sp in range(SPACES):
            for i in range(NUM):
                out[b + sp * NUM + i] = space_num[sp, i]
        _copy(out[a_sp_cards + r * SPACES:a_sp_cards + (r + 1) * SPACES], s.space_count[q])
        _copy(out[a_laid + r * KI:a_laid + (r + 1) * KI], s.laid[q])
        m = s.called_len[q]
        for j in range(m):
            out[a_called + r * S + s.called[q, j]] = 1
        if m:
            top = s.called[q, m - 1]
            out[a_top + r * S + top] = 1
            if d.brings[top] >= 0:
                out[a_brought + r * NI + d.brings[top]] = 1
        if s.reserved[q] >= 0:
            out[a_reserved + r * S + s.reserved[q]] = 1
        out[a_atrav + r] = s.atrav[q]
        out[a_fame + r] = s.fame[q]
        out[a_cards_laid + r] = s.laid_total[q]


# ---------------------------------------------------------------------- hidden information
@jit
def resample_hidden(s, d, player: int, g) -> None:
    """observation.resample_hidden, in place, drawing from ``g`` (a ``fast_chance`` generator)
    what the reference draws from numpy's: the deck and the others' hand cards not known from
    piles redealt; the sambista deck reshuffled under its known top (a known top stays)."""
    n, K = s.num_players, s.hands.shape[1]
    pool = np.empty(s.deck.size, np.int64)            # observation._hidden_pool, then sorted
    m = 0
    for i in range(s.deck_len):
        pool[m] = s.deck[i]
        m += 1
    for q in range(n):
        if q != player:
            for k in range(K):
                for _ in range(s.hands[q, k] - s.known[q, k]):
                    pool[m] = k
                    m += 1
    pool[:m] = np.sort(pool[:m])
    perm = np.arange(m)
    R.shuffle(g, perm, m)                             # rng.permutation(len(pool))
    dealt = np.empty(m, np.int64)
    for i in range(m):
        dealt[i] = pool[perm[i]]
    for q in range(n):
        if q != player:
            unknown = s.hand_size[q]
            for k in range(K):
                s.hands[q, k] = s.known[q, k]
                unknown -= s.known[q, k]
            for _ in range(unknown):                  # pool.pop(): from the end
                m -= 1
                s.hands[q, dealt[m]] += 1
    for i in range(m):
        s.deck[i] = dealt[i]
    for i in range(m, s.deck.size):
        s.deck[i] = 0                                 # unused entries stay 0 (equal games, equal records)
    s.deck_len = m
    top = 1 if s.samb_top_known and s.samb_len else 0
    under = s.samb_len - top
    samb = np.sort(s.samb_deck[:under].astype(np.int64))
    order = np.arange(under)
    R.shuffle(g, order, under)
    for i in range(under):
        s.samb_deck[i] = samb[order[i]]


# ---------------------------------------------------------------------- the game's end
@jit
def current_player(s, d) -> int:
    return -1 if s.over else s.player


@jit
def returns(s, d, out) -> None:
    for p in range(s.num_players):
        out[p] = s.returns[p]


# ---------------------------------------------------------------------- conversion
def to_record(s, ref: RodaState, game) -> None:
    """Write a reference state into the record ``s`` (its rng untouched; unused entries 0).
    The seats past ``num_players`` are left as they are: no kernel, deal or conversion writes
    them, so they keep new_records' zeros (zeroing them here cost 40 us of a 240 us conversion,
    which the AEC env pays at every reset)."""
    n = game.num_players
    s["hands"][:n], s["hand_size"][:n], s["known"][:n] = ref.hands, ref.hand_size, ref.known
    s["deck"][:] = 0
    s["deck"][:len(ref.deck)] = ref.deck
    s["deck_len"] = len(ref.deck)
    s["piles"], s["pile_size"] = ref.piles, ref.pile_size
    s["space_inst"][:n], s["space_count"][:n], s["inst_space"][:n] = ref.space_inst, ref.space_count, ref.inst_space
    s["laid"][:n], s["laid_total"][:n] = ref.laid, ref.laid_total
    num = np.zeros(s["space_num"].shape, np.int8)       # a numbered card shows on its instrument's space
    enc, laid = game.encoder, np.asarray(ref.laid)
    kk = enc._numbered
    if len(kk):
        count = laid[:, kk]
        on = count > 0
        seat = np.broadcast_to(np.arange(n)[:, None], on.shape)[on]
        space = np.asarray(ref.inst_space)[:, enc._kind_inst[kk]][on]
        np.add.at(num, (seat, space, np.broadcast_to(enc._kind_num[kk], on.shape)[on]), count[on])
    s["space_num"] = num
    s["called"][:] = 0
    for p, pile in enumerate(ref.called):
        s["called"][p, :len(pile)] = pile
        s["called_len"][p] = len(pile)
    s["reserved"][:n], s["row"] = ref.reserved, ref.row
    s["samb_deck"][:] = 0
    s["samb_deck"][:len(ref.samb_deck)] = ref.samb_deck
    s["samb_len"] = len(ref.samb_deck)
    s["atrav"][:n], s["fame"][:n] = ref.atrav, ref.fame
    s["samb_top_known"], s["player"], s["phase"], s["bang"] = ref.samb_top_known, ref.player, ref.phase, ref.bang
    s["selected"][:] = 0
    s["selected"][:len(ref.selected)] = ref.selected
    s["sel_len"], s["sel_inst"] = len(ref.selected), ref.sel_inst
    s["callable"][:] = 0
    s["callable"][:len(ref.callable)] = ref.callable
    s["callable_len"] = len(ref.callable)
    s["called_this_turn"], s["turns"], s["round"] = ref.called_this_turn, ref.turns, ref.round
    s["end_triggered"], s["over"], s["returns"][:n] = ref.end_triggered, ref.over, ref.returns


def _fields(r: dict) -> dict:
    """The reference state's fields, but its derived ones (``space_nums`` and the base observation
    ``obs``, functions of the others), from the record's fields as Python values (``record_lists``);
    the per-seat rows cut to the game's seats."""
    n = r["num_players"]
    return dict(
        hands=r["hands"][:n], hand_size=r["hand_size"][:n], known=r["known"][:n], deck=r["deck"][:r["deck_len"]],
        piles=r["piles"], pile_size=r["pile_size"], space_inst=r["space_inst"][:n],
        space_count=r["space_count"][:n], inst_space=r["inst_space"][:n], laid=r["laid"][:n],
        laid_total=r["laid_total"][:n],
        called=[row[:c] for row, c in zip(r["called"][:n], r["called_len"][:n], strict=True)],
        reserved=r["reserved"][:n], row=r["row"], samb_deck=r["samb_deck"][:r["samb_len"]],
        atrav=r["atrav"][:n], fame=r["fame"][:n], samb_top_known=r["samb_top_known"],
        player=r["player"], phase=r["phase"], bang=r["bang"], selected=r["selected"][:r["sel_len"]],
        sel_inst=r["sel_inst"], callable=r["callable"][:r["callable_len"]],
        called_this_turn=r["called_this_turn"], turns=r["turns"], round=r["round"],
        end_triggered=r["end_triggered"], over=r["over"], returns=r["returns"][:n])


def from_record(s, state_cls, game) -> RodaState:
    """The reference state held by the record ``s`` (its base observation rebuilt)."""
    numbers, space_num = game.deck.numbers, s["space_num"][:s["num_players"]]
    nums = np.zeros(space_num.shape[:2], object).tolist()
    for p, sp in zip(*np.nonzero(space_num.any(axis=2)), strict=True):   # the occupied spaces
        nums[p][sp] = sum(1 << numbers[i] for i in np.flatnonzero(space_num[p, sp]))
    t = state_cls(**_fields(record_lists(s)), space_nums=nums, obs=np.zeros(0, np.int16))
    t.obs = game.encoder.rebuild(t)
    return t


def same_state(r: dict, ref: RodaState, game) -> bool:
    """Whether the record whose fields are ``r`` (Python values: ``record_lists``) holds ``ref``:
    every field of ``_fields``, as ``from_record(s) == ref`` compares them (the differential
    harness's every-step check, without rebuilding the base observation). The derived fields
    aside: ``space_num`` shows in every observation (``space_numbers``, public), and the harness
    compares ``from_record`` in full at sampled steps."""
    return all(v == getattr(ref, k) for k, v in _fields(r).items())
