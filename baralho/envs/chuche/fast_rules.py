"""Chuche's compiled engine, the play (numba): the state record and rules.py's transitions.

One game is one record of ``STATE_DTYPE`` (a numpy structured array row).
Each function below is the function of ``rules.py`` with the same name, line for
line, over that record (the reaction windows included: ``actor`` moves to the
seat asked exactly as there). ``fast.py`` adds the legal mask, the observation,
the batch kernels and the conversion to and from reference states; its
docstring says what differs from ``rules.py`` and why.
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.fast_chance import below, next_bits
from baralho.envs.chuche import cards as C
from baralho.envs.chuche.actions import (
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
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, CAPTURE, CONT_END, CONT_MAIN, MAIN, ROUBAR_WINDOW
from baralho.envs.chuche.rules import _CHUCHE_DECK

NUM_CARDS = C.NUM_CARDS                  # 54: every card id of the six colours
PER_COLOUR = C.PER_COLOUR
NUM_COLOURS = C.NUM_COLOURS
NUM_KINDS = C.NUM_KINDS
NUM_CHUCHE = C.NUM_CHUCHE
LAST_TARGET = C.LAST_TARGET
CORINGA, ROUBAR, BOMBA, BLOQUEIO, ESCUDO = C.CORINGA, C.ROUBAR, C.BOMBA, C.BLOQUEIO, C.ESCUDO
FRONT = np.array(C.FRONT, np.int64)
COLOUR = np.array(C.COLOUR, np.int64)
KIND = np.array(C.KIND, np.int64)
KIND_FRONT = np.array(C.KIND_FRONT, np.int64)
POINTS = np.array(C.POINTS, np.int64)
SCORE_KIND = np.array(C.SCORE_KIND, np.int64)
VALUE_CAP = np.array(C.VALUE_CAP, np.int64)
BACKS_PER_COLOUR = np.array(C.BACKS_PER_COLOUR, np.int64)
CHUCHE_DECK = np.array(_CHUCHE_DECK, np.int64)
FULL = (1 << (C.MAX_SUM + 1)) - 1          # the sums a capture can ask for: 0..MAX_SUM
MAX_SEATS = 6


# One game as a record: the fields of ``ChucheState`` at fixed shapes (``x_size``: the
# length of list ``x``; per-seat rows for 6 seats, the first ``num_players`` used), and
# the config it is played by. One dtype for every config: numba compiles the engine once.
STATE_DTYPE = np.dtype([
    ("num_players", np.int8), ("num_colours", np.int8), ("goal", np.int16), ("max_rounds", np.int16),
    ("scope_round", np.bool_), ("free_place", np.bool_),
    ("colours", np.int8, NUM_COLOURS), ("back", np.int8, NUM_CARDS),
    ("hands", np.int8, (MAX_SEATS, 3)), ("hand_size", np.int8, MAX_SEATS),
    ("stock", np.int8, NUM_CARDS), ("stock_size", np.int8),             # top = last
    ("table", np.int8, NUM_CARDS), ("table_size", np.int8),
    ("owner", np.int8, NUM_CARDS),
    ("piles", np.int8, (MAX_SEATS, NUM_CARDS)), ("pile_size", np.int8, MAX_SEATS),
    ("discard", np.int8, NUM_CARDS), ("discard_size", np.int8),
    ("chuche_deck", np.int8, NUM_CHUCHE), ("chuche_deck_size", np.int8),
    ("held", np.int8, (MAX_SEATS, 5)), ("used", np.int8, (MAX_SEATS, 5)),
    ("turn", np.int8), ("actor", np.int8), ("phase", np.int8), ("chuche_played", np.bool_),
    ("cap_card", np.int8), ("cap_sel", np.int8, NUM_CARDS), ("cap_sel_size", np.int8),
    ("cap_sum", np.int8),
    ("queue", np.int8, MAX_SEATS), ("queue_size", np.int8), ("cont", np.int8), ("bomba_hits", np.int8),
    ("scores", np.int32, MAX_SEATS), ("rounds_played", np.int16), ("decisions", np.int32),
    ("round_decisions", np.int32), ("over", np.bool_), ("rets", np.float64, MAX_SEATS),
    ("seed", np.uint64), ("draws", np.int64), ("nfree", np.int8), ("must_use", np.int8),
    ("rng", np.uint64),                                                # splitmix64 state for new_match()
])


from baralho.core.jit import jit  # noqa: E402  (numba record names fixed there first)


# ---------------------------------------------------------------------- chance
@jit
def _chance(s, g) -> None:
    """ChucheGame._chance: ``g`` becomes the generator of the state's next chance event."""
    s.draws += 1
    R.seed_event(g, s.seed, s.draws)


@jit
def new_match(s) -> None:
    """new_state: the extra colours and each colour's backs at random, a hidden seed, then the deal."""
    extra = np.arange(1, NUM_COLOURS)
    for i in range(extra.size - 1, 0, -1):                      # Fisher-Yates
        j = below(s, i + 1)
        extra[i], extra[j] = extra[j], extra[i]
    s.colours[:] = 0
    for k in range(1, s.num_colours):                           # red first, the others sorted
        c, i = extra[k - 1], k                                  # (insertion: no np.sort)
        while i > 1 and s.colours[i - 1] > c:
            s.colours[i] = s.colours[i - 1]
            i -= 1
        s.colours[i] = c
    s.back[:] = 0
    for k in range(s.num_colours):                              # each colour's backs, shuffled
        row = BACKS_PER_COLOUR.copy()
        for i in range(PER_COLOUR - 1, 0, -1):
            j = below(s, i + 1)
            row[i], row[j] = row[j], row[i]
        for j in range(PER_COLOUR):
            s.back[s.colours[k] * PER_COLOUR + j] = row[j]
    n = s.num_players
    s.turn = s.actor = 0
    s.phase, s.chuche_played, s.cap_card, s.cap_sel_size, s.cap_sum = MAIN, False, -1, 0, 0
    s.queue_size, s.cont, s.bomba_hits = 0, CONT_MAIN, 0
    s.scores[:n] = 0
    s.rounds_played, s.decisions, s.round_decisions, s.over = 0, 0, 0, False
    s.rets[:n] = 0.0
    s.seed = next_bits(s) >> np.uint64(1)                           # 63 bits, as rng.integers(2**63)
    s.draws, s.nfree, s.must_use = 0, 0, -1
    _deal(s)
    _start_turn(s, s.turn)


@jit
def _deal(s) -> None:
    """A new round: shuffle the same cards (backs stay), deal 3 each and 3 to the table.
    The caller then starts the first turn (rules.py's _deal ends with it; numba's cache
    cannot load mutually recursive functions, so _start_turn deals the next round itself)."""
    n = s.num_players
    N = s.num_colours * PER_COLOUR
    g = R.new_generator()
    _chance(s, g)
    perm = np.arange(N)
    R.shuffle(g, perm, N)
    deck = np.empty(N, np.int64)
    for i in range(N):                                          # in_play[perm[i]]
        deck[i] = s.colours[perm[i] // PER_COLOUR] * PER_COLOUR + perm[i] % PER_COLOUR
    for p in range(n):                                          # sorted(deck[3p:3p + 3])
        s.hand_size[p] = 0
        for i in range(3):
            _insort(s, p, deck[3 * p + i])
    for i in range(3):
        s.table[i] = deck[3 * n + i]
    s.table_size = 3
    s.stock_size = N - 3 * n - 3
    for i in range(s.stock_size):
        s.stock[i] = deck[3 * n + 3 + i]
    s.owner[:] = -1
    s.pile_size[:] = 0
    s.discard_size = 0
    chuche = CHUCHE_DECK.copy()
    R.shuffle(g, chuche, len(chuche))                          # (not the constant: one compiled shuffle)
    for i in range(NUM_CHUCHE):
        s.chuche_deck[i] = chuche[i]
    s.chuche_deck_size = NUM_CHUCHE
    s.held[:, :] = 0
    s.used[:, :] = 0
    s.cap_card, s.cap_sel_size, s.cap_sum, s.queue_size, s.bomba_hits = -1, 0, 0, 0, 0
    s.round_decisions = 0
    s.turn = s.actor = first_player(s)
    s.phase, s.chuche_played = MAIN, False
    s.nfree = s.table_size


# ---------------------------------------------------------------------- queries
# (loops, not numpy reductions or sorts: their compiled code is linked into every
# caller up the chain, and numba optimises each caller's copy again; see fast.py)
@jit
def _max(xs) -> int:
    """max(xs)."""
    best = xs[0]
    for x in xs:
        best = max(best, x)
    return best


@jit
def _count(xs, x: int) -> int:
    """xs.count(x)."""
    k = 0
    for y in xs:
        k += y == x
    return k


@jit
def first_player(s) -> int:
    return s.rounds_played % s.num_players


@jit
def target(s) -> int:
    return s.back[s.stock[s.stock_size - 1]] if s.stock_size else LAST_TARGET


@jit
def won(s, p: int) -> int:
    """Chuche cards seat p won this round, used or not (they all score)."""
    total = 0
    for t in range(5):
        total += s.held[p, t] + s.used[p, t]
    return total


@jit
def chuche_points(won: int) -> int:
    return won * (4 if won >= 3 else 2)


# ---------------------------------------------------------------------- card moves
@jit
def _hand_remove(s, p: int, c: int) -> None:
    k = s.hand_size[p]
    i = 0
    while s.hands[p, i] != c:
        i += 1
    for j in range(i, k - 1):                                  # the hand stays sorted
        s.hands[p, j] = s.hands[p, j + 1]
    s.hand_size[p] = k - 1


@jit
def _insort(s, p: int, c: int) -> None:
    i = s.hand_size[p]
    while i > 0 and s.hands[p, i - 1] > c:
        s.hands[p, i] = s.hands[p, i - 1]
        i -= 1
    s.hands[p, i] = c
    s.hand_size[p] += 1


@jit
def _table_add(s, c: int) -> None:
    s.table[s.table_size] = c
    s.table_size += 1
    s.nfree += 1


@jit
def _table_take(s, c: int) -> None:
    i = 0
    while s.table[i] != c:
        i += 1
    for j in range(i, s.table_size - 1):                       # the table keeps its order
        s.table[j] = s.table[j + 1]
    s.table_size -= 1
    if s.owner[c] < 0:
        s.nfree -= 1
    s.owner[c] = -1


@jit
def _set_owner(s, c: int, p: int) -> None:
    s.nfree += (1 if p < 0 else 0) - (1 if s.owner[c] < 0 else 0)
    s.owner[c] = p


@jit
def _to_pile(s, p: int, c: int) -> None:
    s.piles[p, s.pile_size[p]] = c
    s.pile_size[p] += 1


@jit
def _chuche_win(s, p: int) -> None:
    s.chuche_deck_size -= 1
    s.held[p, s.chuche_deck[s.chuche_deck_size]] += 1


@jit
def _chuche_use(s, p: int, t: int) -> None:
    s.held[p, t] -= 1
    s.used[p, t] += 1


@jit
def _queue_pop(s) -> None:
    """queue.pop(0)."""
    for j in range(s.queue_size - 1):
        s.queue[j] = s.queue[j + 1]
    s.queue_size -= 1


@jit
def _table_card(s, k: int, owner: int) -> int:
    """The first table card of kind k with this owner (-1: unblocked), or -1."""
    for i in range(s.table_size):
        c = s.table[i]
        if KIND[c] == k and s.owner[c] == owner:
            return c
    return -1


# ---------------------------------------------------------------------- transitions
@jit
def apply(s, d, a: int) -> bool:
    """Play a legal action; True when it ended the game (``s.rets`` then holds the rewards)."""
    s.decisions += 1
    s.round_decisions += 1
    p, ph, n = s.actor, s.phase, s.num_players
    if ph == MAIN:
        if a < A_PLACE:
            _start_capture(s, p, s.hands[p, a - A_CAPTURE])
        elif a < A_ADD:
            c = s.hands[p, a - A_PLACE]
            _hand_remove(s, p, c)
            _table_add(s, c)
            s.must_use = -1           # a place ends the turn: no capture will use an unblocked card
            _open_window(s, CONT_END)
        elif A_BLOCK <= a < A_UNBLOCK:
            _chuche_use(s, p, BLOQUEIO)
            s.chuche_played = True
            _block(s, p, a - A_BLOCK)
        elif a < A_ROUBAR:
            _chuche_use(s, p, ESCUDO)
            s.chuche_played = True
            k = a - A_UNBLOCK
            for i in range(s.table_size):
                c = s.table[i]
                if KIND[c] == k and s.owner[c] >= 0 and s.owner[c] != p:
                    _set_owner(s, c, -1)
                    break
            s.must_use = k
        elif a < A_BOMBA:
            _chuche_use(s, p, ROUBAR)
            s.chuche_played = True
            victim = (p + a - A_ROUBAR + 1) % n
            if s.held[victim, ESCUDO]:
                s.queue[0] = victim
                s.queue_size = 1
                s.actor = victim
                s.phase = ROUBAR_WINDOW
            else:
                _steal(s, victim)
        else:  # Bomba
            _chuche_use(s, p, BOMBA)
            s.chuche_played = True
            s.queue_size = 0
            for j in range(1, n + 1):                          # the seats after p, p last
                q = (p + j) % n
                if s.hand_size[q]:
                    s.queue[s.queue_size] = q
                    s.queue_size += 1
            s.bomba_hits = 0
            s.actor = s.queue[0]
            s.phase = BOMBA_ROUND
    elif ph == CAPTURE:
        if a < A_COMMIT:
            k = a - A_ADD
            c = _table_card(s, k, -1)
            if c < 0:
                c = _table_card(s, k, p)
            _table_take(s, c)
            if k == s.must_use:
                s.must_use = -1
            s.cap_sel[s.cap_sel_size] = c
            s.cap_sel_size += 1
            s.cap_sum += FRONT[c]
        else:
            _commit(s, p, a == A_COMMIT_CORINGA)
    elif ph == BLOQ_WINDOW:
        if a != A_PASS:
            _chuche_use(s, p, BLOQUEIO)
            s.chuche_played = s.chuche_played or p == s.turn
            _block(s, p, a - A_BLOCK)
        _queue_pop(s)
        _next_in_window(s)
    elif ph == ROUBAR_WINDOW:
        s.queue_size = 0
        if a == A_ESCUDO:
            _chuche_use(s, p, ESCUDO)
            s.actor = s.turn
            s.phase = MAIN
        else:
            _steal(s, p)
    else:  # BOMBA_ROUND
        if a == A_ESCUDO:
            _chuche_use(s, p, ESCUDO)
        else:
            c = s.hands[p, a - A_PLACE]
            _hand_remove(s, p, c)
            _table_add(s, c)
            s.bomba_hits += 1
        _queue_pop(s)
        if s.queue_size:
            s.actor = s.queue[0]
        elif s.bomba_hits:
            _open_window(s, CONT_MAIN)
        else:
            _continue(s, CONT_MAIN)
    return s.over


@jit
def _block(s, p: int, k: int) -> None:
    _set_owner(s, _table_card(s, k, -1), p)


@jit
def _start_capture(s, p: int, c: int) -> None:
    _hand_remove(s, p, c)
    s.cap_card, s.cap_sel_size, s.cap_sum = c, 0, FRONT[c]
    s.phase = CAPTURE


@jit
def _commit(s, p: int, coringa: bool) -> None:
    _to_pile(s, p, s.cap_card)
    for i in range(s.cap_sel_size):
        _to_pile(s, p, s.cap_sel[i])
    s.cap_card, s.cap_sel_size, s.cap_sum = -1, 0, 0
    if coringa:
        _chuche_use(s, p, CORINGA)
        s.chuche_played = True
    # CHUCHE! no unblocked card left on the table: win the top Chuche card.
    if s.chuche_deck_size and not s.nfree:
        _chuche_win(s, p)
    _end_turn(s)


@jit
def _steal(s, victim: int) -> None:
    g = R.new_generator()
    _chance(s, g)
    c = s.hands[victim, R.integers(g, s.hand_size[victim])]
    _hand_remove(s, victim, c)
    _table_add(s, c)
    _open_window(s, CONT_MAIN)


@jit
def _asked(s, q: int) -> bool:
    # "apenas uma por turno": the turn player who already played a Chuche card is not asked
    return s.held[q, BLOQUEIO] > 0 and not (q == s.turn and s.chuche_played)


@jit
def _open_window(s, cont: int) -> None:
    """Cards reached the table: ask each Bloqueio holder, nearest next turn first."""
    if s.nfree:
        n = s.num_players
        size = 0
        for j in range(1, n + 1):                              # the seats after the turn's, it last
            q = (s.turn + j) % n
            if _asked(s, q):
                size += 1
        if size:
            s.queue_size = 0
            for j in range(1, n + 1):
                q = (s.turn + j) % n
                if _asked(s, q):
                    s.queue[s.queue_size] = q
                    s.queue_size += 1
            s.cont, s.actor = cont, s.queue[0]
            s.phase = BLOQ_WINDOW
            return
    _continue(s, cont)


@jit
def _next_in_window(s) -> None:
    if s.queue_size and s.nfree:
        s.actor = s.queue[0]
    else:
        s.queue_size = 0
        _continue(s, s.cont)


@jit
def _continue(s, cont: int) -> None:
    if cont == CONT_MAIN and s.hand_size[s.turn]:
        s.actor = s.turn
        s.phase = MAIN
    else:
        _end_turn(s)


@jit
def _refill(s, p: int) -> None:
    while s.stock_size and s.hand_size[p] < 3:
        s.stock_size -= 1
        _insort(s, p, s.stock[s.stock_size])


@jit
def _any_hand(s) -> bool:
    """any(s.hands)."""
    for p in range(s.num_players):
        if s.hand_size[p]:
            return True
    return False


@jit
def _end_turn(s) -> None:
    _refill(s, s.turn)
    _start_turn(s, (s.turn + 1) % s.num_players)


@jit
def _start_turn(s, p: int) -> None:
    n = s.num_players
    while True:
        if not s.stock_size and not _any_hand(s):
            if not _end_round(s):
                return
            _deal(s)                  # the match goes on: a new round, its first turn
            p = s.turn
            continue
        s.turn = p
        s.chuche_played, s.must_use = False, -1
        if s.hand_size[p]:
            s.actor = p
            s.phase = MAIN
            return
        _refill(s, p)                 # an empty hand passes the turn and draws at its end
        p = (p + 1) % n


@jit
def _end_round(s) -> bool:
    """Score the round; True when the match goes on (the caller deals the next round)."""
    n = s.num_players
    for i in range(s.table_size):     # in table order, as the reference takes them
        c = s.table[i]
        o = s.owner[c]
        if o < 0:
            s.nfree -= 1
        s.owner[c] = -1
        if o >= 0:
            _to_pile(s, o, c)         # still blocked: scores for its owner
        else:
            s.discard[s.discard_size] = c
            s.discard_size += 1
    s.table_size = 0
    points = np.zeros(n, np.int64)
    for p in range(n):
        for i in range(s.pile_size[p]):
            points[p] += POINTS[s.piles[p, i]]
        points[p] += chuche_points(won(s, p))
    for p in range(n):
        s.scores[p] += points[p]
    s.rounds_played += 1
    if s.scope_round:
        _finish(s, points)
        return False
    scores = np.empty(n, np.int64)
    for p in range(n):
        scores[p] = s.scores[p]
    best = _max(scores)
    if (best >= s.goal and _count(scores, best) == 1) or s.rounds_played >= s.max_rounds:
        _finish(s, scores)
        return False
    return True


@jit
def _finish(s, totals) -> None:
    """Zero-sum result: the top total shares +1, the others share -1."""
    n = s.num_players
    best = _max(totals)
    w = _count(totals, best)
    for p in range(n):
        if w == n:
            s.rets[p] = 0.0
        else:
            s.rets[p] = 1.0 / w if totals[p] == best else -1.0 / (n - w)
    s.over = True
    s.actor = -1
