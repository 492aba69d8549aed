"""Rodízio's compiled engine (numba): the rules of ``rules.py`` over fixed-shape arrays.

One game is one record of :func:`state_dtype` (a numpy structured array row);
a batch is an array of them. Each function below is the function of
``rules.py`` with the same name, line for line, over that record; the
differential tests (``tests/vector``) play both engines in lockstep and compare
masks, observations, rewards and states after every step.

What differs from ``rules.py``, and why:

* a stack is a fixed row of ``MAX_STACK`` card ids plus its size, a pile the
  same (numba works on fixed shapes; the order of cards is kept, so states
  convert back exactly);
* one record layout for every config: the per-eater rows are sized for
  ``MAX_EATERS`` and ``final`` for ``MAX_PLAYERS`` whatever ``num_players``
  (numba compiles a kernel once per record type: one compile for every config,
  not one per player count), and every loop over seats or eaters is bounded by
  the record's own ``num_players`` / ``num_eaters``; the rows past them stay 0,
  so equal games are equal records;
* ``deal`` draws from the game's own splitmix64 stream (``fast_chance.below``);
  the reference's ``new_state`` draws from numpy's Generator instead: same
  distribution, other numbers. The AEC env on this engine deals with
  ``deal_from``: the reference's draws (``new_state_draws``), laid out by
  ``lay_out`` (the part ``deal`` shares), so a seed gives the same game on both engines.

The batch and AEC entry points are built from these primitives once for every game
(``baralho/core/batch.py``).
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.compiled import record_lists
from baralho.core.fast_chance import below
from baralho.core.jit import jit
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.actions import EAT, MAX_STACK, SERVE
from baralho.envs.rodizio.rules import MAX_PLAYERS, MIN_PLAYERS, RodizioState

STATE = RodizioState        # the reference state class, for to/from_record (baralho/core/compiled.py)
TITLE = "Rodízio"
COMPILE_SECONDS = {"one": 3, "batch": 4}    # about how long a first use compiles (core/batch.py)

NUM_PLATES = C.NUM_PLATES
PLAQUINHA = C.PLAQUINHA
NUM_PIZZAS = C.NUM_PIZZAS
END_CENTRE = C.END_CENTRE
VALUE = np.array(C.VALUE, np.int16)
PEPPER = np.array(C.PEPPER, np.int8)
LIVRE, DUPLA = C.LIVRE, C.DUPLA
# the most eaters a config has: its players, and the Comilão only with 2 players (3 eaters then)
MAX_EATERS = max(n + (n == 2) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
# the observation's features of a card on a plate (observation.CARD_FEATURES)
FEATURES = np.array([(1, C.VALUE[c], c == PLAQUINHA, C.PEPPER[c] == LIVRE, C.PEPPER[c] == DUPLA)
                     for c in range(C.NUM_CARDS)], np.int16)


def state_dtype() -> np.dtype:
    """One game as a record: the fields of ``RodizioState`` at fixed shapes, and the
    config it is played by (so compiled code takes one argument per game). The same for
    every config: per-eater rows for ``MAX_EATERS``, ``final`` for ``MAX_PLAYERS``; the
    game's own counts are the fields ``num_players`` and ``num_eaters``."""
    return np.dtype([
        ("num_players", np.int16),
        ("num_eaters", np.int16),
        ("comilao", np.bool_),
        ("spicy", np.bool_),
        ("perfect_memory", np.bool_),
        ("max_rounds", np.int16),
        ("stacks", np.int8, (NUM_PLATES, MAX_STACK)),   # per plate, bottom -> top
        ("size", np.int8, NUM_PLATES),
        ("plates", np.int8, NUM_PLATES),
        ("eaten", np.int8, (MAX_EATERS, MAX_STACK)),     # per eater, in the order eaten
        ("eaten_count", np.int8, MAX_EATERS),
        ("totals", np.int16, MAX_EATERS),
        ("seat", np.int16),
        ("round", np.int16),
        ("pending", np.int16),
        ("over", np.bool_),
        ("final", np.float32, MAX_PLAYERS),
        ("rng", np.uint64),                               # splitmix64 state for deal()
    ])


STATE_DTYPE = state_dtype()     # every record's dtype, whatever the config (new_records)


# Offsets of the observation's fields (observation.build_layout), an int64 array
# indexed by these names: observe() is the only function that needs them.
OBS_FIELDS = ("plates", "stack_size", "eaten", "eaten_count", "eaten_total", "to_act", "pending",
              "position", "round", "rounds_left", "flags")
(AT_PLATES, AT_SIZE, AT_EATEN, AT_COUNT, AT_TOTAL, AT_TO_ACT, AT_PENDING, AT_POSITION, AT_ROUND,
 AT_LEFT, AT_FLAGS) = range(len(OBS_FIELDS))


def obs_offsets(game) -> np.ndarray:
    return np.array([game.obs_layout.fields[name].start for name in OBS_FIELDS], np.int64)


def new_records(game, count: int) -> np.ndarray:
    """``count`` empty games of ``game``'s config (deal() or to_record() fills them)."""
    st = np.zeros(count, STATE_DTYPE)
    st["num_players"], st["num_eaters"], st["max_rounds"] = game.num_players, game.num_eaters, game.max_rounds
    st["comilao"], st["spicy"], st["perfect_memory"] = game.comilao, game.spicy, game.perfect_memory
    return st



# ---------------------------------------------------------------------- chance
@jit
def deal(s, d) -> None:
    """new_state: 3 random pizzas become plates, the plaquinha lies at a uniform
    place among the 15 centre cards, dealt 5 to a plate (columns 2 + 3)."""
    pizzas = np.arange(NUM_PIZZAS, dtype=np.int8)         # (one allocation: no astype copy)
    for i in range(NUM_PIZZAS - 1, 0, -1):               # Fisher-Yates
        j = below(s, i + 1)
        pizzas[i], pizzas[j] = pizzas[j], pizzas[i]
    lay_out(s, pizzas, below(s, C.CENTRE_CARDS))


def new_state_draws(game, rng: np.random.Generator) -> np.ndarray:
    """The reference's ``new_state(rng)`` draws, in its order: a permutation of the pizzas,
    then the plaquinha's place (``deal_from`` lays them out: the same game on both engines)."""
    return np.append(rng.permutation(NUM_PIZZAS), rng.integers(C.CENTRE_CARDS)).astype(np.int64)


@jit
def deal_from(s, d, draws) -> None:
    lay_out(s, draws[:NUM_PIZZAS], draws[NUM_PIZZAS])


@jit
def lay_out(s, pizzas, at: int) -> None:
    """The table new_state lays from its draws: ``pizzas`` shuffled (the first 3 become
    plates, the rest the centre), the plaquinha inserted at ``at`` among the centre cards."""
    k = NUM_PLATES
    for i in range(C.CENTRE_CARDS):                     # centre card i is card i % 5 of plate i // 5
        if i == at:
            card = PLAQUINHA
        else:
            card = pizzas[k]
            k += 1
        s.stacks[i // 5, i % 5] = card
    for p in range(NUM_PLATES):
        s.plates[p] = pizzas[p]
        s.size[p] = 5
    for w in range(s.num_eaters):
        s.eaten_count[w] = 0
        s.totals[w] = 0
    s.seat = 0
    s.round = 0
    s.pending = -1
    s.over = False
    s.final[:] = 0


# ---------------------------------------------------------------------- queries
@jit
def _servable(s, p: int) -> bool:
    return s.size[p] > 0 and s.stacks[p, s.size[p] - 1] != PLAQUINHA


@jit
def current_player(s, d) -> int:
    return -1 if s.over else s.seat


@jit
def legal_mask(s, d, out) -> None:
    out[:] = 0
    if s.over:
        return
    if s.pending >= 0:
        q = s.pending
        for d in range(s.size[q]):
            if s.stacks[q, s.size[q] - 1 - d] != PLAQUINHA:
                out[EAT + d] = 1
        return
    any_ok = False
    for p in range(NUM_PLATES):
        if _servable(s, p):
            out[SERVE + p] = 1
            any_ok = True
    if not any_ok:                                      # decision: the lone plaquinha plate
        for p in range(NUM_PLATES):
            if s.size[p] > 0:
                out[SERVE + p] = 1


# ---------------------------------------------------------------------- play
@jit
def _centre(s) -> int:
    return int(s.size[0]) + int(s.size[1]) + int(s.size[2])


@jit
def _eat(s, eater: int, q: int, depth: int) -> None:
    top = s.size[q] - 1
    card = s.stacks[q, top - depth]
    for k in range(top - depth, top):                    # close the gap
        s.stacks[q, k] = s.stacks[q, k + 1]
    s.size[q] -= 1
    s.eaten[eater, s.eaten_count[eater]] = card
    s.eaten_count[eater] += 1
    s.totals[eater] += VALUE[card]
    if _centre(s) <= END_CENTRE:
        s.over = True


@jit
def _eat_below(s, eater: int, q: int) -> None:
    n = s.size[q]
    depth = 1 if n >= 2 else 0
    if n > 0 and s.stacks[q, n - 1 - depth] != PLAQUINHA:
        _eat(s, eater, q, depth)


@jit
def _deal(s, plate: int) -> tuple[int, bool, int]:
    """Deal ``plate``'s stack; returns (plate of the last card, plaquinha in it, last card).

    The reference deals from a copy of the stack; here the cards are dealt from their places
    in ``plate``'s row (a copy would be a heap allocation per serve): every card dealt onto
    another plate is appended there at once; the cards that come back onto ``plate`` itself
    (every third one dealt: rows n-3, n-6, ...) are gathered at the bottom of its row in row
    order (never onto a card still to move), then reversed into the order they were dealt."""
    n = s.size[plate]
    last = s.stacks[plate, 0]                            # the bottom card, dealt last
    q = plate
    had_plaquinha = False
    back = 0
    for k in range(n - 1, -1, -1):                       # top card first
        q = (q + 1) % NUM_PLATES
        card = s.stacks[plate, k]
        had_plaquinha |= card == PLAQUINHA
        if q == plate:
            back += 1
        else:
            s.stacks[q, s.size[q]] = card
            s.size[q] += 1
    first = (n - 3) % NUM_PLATES                         # the lowest row dealt back (when back > 0)
    for j in range(back):
        s.stacks[plate, j] = s.stacks[plate, first + NUM_PLATES * j]
    for j in range(back // 2):
        s.stacks[plate, j], s.stacks[plate, back - 1 - j] = s.stacks[plate, back - 1 - j], s.stacks[plate, j]
    s.size[plate] = back
    return q, had_plaquinha, last


@jit
def _serve(s, plate: int, player: int) -> None:
    q, had_plaquinha, last = _deal(s, plate)
    if had_plaquinha:
        return
    pepper = PEPPER[last] if s.spicy else 0
    if pepper == LIVRE:
        choices = 0
        only = -1
        for d in range(s.size[q]):
            if s.stacks[q, s.size[q] - 1 - d] != PLAQUINHA:
                choices += 1
                only = d
        if choices == 1:
            _eat(s, player, q, only)
        elif choices > 1:
            s.pending = q
    else:
        _eat_below(s, player, q)
        if pepper == DUPLA and not s.over:
            _eat_below(s, player, q)


@jit
def _comilao_turn(s) -> None:
    plate = 0
    for p in range(NUM_PLATES):
        for k in range(s.size[p]):
            if s.stacks[p, k] == PLAQUINHA:
                plate = p
    q, _, _ = _deal(s, plate)
    _eat_below(s, s.num_players, q)


@jit
def final_rewards(s) -> None:
    """+1 to each player with the second highest distinct total, -1 to the rest;
    everyone -1 with no second total or when the Comilão holds it."""
    first = -1
    for w in range(s.num_eaters):
        first = max(first, s.totals[w])
    second = -1
    for w in range(s.num_eaters):
        if s.totals[w] < first:
            second = max(second, s.totals[w])
    nobody = second < 0 or (s.comilao and s.totals[s.num_players] == second)
    for i in range(s.num_players):
        s.final[i] = 1.0 if (not nobody and s.totals[i] == second) else -1.0


@jit
def _end_turn(s) -> None:
    if not s.over:
        s.seat += 1
        if s.seat == s.num_players:
            if s.comilao:
                _comilao_turn(s)
            s.seat = 0
            if not s.over:
                s.round += 1
                if s.round >= s.max_rounds:
                    s.over = True
    if s.over:
        final_rewards(s)


@jit
def returns(s, d, out) -> None:
    for i in range(s.num_players):
        out[i] = s.final[i]


@jit
def apply(s, d, action: int) -> bool:
    """Play a legal ``action``; True when it ended the game (``s.final`` then holds the rewards)."""
    if s.pending >= 0:
        _eat(s, s.seat, s.pending, action - EAT)
        s.pending = -1
    else:
        _serve(s, action, s.seat)
        if s.pending >= 0:
            return False
    _end_turn(s)
    return s.over


# ---------------------------------------------------------------------- hidden information
@jit
def resample_hidden(s, d, player: int, g) -> None:
    """observation.resample_hidden, in place, drawing from ``g`` (a ``fast_chance`` generator)
    what the reference draws from numpy's: the plate pizzas and the unseen piles' contents
    redrawn among themselves (memory='none': every pile but the player's own)."""
    pool = np.empty(NUM_PIZZAS + 1, np.int64)
    m = 0
    for p in range(NUM_PLATES):
        pool[m] = s.plates[p]
        m += 1
    hidden = not s.perfect_memory
    if hidden:
        for w in range(s.num_eaters):
            if w != player:
                for j in range(s.eaten_count[w]):
                    pool[m] = s.eaten[w, j]
                    m += 1
    for i in range(1, m):                 # sorted first, so the draw depends only on what player knows
        c, j = pool[i], i                 # (insertion sort in place: np.sort would allocate a copy)
        while j > 0 and pool[j - 1] > c:
            pool[j] = pool[j - 1]
            j -= 1
        pool[j] = c
    # pool[rng.permutation(m)]: the permutation's swaps made on the pool itself (no index array)
    R.shuffle(g, pool, m)
    for p in range(NUM_PLATES):
        s.plates[p] = pool[p]
    at = NUM_PLATES
    if hidden:
        for w in range(s.num_eaters):
            if w != player:
                total = 0
                for j in range(s.eaten_count[w]):
                    c = pool[at]
                    s.eaten[w, j] = c
                    total += VALUE[c]
                    at += 1
                s.totals[w] = total
    if s.over:
        final_rewards(s)


# ---------------------------------------------------------------------- observation
@jit
def observe(s, d, at, player: int, out) -> None:
    """``player``'s observation into ``out``; ``at`` holds the fields' offsets (obs_offsets)."""
    out[:] = 0
    for p in range(NUM_PLATES):
        n = s.size[p]
        for d in range(n):                               # top first
            base = at[AT_PLATES] + (p * MAX_STACK + d) * 5
            row = out[base:base + 5]                     # (a view: its index needs no negative-index fix)
            card = s.stacks[p, n - 1 - d]
            for f in range(5):
                row[f] = FEATURES[card, f]
        out[at[AT_SIZE] + p] = n
    for k in range(s.num_eaters):                        # seat-relative, the Comilão last
        eater = (player + k) % s.num_players if k < s.num_players else s.num_players
        if k == 0 or s.perfect_memory:
            for j in range(s.eaten_count[eater]):
                out[at[AT_EATEN] + k * NUM_PIZZAS + s.eaten[eater, j]] = 1
            out[at[AT_TOTAL] + k] = s.totals[eater]
        out[at[AT_COUNT] + k] = s.eaten_count[eater]
        out[at[AT_TO_ACT] + k] = 1 if (not s.over and eater == s.seat) else 0
    if s.pending >= 0 and not s.over:
        out[at[AT_PENDING] + s.pending] = 1
    out[at[AT_POSITION] + player] = 1                    # seat 0 starts every round
    out[at[AT_ROUND]] = s.round
    out[at[AT_LEFT]] = s.max_rounds - s.round
    out[at[AT_FLAGS]] = s.spicy
    out[at[AT_FLAGS] + 1] = s.perfect_memory
    out[at[AT_FLAGS] + 2] = s.comilao



# ---------------------------------------------------------------------- conversion
def to_record(s, ref_state, game=None) -> None:
    """Write a reference ``RodizioState`` into the record ``s`` (its rng untouched; the
    config is in the record, so ``game`` is not needed)."""
    s["stacks"][:] = 0
    for p, stack in enumerate(ref_state.stacks):
        s["stacks"][p, :len(stack)] = stack
        s["size"][p] = len(stack)
    s["plates"][:] = ref_state.plates
    s["eaten"][:] = 0
    s["eaten_count"][:] = 0
    for w, pile in enumerate(ref_state.eaten):
        s["eaten"][w, :len(pile)] = pile
        s["eaten_count"][w] = len(pile)
    s["totals"][:] = 0
    s["totals"][:len(ref_state.totals)] = ref_state.totals
    s["seat"], s["round"], s["pending"], s["over"] = (ref_state.seat, ref_state.round, ref_state.pending,
                                                      ref_state.over)
    s["final"][:] = 0
    if ref_state.over:
        s["final"][:len(ref_state.final)] = ref_state.final


def _values(f: dict) -> tuple:
    """The reference state's fields in ``RodizioState``'s order, from the record's fields as
    Python values (``record_lists``): what ``from_record`` builds and ``same_state`` compares.
    The per-eater rows are cut to the game's ``num_eaters``, ``final`` to its ``num_players``."""
    over, e = bool(f["over"]), f["num_eaters"]
    return ([st[:k] for st, k in zip(f["stacks"], f["size"], strict=True)], f["plates"],
            [p[:k] for p, k in zip(f["eaten"][:e], f["eaten_count"][:e], strict=True)], f["totals"][:e],
            f["seat"], f["round"], f["pending"], over,
            [float(x) for x in f["final"][:f["num_players"]]] if over else [])


_NAMES = tuple(RodizioState.__dataclass_fields__)      # the fields in their order, as _values gives them


def from_record(s, state_cls, game=None):
    """The reference state held by the record ``s``."""
    return state_cls(*_values(record_lists(s)))


def same_state(f: dict, ref: RodizioState, game=None) -> bool:
    """Whether the record whose fields are ``f`` (Python values: ``record_lists``) holds ``ref``:
    every field, as ``from_record(s) == ref`` compares them (the differential harness's
    every-step check, without building a state)."""
    return all(v == getattr(ref, k) for k, v in zip(_NAMES, _values(f), strict=True))
