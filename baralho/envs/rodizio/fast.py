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
* ``deal`` draws from a per-game splitmix64 stream kept in the record (one
  stream per game, so a batch plays the same games whatever the thread count);
  the reference's ``new_state`` draws from numpy's Generator instead: same
  distribution, other numbers. The AEC env on this engine deals with
  ``new_state_one``: the reference's draws from the Generator, laid out by
  ``lay_out`` (the part ``deal`` shares), so a seed gives the same game on both engines.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from baralho.core.compiled import jit, record_lists
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.actions import EAT, MAX_STACK, SERVE
from baralho.envs.rodizio.rules import MAX_PLAYERS, MIN_PLAYERS, RodizioState

STATE = RodizioState        # the reference state class, for to/from_record (baralho/core/compiled.py)

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
def deal(s) -> None:
    """new_state: 3 random pizzas become plates, the plaquinha lies at a uniform
    place among the 15 centre cards, dealt 5 to a plate (columns 2 + 3)."""
    pizzas = np.arange(NUM_PIZZAS).astype(np.int8)
    for i in range(NUM_PIZZAS - 1, 0, -1):               # Fisher-Yates
        j = _below(s, i + 1)
        pizzas[i], pizzas[j] = pizzas[j], pizzas[i]
    lay_out(s, pizzas, _below(s, C.CENTRE_CARDS))


@jit
def lay_out(s, pizzas, at: int) -> None:
    """The table new_state lays from its draws: ``pizzas`` shuffled (the first 3 become
    plates, the rest the centre), the plaquinha inserted at ``at`` among the centre cards."""
    centre = np.empty(C.CENTRE_CARDS, np.int8)
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
    for w in range(s.num_eaters):
        s.eaten_count[w] = 0
        s.totals[w] = 0
    s.seat = 0
    s.round = 0
    s.pending = -1
    s.over = False
    s.final[:] = 0


def new_state_one(states, rng: np.random.Generator, mask) -> int:
    """The reference's ``new_state(rng)`` into game 0 of ``states`` (a blank record) and its
    mask: the same draws from ``rng`` (a permutation of the pizzas, then the plaquinha's
    place), so the same game on both engines; the laying out is compiled. Returns the player
    to act."""
    pizzas = rng.permutation(NUM_PIZZAS)
    at = int(rng.integers(C.CENTRE_CARDS))
    return _lay_out_one(states, pizzas, at, mask)


@jit(entry=True, nogil=False)   # one env: keeps the GIL (compiled.jit says why)
def _lay_out_one(states, pizzas, at: int, mask) -> int:
    s = states[0]
    lay_out(s, pizzas, at)
    legal_mask(s, mask)
    return s.seat


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
def apply(s, action: int) -> bool:
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


# ---------------------------------------------------------------------- observation
@jit
def observe(s, at, player: int, out) -> None:
    """``player``'s observation into ``out``; ``at`` holds the fields' offsets (obs_offsets)."""
    out[:] = 0
    for p in range(NUM_PLATES):
        n = s.size[p]
        for d in range(n):                               # top first
            base = at[AT_PLATES] + (p * MAX_STACK + d) * 5
            card = s.stacks[p, n - 1 - d]
            for f in range(5):
                out[base + f] = FEATURES[card, f]
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



# ---------------------------------------------------------------------- entry points
# Called from Python with a whole array of records (a record alone costs numba
# ~15 us to unbox; an array is passed by pointer). The batch kernels step every
# game of the batch in one call (the parallel twin spreads them over threads,
# each game on its own random stream, so the result does not depend on threads).
@jit
def _decision(states, i: int, at, masks, obs, seats) -> None:
    s = states[i]
    seats[i] = s.seat
    legal_mask(s, masks[i])
    observe(s, at, s.seat, obs[i])


@jit
def _step_one(states, i: int, at, actions, masks, obs, seats, rewards, dones) -> None:
    s = states[i]
    rewards[i, :] = 0
    done = apply(s, actions[i])
    if done:
        rewards[i, :s.num_players] = s.final[:s.num_players]
        deal(s)                                          # auto-reset
    dones[i] = done
    _decision(states, i, at, masks, obs, seats)


@jit(entry=True)
def step_batch(states, at, actions, masks, obs, seats, rewards, dones) -> None:
    for i in range(len(states)):
        _step_one(states, i, at, actions, masks, obs, seats, rewards, dones)


@nb.njit(cache=True, nogil=True, parallel=True)
def step_batch_threads(states, at, actions, masks, obs, seats, rewards, dones) -> None:
    for i in nb.prange(len(states)):
        _step_one(states, i, at, actions, masks, obs, seats, rewards, dones)


@jit(entry=True)
def reset_batch(states, at, masks, obs, seats) -> None:
    for i in range(len(states)):
        deal(states[i])
        _decision(states, i, at, masks, obs, seats)


@jit(entry=True)
def observe_batch(states, at, masks, obs, seats) -> None:
    for i in range(len(states)):
        _decision(states, i, at, masks, obs, seats)


@jit(entry=True, nogil=False)   # one env: keeps the GIL (compiled.jit says why)
def apply_one(states, action: int, mask, rewards) -> int:
    """The AEC env's step on game 0: apply, its new mask and the step's rewards;
    returns the player to act (-1: over)."""
    s = states[0]
    rewards[:] = 0
    if apply(s, action):
        for i in range(s.num_players):
            rewards[i] = s.final[i]
    legal_mask(s, mask)
    return -1 if s.over else s.seat



@jit(entry=True, nogil=False)   # one env: keeps the GIL (compiled.jit says why)
def step_one(states, action: int, mask, rewards, at, obs) -> int:
    """apply_one, and the observation of the player to act into ``obs`` (unless the game
    is over): the AEC env's step in one call."""
    player = apply_one(states, action, mask, rewards)
    if player >= 0:
        observe(states[0], at, player, obs)
    return player


@jit(entry=True, nogil=False)   # one env: keeps the GIL (compiled.jit says why)
def observe_one(states, at, player: int, out) -> None:
    observe(states[0], at, player, out)


@jit(entry=True, nogil=False)   # one env: keeps the GIL (compiled.jit says why)
def mask_one(states, mask) -> None:
    legal_mask(states[0], mask)

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
