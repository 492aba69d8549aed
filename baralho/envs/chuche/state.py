"""Chuche's config and state (the engine is in rules.py)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Literal

from baralho.core.config import ConfigError, check_player_count

ENV_ID = "chuche_v1"


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
    pub: array                         # public observation part (float32), absolute seats

    def copy(self) -> ChucheState:
        return ChucheState(
            self.colours, self.in_play, self.back,
            [h[:] for h in self.hands], self.stock[:], self.table[:], self.owner[:],
            [p[:] for p in self.piles], self.discard[:], self.chuche_deck[:],
            [h[:] for h in self.held], [u[:] for u in self.used],
            self.turn, self.actor, self.phase, self.chuche_played, self.cap_card,
            self.cap_sel[:], self.cap_sum, self.queue[:], self.cont, self.bomba_hits,
            self.scores[:], self.rounds_played, self.decisions, self.round_decisions,
            self.over, self.rets[:], self.seed, self.draws, self.nfree, self.pub[:])
