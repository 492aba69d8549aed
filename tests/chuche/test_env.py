"""The AEC env: out-of-turn selection, hidden information, bounds, bad input, views, baseline."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.core.config import ConfigError
from baralho.envs import chuche_v1
from baralho.envs.chuche.actions import A_ADD, A_CAPTURE, A_COMMIT, A_ESCUDO, A_PASS, A_ROUBAR
from baralho.envs.chuche.cards import FRONT, KIND
from baralho.envs.chuche.heuristic import ChucheHeuristic
from baralho.envs.chuche.rules import ChucheGame, Config

from .helpers import AM, AZ, LA, VD, VM, card, chuche, play, position


def _env_at(game_state, **cfg):
    game, s = game_state
    env = chuche_v1.env(engine="reference", **cfg)   # s is a reference state
    env.reset(seed=0)
    env.unwrapped.game_state = s
    env.unwrapped._acting = game.current_player(s)
    env.unwrapped._mask = None
    env.unwrapped.agent_selection = f"player_{s.actor}"
    return env


def test_agent_selection_moves_to_the_reactor_and_back():
    stock = [card(AZ, 1), card(AZ, 2), card(AZ, 3)]
    env = _env_at(position(3, hands=[[card(VM, 1)], [card(LA, 1)], [card(AM, 1)]], table=[card(VD, 6)],
                           stock=stock, target=10, held=[chuche(roubar=1), chuche(bloqueio=1), chuche(escudo=1)]),
                  num_players=3)
    env.step(A_ROUBAR + 1)                            # Roubar seat 2, who holds an Escudo
    assert env.agent_selection == "player_2"
    assert set(np.flatnonzero(env.observe("player_2")["action_mask"])) == {A_ESCUDO, A_PASS}
    assert not env.observe("player_0")["action_mask"].any()
    env.step(A_PASS)                                  # the card reaches the table: Bloqueio window
    assert env.agent_selection == "player_1"
    env.step(A_PASS)
    assert env.agent_selection == "player_0"


def test_observation_hides_other_fronts_and_the_stock_order_but_shows_backs():
    a, b = card(LA, 1), card(LA, 2)
    stock = [card(AM, 1), card(AM, 2), card(AM, 3)]
    g1, s1 = position(hands=[[card(VM, 1)], [a]], table=[card(VD, 6)], stock=stock, target=9,
                      backs={a: 8, b: 8})
    g2, s2 = position(hands=[[card(VM, 1)], [b]], table=[card(VD, 6)], stock=[stock[1], stock[0], stock[2]],
                      target=9, backs={a: 8, b: 8})
    np.testing.assert_array_equal(g1.observe(s1, 0), g2.observe(s2, 0))
    assert not np.array_equal(g1.observe(s1, 1), g2.observe(s2, 1))
    f = g1.obs_layout.decode(g1.observe(s1, 0))
    assert f["hand_backs"][1].tolist() == [0, 0, 1, 0, 0]       # seat 1's back: 8
    assert f["hand"][0].any() and not f["hand"][1:].any()


def test_resample_redraws_fronts_consistent_with_public_backs_and_target():
    game = ChucheGame(Config(num_players=3))
    rng = np.random.default_rng(4)
    s = game.new_state(rng)
    for _ in range(20):
        game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
    r = game.resample_hidden(s, 0, rng)
    assert r.hands[0] == s.hands[0] and r.table == s.table
    for q in (1, 2):
        assert sorted(s.back[c] for c in r.hands[q]) == sorted(s.back[c] for c in s.hands[q])
    assert game.target(r) == game.target(s)
    assert (r.seed, r.draws) != (s.seed, s.draws)


def test_episode_bounds():
    """Per round <= 6N + 12 decisions; per match max_rounds of those; a capture is at most
    2 + (table size) decisions of the turn player."""
    for n, cards in [(2, 36), (4, 45), (6, 54)]:
        game = ChucheGame(Config(num_players=n))
        assert game.round_bound == 6 * cards + 12 and game.max_decisions == 20 * game.round_bound
    game = ChucheGame(Config(num_players=2, max_rounds=3))
    rng = np.random.default_rng(8)
    for _ in range(10):
        s = game.new_state(rng)
        while not game.is_over(s):
            game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
            assert s.round_decisions <= game.round_bound and s.decisions <= game.max_decisions
        assert s.rounds_played <= 3
    ones = [card(c, 1, k) for c in (LA, AM, VD) for k in (0, 1)] + [card(VM, 1, 1)]
    game, s = position(hands=[[card(VM, 1)], [card(LA, 2)]], table=ones, stock=[card(AM, 6)], target=8)
    play(game, s, A_CAPTURE)
    steps = 1
    while s.turn == 0:
        legal = np.flatnonzero(game.legal_mask(s))
        play(game, s, int(legal[0]))
        steps += 1
    assert steps == 2 + 7                              # start, 7 adds (1 + 7 ones = 8), commit


def test_bad_configs_raise():
    for bad in [dict(num_players=1), dict(num_players=7), dict(scope="game"), dict(place_rule="always"),
                dict(max_rounds=0), dict(max_rounds=True), dict(colours=4)]:
        with pytest.raises(ConfigError):
            baralho.make("chuche_v1", **bad)


def test_corrupted_states_fail_invariants():
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]], table=[card(AM, 6)], stock=[card(VD, 1)], target=9)
    bad = s.copy()
    bad.table.append(card(VM, 1))
    with pytest.raises(AssertionError):
        game.check_invariants(bad)
    bad = s.copy()
    bad.held[0][0] += 1
    with pytest.raises(AssertionError):
        game.check_invariants(bad)
    bad = s.copy()
    bad.nfree += 1
    with pytest.raises(AssertionError):
        game.check_invariants(bad)
    bad = s.copy()
    bad.must_use = KIND[card(AM, 6)]                   # an obligation without an Escudo played
    with pytest.raises(AssertionError):
        game.check_invariants(bad)


def test_describe_and_render():
    game, s = position(hands=[[card(VM, 3)], [card(LA, 1)]], table=[card(AM, 4)], stock=[card(VD, 1)], target=7)
    assert game.describe_action(s, A_CAPTURE) == "capture with 3Vm"
    play(game, s, A_CAPTURE)
    assert game.describe_action(s, A_ADD + KIND[card(AM, 4)]) == "add 4Am to the capture"
    play(game, s, A_ADD + KIND[card(AM, 4)])
    assert game.describe_action(s, A_COMMIT) == "commit 3Vm + 4Am = 7"
    text = game.render_text(s, 1)
    assert "backs" in text and "3Vm" in text and "1La" in text
    assert "1Vd" not in game.render_text(s, 0) and "1Vd" in game.render_text(s, None)


def test_heuristic_beats_random_play():
    game = ChucheGame(Config(num_players=2))
    h = ChucheHeuristic(game, seed=0)
    rng = np.random.default_rng(1)
    wins, games = 0, 30
    for g in range(games):
        s = game.new_state(rng)
        seat = g % 2
        while not game.is_over(s):
            p, mask = game.current_player(s), game.legal_mask(s)
            if p == seat:
                a = h.act({"observation": game.observe(s, p), "action_mask": mask}, f"player_{p}")
            else:
                a = int(rng.choice(np.flatnonzero(mask)))
            assert mask[a]
            game.apply(s, a)
        wins += s.rets[seat] > 0
    assert wins >= 20, wins


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_whole_matches_at_every_player_count(n):
    """The conformance suite fuzzes match scope at 2 players; here a few whole matches
    at the other counts, with invariants, the reference mask and the match end."""
    game = ChucheGame(Config(num_players=n))
    rng = np.random.default_rng(n)
    for _ in range(3):
        s = game.new_state(rng)
        k = 0
        while not game.is_over(s):
            mask = game.legal_mask(s)
            if k % 7 == 0:
                game.check_invariants(s)
                np.testing.assert_array_equal(mask, game.reference_legal_mask(s))
            game.apply(s, int(rng.choice(np.flatnonzero(mask))))
            k += 1
        game.check_invariants(s)
        best = max(s.scores)
        assert (best >= game.goal and s.scores.count(best) == 1) or s.rounds_played == game.max_rounds
        assert s.decisions <= game.max_decisions


def test_the_capture_being_built_is_public_and_kept_by_resampling():
    game, s = position(hands=[[card(VM, 3), card(LA, 1)], [card(AM, 1)]], table=[card(AM, 4)],
                       stock=[card(VD, 1), card(VD, 2)], target=7)
    play(game, s, A_CAPTURE)                           # slot 0 is 3Vm (hands are sorted by id)
    f = game.obs_layout.decode(game.observe(s, 1))
    assert f["capture_card"].any() and f["capture_sum"][0] == FRONT[s.cap_card]
    r = game.resample_hidden(s, 1, np.random.default_rng(0))
    assert r.cap_card == s.cap_card
    np.testing.assert_array_equal(game.legal_mask(r), game.legal_mask(s))
