"""The baseline: it reads only its observation, beats random play, and calls every sambista."""

from __future__ import annotations

import collections

import numpy as np

import baralho
from baralho.envs.roda_de_samba.actions import PH_DISCARD
from baralho.envs.roda_de_samba.heuristic import RodaDeSambaHeuristic

from .helpers import check, do, game_for, sambista, table


def play(n, heuristic_seats, seed):
    # the reference engine: the tests read the final state's fields (winners, called)
    env = baralho.make("roda_de_samba_v1", num_players=n, engine="reference")
    env.reset(seed=seed)
    game = env.unwrapped.game
    bots = {f"player_{i}": RodaDeSambaHeuristic(game, seed=seed + i) for i in heuristic_seats}
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent in bots:
            env.step(bots[agent].act(obs, agent))
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    return game, env.unwrapped.game_state


def test_heuristic_beats_random_play_clearly():
    wins = 0
    for seed in range(30):
        game, s = play(2, heuristic_seats=[seed % 2], seed=seed)
        wins += (seed % 2) in game.winners(s)
    assert wins >= 25, wins


def test_heuristic_calls_every_sambista_in_some_games():
    called = collections.Counter()
    for seed in range(12):
        game, s = play(2, heuristic_seats=[0, 1], seed=100 + seed)
        for p in range(2):
            called.update(s.called[p])
    names = [sb.name for sb in game.deck.sambistas]
    never = [names[i] for i in range(len(names)) if called[i] == 0]
    assert not never, f"never called: {never}"


def test_heuristic_acts_on_the_observation_alone():
    """Two states that look the same to the player get the same move."""
    env = baralho.make("roda_de_samba_v1", num_players=3)
    env.reset(seed=5)
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    checked = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        p = int(agent.split("_")[1])
        twin = game.resample_hidden(env.unwrapped.game_state, p, rng)
        obs2 = {"observation": game.observe(twin, p), "action_mask": game.legal_mask(twin)}
        a = RodaDeSambaHeuristic(game, seed=1).act(obs, agent)
        assert RodaDeSambaHeuristic(game, seed=1).act(obs2, agent) == a
        checked += 1
        env.step(a)
    assert checked > 30


def test_heuristic_reserves_the_known_sambista_deck_top_when_it_is_the_best_one():
    g = game_for()
    s = table(g, hands={0: ["malandro"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD,
              rodas={0: {1: ["violao 1"], 3: ["cavaquinho 1"]}},  # Cartola's violao ?corda: met
              row=["Pixinguinha", "Monarco", "Tia Ciata", "Heitor dos Prazeres"], samb_deck=["Cartola"])
    s.samb_top_known = True  # as after a malandro swap with the deck top
    s.obs = g.encoder.rebuild(s)
    check(g, s)
    do(g, s, "discard a malandro onto the mao pile")
    obs = {"observation": g.observe(s, 0), "action_mask": g.legal_mask(s)}
    assert RodaDeSambaHeuristic(g, seed=0).act(obs, "player_0") == g.A_RESERVE_TOP
    do(g, s, "reserve the sambista deck top")
    assert s.reserved[0] == sambista(g, "Cartola")
