"""A do-nothing game through the same adapter: the floor of every throughput
figure. Every action is legal, the observation is a fixed-size zero vector,
the game ends after ``length`` decisions with zero rewards. Not in ENV_IDS."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from baralho.core.aec import BaralhoEnv
from baralho.core.spaces import ObsLayout


@dataclass
class NullState:
    turn: int = 0
    num_players: int = 2

    def copy(self) -> NullState:
        return NullState(self.turn, self.num_players)


class NullGame:
    env_id = "null_v0"

    def __init__(self, num_players: int = 2, num_actions: int = 16, obs_size: int = 64, length: int = 100):
        self.config = None
        self.num_players = num_players
        self.num_actions = num_actions
        self.length = self.max_decisions = length
        self.obs_layout = ObsLayout()
        self.obs_layout.add("zeros", obs_size)
        self.obs_layout.freeze()
        self._mask = np.ones(num_actions, np.int8)

    def new_state(self, rng):
        return NullState(0, self.num_players)

    def current_player(self, s):
        return -1 if s.turn >= self.length else s.turn % self.num_players

    def legal_mask(self, s):
        return self._mask.copy()

    def apply(self, s, action):
        s.turn += 1
        return None

    def is_over(self, s):
        return s.turn >= self.length

    def returns(self, s):
        return np.zeros(self.num_players)

    def observe(self, s, player):
        return np.zeros(self.obs_layout.size, np.float32)

    def resample_hidden(self, s, player, rng):
        return s.copy()

    def has_hidden(self, s, player):
        return False

    def describe_action(self, s, action):
        return f"noop {action}"

    def render_text(self, s, player=None):
        return f"null game, turn {s.turn}/{self.length}"

    def check_invariants(self, s):
        assert 0 <= s.turn <= self.length


def null_env(**kwargs) -> BaralhoEnv:
    render_mode = kwargs.pop("render_mode", None)
    return BaralhoEnv(NullGame(**kwargs), render_mode=render_mode)
