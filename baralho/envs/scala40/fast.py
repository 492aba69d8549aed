"""Scala 40's compiled engine (numba): the rules of ``rules.py`` over fixed-shape arrays.

One game is one record of :func:`state_dtype` (a numpy structured array row);
a batch is an array of them. Each function below is the function of
``rules.py`` (or ``observation.py``: ``resample_hidden``) with the same name, over that record; the
compiled twins of the other reference files sit beside it: ``fast_melds.py``
(melds.py), ``fast_solver.py`` (solver.py), ``fast_mask.py`` (mask.py),
``fast_observation.py`` (observation.py's ``observe``). The differential
tests (``tests/vector``) play both engines in lockstep and compare masks,
observations, rewards and states after every step.

What differs from ``rules.py``, and why:

* hands, piles, melds and the meld being built are fixed rows plus a size
  (numba works on fixed shapes; every order is kept, so states convert back
  exactly); the observation is written from scratch by ``observe`` instead of
  kept as ready-made pieces;
* chance during play (a shuffled turnover, a match's next deal) is the
  reference's own: ``baralho.core.chance`` re-seeds a numpy PCG64 from the
  state's hidden (seed, draws) for each event and shuffles with
  ``Generator.permutation``; ``core/fast_chance.py`` is PCG64 and numpy's
  ``random_interval`` Fisher-Yates, bit for bit, so a state loaded from the
  reference plays the same cards on both engines;
* the first deal of a game dealt here (the batch's auto-reset) draws from the
  game's own splitmix64 stream (``fast_chance.below``) instead of the reference's
  Generator: same distribution, other numbers. The AEC env deals with the
  reference's ``new_state``, so a seed gives the same game on both engines.

These are the primitives (``deal``, ``apply``, ``legal_mask`` from fast_mask.py,
``observe`` from fast_observation.py, ``current_player``, ``returns``) from which
``baralho/core/batch.py`` builds every batch and AEC entry point, as for every game.
"""

from __future__ import annotations

import numpy as np

from baralho.envs.scala40 import fast_melds as F
from baralho.envs.scala40 import observation as O
from baralho.envs.scala40.actions import NUM_ACTIONS
from baralho.envs.scala40.fast_mask import _alive, _pending_has, legal_mask  # noqa: F401  (legal_mask: a primitive)
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
    OPEN_MIN,
    OVER,
    PENALTY,
    PLAY,
    SELECT,
    SWAP,
    UNDO,
)
from baralho.envs.scala40.fast_observation import obs_offsets, observe  # noqa: F401  (primitives)
from baralho.envs.scala40.observation import (
    DECK_MAX,
)
from baralho.envs.scala40.rules import (
    ELIMINATION,
    HAND_SIZE,
    MAX_TURN_DECISIONS,
    ROUNDS_PER_HAND,
    Scala40Game,
    Scala40State,
)

STATE = Scala40State
TITLE = "Scala 40"
COMPILE_SECONDS = {"one": 12, "batch": 15}    # about how long a first use compiles (core/batch.py)
# the differential harness's sampling for this game (baralho/vector/differential.py): its reference
# and its heuristic are the slowest of the four, so full state checks and invariants at one step in
# 20 per env (the default 7); the cheap state check (same_state) still runs every step. Half the envs
# stay with the heuristic: random play seldom reaches the 40-point opening
DIFFERENTIAL = dict(heuristic_share=0.5, invariants_every=20)
MAX_PENDING = 16         # the meld being built: at most 14 cards (a full run)
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


MAX_PLAYERS = 5


def state_dtype(n: int = MAX_PLAYERS) -> np.dtype:
    """One game as a record: the fields of ``Scala40State`` at fixed shapes, and the
    config it is played by (so compiled code takes one argument per game). Per-seat rows
    are sized for 5 players whatever the config (seats past ``num_players`` stay zero):
    one record type for every config, so the engine compiles once (and numba, given two
    record types that differ only in sub-array shapes, once ran one's code on the other)."""
    return np.dtype([
        ("num_players", np.int16), ("num_jokers", np.int16), ("match", np.bool_), ("reshuffle", np.bool_),
        ("must_use", np.bool_), ("shuffled", np.bool_), ("needs_seed", np.bool_),
        ("hands", np.int8, (n, NUM_KINDS)), ("hand_size", np.int16, n),
        ("known", np.int8, (n, NUM_KINDS)), ("discarded", np.int8, (n, NUM_KINDS)),
        ("taken", np.int8, (n, NUM_KINDS)),
        ("stock", np.int8, DECK_MAX), ("stock_n", np.int16),          # bottom -> top
        ("discard", np.int8, DECK_MAX), ("discard_n", np.int16),      # bottom -> top
        ("melds", np.int8, (MAX_MELDS, 5)), ("n_melds", np.int16),    # the meld tuples, in the order laid
        ("pending", np.int8, MAX_PENDING), ("pending_n", np.int16),
        ("player", np.int16), ("phase", np.int16), ("first", np.int16), ("turn", np.int16),
        ("turn_limit", np.int16), ("opened", np.uint8, n), ("was_open", np.bool_), ("staged", np.int16),
        ("staged_value", np.int16), ("obligation", np.int16), ("ob_used", np.bool_), ("took", np.int16),
        ("undos", np.int16), ("totals", np.int32, n), ("eliminated", np.uint8, n),
        ("last_penalties", np.int32, n), ("hands_played", np.int32), ("turnovers", np.int32),
        ("stock_hidden", np.bool_), ("winners", np.uint8, n), ("returns", np.float64, n),
        ("final", np.float64, n),                                     # the rewards of the last step
        ("has_seed", np.bool_), ("seed", np.uint64), ("draws", np.int64),   # baralho.core.chance
        ("pcg", np.uint64, 6),                                        # its PCG64 (fast_chance's generator)
        ("rng", np.uint64),                                           # splitmix64 state for deal()
    ])


STATE_DTYPE = state_dtype()     # every record's dtype, whatever the config


def new_records(game, count: int) -> np.ndarray:
    """``count`` empty games of ``game``'s config (deal() or to_record() fills them)."""
    c = game.config
    st = np.zeros(count, state_dtype())
    st["num_players"], st["num_jokers"], st["match"] = game.num_players, c.num_jokers, c.scope == "match"
    st["reshuffle"], st["must_use"] = c.dealt_joker == "reshuffle", c.taken_discard == "must_use"
    st["shuffled"], st["needs_seed"] = c.turnover == "shuffled", game._needs_seed
    return st


from baralho.core import fast_chance as R  # noqa: E402
from baralho.core.jit import jit  # noqa: E402  (numba record names fixed there first)


# ---------------------------------------------------------------------- chance
@jit
def _pcg_seed(s) -> None:
    """chance.Chance.next: the generator of event ``draws + 1`` of the state's hidden seed."""
    s.draws += 1
    R.seed_event(s.pcg, s.seed, s.draws)


@jit
def _permutation(s, n: int, pcg: bool):
    """Generator.permutation(n) of the state's chance event (``pcg``, numpy's draws bit for bit),
    or a shuffle of the game's own splitmix stream."""
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = R.interval(s.pcg, i) if pcg else R.below(s, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


# ---------------------------------------------------------------------- deal
@jit
def _deal(s, first: int, pcg: bool) -> None:
    """rules._deal: shuffle the deck, 13 cards to each player still in, one card up."""
    n = s.num_players
    size = 104 + s.num_jokers
    deck = np.empty(size, np.int8)
    for i in range(104):
        deck[i] = i % 52
    for i in range(104, size):
        deck[i] = JOKER
    perm = _permutation(s, size, pcg)
    cards = np.empty(size, np.int8)
    for i in range(size):
        cards[i] = deck[perm[i]]
    s.hands[:, :] = 0
    s.known[:, :] = 0
    s.discarded[:, :] = 0
    s.taken[:, :] = 0
    s.hand_size[:] = 0
    top = size
    for i in range(n):
        if s.eliminated[i]:
            continue
        for c in range(top - HAND_SIZE, top):
            s.hands[i, cards[c]] += 1
        top -= HAND_SIZE
        s.hand_size[i] = HAND_SIZE
    top -= 1
    up = cards[top]
    while up == JOKER and s.reshuffle:
        perm = _permutation(s, top + 1, pcg)         # the joker back in, the deck shuffled again
        cards[top] = up
        again = cards[:top + 1].copy()
        for i in range(top + 1):
            cards[i] = again[perm[i]]
        up = cards[top]
    for i in range(top):             # (a loop: a slice copy compiles numba's shape-error messages)
        s.stock[i] = cards[i]
    s.stock_n = top
    s.discard[0] = up
    s.discard_n = 1
    s.n_melds = 0
    s.opened[:] = False
    s.first = s.player = first
    s.turn = 0
    s.turnovers = 0
    s.turn_limit = ROUNDS_PER_HAND * _alive(s)
    s.stock_hidden = True
    _start_turn(s)


@jit
def deal(s, d) -> None:
    """new_state, from the game's own stream (the batch's auto-reset)."""
    n = s.num_players
    s.totals[:] = 0
    s.eliminated[:] = False
    s.last_penalties[:] = 0
    s.winners[:] = False
    s.returns[:] = 0.0
    s.final[:] = 0.0
    s.hands_played = 0
    s.pending_n = 0
    s.obligation = -1
    s.has_seed = s.needs_seed
    s.seed = (R.next_bits(s) >> np.uint64(1)) if s.needs_seed else np.uint64(0)
    s.draws = 0
    _ = n
    _deal(s, 0, False)


# ---------------------------------------------------------------------- play
@jit
def _know(s, p: int, k: int, d: int) -> None:
    s.known[p, k] += d


@jit
def _forget(s, p: int, k: int) -> None:
    if s.known[p, k]:
        s.known[p, k] -= 1


@jit
def _move(s, p: int, k: int, d: int) -> None:
    s.hands[p, k] += d
    s.hand_size[p] += d


@jit
def _start_turn(s) -> None:
    s.pending_n = 0
    s.obligation = -1
    s.phase = DRAW
    s.was_open = s.opened[s.player]
    s.staged = 0
    s.staged_value = 0
    s.took = -1
    s.ob_used = False
    s.undos = 1


@jit
def _lay(s, m, i: int) -> None:
    """Put the meld being built on the table as meld ``i`` (new or extended)."""
    if s.obligation >= 0 and s.opened[s.player] and _pending_has(s, s.obligation):
        s.obligation = -1
    s.pending_n = 0
    for f in range(5):
        s.melds[i, f] = m[f]
    if i == s.n_melds:
        s.n_melds += 1


@jit
def _take_back(s) -> None:
    """Return the staged melds and the meld being built to the hand (publicly seen)."""
    p = s.player
    for i in range(s.pending_n):
        _move(s, p, s.pending[i], 1)
        _know(s, p, s.pending[i], 1)
    cards = np.empty(F.MAX_RUN, np.int64)
    for i in range(s.n_melds - s.staged, s.n_melds):
        for c in range(F.meld_cards(s.melds[i], cards)):
            _move(s, p, cards[c], 1)
            _know(s, p, cards[c], 1)
    s.n_melds -= s.staged
    s.pending_n = 0
    s.staged = 0
    s.staged_value = 0
    s.ob_used = False


@jit
def hand_penalty(s, p: int) -> int:
    """Penalty points of the cards left in a hand (lone ace = 1)."""
    n = 0
    total = 0
    for k in range(NUM_KINDS):
        c = s.hands[p, k]
        if c:
            n += c
            total += c * PENALTY[k]
    if n == 1 and total == 11 and s.hands[p, JOKER] == 0:
        return 1
    return total


@jit
def _finish(s) -> None:
    s.phase = OVER
    s.pending_n = 0
    for i in range(s.num_players):
        s.returns[i] += s.final[i]


@jit
def _end_hand(s, closer: int, double: bool) -> bool:
    """rules._end_hand; True when the game is over (``s.final`` holds its rewards)."""
    n = s.num_players
    for i in range(n):
        s.last_penalties[i] = 0
        if i != closer and not s.eliminated[i]:
            s.last_penalties[i] = hand_penalty(s, i) * (2 if double else 1)
    s.hands_played += 1
    if not s.match:
        for i in range(n):
            s.totals[i] += s.last_penalties[i]
            s.final[i] = -s.last_penalties[i] / 100.0
        _finish(s)
        return True
    alive_before = np.empty(n, np.bool_)
    for i in range(n):
        alive_before[i] = not s.eliminated[i]
    for i in range(n):
        if alive_before[i]:
            s.totals[i] += s.last_penalties[i]
            if s.totals[i] > ELIMINATION:
                s.eliminated[i] = True
    alive = _alive(s)
    if alive >= 2:
        first = (s.first + 1) % n
        while s.eliminated[first]:
            first = (first + 1) % n
        _pcg_seed(s)
        _deal(s, first, True)
        return False
    if alive:
        for i in range(n):
            s.winners[i] = not s.eliminated[i]
    else:   # everyone left passed 100 in the same hand: the lowest total wins
        low = 1 << 30
        for i in range(n):
            if alive_before[i]:
                low = min(low, s.totals[i])
        for i in range(n):
            s.winners[i] = alive_before[i] and s.totals[i] == low
    k = 0
    for i in range(n):
        k += s.winners[i]
    for i in range(n):
        s.final[i] = (n - k) / (k * (n - 1)) if s.winners[i] else -1.0 / (n - 1)
    _finish(s)
    return True


@jit
def _turn_over(s) -> None:
    """The discard pile becomes the stock; its first card starts the new pile."""
    m = s.discard_n
    if s.shuffled:
        _pcg_seed(s)
        perm = _permutation(s, m, True)
        pile = s.discard[:m].copy()
        for i in range(m):
            s.stock[i] = pile[perm[i]]
    else:
        for i in range(m):
            s.stock[i] = s.discard[m - 1 - i]
    if m:
        s.discard[0] = s.stock[m - 1]
        s.discard_n = 1
        s.stock_n = m - 1
    else:
        s.discard_n = 0
        s.stock_n = 0
    s.turnovers += 1
    s.stock_hidden = s.shuffled


@jit
def _next_turn(s) -> bool:
    s.turn += 1
    if s.turn >= s.turn_limit:
        return _end_hand(s, -1, False)
    n = s.num_players
    p = (s.player + 1) % n
    while s.eliminated[p]:
        p = (p + 1) % n
    s.player = p
    if s.stock_n == 0:
        _turn_over(s)
        if s.stock_n == 0:
            return _end_hand(s, -1, False)
    _start_turn(s)
    return False


@jit
def apply(s, d, action: int) -> bool:
    """Play a legal ``action``; True when it ended the game (``s.final`` then holds the rewards)."""
    p = s.player
    s.final[:] = 0.0
    if action == DRAW_STOCK:
        s.stock_n -= 1
        k = s.stock[s.stock_n]
        _move(s, p, k, 1)
        if not s.stock_hidden:       # the stock's order is public: everyone saw which card this was
            _know(s, p, k, 1)
        s.phase = PLAY
        return False
    if action == DRAW_DISCARD:
        s.discard_n -= 1
        k = s.discard[s.discard_n]
        _move(s, p, k, 1)
        _know(s, p, k, 1)
        s.taken[p, k] += 1
        s.took = k
        if s.turn > 0 and (not s.opened[p] or s.must_use):
            s.obligation = k
        s.phase = PLAY
        return False
    if action < COMMIT:              # select
        k = action - SELECT
        _move(s, p, k, -1)
        _forget(s, p, k)
        s.pending[s.pending_n] = k
        s.pending_n += 1
        return False
    opts = np.empty((MAX_OPTS, 5), np.int8)
    if action < EXTEND:              # commit a new meld
        c = F.parse_group(s.pending[:s.pending_n], s.pending_n, opts)
        pick = -1
        if action == COMMIT:         # the best plain meld (the first of equal ones)
            for o in range(c):
                if not opts[o, 4] and (pick < 0 or F.meld_value(opts[o]) > F.meld_value(opts[pick])):
                    pick = o
        else:
            for o in range(c):
                if opts[o, 4] and F.joker_action(opts[o]) == action:
                    pick = o
                    break
        m = opts[pick]
        _lay(s, m, s.n_melds)
        if not s.opened[p]:
            s.staged += 1
            s.staged_value += F.meld_value(m)
            if s.obligation >= 0 and F.meld_has(m, s.obligation):
                s.ob_used = True
            if s.staged_value >= OPEN_MIN and (s.obligation < 0 or s.ob_used):
                s.opened[p] = True
                s.staged = 0
                s.staged_value = 0
                s.obligation = -1
        return False
    if action < SWAP:                # lay off
        i = (action - EXTEND) % MAX_MELDS
        c = F.extend_options(s.melds[i], s.pending[:s.pending_n], s.pending_n, opts)
        _lay(s, opts[0] if action >= EXTEND_LOW else opts[c - 1], i)
        return False
    if action < UNDO:                # joker swap
        i = action - SWAP
        k = F.joker_standin(s.melds[i])
        _move(s, p, k, -1)
        _forget(s, p, k)
        _move(s, p, JOKER, 1)
        _know(s, p, JOKER, 1)
        s.melds[i, 4] = 0
        return False
    if action == UNDO:
        _take_back(s)
        s.undos -= 1
        return False
    k = action - DISCARD             # discard
    _move(s, p, k, -1)
    _forget(s, p, k)
    s.discarded[p, k] += 1
    s.discard[s.discard_n] = k
    s.discard_n += 1
    if s.hand_size[p] == 0:
        return _end_hand(s, p, not s.was_open)
    if s.staged:                     # the opening was not reached: the staged melds go back
        _take_back(s)
    return _next_turn(s)


# ---------------------------------------------------------------------- hidden information
@jit
def resample_hidden(s, d, player: int, g) -> None:
    """observation.resample_hidden, in place, drawing from ``g`` (a ``fast_chance`` generator)
    what the reference draws from numpy's: opponents' unknown cards, the stock (while it holds
    cards of unknown identity) and the generator redrawn; a redraw from which an opponent
    part-way through its turn could not end it is rejected and drawn again."""
    actor_hidden = s.phase == PLAY and s.player != player
    stack = np.empty(MAX_TURN_DECISIONS + 2, STATE_DTYPE)     # the turn-end search's positions
    orders = np.empty((MAX_TURN_DECISIONS + 2, NUM_ACTIONS), np.int16)
    counts = np.empty(MAX_TURN_DECISIONS + 2, np.int64)
    mask = np.empty(NUM_ACTIONS, np.int8)
    for _ in range(O.MAX_REDRAWS):
        stack[0] = s
        _redraw(stack[0], s, player, g)
        if not actor_hidden or _turn_can_end(stack, d, orders, counts, mask):
            s_new = stack[0]
            for i in range(s.num_players):
                for k in range(NUM_KINDS):
                    s.hands[i, k] = s_new.hands[i, k]
            for j in range(s.stock_n):
                s.stock[j] = s_new.stock[j]
            s.seed = s_new.seed
            return
    raise RuntimeError("scala40: no redraw lets the player to act end the turn")


@jit
def _redraw(t, s, player: int, g) -> None:
    """observation._redraw into ``t`` (a copy of ``s``): one uniform redraw of what ``player``
    does not know."""
    n = s.num_players
    pool = np.empty(2 * DECK_MAX, np.int64)
    m = 0
    for i in range(n):
        if i != player:
            for k in range(NUM_KINDS):
                for _ in range(s.hands[i, k] - s.known[i, k]):
                    pool[m] = k
                    m += 1
    if s.stock_hidden:
        for j in range(s.stock_n):
            pool[m] = s.stock[j]
            m += 1
    pool[:m] = np.sort(pool[:m])                    # canonical: the draw depends only on what player knows
    perm = np.arange(m)
    R.shuffle(g, perm, m)                           # rng.permutation(len(pool))
    at = 0
    for i in range(n):
        if i == player:
            continue
        unknown = s.hand_size[i]
        for k in range(NUM_KINDS):
            t.hands[i, k] = s.known[i, k]
            unknown -= s.known[i, k]
        for j in range(unknown):                    # the pool's first cards
            t.hands[i, pool[perm[at + j]]] += 1
        at += unknown
    if s.stock_hidden:
        for j in range(m - at):
            t.stock[j] = pool[perm[at + j]]
    if s.has_seed:
        t.seed = R.next64(g) >> np.uint64(1)        # rng.integers(2**63): Lemire's draw is a shift here


@jit
def _turn_options(u, d, order, mask) -> int:
    """turn_can_end's search at one position: -1 when a discard is legal (the turn can end), else
    the legal actions into ``order`` (commits and lay-offs, then selects, then swaps and undo)."""
    legal_mask(u, d, mask)
    for a in range(DISCARD, NUM_ACTIONS):
        if mask[a]:
            return -1
    count = 0
    for lo, hi in ((COMMIT, SWAP), (SELECT, COMMIT), (SWAP, NUM_ACTIONS)):
        for a in range(lo, hi):
            if mask[a]:
                order[count] = a
                count += 1
    return count


@jit
def _turn_can_end(stack, d, orders, counts, mask) -> bool:
    """observation.turn_can_end of ``stack[0]``: its depth-first search (a budget of
    ``SEARCH_BUDGET`` actions tried), on an explicit stack of positions (numba's cache and
    recursion do not mix). A turn has at most ``MAX_TURN_DECISIONS`` decisions, so the stack's
    depth is bounded."""
    if stack[0].phase == OVER:
        return True
    counts[0] = _turn_options(stack[0], d, orders[0], mask)
    if counts[0] < 0:
        return True
    pos = np.zeros(len(counts), np.int64)
    left, level = O.SEARCH_BUDGET, 0
    while level >= 0:
        if pos[level] >= counts[level]:
            level -= 1
            continue
        a = orders[level, pos[level]]
        pos[level] += 1
        left -= 1
        if left < 0 or level + 1 >= len(counts):
            return False
        stack[level + 1] = stack[level]
        apply(stack[level + 1], d, a)
        level += 1
        pos[level] = 0
        counts[level] = _turn_options(stack[level], d, orders[level], mask)
        if counts[level] < 0:
            return True
    return False


# ---------------------------------------------------------------------- the game's end
@jit
def current_player(s, d) -> int:
    return -1 if s.phase == OVER else s.player


@jit
def returns(s, d, out) -> None:
    """The rewards of the step that ended the game (``final``)."""
    for p in range(s.num_players):
        out[p] = s.final[p]


@jit
def segment(s, d) -> int:
    """rules.Scala40Game.segment: the hand being played."""
    return s.hands_played


@jit
def estimate(s, d, out) -> None:
    """rules.Scala40Game.estimate: the returns once over; in a match, each live player's chance of
    winning in proportion to its room under the elimination line."""
    n = s.num_players
    if s.phase == OVER:
        returns(s, d, out)
        return
    for i in range(n):
        out[i] = 0.0
    if not s.match:
        return
    total = 0
    for i in range(n):
        if not s.eliminated[i]:
            total += ELIMINATION + 1 - s.totals[i]
    for i in range(n):
        room = 0 if s.eliminated[i] else ELIMINATION + 1 - s.totals[i]
        out[i] += room / total * n / (n - 1) - 1.0 / (n - 1)


# ---------------------------------------------------------------------- conversion
def to_record(s, ref: Scala40State, game=None) -> None:
    """Write a reference ``Scala40State`` into the record ``s`` (its splitmix rng untouched)."""
    n = ref.num_players
    s["hands"][:n] = ref.hands
    s["hand_size"][:n] = ref.hand_size
    s["known"][:n] = ref.known
    s["discarded"][:n] = ref.discarded
    s["taken"][:n] = ref.taken
    s["stock"][:] = 0
    s["stock"][:len(ref.stock)] = ref.stock
    s["stock_n"] = len(ref.stock)
    s["discard"][:] = 0
    s["discard"][:len(ref.discard)] = ref.discard
    s["discard_n"] = len(ref.discard)
    s["melds"][:] = 0
    if ref.melds:
        s["melds"][:len(ref.melds)] = ref.melds
    s["n_melds"] = len(ref.melds)
    s["pending"][:] = 0
    s["pending"][:len(ref.pending)] = ref.pending
    s["pending_n"] = len(ref.pending)
    for name in ("player", "phase", "first", "turn", "turn_limit", "was_open", "staged", "staged_value",
                 "obligation", "ob_used", "took", "undos", "hands_played", "turnovers", "stock_hidden", "draws"):
        s[name] = getattr(ref, name)
    for name in ("opened", "totals", "eliminated", "last_penalties", "returns"):
        s[name][:n] = getattr(ref, name)
    s["winners"][:] = 0
    s["winners"][list(ref.winners)] = True
    s["final"][:] = 0.0
    s["has_seed"] = ref.seed is not None
    s["seed"] = 0 if ref.seed is None else ref.seed


_INTS = ("player", "phase", "first", "turn", "turn_limit", "staged", "staged_value", "obligation", "took", "undos",
         "hands_played", "turnovers", "draws")


def _values(f: dict) -> dict:
    """The reference state's fields but its derived ones (``_DERIVED``, rebuilt by ``_sync``),
    from the record's fields as Python values (``record_lists``): what ``from_record`` builds
    and ``same_state`` compares."""
    n = f["num_players"]
    v = dict(
        num_players=n, hands=f["hands"][:n], hand_size=f["hand_size"][:n], known=f["known"][:n],
        discarded=f["discarded"][:n], taken=f["taken"][:n], stock=f["stock"][:f["stock_n"]],
        discard=f["discard"][:f["discard_n"]], melds=[tuple(m) for m in f["melds"][:f["n_melds"]]],
        pending=f["pending"][:f["pending_n"]])
    for name in _INTS:
        v[name] = f[name]
    for name in ("was_open", "ob_used", "stock_hidden"):
        v[name] = bool(f[name])
    v["opened"] = [bool(x) for x in f["opened"][:n]]
    v["eliminated"] = [bool(x) for x in f["eliminated"][:n]]
    v["totals"] = f["totals"][:n]
    v["last_penalties"] = f["last_penalties"][:n]
    v["winners"] = [p for p, w in enumerate(f["winners"][:n]) if w]
    v["returns"] = f["returns"][:n]
    v["seed"] = f["seed"] if f["has_seed"] else None
    return v


def from_record(s, state_cls=Scala40State, game=None) -> Scala40State:
    """The reference state held by the record ``s``."""
    from baralho.core.compiled import record_lists

    st = state_cls(**_values(record_lists(s)))
    Scala40Game._sync(st)
    return st


def same_state(f: dict, ref: Scala40State, game=None) -> bool:
    """Whether the record whose fields are ``f`` (Python values: ``record_lists``) holds ``ref``:
    every field but the derived ones, as ``from_record(s) == ref`` compares them (the
    differential harness's every-step check, without building a state and its observation
    pieces; those show in the observation, compared every step)."""
    return all(v == getattr(ref, k) for k, v in _values(f).items())
