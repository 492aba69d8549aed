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
* ``deal`` draws from a per-game splitmix64 stream kept in the record (one
  stream per game, so a batch plays the same games whatever the thread count);
  the reference's ``new_state`` draws from numpy's Generator instead: same
  distribution, other numbers. The AEC env on this engine deals with the
  reference's ``new_state``, so a seed gives the same game on both engines.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.actions import EAT, MAX_STACK, NUM_ACTIONS, SERVE

NUM_PLATES = C.NUM_PLATES
PLAQUINHA = C.PLAQUINHA
NUM_PIZZAS = C.NUM_PIZZAS
END_CENTRE = C.END_CENTRE
VALUE = np.array(C.VALUE, np.int16)
PEPPER = np.array(C.PEPPER, np.int8)
LIVRE, DUPLA = C.LIVRE, C.DUPLA
# the observation's features of a card on a plate (observation.CARD_FEATURES)
FEATURES = np.array([(1, C.VALUE[c], c == PLAQUINHA, C.PEPPER[c] == LIVRE, C.PEPPER[c] == DUPLA)
                     for c in range(C.NUM_CARDS)], np.int16)


def state_dtype(num_players: int, num_eaters: int) -> np.dtype:
    """One game as a record: the fields of ``RodizioState`` at fixed shapes."""
    return np.dtype([
        ("stacks", np.int8, (NUM_PLATES, MAX_STACK)),   # per plate, bottom -> top
        ("size", np.int8, NUM_PLATES),
        ("plates", np.int8, NUM_PLATES),
        ("eaten", np.int8, (num_eaters, MAX_STACK)),     # per eater, in the order eaten
        ("eaten_count", np.int8, num_eaters),
        ("totals", np.int16, num_eaters),
        ("seat", np.int16),
        ("round", np.int16),
        ("pending", np.int16),
        ("over", np.bool_),
        ("final", np.float32, num_players),
        ("rng", np.uint64),                               # splitmix64 state for deal()
    ])


class Rules(NamedTuple):
    """The config and the observation offsets, as plain ints for compiled code."""

    num_players: int
    num_eaters: int
    comilao: bool
    spicy: bool
    perfect_memory: bool
    max_rounds: int
    # observation offsets (observation.build_layout)
    plates_at: int
    size_at: int
    eaten_at: int
    count_at: int
    total_at: int
    to_act_at: int
    pending_at: int
    position_at: int
    round_at: int
    left_at: int
    flags_at: int
    obs_size: int


def rules_of(game) -> Rules:
    f = game.obs_layout.fields
    return Rules(game.num_players, game.num_eaters, game.comilao, game.spicy, game.perfect_memory,
                 game.max_rounds, f["plates"].start, f["stack_size"].start, f["eaten"].start,
                 f["eaten_count"].start, f["eaten_total"].start, f["to_act"].start, f["pending"].start,
                 f["position"].start, f["round"].start, f["rounds_left"].start, f["flags"].start,
                 game.obs_layout.size)


jit = nb.njit(cache=True, nogil=True)


# ---------------------------------------------------------------------- chance
@jit
def _next(s) -> np.uint64:
    """splitmix64: the next 64 random bits of this game's stream."""
    s.rng += np.uint64(0x9E3779B97F4A7C15)
    z = s.rng
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def _below(s, k: int) -> int:
    """A uniform integer in 0..k-1 (k <= 17: the modulo bias is below 1e-8)."""
    return int((_next(s) >> np.uint64(33)) % np.uint64(k))


@jit
def deal(s, r: Rules) -> None:
    """new_state: 3 random pizzas become plates, the plaquinha lies at a uniform
    place among the 15 centre cards, dealt 5 to a plate (columns 2 + 3)."""
    pizzas = np.arange(NUM_PIZZAS).astype(np.int8)
    for i in range(NUM_PIZZAS - 1, 0, -1):               # Fisher-Yates
        j = _below(s, i + 1)
        pizzas[i], pizzas[j] = pizzas[j], pizzas[i]
    centre = np.empty(NUM_PIZZAS - NUM_PLATES + 1, np.int8)
    at = _below(s, centre.size)
    k = NUM_PLATES
    for i in range(centre.size):
        if i == at:
            centre[i] = PLAQUINHA
        else:
            centre[i] = pizzas[k]
            k += 1
    for p in range(NUM_PLATES):
        s.plates[p] = pizzas[p]
        s.size[p] = 5
        for d in range(5):
            s.stacks[p, d] = centre[5 * p + d]
    for w in range(r.num_eaters):
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
def legal_mask(s, out) -> None:
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
    """Deal ``plate``'s stack; returns (plate of the last card, plaquinha in it, last card)."""
    n = s.size[plate]
    hand = s.stacks[plate, :n].copy()
    s.size[plate] = 0
    q = plate
    had_plaquinha = False
    for k in range(n - 1, -1, -1):                       # top card first
        q = (q + 1) % NUM_PLATES
        s.stacks[q, s.size[q]] = hand[k]
        s.size[q] += 1
        had_plaquinha |= hand[k] == PLAQUINHA
    return q, had_plaquinha, hand[0]


@jit
def _serve(s, r: Rules, plate: int, player: int) -> None:
    q, had_plaquinha, last = _deal(s, plate)
    if had_plaquinha:
        return
    pepper = PEPPER[last] if r.spicy else 0
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
def _comilao_turn(s, r: Rules) -> None:
    plate = 0
    for p in range(NUM_PLATES):
        for k in range(s.size[p]):
            if s.stacks[p, k] == PLAQUINHA:
                plate = p
    q, _, _ = _deal(s, plate)
    _eat_below(s, r.num_players, q)


@jit
def final_rewards(s, r: Rules) -> None:
    """+1 to each player with the second highest distinct total, -1 to the rest;
    everyone -1 with no second total or when the Comilão holds it."""
    first = -1
    for w in range(r.num_eaters):
        first = max(first, s.totals[w])
    second = -1
    for w in range(r.num_eaters):
        if s.totals[w] < first:
            second = max(second, s.totals[w])
    nobody = second < 0 or (r.comilao and s.totals[r.num_players] == second)
    for i in range(r.num_players):
        s.final[i] = 1.0 if (not nobody and s.totals[i] == second) else -1.0


@jit
def _end_turn(s, r: Rules) -> None:
    if not s.over:
        s.seat += 1
        if s.seat == r.num_players:
            if r.comilao:
                _comilao_turn(s, r)
            s.seat = 0
            if not s.over:
                s.round += 1
                if s.round >= r.max_rounds:
                    s.over = True
    if s.over:
        final_rewards(s, r)


@jit
def apply(s, r: Rules, action: int) -> bool:
    """Play a legal ``action``; True when it ended the game (``s.final`` then holds the rewards)."""
    if s.pending >= 0:
        _eat(s, s.seat, s.pending, action - EAT)
        s.pending = -1
    else:
        _serve(s, r, action, s.seat)
        if s.pending >= 0:
            return False
    _end_turn(s, r)
    return s.over


# ---------------------------------------------------------------------- observation
@jit
def observe(s, r: Rules, player: int, out) -> None:
    out[:] = 0
    for p in range(NUM_PLATES):
        n = s.size[p]
        for d in range(n):                               # top first
            base = r.plates_at + (p * MAX_STACK + d) * 5
            card = s.stacks[p, n - 1 - d]
            for f in range(5):
                out[base + f] = FEATURES[card, f]
        out[r.size_at + p] = n
    for k in range(r.num_eaters):
        if k < r.num_players:
            eater = (player + k) % r.num_players
        else:
            eater = r.num_players                        # the Comilão, last
        if k == 0 or r.perfect_memory:
            for j in range(s.eaten_count[eater]):
                out[r.eaten_at + k * NUM_PIZZAS + s.eaten[eater, j]] = 1
            out[r.total_at + k] = s.totals[eater]
        out[r.count_at + k] = s.eaten_count[eater]
        out[r.to_act_at + k] = 1 if (not s.over and eater == s.seat) else 0
    if s.pending >= 0 and not s.over:
        out[r.pending_at + s.pending] = 1
    out[r.position_at + player] = 1
    out[r.round_at] = s.round
    out[r.left_at] = r.max_rounds - s.round
    out[r.flags_at] = r.spicy
    out[r.flags_at + 1] = r.perfect_memory
    out[r.flags_at + 2] = r.comilao


# ---------------------------------------------------------------------- conversion
def to_record(s, ref_state) -> None:
    """Write a reference ``RodizioState`` into the record ``s`` (its rng untouched)."""
    s["stacks"][:] = 0
    for p, stack in enumerate(ref_state.stacks):
        s["stacks"][p, :len(stack)] = stack
        s["size"][p] = len(stack)
    s["plates"][:] = ref_state.plates
    s["eaten"][:] = 0
    for w, pile in enumerate(ref_state.eaten):
        s["eaten"][w, :len(pile)] = pile
        s["eaten_count"][w] = len(pile)
    s["totals"][:] = ref_state.totals
    s["seat"], s["round"], s["pending"], s["over"] = (ref_state.seat, ref_state.round, ref_state.pending,
                                                      ref_state.over)
    s["final"][:] = ref_state.final if ref_state.over else 0


def from_record(s, state_cls):
    """The reference state held by the record ``s``."""
    stacks = [s["stacks"][p, :s["size"][p]].tolist() for p in range(NUM_PLATES)]
    eaten = [s["eaten"][w, :s["eaten_count"][w]].tolist() for w in range(len(s["eaten_count"]))]
    over = bool(s["over"])
    return state_cls(stacks, s["plates"].tolist(), eaten, s["totals"].tolist(), int(s["seat"]),
                     int(s["round"]), int(s["pending"]), over,
                     [float(x) for x in s["final"]] if over else [])
