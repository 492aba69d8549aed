"""Chuche: the reference engine (config, state, legal mask, transitions, scoring).

One ``Config``, one ``ChucheState`` and one ``ChucheGame`` implementing baralho's
Game protocol. The rules as implemented, with every decision of ours, are in
RULES.md.

Whoever must decide now is ``state.actor`` (``current_player``): the turn player,
or during a reaction window the seat being asked (Escudo against Roubar or
Bomba, a Bloqueio after cards reached the table), so the AEC adapter moves
``agent_selection`` to reactors out of turn by itself.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass
from typing import Literal

import numpy as np

from baralho.core.chance import Chance
from baralho.core.checks import check_seat
from baralho.core.config import ConfigError, check_player_count
from baralho.envs.chuche import checks, observation, text
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
    NUM_ACTIONS,
    describe_action,
)
from baralho.envs.chuche.cards import (
    BACKS_PER_COLOUR,
    BLOQUEIO,
    BOMBA,
    CHUCHE_COUNTS,
    CORINGA,
    ESCUDO,
    EXTRA_COLOURS,
    FRONT,
    GOALS,
    KIND,
    KIND_FRONT,
    LAST_TARGET,
    NUM_COLOURS,
    PER_COLOUR,
    POINTS,
    ROUBAR,
    VALUE_CAP,
    chuche_points,
    table_sums,
)
from baralho.envs.chuche.observation import (
    BLOQ_WINDOW,
    BOMBA_ROUND,
    CAPTURE,
    CONT_END,
    CONT_MAIN,
    MAIN,
    ROUBAR_WINDOW,
    build_layout,
)

ENV_ID = "chuche_v1"
_CHUCHE_DECK = [t for t, k in enumerate(CHUCHE_COUNTS) for _ in range(k)]
_ONES = b'\x01\x01\x01'


@dataclass(frozen=True)
class Config:
    """Chuche options (see RULES.md)."""
    num_players: int = 2
    scope: Literal["match", "round"] = "match"
    place_rule: Literal["capture_first", "free"] = "capture_first"
    max_rounds: int = 20

    def __post_init__(self) -> None:
        check_player_count(ENV_ID, self.num_players, 2, 6)
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) \
                or not 1 <= self.max_rounds <= 200:
            raise ConfigError(f"{ENV_ID}: max_rounds={self.max_rounds!r} must be an int in 1..200")


@dataclass
class ChucheState:
    # fixed for the match (shared by copies, never mutated)
    colours: tuple[int, ...]
    in_play: tuple[int, ...]
    back: tuple[int, ...]              # per card id; 0 for cards not in this deck
    # the round
    hands: list[list[int]]             # sorted card ids
    stock: list[int]                   # top = last
    table: list[int]
    owner: list[int]                   # per card id: seat that blocked it, -1 if none
    piles: list[list[int]]             # captured (and blocked-at-round-end) cards
    discard: list[int]                 # unblocked table cards left at round end
    chuche_deck: list[int]             # Chuche types, top = last
    held: list[list[int]]              # unused Chuche cards per seat and type
    used: list[list[int]]              # used Chuche cards per seat and type (they still score)
    turn: int
    actor: int
    phase: int
    chuche_played: bool                # the turn player's one Chuche card of the turn
    cap_card: int                      # hand card of the capture being built, -1 if none
    cap_sel: list[int]                 # table cards added to it
    cap_sum: int
    queue: list[int]                   # seats still to ask in the current window
    cont: int                          # what follows the Bloqueio window
    bomba_hits: int                    # cards placed under the current Bomba
    # the match
    scores: list[int]
    rounds_played: int
    decisions: int
    round_decisions: int
    over: bool
    rets: list[float]
    seed: int                          # hidden chance seed: Roubar's random card, later deals
    draws: int                         # chance events so far (see ChucheGame._chance)
    nfree: int                         # unblocked table cards
    must_use: int = -1                 # kind unblocked by this turn's Escudo: the capture must use it

    def copy(self) -> ChucheState:
        return ChucheState(
            self.colours, self.in_play, self.back,
            [h[:] for h in self.hands], self.stock[:], self.table[:], self.owner[:],
            [p[:] for p in self.piles], self.discard[:], self.chuche_deck[:],
            [h[:] for h in self.held], [u[:] for u in self.used],
            self.turn, self.actor, self.phase, self.chuche_played, self.cap_card,
            self.cap_sel[:], self.cap_sum, self.queue[:], self.cont, self.bomba_hits,
            self.scores[:], self.rounds_played, self.decisions, self.round_decisions,
            self.over, self.rets[:], self.seed, self.draws, self.nfree, self.must_use)


class ChucheGame:
    ansi_rules = text.ANSI_RULES      # terminal colours (render_mode="human")
    env_id = ENV_ID

    def __init__(self, config: Config | None = None) -> None:
        self.config = config = config or Config()
        self.num_players = n = config.num_players
        self.num_actions = NUM_ACTIONS
        self.num_colours = 1 + EXTRA_COLOURS[n]
        self.num_cards = N = self.num_colours * PER_COLOUR
        self.goal = GOALS[n]
        self.max_rounds = config.max_rounds if config.scope == "match" else 1
        self.free_place = config.place_rule == "free"
        # Per round: <= N-3 hand-card plays, <= N added table cards, <= N-3 commits,
        # <= 12 Chuche plays (one action each), <= 3 passes per Bloqueio window
        # (3 Bloqueio cards) over <= N-3 + 4 windows, <= 3 Escudo passes (RULES.md).
        self.round_bound = 6 * N + 12
        self.max_decisions = self.max_rounds * self.round_bound
        self.obs_layout = build_layout(n, self.num_colours, self.max_rounds)
        self._chance_stream = Chance()
        self._seats_after = [[(t + j) % n for j in range(1, n)] + [t] for t in range(n)]

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: np.random.Generator) -> ChucheState:
        n = self.num_players
        extra = rng.permutation(NUM_COLOURS - 1)[:self.num_colours - 1].tolist()
        colours = (0, *sorted(c + 1 for c in extra))
        back = [0] * (NUM_COLOURS * PER_COLOUR)
        backs = rng.permuted(np.tile(BACKS_PER_COLOUR, (len(colours), 1)), axis=1).tolist()
        for col, row in zip(colours, backs, strict=True):     # each colour's backs, shuffled
            back[col * PER_COLOUR:(col + 1) * PER_COLOUR] = row
        in_play = tuple(col * PER_COLOUR + j for col in colours for j in range(PER_COLOUR))
        s = ChucheState(
            colours, in_play, tuple(back),
            [[] for _ in range(n)], [], [], [-1] * len(back), [[] for _ in range(n)], [], [],
            [[0] * 5 for _ in range(n)], [[0] * 5 for _ in range(n)],
            0, 0, MAIN, False, -1, [], 0, [], CONT_MAIN, 0,
            [0] * n, 0, 0, 0, False, [0.0] * n,
            int(rng.integers(2**63)), 0, 0)
        self._deal(s)
        return s

    def _deal(self, s: ChucheState) -> None:
        """A new round: shuffle the same cards (backs stay), deal 3 each and 3 to the table."""
        n = self.num_players
        chance = self._chance(s)
        deck = [s.in_play[i] for i in chance.permutation(len(s.in_play)).tolist()]
        s.hands = [sorted(deck[3 * p:3 * p + 3]) for p in range(n)]
        s.table = deck[3 * n:3 * n + 3]
        s.stock = deck[3 * n + 3:]
        s.owner = [-1] * len(s.back)
        s.piles = [[] for _ in range(n)]
        s.discard = []
        s.chuche_deck = chance.permutation(_CHUCHE_DECK).tolist()
        s.held = [[0] * 5 for _ in range(n)]
        s.used = [[0] * 5 for _ in range(n)]
        s.cap_card, s.cap_sel, s.cap_sum, s.queue, s.bomba_hits = -1, [], 0, [], 0
        s.round_decisions = 0
        s.turn = s.actor = self.first_player(s)
        s.phase, s.chuche_played = MAIN, False
        s.nfree = len(s.table)
        self._start_turn(s, s.turn)

    # ------------------------------------------------------------ protocol
    def first_player(self, s: ChucheState) -> int:
        """The round's first seat: it rotates each round (the dealer moves on)."""
        return s.rounds_played % self.num_players

    def target(self, s: ChucheState) -> int:
        return s.back[s.stock[-1]] if s.stock else LAST_TARGET

    def current_player(self, s: ChucheState) -> int:
        return -1 if s.over else s.actor

    def is_over(self, s: ChucheState) -> bool:
        return s.over

    def returns(self, s: ChucheState) -> np.ndarray:
        return np.array(s.rets, dtype=np.float64)

    def observe(self, s: ChucheState, player: int) -> np.ndarray:
        if type(player) is not int or not 0 <= player < self.num_players:   # a seat, or a clear error
            player = check_seat(self, player)
        return observation.encode(self, s, player)

    def _chance(self, s: ChucheState) -> np.random.Generator:
        """The generator of the next chance event, from the hidden seed and a counter.

        Not a live Generator in the state: states stay cheap to copy and pickle
        (search copies a lot); the game's scratch Generator is re-seeded instead.
        """
        return self._chance_stream.next(s)

    def has_hidden(self, s: ChucheState, player: int) -> bool:
        check_seat(self, player)
        return not s.over   # the in-state generator (future deals, Roubar) is always hidden

    # ---------------------------------------------------------- legal mask
    def legal_mask(self, s: ChucheState) -> np.ndarray:
        m = bytearray(NUM_ACTIONS)    # item writes on a bytearray are cheap; one view at the end
        if s.over:
            return np.frombuffer(m, np.int8)
        p, ph, owner = s.actor, s.phase, s.owner
        if ph == MAIN:
            hand = s.hands[p]
            must = s.must_use         # after an Escudo unblock: that card is counted apart
            r = 1                     # bit x: some of the player's (other) table cards sum to x
            for c in s.table:
                o = owner[c]
                if o < 0 or o == p:
                    if KIND[c] == must:
                        must = -1
                        continue
                    r |= r << FRONT[c]
            t = s.back[s.stock[-1]] if s.stock else LAST_TARGET
            played = s.chuche_played
            held = s.held[p]
            cor = held[CORINGA] and not played
            base, least = (KIND_FRONT[s.must_use], 0) if s.must_use >= 0 else (0, 1)
            exact = False
            for i, c in enumerate(hand):
                d = t - FRONT[c] - base
                if d >= least and r >> d & 1:
                    m[A_CAPTURE + i] = 1
                    exact = True
                elif cor and ((d >= 2 and r >> (d - 1) & 1) or (d >= 0 and r >> (d + 1) & 1)):
                    m[A_CAPTURE + i] = 1
            if not exact or self.free_place:
                m[A_PLACE:A_PLACE + len(hand)] = _ONES[:len(hand)]
            if not played:
                if held[BLOQUEIO] and s.nfree:
                    for c in s.table:
                        if owner[c] < 0:
                            m[A_BLOCK + KIND[c]] = 1
                if held[ESCUDO] and s.nfree < len(s.table):
                    # "para usá-la na sua soma": only a card an exact capture could then use
                    for c in s.table:
                        if owner[c] >= 0 and owner[c] != p:
                            for h in hand:
                                d = t - FRONT[h] - FRONT[c]
                                if d >= 0 and r >> d & 1:
                                    m[A_UNBLOCK + KIND[c]] = 1
                                    break
                if held[ROUBAR]:
                    n = self.num_players
                    for j in range(1, n):
                        if s.hands[(p + j) % n]:
                            m[A_ROUBAR + j - 1] = 1
                if held[BOMBA]:
                    m[A_BOMBA] = 1
        elif ph == CAPTURE:
            usable = []
            cnt = [0, 0, 0, 0, 0, 0]
            must = s.must_use         # not added yet: count it as added, the others must complete
            total = s.cap_sum + (KIND_FRONT[must] if must >= 0 else 0)
            for c in s.table:
                o = owner[c]
                if o < 0 or o == p:
                    usable.append(c)
                    if KIND[c] == must:
                        must = -1
                        continue
                    v = FRONT[c] - 1
                    if cnt[v] < VALUE_CAP[v]:
                        cnt[v] += 1
            sums, others = table_sums(tuple(cnt))
            t = s.back[s.stock[-1]] if s.stock else LAST_TARGET
            goals = (t - 1, t, t + 1) if s.held[p][CORINGA] and not s.chuche_played else (t,)
            ok = 0                    # bit v: a card of value v can still complete the target
            for v in range(1, 7):
                if cnt[v - 1]:
                    r = others[v - 1]
                    for g in goals:
                        d = g - total - v
                        if d >= 0 and r >> d & 1:
                            ok |= 1 << v
                            break
            if ok:
                for c in usable:
                    if ok >> FRONT[c] & 1:
                        m[A_ADD + KIND[c]] = 1
            if s.must_use >= 0:       # the unblocked card itself: the others complete the rest
                m[A_ADD + s.must_use] = t >= total and sums >> (t - total) & 1
            elif s.cap_sel:
                if total == t:
                    m[A_COMMIT] = 1
                elif (total == t - 1 or total == t + 1) and len(goals) == 3:
                    m[A_COMMIT_CORINGA] = 1
        elif ph == BLOQ_WINDOW:
            m[A_PASS] = 1
            for c in s.table:
                if owner[c] < 0:
                    m[A_BLOCK + KIND[c]] = 1
        elif ph == ROUBAR_WINDOW:
            m[A_ESCUDO] = m[A_PASS] = 1
        else:  # BOMBA_ROUND
            k = len(s.hands[p])
            m[A_PLACE:A_PLACE + k] = _ONES[:k]
            if s.held[p][ESCUDO] and p != s.turn:     # never against one's own Bomba
                m[A_ESCUDO] = 1
        return np.frombuffer(m, np.int8)

    # ------------------------------------------------------------- card moves
    def _hand_remove(self, s: ChucheState, p: int, c: int) -> None:
        s.hands[p].remove(c)

    def _table_add(self, s: ChucheState, c: int) -> None:
        s.table.append(c)
        s.nfree += 1

    def _table_take(self, s: ChucheState, c: int) -> None:
        s.table.remove(c)
        if s.owner[c] < 0:
            s.nfree -= 1
        s.owner[c] = -1

    def _set_owner(self, s: ChucheState, c: int, p: int) -> None:
        s.nfree += (p < 0) - (s.owner[c] < 0)
        s.owner[c] = p

    def _to_pile(self, s: ChucheState, p: int, c: int) -> None:
        s.piles[p].append(c)

    def won(self, s: ChucheState, p: int) -> int:
        """Chuche cards seat p won this round, used or not (they all score)."""
        return sum(s.held[p]) + sum(s.used[p])

    def _chuche_win(self, s: ChucheState, p: int) -> None:
        s.held[p][s.chuche_deck.pop()] += 1

    def _chuche_use(self, s: ChucheState, p: int, t: int) -> None:
        s.held[p][t] -= 1
        s.used[p][t] += 1

    # ---------------------------------------------------------- transitions
    def apply(self, s: ChucheState, a: int):
        s.decisions += 1
        s.round_decisions += 1
        p, ph = s.actor, s.phase
        if ph == MAIN:
            if a < A_PLACE:
                self._start_capture(s, p, s.hands[p][a - A_CAPTURE])
            elif a < A_ADD:
                c = s.hands[p][a - A_PLACE]
                self._hand_remove(s, p, c)
                self._table_add(s, c)
                s.must_use = -1       # a place ends the turn: no capture will use an unblocked card
                self._open_window(s, CONT_END)
            elif A_BLOCK <= a < A_UNBLOCK:
                self._chuche_use(s, p, BLOQUEIO)
                s.chuche_played = True
                self._block(s, p, a - A_BLOCK)
            elif a < A_ROUBAR:
                self._chuche_use(s, p, ESCUDO)
                s.chuche_played = True
                k = a - A_UNBLOCK
                c = next(c for c in s.table if KIND[c] == k and s.owner[c] >= 0 and s.owner[c] != p)
                self._set_owner(s, c, -1)
                s.must_use = k
            elif a < A_BOMBA:
                self._chuche_use(s, p, ROUBAR)
                s.chuche_played = True
                victim = (p + a - A_ROUBAR + 1) % self.num_players
                if s.held[victim][ESCUDO]:
                    s.queue = [victim]
                    s.actor = victim
                    s.phase = ROUBAR_WINDOW
                else:
                    self._steal(s, victim)
            else:  # Bomba
                self._chuche_use(s, p, BOMBA)
                s.chuche_played = True
                s.queue = [q for q in self._seats_after[p] if s.hands[q]]
                s.bomba_hits = 0
                s.actor = s.queue[0]
                s.phase = BOMBA_ROUND
        elif ph == CAPTURE:
            if a < A_COMMIT:
                k = a - A_ADD
                c = next((c for c in s.table if KIND[c] == k and s.owner[c] < 0), -1)
                if c < 0:
                    c = next(c for c in s.table if KIND[c] == k and s.owner[c] == p)
                self._table_take(s, c)
                if k == s.must_use:
                    s.must_use = -1
                s.cap_sel.append(c)
                s.cap_sum += FRONT[c]
            else:
                self._commit(s, p, a == A_COMMIT_CORINGA)
        elif ph == BLOQ_WINDOW:
            if a != A_PASS:
                self._chuche_use(s, p, BLOQUEIO)
                s.chuche_played |= p == s.turn
                self._block(s, p, a - A_BLOCK)
            s.queue.pop(0)
            self._next_in_window(s)
        elif ph == ROUBAR_WINDOW:
            s.queue = []
            if a == A_ESCUDO:
                self._chuche_use(s, p, ESCUDO)
                s.actor = s.turn
                s.phase = MAIN
            else:
                self._steal(s, p)
        else:  # BOMBA_ROUND
            if a == A_ESCUDO:
                self._chuche_use(s, p, ESCUDO)
            else:
                c = s.hands[p][a - A_PLACE]
                self._hand_remove(s, p, c)
                self._table_add(s, c)
                s.bomba_hits += 1
            s.queue.pop(0)
            if s.queue:
                s.actor = s.queue[0]
            elif s.bomba_hits:
                self._open_window(s, CONT_MAIN)
            else:
                self._continue(s, CONT_MAIN)
        return s.rets if s.over else None

    def _block(self, s: ChucheState, p: int, k: int) -> None:
        c = next(c for c in s.table if KIND[c] == k and s.owner[c] < 0)
        self._set_owner(s, c, p)

    def _start_capture(self, s: ChucheState, p: int, c: int) -> None:
        self._hand_remove(s, p, c)
        s.cap_card, s.cap_sel, s.cap_sum = c, [], FRONT[c]
        s.phase = CAPTURE

    def _commit(self, s: ChucheState, p: int, coringa: bool) -> None:
        self._to_pile(s, p, s.cap_card)
        for c in s.cap_sel:
            self._to_pile(s, p, c)
        s.cap_card, s.cap_sel, s.cap_sum = -1, [], 0
        if coringa:
            self._chuche_use(s, p, CORINGA)
            s.chuche_played = True
        # CHUCHE! no unblocked card left on the table: win the top Chuche card.
        if s.chuche_deck and not s.nfree:
            self._chuche_win(s, p)
        self._end_turn(s)

    def _steal(self, s: ChucheState, victim: int) -> None:
        hand = s.hands[victim]
        c = hand[int(self._chance(s).integers(len(hand)))]
        self._hand_remove(s, victim, c)
        self._table_add(s, c)
        self._open_window(s, CONT_MAIN)

    def _open_window(self, s: ChucheState, cont: int) -> None:
        """Cards reached the table: ask each Bloqueio holder, nearest next turn first."""
        if s.nfree:
            # "apenas uma por turno": the turn player who already played a Chuche card is not asked
            queue = [q for q in self._seats_after[s.turn]
                     if s.held[q][BLOQUEIO] and not (q == s.turn and s.chuche_played)]
            if queue:
                s.queue, s.cont, s.actor = queue, cont, queue[0]
                s.phase = BLOQ_WINDOW
                return
        self._continue(s, cont)

    def _next_in_window(self, s: ChucheState) -> None:
        if s.queue and s.nfree:
            s.actor = s.queue[0]
        else:
            s.queue = []
            self._continue(s, s.cont)

    def _continue(self, s: ChucheState, cont: int) -> None:
        if cont == CONT_MAIN and s.hands[s.turn]:
            s.actor = s.turn
            s.phase = MAIN
        else:
            self._end_turn(s)

    def _refill(self, s: ChucheState, p: int) -> None:
        while s.stock and len(s.hands[p]) < 3:
            insort(s.hands[p], s.stock.pop())

    def _end_turn(self, s: ChucheState) -> None:
        self._refill(s, s.turn)
        self._start_turn(s, (s.turn + 1) % self.num_players)

    def _start_turn(self, s: ChucheState, p: int) -> None:
        n = self.num_players
        while True:
            if not s.stock and not any(s.hands):
                self._end_round(s)
                return
            s.turn = p
            s.chuche_played, s.must_use = False, -1
            if s.hands[p]:
                s.actor = p
                s.phase = MAIN
                return
            self._refill(s, p)        # an empty hand passes the turn and draws at its end
            p = (p + 1) % n

    def _end_round(self, s: ChucheState) -> None:
        n = self.num_players
        for c in s.table[:]:
            o = s.owner[c]
            self._table_take(s, c)
            if o >= 0:
                self._to_pile(s, o, c)       # still blocked: scores for its owner
            else:
                s.discard.append(c)
        points = [sum(POINTS[c] for c in s.piles[p]) + chuche_points(self.won(s, p)) for p in range(n)]
        for p in range(n):
            s.scores[p] += points[p]
        s.rounds_played += 1
        if self.config.scope == "round":
            self._finish(s, points)
            return
        best = max(s.scores)
        if (best >= self.goal and s.scores.count(best) == 1) or s.rounds_played >= self.max_rounds:
            self._finish(s, s.scores)
        else:
            self._deal(s)

    def _finish(self, s: ChucheState, totals: list[int]) -> None:
        """Zero-sum result: the top total shares +1, the others share -1."""
        n, best = self.num_players, max(totals)
        w = totals.count(best)
        s.rets = [0.0] * n if w == n else [1.0 / w if x == best else -1.0 / (n - w) for x in totals]
        s.over = True
        s.actor = -1

    # ---------------- views, hidden information, checks (actions, text, picture, observation, checks)
    def describe_action(self, s: ChucheState, action: int) -> str:
        return describe_action(self, s, action)

    def render_text(self, s: ChucheState, player: int | None = None) -> str:
        return text.render_text(self, s, player)

    def render_image(self, s: ChucheState, player: int | None = None) -> np.ndarray:
        """The table as an RGB picture (needs Pillow)."""
        from baralho.envs.chuche.picture import render_image

        return render_image(self, s, player)

    def resample_hidden(self, s: ChucheState, player: int, rng: np.random.Generator) -> ChucheState:
        return observation.resample_hidden(self, s, check_seat(self, player), rng)

    def reference_legal_mask(self, s: ChucheState) -> np.ndarray:
        return checks.reference_legal_mask(self, s)

    def check_invariants(self, s: ChucheState) -> None:
        checks.check_invariants(self, s)


__all__ = ["ChucheGame", "ChucheState", "Config", "ENV_ID", "NUM_ACTIONS"]
