"""The v1 observation: an integer dtype with exact bounds, and every public thing that
changes what happens next (two such positions give the player to act different observations)."""

from __future__ import annotations

import numpy as np

from baralho.envs.chuche.actions import A_BOMBA, A_PLACE, A_UNBLOCK
from baralho.envs.chuche.cards import ESCUDO, KIND, ROUBAR
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND
from baralho.envs.chuche.rules import ChucheGame, Config

from .helpers import AM, AZ, LA, VD, VM, card, chuche, play, position

STOCK = [card(VD, 1), card(VD, 2), card(VD, 3)]


def _obs(game, s):
    return game.observe(s, game.current_player(s))


def _differ(a, b) -> None:
    """The players to act in positions ``a`` and ``b`` see them differently."""
    (ga, sa), (gb, sb) = a, b
    assert not np.array_equal(_obs(ga, sa), _obs(gb, sb))


def test_observation_is_int16_with_bounds_that_hold_a_whole_match():
    for n in (2, 6):
        game = ChucheGame(Config(num_players=n, max_rounds=200))
        L = game.obs_layout
        assert L.dtype == np.int16 and L.box().dtype == np.int16
        # one round gives one player at most every card's points and all 12 Chuche cards at 4
        per_round = 29 + 12 * (game.num_colours - 1) + 48
        assert L.fields["round_points"].high == per_round
        assert L.fields["scores"].high == 200 * per_round <= np.iinfo(np.int16).max
    game = ChucheGame(Config(num_players=3))
    s = game.new_state(np.random.default_rng(0))
    o = game.observe(s, 0)
    assert o.dtype == np.int16 and game.obs_layout.box().contains(o)


def test_used_chuche_cards_by_type_tell_what_is_left_in_the_chuche_deck():
    """Seat 1 used a Roubar, or an Escudo: the same count won, a different Chuche deck."""
    hands = [[card(VM, 1)], [card(LA, 1)]]
    a = position(hands=hands, table=[card(AM, 6)], stock=STOCK, target=10, used=[chuche(), chuche(roubar=1)])
    b = position(hands=hands, table=[card(AM, 6)], stock=STOCK, target=10, used=[chuche(), chuche(escudo=1)])
    _differ(a, b)
    f = a[0].obs_layout.decode(_obs(*a))
    assert f["chuche_used"][1, ROUBAR] == 1 and f["chuche_used"][1, ESCUDO] == 0


def test_the_observers_place_in_the_rounds_turn_order():
    """The same table seen by the round's first player or by the second (who starts the next round)."""
    x, y = card(VM, 1), card(LA, 1)
    a = position(hands=[[x], [y]], table=[card(AM, 6)], stock=STOCK, target=10, turn=0)
    b = position(hands=[[y], [x]], table=[card(AM, 6)], stock=STOCK, target=10, turn=1)
    _differ(a, b)
    assert a[0].obs_layout.decode(_obs(*a))["turn_order"].tolist() == [0, 1]
    assert b[0].obs_layout.decode(_obs(*b))["turn_order"].tolist() == [1, 0]
    game, s = position(3, hands=[[x], [y], [card(AM, 1)]], stock=STOCK, target=10, turn=2, rounds_played=1)
    assert game.obs_layout.decode(game.observe(s, 2))["turn_order"].tolist() == [1, 2, 0]   # seat 1 first


def test_rounds_left_before_the_match_cap():
    a = position(hands=[[card(VM, 1)], [card(LA, 1)]], stock=STOCK, target=10, rounds_played=2, max_rounds=3)
    b = position(hands=[[card(VM, 1)], [card(LA, 1)]], stock=STOCK, target=10, rounds_played=2, max_rounds=20)
    _differ(a, b)
    assert a[0].obs_layout.decode(_obs(*a))["rounds_left"][0] == 1
    assert b[0].obs_layout.decode(_obs(*b))["rounds_left"][0] == 18
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]], stock=STOCK, target=10, scope="round")
    assert game.obs_layout.decode(game.observe(s, 0))["rounds_left"][0] == 1


def test_the_card_an_escudo_unblocked_is_in_the_observation_until_added():
    red5 = card(VM, 5)
    game, s = position(hands=[[card(LA, 2)], [card(AM, 1)]], table=[red5, card(AM, 5)], stock=STOCK, target=7,
                       owner={red5: 1}, held=[chuche(escudo=1), chuche()])
    play(game, s, A_UNBLOCK + KIND[red5])
    free = s.copy()
    free.must_use = -1                                   # the same table without the obligation
    _differ((game, s), (game, free))
    assert game.obs_layout.decode(_obs(game, s))["must_use"][KIND[red5]] == 1


def test_in_a_bloqueio_window_whether_the_turn_ends_after_it():
    game, s = position(3, hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)], [card(AM, 1)]],
                       table=[card(AZ, 6)], stock=STOCK, target=10, held=[chuche(), chuche(bloqueio=1), chuche()])
    play(game, s, A_PLACE)
    assert s.phase == BLOQ_WINDOW
    goes_on = s.copy()
    goes_on.cont = 0                                     # as after a Roubar: the turn player plays on
    _differ((game, s), (game, goes_on))
    assert game.obs_layout.decode(_obs(game, s))["window_ends_turn"][0] == 1


def test_under_bomba_whether_a_card_was_placed_so_far():
    """A Bloqueio window follows the Bomba only if someone placed a card."""
    game, s = position(3, hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)], [card(AM, 1)]],
                       table=[card(AZ, 6)], stock=STOCK, target=10,
                       held=[chuche(bomba=1), chuche(), chuche(bloqueio=1)])
    play(game, s, A_BOMBA, A_PLACE)
    assert s.phase == BOMBA_ROUND and s.bomba_hits == 1
    none = s.copy()
    none.bomba_hits = 0
    _differ((game, s), (game, none))

