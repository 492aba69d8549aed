"""Rodízio v1 observations: the public facts a seat-shared policy needs to tell positions apart."""

from __future__ import annotations

import numpy as np

import baralho
from baralho.envs.rodizio import cards as C
from tests.rodizio.test_rules import game, table

P = C.PLAQUINHA


def test_observation_is_int16_and_in_its_box():
    env = baralho.make("rodizio_v1", num_players=4, max_rounds=1000)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.dtype == np.int16 and env.observation_space("player_0")["observation"].contains(obs)


def test_the_observer_knows_its_place_in_the_turn_order():
    """At the last round the same table is a last move for the last seat and not for the first:
    the two must observe differently (v0 gave them the same vector)."""
    g = game(num_players=3, max_rounds=5)
    stacks = [[16, 14, 12, 11, 10], [9, P, 8, 7, 6], [5, 4, 3, 2, 1]]
    first = table(g, stacks, round=4, seat=0)
    last = table(g, stacks, round=4, seat=2)
    a, b = g.observe(first, 0), g.observe(last, 2)
    assert not np.array_equal(a, b)
    la, lb = g.obs_layout.decode(a), g.obs_layout.decode(b)
    assert la["position"].tolist() == [1, 0, 0] and lb["position"].tolist() == [0, 0, 1]
    assert la["rounds_left"][0] == lb["rounds_left"][0] == 1
    # and what the move does differs: the last seat's serve ends the game, the first one's does not
    g.apply(last, int(np.flatnonzero(g.legal_mask(last))[0]))
    g.apply(first, int(np.flatnonzero(g.legal_mask(first))[0]))
    assert g.is_over(last) and not g.is_over(first)


def test_rounds_left_counts_down_to_the_bound():
    g = game(num_players=2, max_rounds=7)
    s = g.new_state(np.random.default_rng(3))
    obs = g.obs_layout.decode(g.observe(s, 0))
    assert obs["round"][0] == 0 and obs["rounds_left"][0] == 7


def test_the_comilao_flag_tells_2_player_tables_from_3_player_ones():
    """With 2 players the last eater row is the Comilão's, with 3 a player's: same size, other meaning."""
    two, three = game(num_players=2), game(num_players=3)
    f2 = two.obs_layout.decode(two.observe(two.new_state(np.random.default_rng(0)), 0))["flags"]
    f3 = three.obs_layout.decode(three.observe(three.new_state(np.random.default_rng(0)), 0))["flags"]
    assert f2.tolist() == [0, 1, 1] and f3.tolist() == [0, 1, 0]
