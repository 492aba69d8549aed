"""Chuche's compiled engine (numba): the rules of ``rules.py`` over fixed-shape arrays.

Two files: ``fast_rules.py`` holds the state record (``STATE_DTYPE``, one numpy
structured-array row per game; a batch is an array of them) and the play
(deal, transitions); this one the legal mask, the observation, the batch
kernels, the AEC entry points and the conversion to and from reference
states. Each function is the function of ``rules.py`` (or ``observation.py``)
with the same name, line for line, over that record (the reaction windows
included: ``actor`` moves to the seat asked exactly as there); the
differential tests (``tests/vector``) and every hand-built position of
``tests/chuche`` (``helpers.play``) run both engines in lockstep and compare
masks, observations, rewards and states after every step.

What differs from ``rules.py``, and why:

* every list of the state (hands, stock, table, piles, discard, Chuche deck,
  capture, window queue) is a fixed row of card ids plus its length, in the
  same order (so states convert back exactly); a hand stays sorted; per-seat
  rows are sized for 6 seats whatever ``num_players`` (one dtype: numba
  compiles the engine once for every config);
* chance during play (a new round's deal, Roubar's random card) is the
  reference's own: PCG64 re-seeded from the state's hidden ``seed`` and
  ``draws`` (``baralho/core/fast_chance.py`` ports numpy's draws bit for bit),
  so a state loaded from the reference plays on with the same cards;
* a new match (the batch's auto-reset, ``new_match``) draws its colours,
  backs and hidden seed from the game's own splitmix64 stream
  (``fast_chance.below``); the reference's ``new_state`` draws from numpy's Generator:
  same distribution, other numbers. The AEC env on this engine deals with the
  reference's ``new_state``, so a seed gives the same game on both engines;
* the sums a capture can reach are bit sets of the sums 0..MAX_SUM (``FULL``),
  as the reference's ``reachable``; the mask code keeps the reference's order;
* ``_start_turn`` deals the next round of a match itself (the reference's
  ``_end_round`` calls ``_deal``, which calls ``_start_turn``): numba's cache
  cannot load mutually recursive functions (a segfault at the second run).

The batch and AEC entry points are built from the primitives (``deal``, ``apply``,
``legal_mask``, ``observe``, ``current_player``, ``returns``) once for every game
(``baralho/core/batch.py``).
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.envs.chuche import cards as C
from baralho.envs.chuche.actions import (  # the action kinds, named as in rules.py
    A_ADD,
    A_BLOCK,
    A_BOMBA,
    A_CAPTURE,
    A_COMMIT,
    A_COMMIT_CORINGA,
    A_ESCUDO,
    A_PASS,
    A_PLACE,
    A_ROUBAR,
    A_UNBLOCK,
)
from baralho.envs.chuche.fast_rules import (
    BLOQUEIO,
    BOMBA,
    COLOUR,
    CORINGA,
    ESCUDO,
    FRONT,
    FULL,
    KIND,
    KIND_FRONT,
    NUM_KINDS,
    PER_COLOUR,
    POINTS,
    ROUBAR,
    SCORE_KIND,
    STATE_DTYPE,
    VALUE_CAP,
    apply,  # noqa: F401  (a primitive core/batch.py builds on)
    chuche_points,
    first_player,
    new_match,
    target,
    won,
)
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, CAPTURE, CARD_ROW, CONT_END, MAIN, ROUBAR_WINDOW
from baralho.envs.chuche.rules import ChucheState

STATE = ChucheState
NUM_CARDS = C.NUM_CARDS
FIRST_BACK, NUM_BACKS = C.BACK_VALUES[0], len(C.BACK_VALUES)
TITLE = "Chuche"
COMPILE_SECONDS = {"one": 8, "batch": 10}    # about how long a first use compiles (core/batch.py)

# Offsets of the observation's fields (observation.build_layout), an int64 array
# indexed by these names: observe() is the only function that needs them.
OBS_FIELDS = ("hand", "capture_card", "capture_selected", "capture_sum", "must_use", "table", "blocked",
              "target", "stock_size", "colours", "gone", "phase", "chuche_played", "window_ends_turn",
              "bomba_placed", "chuche_deck", "turn_player", "turn_order", "hand_size", "hand_backs",
              "chuche_held", "chuche_used", "chuche_won", "captured", "round_points", "scores",
              "rounds_played", "rounds_left")
(AT_HAND, AT_CAP_CARD, AT_CAP_SEL, AT_CAP_SUM, AT_MUST, AT_TABLE, AT_BLOCKED, AT_TARGET, AT_STOCK,
 AT_COLOURS, AT_GONE, AT_PHASE, AT_PLAYED, AT_ENDS, AT_BOMBA, AT_DECK, AT_TURN, AT_ORDER, AT_HAND_SIZE,
 AT_BACKS, AT_HELD, AT_USED, AT_WON, AT_CAPTURED, AT_POINTS, AT_SCORES, AT_ROUNDS, AT_LEFT) = range(len(OBS_FIELDS))


def obs_offsets(game) -> np.ndarray:
    return np.array([game.obs_layout.fields[name].start for name in OBS_FIELDS], np.int64)


def new_records(game, count: int) -> np.ndarray:
    """``count`` empty games of ``game``'s config (new_match() or to_record() fills them)."""
    st = np.zeros(count, STATE_DTYPE)
    st["num_players"], st["num_colours"], st["goal"] = game.num_players, game.num_colours, game.goal
    st["max_rounds"], st["scope_round"] = game.max_rounds, game.config.scope == "round"
    st["free_place"] = game.free_place
    return st


from baralho.core.jit import jit  # noqa: E402  (numba record names fixed there first)


# ---------------------------------------------------------------------- legal mask
@jit
def _usable(s, c: int, p: int) -> bool:
    """A table card seat p may capture: unblocked or blocked by p."""
    return s.owner[c] < 0 or s.owner[c] == p


@jit
def _reachable(cnt, minus: int) -> int:
    """cards.reachable of the capped value counts ``cnt``, one card of value ``minus`` less (0: none)."""
    r = 1
    for v in range(1, 7):
        k = cnt[v - 1] - (1 if v == minus else 0)
        for _ in range(k):
            r = (r | (r << v)) & FULL
    return r


@jit
def legal_mask(s, d, m) -> None:
    m[:] = 0
    if s.over:
        return
    p, ph, n = s.actor, s.phase, s.num_players
    if ph == MAIN:
        must = s.must_use             # after an Escudo unblock: that card is counted apart
        r = 1                         # bit x: some of the player's (other) table cards sum to x
        for i in range(s.table_size):
            c = s.table[i]
            if _usable(s, c, p):
                if KIND[c] == must:
                    must = -1
                    continue
                r = (r | (r << FRONT[c])) & FULL
        t = target(s)
        played = s.chuche_played
        cor = s.held[p, CORINGA] > 0 and not played
        base, least = (KIND_FRONT[s.must_use], 0) if s.must_use >= 0 else (0, 1)
        exact = False
        for i in range(s.hand_size[p]):
            d = t - FRONT[s.hands[p, i]] - base
            if d >= least and (r >> d) & 1:
                m[A_CAPTURE + i] = 1
                exact = True
            elif cor and ((d >= 2 and (r >> (d - 1)) & 1) or (d >= 0 and (r >> (d + 1)) & 1)):
                m[A_CAPTURE + i] = 1
        if not exact or s.free_place:
            for i in range(s.hand_size[p]):
                m[A_PLACE + i] = 1
        if not played:
            if s.held[p, BLOQUEIO] and s.nfree:
                for i in range(s.table_size):
                    c = s.table[i]
                    if s.owner[c] < 0:
                        m[A_BLOCK + KIND[c]] = 1
            if s.held[p, ESCUDO] and s.nfree < s.table_size:
                # "para usá-la na sua soma": only a card an exact capture could then use
                for i in range(s.table_size):
                    c = s.table[i]
                    if s.owner[c] >= 0 and s.owner[c] != p:
                        for h in range(s.hand_size[p]):
                            d = t - FRONT[s.hands[p, h]] - FRONT[c]
                            if d >= 0 and (r >> d) & 1:
                                m[A_UNBLOCK + KIND[c]] = 1
                                break
            if s.held[p, ROUBAR]:
                for j in range(1, n):
                    if s.hand_size[(p + j) % n]:
                        m[A_ROUBAR + j - 1] = 1
            if s.held[p, BOMBA]:
                m[A_BOMBA] = 1
    elif ph == CAPTURE:
        cnt = np.zeros(6, np.int64)
        must = s.must_use             # not added yet: count it as added, the others must complete
        total = s.cap_sum + (KIND_FRONT[must] if must >= 0 else 0)
        for i in range(s.table_size):
            c = s.table[i]
            if _usable(s, c, p):
                if KIND[c] == must:
                    must = -1
                    continue
                v = FRONT[c] - 1
                if cnt[v] < VALUE_CAP[v]:
                    cnt[v] += 1
        t = target(s)
        coringa = s.held[p, CORINGA] > 0 and not s.chuche_played
        ok = 0                        # bit v: a card of value v can still complete the target
        for v in range(1, 7):
            if cnt[v - 1]:
                r = _reachable(cnt, v)
                for g in range(t - 1, t + 2):
                    if g != t and not coringa:
                        continue
                    d = g - total - v
                    if d >= 0 and (r >> d) & 1:
                        ok |= 1 << v
                        break
        if ok:
            for i in range(s.table_size):
                c = s.table[i]
                if _usable(s, c, p) and (ok >> FRONT[c]) & 1:
                    m[A_ADD + KIND[c]] = 1
        if s.must_use >= 0:           # the unblocked card itself: the others complete the rest
            m[A_ADD + s.must_use] = 1 if t >= total and (_reachable(cnt, 0) >> (t - total)) & 1 else 0
        elif s.cap_sel_size:
            if total == t:
                m[A_COMMIT] = 1
            elif (total == t - 1 or total == t + 1) and coringa:
                m[A_COMMIT_CORINGA] = 1
    elif ph == BLOQ_WINDOW:
        m[A_PASS] = 1
        for i in range(s.table_size):
            c = s.table[i]
            if s.owner[c] < 0:
                m[A_BLOCK + KIND[c]] = 1
    elif ph == ROUBAR_WINDOW:
        m[A_ESCUDO] = 1
        m[A_PASS] = 1
    else:  # BOMBA_ROUND
        for i in range(s.hand_size[p]):
            m[A_PLACE + i] = 1
        if s.held[p, ESCUDO] and p != s.turn:                 # never against one's own Bomba
            m[A_ESCUDO] = 1


# ---------------------------------------------------------------------- observation
@jit
def _card_row(s, out, base: int, c: int) -> None:
    """observation.card_row: colour, front and back one-hot."""
    out[base + COLOUR[c]] = 1
    out[base + 6 + FRONT[c] - 1] = 1
    out[base + 12 + s.back[c] - 6] = 1


@jit
def observe(s, d, at, player: int, out) -> None:
    """observation.encode: ``player``'s view into ``out``; ``at`` holds the fields' offsets."""
    # the offsets used in loops read once into locals: ``out`` might alias ``at`` for all numba
    # knows, so an offset read inside a loop is read again after every write
    a_hand, a_table, a_blocked = at[AT_HAND], at[AT_TABLE], at[AT_BLOCKED]
    a_hand_size, a_backs, a_order, a_held, a_used = (at[AT_HAND_SIZE], at[AT_BACKS], at[AT_ORDER], at[AT_HELD],
                                                     at[AT_USED])
    a_won, a_captured, a_gone, a_points, a_scores = (at[AT_WON], at[AT_CAPTURED], at[AT_GONE], at[AT_POINTS],
                                                     at[AT_SCORES])
    out[:] = 0
    n = s.num_players
    for i in range(s.hand_size[player]):
        _card_row(s, out, a_hand + i * CARD_ROW, s.hands[player, i])
    if s.cap_card >= 0:
        _card_row(s, out, at[AT_CAP_CARD], s.cap_card)
        a = at[AT_CAP_SEL]
        for i in range(s.cap_sel_size):
            out[a + KIND[s.cap_sel[i]]] += 1
        out[at[AT_CAP_SUM]] = s.cap_sum
    if s.must_use >= 0:
        out[at[AT_MUST] + s.must_use] = 1
    for i in range(s.table_size):                               # rows by seat: the observer first
        c = s.table[i]
        if s.owner[c] < 0:
            out[a_table + KIND[c]] += 1
        else:
            out[a_blocked + ((s.owner[c] - player + n) % n) * NUM_KINDS + KIND[c]] += 1
    out[at[AT_TARGET] + target(s) - 6] = 1
    out[at[AT_STOCK]] = s.stock_size
    a = at[AT_COLOURS]
    for k in range(s.num_colours):
        out[a + s.colours[k]] = 1
    out[at[AT_PHASE] + s.phase] = 1
    out[at[AT_PLAYED]] = s.chuche_played
    out[at[AT_ENDS]] = s.phase == BLOQ_WINDOW and s.cont == CONT_END
    out[at[AT_BOMBA]] = s.bomba_hits if s.phase == BOMBA_ROUND else 0
    out[at[AT_DECK]] = s.chuche_deck_size
    out[at[AT_TURN] + (s.turn - player + n) % n] = 1
    first = first_player(s)
    for j in range(n):
        q = (player + j) % n
        out[a_hand_size + j] = s.hand_size[q]
        for i in range(s.hand_size[q]):
            out[a_backs + j * 5 + s.back[s.hands[q, i]] - 6] += 1
        out[a_order + j] = (q - first + n) % n
        held, used = out[a_held + j * 5:a_held + j * 5 + 5], out[a_used + j * 5:a_used + j * 5 + 5]
        for t in range(5):                               # (views: an index from 0 needs no negative-index fix)
            held[t] = s.held[q, t]
            used[t] = s.used[q, t]
        w = won(s, q)
        out[a_won + j] = w
        points = 0
        for i in range(s.pile_size[q]):
            c = s.piles[q, i]
            out[a_captured + j * 4 + SCORE_KIND[c]] += 1
            out[a_gone + KIND[c]] += 1
            points += POINTS[c]
        out[a_points + j] = points + chuche_points(w)
        out[a_scores + j] = s.scores[q]
    out[at[AT_ROUNDS]] = s.rounds_played
    out[at[AT_LEFT]] = s.max_rounds - s.rounds_played


# ---------------------------------------------------------------------- hidden information
@jit
def resample_hidden(s, d, player: int, g) -> None:
    """observation.resample_hidden, in place, drawing from ``g`` (a ``fast_chance`` generator)
    what the reference draws from numpy's: the fronts of the other hands within their (public)
    backs, the stock order under its (public) top back, the Chuche deck order, the generator."""
    if s.over:
        return
    n = s.num_players
    cards = np.empty(NUM_CARDS, np.int64)             # the canonical pool: sorted card ids
    m = 0
    for q in range(n):
        if q != player:
            for i in range(s.hand_size[q]):
                cards[m] = s.hands[q, i]
                m += 1
    for i in range(s.stock_size):
        cards[m] = s.stock[i]
        m += 1
    cards[:m] = np.sort(cards[:m])
    pool = np.empty((NUM_BACKS, NUM_CARDS), np.int64)   # by back value, ascending
    size = np.zeros(NUM_BACKS, np.int64)
    for k in range(m):
        b = s.back[cards[k]] - FIRST_BACK
        pool[b, size[b]] = cards[k]
        size[b] += 1
    for b in range(NUM_BACKS):
        R.shuffle(g, pool[b], size[b])
    top_back = target(s) - FIRST_BACK
    hand = np.empty(3, np.int64)
    for q in range(n):
        if q == player:
            continue
        k = s.hand_size[q]
        for i in range(k):
            hand[i] = s.back[s.hands[q, i]]
        backs = np.sort(hand[:k])
        for i in range(k):                                  # pool[b].pop() per back, in back order
            b = backs[i] - FIRST_BACK
            size[b] -= 1
            hand[i] = pool[b, size[b]]
        fronts = np.sort(hand[:k])
        for i in range(k):
            s.hands[q, i] = fronts[i]
    top = -1
    if s.stock_size:
        size[top_back] -= 1
        top = pool[top_back, size[top_back]]
    rest = np.empty(NUM_CARDS, np.int64)
    m = 0
    for b in range(NUM_BACKS):
        for k in range(size[b]):
            rest[m] = pool[b, k]
            m += 1
    rest[:m] = np.sort(rest[:m])
    R.shuffle(g, rest, m)
    for i in range(m):
        s.stock[i] = rest[i]
    if top >= 0:
        s.stock[m] = top
    deck = np.sort(s.chuche_deck[:s.chuche_deck_size].astype(np.int64))
    R.shuffle(g, deck, deck.size)
    for i in range(deck.size):
        s.chuche_deck[i] = deck[i]
    s.seed = R.next64(g) >> np.uint64(1)                 # rng.integers(2**63): Lemire's draw is a shift here
    s.draws = 0


@jit
def deal(s, d) -> None:
    new_match(s)


@jit
def current_player(s, d) -> int:
    return -1 if s.over else s.actor


@jit
def returns(s, d, out) -> None:
    for p in range(s.num_players):
        out[p] = s.rets[p]


# ---------------------------------------------------------------------- conversion
_LISTS = (("stock", "stock_size"), ("table", "table_size"), ("discard", "discard_size"),
          ("chuche_deck", "chuche_deck_size"), ("cap_sel", "cap_sel_size"), ("queue", "queue_size"))
_SCALARS = ("turn", "actor", "phase", "chuche_played", "cap_card", "cap_sum", "cont", "bomba_hits",
            "rounds_played", "decisions", "round_decisions", "over", "seed", "draws", "nfree", "must_use")


def to_record(s, ref: ChucheState, game=None) -> None:
    """Write a reference ``ChucheState`` into the record ``s`` (its rng untouched); the
    unused tails of the rows are zeroed, so equal states give equal records."""
    s["colours"][:] = 0
    s["colours"][:len(ref.colours)] = ref.colours
    s["back"][:] = ref.back
    s["hands"][:] = 0
    s["piles"][:] = 0
    s["hand_size"][:] = 0
    s["pile_size"][:] = 0
    for p in range(len(ref.hands)):
        s["hands"][p, :len(ref.hands[p])] = ref.hands[p]
        s["hand_size"][p] = len(ref.hands[p])
        s["piles"][p, :len(ref.piles[p])] = ref.piles[p]
        s["pile_size"][p] = len(ref.piles[p])
    for name, size in _LISTS:
        values = getattr(ref, name)
        s[name][:] = 0
        s[name][:len(values)] = values
        s[size] = len(values)
    s["owner"][:] = ref.owner
    n = len(ref.hands)
    s["held"][:] = 0
    s["used"][:] = 0
    s["scores"][:] = 0
    s["rets"][:] = 0
    s["held"][:n] = ref.held
    s["used"][:n] = ref.used
    s["scores"][:n] = ref.scores
    s["rets"][:n] = ref.rets
    for name in _SCALARS:
        s[name] = getattr(ref, name)


def _in_play(colours: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(col * PER_COLOUR + j for col in colours for j in range(PER_COLOUR))


_IN_PLAY: dict[tuple[int, ...], tuple[int, ...]] = {}


def _values(f: dict) -> tuple:
    """The reference state's fields in ``ChucheState``'s order, from the record's fields as
    Python values (``record_lists``): what ``from_record`` builds and ``same_state`` compares."""
    n = f["num_players"]
    colours = tuple(f["colours"][:f["num_colours"]])
    in_play = _IN_PLAY.get(colours) or _IN_PLAY.setdefault(colours, _in_play(colours))
    lists = {name: f[name][:f[size]] for name, size in _LISTS}
    hands = [h[:k] for h, k in zip(f["hands"][:n], f["hand_size"][:n], strict=True)]
    piles = [p[:k] for p, k in zip(f["piles"][:n], f["pile_size"][:n], strict=True)]
    return (
        colours, in_play, tuple(f["back"]), hands, lists["stock"], lists["table"],
        f["owner"], piles, lists["discard"], lists["chuche_deck"],
        f["held"][:n], f["used"][:n],
        f["turn"], f["actor"], f["phase"], bool(f["chuche_played"]), f["cap_card"],
        lists["cap_sel"], f["cap_sum"], lists["queue"], f["cont"], f["bomba_hits"],
        f["scores"][:n], f["rounds_played"], f["decisions"], f["round_decisions"],
        bool(f["over"]), f["rets"][:n], f["seed"], f["draws"], f["nfree"], f["must_use"])


_NAMES = tuple(ChucheState.__dataclass_fields__)      # the fields in their order, as _values gives them


def from_record(s, state_cls, game=None):
    """The reference state held by the record ``s`` (one ``item()`` read: the
    differential tests call this after every step)."""
    from baralho.core.compiled import record_lists

    return state_cls(*_values(record_lists(s)))


def same_state(f: dict, ref: ChucheState, game=None) -> bool:
    """Whether the record whose fields are ``f`` (Python values: ``record_lists``) holds ``ref``:
    every field, as ``from_record(s) == ref`` compares them (the differential harness's
    every-step check, without building a state)."""
    return all(v == getattr(ref, k) for k, v in zip(_NAMES, _values(f), strict=True))
