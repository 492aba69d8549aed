"""Scala 40 rules engine: one Game, one State. Pure (numpy + stdlib).

The rules as implemented, with the decisions we took, are in RULES.md; the
action ids in actions.py; the legal mask in mask.py; meld logic in melds.py and
the opening solver in solver.py.

A turn is a small phase machine: DRAW (stock or discard) → PLAY (build melds
card by card, commit them, lay off, swap jokers, undo the staging) → a discard
ends the turn. The mask only offers actions from which the turn can still end
legally, so no sequence of actions dead-ends or loops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from baralho.core.chance import Chance
from baralho.core.checks import check_seat
from baralho.core.config import ConfigError, check_player_count
from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.actions import DRAW, ELIMINATION, HAND_SIZE, OVER, PLAY, ROUNDS_PER_HAND
from baralho.envs.scala40.checks import check_invariants, reference_mask
from baralho.envs.scala40.mask import legal_mask
from baralho.envs.scala40.melds import (
    JOKER,
    NUM_KINDS,
    OPEN_MIN,
    extend_options,
    hand_bits,
    hand_penalty,
    joker_key,
    joker_standin,
    meld_cards,
    meld_value,
    parse_group,
    swap_joker,
)
from baralho.envs.scala40.observation import (
    DTYPE,
    PER_PLAYER_FIELDS,
    PUB_FIELDS,
    PUB_SIZE,
    STAGED_CAP,
    TOTAL_CAP,
    build_layout,
    fill_melds,
    has_hidden,
    head_block,
    head_offsets,
    head_size,
    meld_row,
    observe,
    pile_block,
    player_rows,
    pop_discard,
    progress_cells,
    push_discard,
    resample_hidden,
    stock_block,
    twice,
)
from baralho.envs.scala40.text import describe, render

ENV_ID = "scala40_v1"
# decisions in one turn: draw 1 + (13 selects + 13 commits) before an undo + undo 1
# + (13 selects + 13 commits/lay-offs) + 14 swaps + discard 1
MAX_TURN_DECISIONS = 1 + 26 + 1 + 26 + 14 + 1
_PLAY_PHASE = np.array([0, 1], DTYPE)         # the phase field during play
_OPENED_NOW = np.array([1, 0, 0], DTYPE)      # turn fields 2-4 once the opening is reached


@dataclass(frozen=True)
class Config:
    num_players: int = 2
    num_jokers: Literal[2, 4] = 2
    scope: Literal["match", "hand"] = "match"
    dealt_joker: Literal["take", "reshuffle"] = "take"
    taken_discard: Literal["free", "must_use"] = "free"
    turnover: Literal["unshuffled", "shuffled"] = "unshuffled"

    def __post_init__(self):
        check_player_count(ENV_ID, self.num_players, 2, 5)
        if self.num_jokers not in (2, 4):
            raise ConfigError(f"{ENV_ID}: num_jokers={self.num_jokers!r} must be 2 or 4")


@dataclass
class Scala40State:
    num_players: int
    hands: list          # per seat: count of each of the 53 kinds (free cards only)
    hand_size: list
    known: list          # per seat: cards publicly known to be in that hand
    discarded: list      # per seat: cards it has discarded this hand, by kind
    taken: list          # per seat: cards it has taken from the discard pile this hand, by kind
    stock: list          # top = last
    discard: list        # top = last
    melds: list          # meld tuples (see melds.py), in the order laid
    pending: list = field(default_factory=list)   # the meld being built (card kinds)
    player: int = 0
    phase: int = DRAW
    first: int = 0       # first to play (mão) this hand
    turn: int = 0        # index of the current turn in this hand
    turn_limit: int = 0  # turns this hand may last (ROUNDS_PER_HAND per player dealt in)
    opened: list = field(default_factory=list)
    was_open: bool = False      # the actor had opened before this turn
    staged: int = 0             # last `staged` melds are staged, not yet counted (opening not reached)
    staged_value: int = 0
    obligation: int = -1        # kind taken from the discard that must still be melded, or -1
    ob_used: bool = False       # (unopened) the obligation card is in a staged meld
    took: int = -1              # kind taken from the discard pile this turn
    undos: int = 1
    totals: list = field(default_factory=list)
    eliminated: list = field(default_factory=list)
    last_penalties: list = field(default_factory=list)
    hands_played: int = 0
    turnovers: int = 0
    stock_hidden: bool = True   # the stock's order is unknown (dealt, or shuffled at a turnover)
    winners: list = field(default_factory=list)
    returns: list = field(default_factory=list)
    # hidden chance (baralho.core.chance): later deals (match scope) and shuffled
    # turnovers draw from (seed, draws); None when nothing random is left to come
    seed: int | None = None
    draws: int = 0
    # ready-made observation pieces, kept in step with the lists above (observation.py)
    hand_f: np.ndarray | None = None      # [n, 53] hands
    # per seat: bit k set while the hand holds card kind k (k < 52), for the mask's meld arithmetic
    bits: list | None = None
    # per-player rows are stored twice (rows i and i + n, flat) so that every seat's
    # relative view is one contiguous slice
    known_f: np.ndarray | None = None     # [2n * 53] known cards
    discarded_f: np.ndarray | None = None  # [2n * 53] cards discarded this hand
    taken_f: np.ndarray | None = None     # [2n * 53] cards taken from the discard pile this hand
    players_f: np.ndarray | None = None   # [2n * 4] hand size, opened, eliminated, penalty total
    # the observation from `building` to `piles`, the same for every observer:
    # the turn fields (head_block), then `pub` (a view: melds, discard pile, stock, pile sizes)
    table: np.ndarray | None = None
    pub: np.ndarray | None = None

    def __getstate__(self) -> dict:
        # the observation pieces are derived data: pickles stay small and fast
        d = dict(self.__dict__)
        for name in _DERIVED:
            d[name] = None
        return d

    def __setstate__(self, d: dict) -> None:
        if "rng" in d:   # the format before hidden chance became (seed, draws)
            raise ValueError("scala40: this state was pickled by an older baralho (it holds a live 'rng'); "
                             "replay its record (seed + actions) instead")
        if "discarded" not in d:   # v0 states: no per-seat discard history
            raise ValueError("scala40: this state was pickled by scala40_v0 (no discard history); "
                             "replay its record (seed + actions) in scala40_v1 instead")
        self.__dict__.update(d)
        Scala40Game._sync(self)

    def __eq__(self, other: object) -> bool:
        # the game's fields; the observation pieces are derived from them (and numpy arrays)
        if not isinstance(other, Scala40State):
            return NotImplemented
        return all(v == other.__dict__.get(k) for k, v in self.__dict__.items() if k not in _DERIVED)

    def copy(self) -> Scala40State:
        # not copy.copy: that goes through __getstate__/__setstate__, which rebuild the
        # observation pieces (measured: 100 µs of a 120 µs copy)
        c = object.__new__(Scala40State)
        c.__dict__.update(self.__dict__)
        for name in ("hands", "known", "discarded", "taken"):
            setattr(c, name, [h[:] for h in getattr(self, name)])
        for name in ("hand_size", "bits", "stock", "discard", "melds", "pending", "opened", "totals",
                     "eliminated", "last_penalties", "winners", "returns"):
            setattr(c, name, getattr(self, name)[:])
        c.hand_f = self.hand_f.copy()
        c.known_f = self.known_f.copy()
        c.discarded_f = self.discarded_f.copy()
        c.taken_f = self.taken_f.copy()
        c.players_f = self.players_f.copy()
        c.table = self.table.copy()
        c.pub = c.table[-PUB_SIZE:]
        return c


_DERIVED = ("hand_f", "bits", "known_f", "discarded_f", "taken_f", "players_f", "table", "pub")


class Scala40Game:
    # terminal colours (render_mode="human"): red suits red, jokers magenta
    ansi_rules = ((r"(?:10|[2-9AJQK])?[♥♦]", "red"), (r"🃏|\bJK\b", "magenta"))
    env_id = ENV_ID

    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        n = self.num_players = self.config.num_players
        self.num_actions = A.NUM_ACTIONS
        self.obs_layout = build_layout(n)
        self.deck = [k for k in range(52)] * 2 + [JOKER] * self.config.num_jokers
        self.match = self.config.scope == "match"
        # hands per match: every finished hand adds >= 1 penalty point to some alive player
        max_hands = n * (ELIMINATION + 1) if self.match else 1
        self.max_decisions = max_hands * ROUNDS_PER_HAND * n * MAX_TURN_DECISIONS
        self._needs_seed = self.match or self.config.turnover == "shuffled"
        self._chance = Chance()
        self._deck_counts = np.array([2] * 52 + [self.config.num_jokers])
        self._scratch = np.zeros(head_size(n) + PUB_SIZE, DTYPE)  # check_invariants' fresh table
        fields = self.obs_layout.fields
        # the table block is copied in one slice: it must be exactly the layout's fields from
        # `building` to `piles` (a mismatch once wrote the pile sizes into the players' rows)
        if fields[PUB_FIELDS[-1]].stop - fields[PUB_FIELDS[0]].start != PUB_SIZE or \
                fields["building"].start != NUM_KINDS or \
                fields["players"].start != NUM_KINDS + head_size(n) + PUB_SIZE or \
                [f for f in fields if fields[f].start >= fields["players"].start] != list(PER_PLAYER_FIELDS) or \
                [fields[f].start - NUM_KINDS for f in ("to_act", "phase", "turn", "obligation", "progress", "place")] \
                != list(head_offsets(n)):
            raise AssertionError("scala40: the table block does not match the observation layout")
        # offsets of the turn fields inside s.table (apply keeps them up to date)
        _, self.h_phase, self.h_turn, self.h_obligation, self.h_progress, _ = head_offsets(n)
        # observation offsets as plain attributes (observe reads them every step)
        for name in ("to_act", "place"):
            setattr(self, "o_" + name, fields[name].start)

    # ------------------------------------------------------------------ deal
    def new_state(self, rng: np.random.Generator) -> Scala40State:
        n = self.num_players
        s = Scala40State(n, [], [], [], [], [], [], [], [], opened=[False] * n, totals=[0] * n,
                         eliminated=[False] * n, last_penalties=[0] * n, returns=[0.0] * n)
        if self._needs_seed:
            s.seed = int(rng.integers(2 ** 63))
        self._deal(s, rng, 0)
        return s

    def _deal(self, s: Scala40State, rng: np.random.Generator, first: int) -> None:
        n = self.num_players
        deck = [self.deck[i] for i in rng.permutation(len(self.deck))]
        s.hands = [[0] * NUM_KINDS for _ in range(n)]
        s.known = [[0] * NUM_KINDS for _ in range(n)]
        s.discarded = [[0] * NUM_KINDS for _ in range(n)]
        s.taken = [[0] * NUM_KINDS for _ in range(n)]
        s.hand_size = [0] * n
        for i in range(n):
            if s.eliminated[i]:
                continue
            for k in deck[-HAND_SIZE:]:
                s.hands[i][k] += 1
            del deck[-HAND_SIZE:]
            s.hand_size[i] = HAND_SIZE
        top = deck.pop()
        while top == JOKER and self.config.dealt_joker == "reshuffle":
            deck.append(top)
            deck = [deck[i] for i in rng.permutation(len(deck))]
            top = deck.pop()
        s.stock, s.discard, s.melds = deck, [top], []
        s.opened = [False] * n
        s.first = s.player = first
        s.turn = s.turnovers = 0
        s.turn_limit = ROUNDS_PER_HAND * self.alive(s)
        s.stock_hidden = True
        self._sync(s)
        self._start_turn(s)

    @staticmethod
    def _sync(s: Scala40State) -> None:
        """Rebuild the ready-made observation pieces from the state's lists."""
        s.hand_f = np.array(s.hands, DTYPE)
        s.bits = [hand_bits(h) for h in s.hands]
        s.known_f = twice(s.known)
        s.discarded_f = twice(s.discarded)
        s.taken_f = twice(s.taken)
        s.players_f = player_rows(s)
        h = head_size(s.num_players)
        s.table = np.zeros(h + PUB_SIZE, DTYPE)
        s.pub = s.table[h:]
        head_block(s.table[:h], s)
        fill_melds(s.pub, s.melds, s.staged)
        pile_block(s.pub, s.discard)
        stock_block(s.pub, s.stock, not s.stock_hidden)

    @staticmethod
    def _move(s: Scala40State, p: int, k: int, d: int) -> None:
        """Add ``d`` cards of kind ``k`` to player ``p``'s hand."""
        h = s.hands[p]
        c = h[k] = h[k] + d
        s.hand_f[p, k] = c
        if k != JOKER:
            s.bits[p] = s.bits[p] | 1 << k if c else s.bits[p] & ~(1 << k)
        size = s.hand_size[p] = s.hand_size[p] + d
        f = s.players_f
        f[4 * p] = f[4 * (p + s.num_players)] = size

    @staticmethod
    def _know(s: Scala40State, p: int, k: int, d: int) -> None:
        """``d`` more cards of kind ``k`` are publicly known to be in ``p``'s hand."""
        c = s.known[p][k] = s.known[p][k] + d
        s.known_f[NUM_KINDS * p + k] = s.known_f[NUM_KINDS * (p + s.num_players) + k] = c

    @staticmethod
    def _count(rows: list, flat: np.ndarray, n: int, p: int, k: int) -> None:
        """One more card of kind ``k`` in seat ``p``'s row of a per-seat history (discarded, taken)."""
        c = rows[p][k] = rows[p][k] + 1
        flat[NUM_KINDS * p + k] = flat[NUM_KINDS * (p + n) + k] = c

    @staticmethod
    def _forget(s: Scala40State, p: int, k: int) -> None:
        """A card of kind ``k`` was seen leaving ``p``'s hand."""
        if s.known[p][k]:
            Scala40Game._know(s, p, k, -1)

    def _oblige(self, s: Scala40State, k: int) -> None:
        """The card kind the actor must still meld this turn becomes ``k`` (-1: none)."""
        if s.obligation >= 0:
            s.table[self.h_obligation + s.obligation] = 0
        if k >= 0:
            s.table[self.h_obligation + k] = 1
        s.obligation = k

    @staticmethod
    def _clear_building(s: Scala40State) -> None:
        t = s.table
        for k in s.pending:
            t[k] = 0
        s.pending = []

    def _start_turn(self, s: Scala40State) -> None:
        self._clear_building(s)
        self._oblige(s, -1)
        s.phase = DRAW
        opened = s.was_open = s.opened[s.player]
        s.staged = s.staged_value = 0
        s.took = -1
        s.ob_used = False
        s.undos = 1
        ph = self.h_phase
        # phase (draw, play), then the turn fields (see head_block)
        s.table[ph:ph + 8] = (1, 0, s.turn >= s.eliminated.count(False), opened, 0, not opened, 0, 0)
        self._progress(s)

    def _progress(self, s: Scala40State) -> None:
        """The progress cells: turns played, turns left before the bound, stock turnovers."""
        progress_cells(s.table[self.h_progress:self.h_progress + 3], s)

    # ------------------------------------------------------------- protocol
    def current_player(self, s: Scala40State) -> int:
        return -1 if s.phase == OVER else s.player

    def is_over(self, s: Scala40State) -> bool:
        return s.phase == OVER

    def returns(self, s: Scala40State) -> np.ndarray:
        return np.array(s.returns, dtype=np.float64)

    def segment(self, s: Scala40State) -> int:
        """The hand being played: a search's rollout may stop where it ends and ask ``estimate``."""
        return s.hands_played

    def estimate(self, s: Scala40State) -> np.ndarray:
        """Each seat's expected return from ``s``: its returns once over; in a match, each live
        player wins with a chance proportional to the room left under the elimination line
        (``ELIMINATION + 1 - total``; the eliminated, none), the winner +1, the others
        ``-1 / (n - 1)`` (a **decision**, RULES.md: fitted on heuristic self-play)."""
        n = self.num_players
        out = np.array(s.returns, dtype=np.float64)
        if s.phase == OVER or not self.match:
            return out
        room = [0 if s.eliminated[i] else ELIMINATION + 1 - s.totals[i] for i in range(n)]
        total = sum(room)
        for i in range(n):
            out[i] += room[i] / total * n / (n - 1) - 1.0 / (n - 1)
        return out

    def alive(self, s: Scala40State) -> int:
        return s.eliminated.count(False)

    def closing_allowed(self, s: Scala40State) -> bool:
        """No one closes before every player has had one full turn."""
        return s.turn >= self.alive(s)

    # ----------------------------------------------------------------- mask
    # mask.legal_mask(game, s) is the method itself (no wrapper call on the hot path)
    legal_mask = legal_mask

    # ---------------------------------------------------------------- apply
    def apply(self, s: Scala40State, action: int):
        p = s.player
        if action == A.DRAW_STOCK:
            k = s.stock.pop()
            self._move(s, p, k, 1)
            if s.stock_hidden:
                s.pub[-2] = len(s.stock)
            else:  # the stock's order is public: everyone saw which card this was
                self._know(s, p, k, 1)
                stock_block(s.pub, s.stock, True)
            s.phase = PLAY
            s.table[self.h_phase:self.h_phase + 2] = _PLAY_PHASE
            return None
        if action == A.DRAW_DISCARD:
            k = pop_discard(s)
            self._move(s, p, k, 1)
            self._know(s, p, k, 1)
            self._count(s.taken, s.taken_f, s.num_players, p, k)
            s.took = k
            s.table[self.h_turn + 5] = 1
            if s.turn > 0 and (not s.opened[p] or self.config.taken_discard == "must_use"):
                self._oblige(s, k)
            s.phase = PLAY
            s.table[self.h_phase:self.h_phase + 2] = _PLAY_PHASE
            return None
        if action < A.COMMIT:  # select
            k = action - A.SELECT
            self._move(s, p, k, -1)
            self._forget(s, p, k)
            s.pending.append(k)
            s.table[k] += 1
            return None
        if action < A.EXTEND:  # commit a new meld
            opts = parse_group(s.pending)
            if action == A.COMMIT:
                m = max((o for o in opts if not o[4]), key=meld_value)
            else:
                m = next(o for o in opts if joker_key(o) == A.joker_target(action))
            self._lay(s, m, len(s.melds))
            if not s.opened[p]:
                s.staged += 1
                s.staged_value += meld_value(m)
                t = self.h_turn
                s.table[t + 4] = min(s.staged_value, STAGED_CAP)
                if s.obligation >= 0 and s.obligation in meld_cards(m):
                    s.ob_used = True
                if s.staged_value >= OPEN_MIN and (s.obligation < 0 or s.ob_used):
                    s.opened[p] = True
                    s.players_f[4 * p + 1] = s.players_f[4 * (p + s.num_players) + 1] = 1
                    s.staged = s.staged_value = 0
                    # opened this turn; no undo any more; nothing staged
                    s.table[t + 2:t + 5] = _OPENED_NOW
                    self._oblige(s, -1)
                    fill_melds(s.pub, s.melds, 0)
            return None
        if action < A.SWAP:  # lay off
            i = (action - A.EXTEND) % A.MAX_MELDS
            opts = extend_options(s.melds[i], s.pending)
            self._lay(s, opts[0] if action >= A.EXTEND_LOW else opts[-1], i)
            return None
        if action < A.UNDO:  # joker swap
            i = action - A.SWAP
            m = s.melds[i]
            k = joker_standin(m)
            self._move(s, p, k, -1)
            self._forget(s, p, k)
            self._move(s, p, JOKER, 1)
            self._know(s, p, JOKER, 1)
            s.melds[i] = swap_joker(m)
            meld_row(s.pub, i, s.melds[i], False)
            return None
        if action == A.UNDO:
            self._take_back(s)
            s.undos -= 1
            s.table[self.h_turn + 3] = 0
            return None
        # discard
        k = action - A.DISCARD
        self._move(s, p, k, -1)
        self._forget(s, p, k)
        self._count(s.discarded, s.discarded_f, s.num_players, p, k)
        push_discard(s, k)
        if s.hand_size[p] == 0:
            return self._end_hand(s, p, double=not s.was_open)
        if s.staged:  # the opening was not reached: the staged melds go back to the hand
            self._take_back(s)
        return self._next_turn(s)

    def _lay(self, s: Scala40State, m: tuple, i: int) -> None:
        """Put the meld being built on the table as meld ``i`` (new or extended)."""
        if s.obligation >= 0 and s.opened[s.player] and s.obligation in s.pending:
            self._oblige(s, -1)
        self._clear_building(s)
        if i == len(s.melds):
            s.melds.append(m)
        else:
            s.melds[i] = m
        meld_row(s.pub, i, m, not s.opened[s.player])

    def _take_back(self, s: Scala40State) -> None:
        """Return the staged melds and the meld being built to the hand (publicly seen)."""
        p = s.player
        cards = list(s.pending)
        for m in s.melds[len(s.melds) - s.staged:]:
            cards.extend(meld_cards(m))
        if s.staged:
            del s.melds[len(s.melds) - s.staged:]
        for k in cards:
            self._move(s, p, k, 1)
            self._know(s, p, k, 1)
        self._clear_building(s)
        s.staged = s.staged_value = 0
        s.table[self.h_turn + 4] = 0
        s.ob_used = False
        fill_melds(s.pub, s.melds, 0)

    def _next_turn(self, s: Scala40State):
        s.turn += 1
        if s.turn >= s.turn_limit:
            return self._end_hand(s, -1)
        n = self.num_players
        p = (s.player + 1) % n
        while s.eliminated[p]:
            p = (p + 1) % n
        s.player = p
        if not s.stock:
            self._turn_over(s)
            if not s.stock:
                return self._end_hand(s, -1)
        self._start_turn(s)
        return None

    def _turn_over(self, s: Scala40State) -> None:
        """The discard pile becomes the stock; its first card starts the new pile."""
        pile = s.discard
        if self.config.turnover == "shuffled":
            stock = [pile[i] for i in self._chance.next(s).permutation(len(pile))]
        else:
            stock = pile[::-1]  # turned face down: the old bottom card is the new top
        s.discard = [stock.pop()] if stock else []
        s.stock = stock
        s.turnovers += 1
        # unshuffled, everyone saw the pile go over: the stock's order is public from now on
        s.stock_hidden = self.config.turnover == "shuffled"
        pile_block(s.pub, s.discard)
        stock_block(s.pub, s.stock, not s.stock_hidden)

    def _end_hand(self, s: Scala40State, closer: int, double: bool = False):
        n = self.num_players
        pens = [0] * n
        for i in range(n):
            if i != closer and not s.eliminated[i]:
                pens[i] = hand_penalty(s.hands[i]) * (2 if double else 1)
        s.last_penalties = pens
        s.hands_played += 1
        s.players_f[3::4] = [min(t + x, TOTAL_CAP) for t, x in zip(s.totals, pens, strict=True)] * 2
        if not self.match:
            s.totals = [t + x for t, x in zip(s.totals, pens, strict=True)]
            r = [-x / 100.0 for x in pens]
            return self._finish(s, r)
        alive_before = [i for i in range(n) if not s.eliminated[i]]
        for i in alive_before:
            s.totals[i] += pens[i]
            if s.totals[i] > ELIMINATION:
                s.eliminated[i] = True
        alive = [i for i in range(n) if not s.eliminated[i]]
        if len(alive) >= 2:
            first = (s.first + 1) % n
            while s.eliminated[first]:
                first = (first + 1) % n
            self._deal(s, self._chance.next(s), first)
            return None
        if alive:
            winners = alive
        else:  # everyone left passed 100 in the same hand: the lowest total wins
            low = min(s.totals[i] for i in alive_before)
            winners = [i for i in alive_before if s.totals[i] == low]
        s.winners = winners
        k = len(winners)
        r = [(n - k) / (k * (n - 1)) if i in winners else -1.0 / (n - 1) for i in range(n)]
        return self._finish(s, r)

    def _finish(self, s: Scala40State, r: list) -> list:
        s.phase = OVER
        s.players_f[2::4] = s.eliminated * 2
        self._clear_building(s)
        s.table[self.h_phase:self.h_obligation + NUM_KINDS] = 0   # no phase, turn or obligation
        self._progress(s)
        s.returns = [a + b for a, b in zip(s.returns, r, strict=True)]
        return r

    # ---------------------------------------------------------- observation
    # observation.observe(game, s, player) is the method itself (hot path)
    observe = observe

    # -------------------------------------------------------- hidden state
    def has_hidden(self, s: Scala40State, player: int) -> bool:
        return has_hidden(s, check_seat(self, player))

    def resample_hidden(self, s: Scala40State, player: int, rng: np.random.Generator) -> Scala40State:
        return resample_hidden(self, s, check_seat(self, player), rng)

    # ----------------------------------------------------------- invariants
    # checks.check_invariants(game, s) (every cached observation piece rebuilt and compared)
    check_invariants = check_invariants

    # ----------------------------------------------------------------- text
    def describe_action(self, s: Scala40State, action: int) -> str:
        return describe(s, int(action))

    def render_text(self, s: Scala40State, player: int | None = None) -> str:
        return render(self, s, player)

    def render_image(self, s: Scala40State, player: int | None = None) -> np.ndarray:
        """The table as an RGB picture (needs Pillow)."""
        from baralho.envs.scala40.picture import render_image

        return render_image(self, s, player)

    def reference_legal_mask(self, s: Scala40State) -> np.ndarray:
        return reference_mask(self, s)
