"""Rodízio's rules engine: a small sowing game where the SECOND highest total wins.

The reference engine: plain Python over a :class:`RodizioState`, written to be
read beside RULES.md (every rule, the test that checks it, each decision). The
compiled engine, ``fast.py``, plays the same game over arrays.

Vocabulary: three *plates* (pratos) each hold a *stack* of cards; a turn
*serves* a plate (distribuir: its whole stack is dealt, top card first, one
card onto each plate clockwise starting with the next) and then *eats* a pizza
(comer). The *plaquinha* card blocks plates. With two players the *Comilão*,
an automatic eater, plays after them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from baralho.core.checks import check_seat
from baralho.core.config import ConfigError, check_player_count
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio import checks, observation, text
from baralho.envs.rodizio.actions import EAT, MAX_STACK, NUM_ACTIONS, SERVE, describe_action

ENV_ID = "rodizio_v1"
MIN_PLAYERS, MAX_PLAYERS = 2, 5  # the player counts a Config accepts (fast.py sizes its records by the most)
__all__ = ["EAT", "ENV_ID", "MAX_PLAYERS", "MAX_STACK", "MIN_PLAYERS", "NUM_ACTIONS", "SERVE", "Config", "RodizioGame",
           "RodizioState"]


@dataclass(frozen=True)
class Config:
    """Rodízio options (see the env docstring)."""

    num_players: int = 2
    spicy: bool = False
    memory: Literal["perfect", "none"] = "perfect"
    max_rounds: int = 30

    def __post_init__(self) -> None:
        check_player_count(ENV_ID, self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if not 1 <= self.max_rounds <= 1000:
            raise ConfigError(f"{ENV_ID}: max_rounds={self.max_rounds} must be in 1..1000")


@dataclass
class RodizioState:
    stacks: list[list[int]]          # per plate, bottom -> top card ids
    plates: list[int]                # the 3 pizza cards lying plate-side up (never eaten)
    eaten: list[list[int]]           # per eater, in the order eaten: players 0..n-1, then the Comilão
    totals: list[int]                # pizza value eaten, per eater
    seat: int = 0                    # the player to act
    round: int = 0                   # completed rounds (every player, then the Comilão)
    pending: int = -1                # plate awaiting an Escolha Livre choice, else -1
    over: bool = False
    final: list[float] = field(default_factory=list)  # rewards, set at the end

    def copy(self) -> RodizioState:
        return RodizioState([s[:] for s in self.stacks], self.plates[:], [e[:] for e in self.eaten],
                            self.totals[:], self.seat, self.round, self.pending, self.over, self.final[:])


class RodizioGame:
    """The Game protocol for Rodízio under one :class:`Config`."""

    env_id = ENV_ID
    num_actions = NUM_ACTIONS
    ansi_rules = text.ANSI_RULES

    def __init__(self, config: Config) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.comilao = n == 2
        self.num_eaters = n + self.comilao
        self.spicy = config.spicy
        self.perfect_memory = config.memory == "perfect"
        self.max_rounds = config.max_rounds
        # per round: every seat serves once, an Escolha Livre adds one choice
        self.max_decisions = 2 * n * config.max_rounds
        self.obs_layout = observation.build_layout(n, self.num_eaters, config.max_rounds)

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: np.random.Generator) -> RodizioState:
        pizzas = rng.permutation(C.NUM_PIZZAS).tolist()
        # The seed draws 3 random cards for plates and swaps out the plaquinha:
        # the same as drawing 3 random pizzas; the plaquinha then lies at a
        # uniform position among the 15 centre cards.
        plates, centre = pizzas[:3], pizzas[3:]
        centre.insert(int(rng.integers(C.CENTRE_CARDS)), C.PLAQUINHA)
        stacks: list[list[int]] = [[] for _ in range(C.NUM_PLATES)]
        pos = 0
        for col, size in enumerate(C.COLUMNS):   # columns 2k, 2k+1 lie in front of plate k
            stacks[col // 2].extend(centre[pos:pos + size])
            pos += size
        e = self.num_eaters
        return RodizioState(stacks, plates, [[] for _ in range(e)], [0] * e)

    def position(self, stacks: list[list[int]], eaten: list[list[int]] | None = None, seat: int = 0,
                 round: int = 0, pending: int = -1) -> RodizioState:
        """A hand-built table (for tests and analysis): card ids, stacks bottom -> top.

        The pizzas used nowhere become the 3 plates; there must be exactly 3."""
        eaten = [list(e) for e in eaten] if eaten else [[] for _ in range(self.num_eaters)]
        if len(eaten) != self.num_eaters or len(stacks) != C.NUM_PLATES:
            raise ValueError(f"need {C.NUM_PLATES} stacks and {self.num_eaters} piles")
        used = [c for st in stacks for c in st] + [c for e in eaten for c in e]
        plates = [c for c in range(C.NUM_PIZZAS) if c not in used]
        if len(plates) != C.NUM_PLATES or len(set(used)) != len(used):
            raise ValueError(f"every card once, 3 left for the plates; left: {plates}")
        st = RodizioState([list(x) for x in stacks], plates, eaten,
                          [sum(C.VALUE[c] for c in e) for e in eaten], seat, round, pending)
        self.check_invariants(st)
        return st

    # ------------------------------------------------------------------ queries
    def current_player(self, s: RodizioState) -> int:
        return -1 if s.over else s.seat

    def is_over(self, s: RodizioState) -> bool:
        return s.over

    def returns(self, s: RodizioState) -> np.ndarray:
        return np.array(s.final if s.over else [0.0] * self.num_players, dtype=np.float64)

    def servable(self, s: RodizioState) -> list[int]:
        """Plates a player may serve: not empty, not topped by the plaquinha.

        Decision: if no plate qualifies (the only non-empty plate is topped by
        the plaquinha), that plate may be served."""
        ok = [p for p, st in enumerate(s.stacks) if st and st[-1] != C.PLAQUINHA]
        return ok or [p for p, st in enumerate(s.stacks) if st]

    def choosable_depths(self, s: RodizioState, plate: int) -> list[int]:
        """Escolha Livre: the depths (0 = top) of the pizzas on ``plate``."""
        stack = s.stacks[plate]
        return [d for d in range(len(stack)) if stack[-1 - d] != C.PLAQUINHA]

    def legal_mask(self, s: RodizioState) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if s.over:
            return mask
        if s.pending >= 0:
            for d in self.choosable_depths(s, s.pending):
                mask[EAT + d] = 1
        else:
            for p in self.servable(s):
                mask[SERVE + p] = 1
        return mask

    # ------------------------------------------------------------------ play
    def apply(self, s: RodizioState, action: int) -> list[float] | None:
        self._player_move(s, action)
        if s.pending >= 0:
            return None                      # the same player now chooses what to eat
        return self._end_turn(s)

    def _player_move(self, s: RodizioState, action: int) -> None:
        if s.pending >= 0:                   # the Escolha Livre choice
            self._eat(s, s.seat, s.pending, action - EAT)
            s.pending = -1
        else:
            self._serve(s, action, s.seat)

    def _end_turn(self, s: RodizioState) -> list[float] | None:
        if not s.over:
            s.seat += 1
            if s.seat == self.num_players:
                if self.comilao:
                    self._comilao_turn(s)
                s.seat = 0
                if not s.over:
                    s.round += 1
                    if s.round >= self.max_rounds:
                        s.over = True        # the turn bound: score as usual
        if s.over:
            s.final = self.final_rewards(s)
            return s.final
        return None

    def _deal(self, s: RodizioState, plate: int) -> tuple[list[int], int]:
        """Deal the stack of ``plate``, top card first, one card onto each plate
        clockwise from the next one. Returns the dealt cards (bottom -> top) and
        the plate the last card landed on."""
        hand = s.stacks[plate]
        s.stacks[plate] = []
        q = plate
        for card in reversed(hand):
            q = (q + 1) % C.NUM_PLATES
            s.stacks[q].append(card)
        return hand, q

    def _serve(self, s: RodizioState, plate: int, player: int) -> None:
        """A player's turn: deal ``plate``, then eat by the last card dealt."""
        hand, q = self._deal(s, plate)
        if C.PLAQUINHA in hand:
            return                           # the plaquinha was in the plate: no pizza
        last = hand[0]                       # the bottom card is dealt last, onto plate q
        pepper = C.PEPPER[last] if self.spicy else C.NONE
        if pepper == C.LIVRE:
            depths = self.choosable_depths(s, q)
            if len(depths) == 1:             # decision: a single choice is taken at once
                self._eat(s, player, q, depths[0])
            elif depths:
                s.pending = q
        else:
            self._eat_below(s, player, q)
            if pepper == C.DUPLA and not s.over:
                self._eat_below(s, player, q)

    def _comilao_turn(self, s: RodizioState) -> None:
        """The Comilão serves the plate holding the plaquinha and eats one pizza by
        the normal rule: no pepper action, and the plaquinha in the stack does not
        stop it ("Em seguida, ele 'come' uma pizza")."""
        plate = next(p for p, st in enumerate(s.stacks) if C.PLAQUINHA in st)
        _, q = self._deal(s, plate)
        self._eat_below(s, self.num_players, q)

    def describe_automatic(self, s: RodizioState, action: int) -> list[tuple[str, str]]:
        """(who, move) for what the Comilão does inside ``apply(s, action)`` (``baralho
        play`` narrates it: it is no agent); [] when it does not play. ``s`` is not changed."""
        if not self.comilao or s.seat != self.num_players - 1:
            return []
        t = s.copy()
        self._player_move(t, action)
        if t.pending >= 0 or t.over:
            return []                        # an Escolha Livre to choose, or the game ended first
        plate = next(p for p, st in enumerate(t.stacks) if C.PLAQUINHA in st)
        served, pile = len(t.stacks[plate]), len(t.eaten[-1])
        self._comilao_turn(t)
        ate = (f"and eat {C.card_name(t.eaten[-1][-1])} (total {t.totals[-1]})" if len(t.eaten[-1]) > pile
               else "and eat nothing (the plaquinha is below)")
        return [(self.eater_name(self.num_players), f"serve plate {plate} ({served} card{'s' * (served != 1)}) {ate}")]

    def _eat_below(self, s: RodizioState, eater: int, q: int) -> None:
        """The normal rule on plate q, whose top is the last card dealt: eat the
        card just below it, or the card itself when it is alone. Decision: the
        plaquinha is never eaten (nothing happens instead)."""
        stack = s.stacks[q]
        depth = 1 if len(stack) >= 2 else 0
        if stack and stack[-1 - depth] != C.PLAQUINHA:
            self._eat(s, eater, q, depth)

    def _eat(self, s: RodizioState, eater: int, q: int, depth: int) -> None:
        """``eater`` eats the card at ``depth`` (0 = top) of plate ``q``; the game
        ends when 3 cards remain in the centre."""
        stack = s.stacks[q]
        card = stack.pop(len(stack) - 1 - depth)
        s.eaten[eater].append(card)
        s.totals[eater] += C.VALUE[card]
        if sum(len(st) for st in s.stacks) <= C.END_CENTRE:
            s.over = True

    # ------------------------------------------------------------------ end
    def final_rewards(self, s: RodizioState) -> list[float]:
        """+1 to each player with the second highest total (distinct totals), −1 to the rest."""
        winners = self.winners(s.totals)
        return [1.0 if i in winners else -1.0 for i in range(self.num_players)]

    def winners(self, totals: list[int]) -> set[int]:
        distinct = sorted(set(totals), reverse=True)
        if len(distinct) < 2:
            return set()                     # decision: everyone equal, no second total
        second = distinct[1]
        if self.comilao and totals[self.num_players] == second:
            return set()                     # the Comilão holds the second total: everyone loses
        return {i for i in range(self.num_players) if totals[i] == second}

    # ------------------------------------------------------------------ views
    def observe(self, s: RodizioState, player: int) -> np.ndarray:
        if type(player) is not int or not 0 <= player < self.num_players:   # a seat, or a clear error
            player = check_seat(self, player)
        return observation.observe(self, s, player)

    def has_hidden(self, s: RodizioState, player: int) -> bool:
        check_seat(self, player)
        # The plate cards lie pizza side down: which pizza is under which plate is
        # never seen, so something is always hidden.
        return True

    def resample_hidden(self, s: RodizioState, player: int, rng: np.random.Generator) -> RodizioState:
        return observation.resample_hidden(self, s, check_seat(self, player), rng)

    def describe_action(self, s: RodizioState, action: int) -> str:
        return describe_action(s, action)

    def eater_name(self, w: int) -> str:
        return text.eater_name(self, w)

    def render_text(self, s: RodizioState, player: int | None = None) -> str:
        return text.render_text(self, s, player)

    def render_image(self, s: RodizioState, player: int | None = None) -> np.ndarray:
        """The table as an RGB picture (needs Pillow)."""
        from baralho.envs.rodizio.picture import render_image

        return render_image(self, s, player)

    def check_invariants(self, s: RodizioState) -> None:
        checks.check_invariants(self, s)
