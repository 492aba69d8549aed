"""The v1 observation: int8 cells, the public stock after an unshuffled turnover,
the discard history per seat, the whole pile in order, the observer's place in
the turn order and the turns left before the hand's bound. Hand-built positions."""

import numpy as np

from tests.scala40.helpers import DRAW, A, Config, Scala40Game, card, disc, play, position

G2 = Scala40Game(Config(num_players=2))
G3 = Scala40Game(Config(num_players=3))
H2 = Scala40Game(Config(num_players=2, scope="hand"))
SHUFFLED = Scala40Game(Config(num_players=2, scope="hand", turnover="shuffled"))


def view(game, s, seat):
    obs = game.observe(s, seat)
    assert obs.dtype == np.int8 and game.obs_layout.box().contains(obs)
    return game.obs_layout.decode(obs)


def turned_over(game):
    """Seat 0 draws the last stock card and discards: the pile becomes the stock."""
    s = position(game, {0: "2h 5d 9s", 1: "3c 6d Jh"}, stock="7s", phase=DRAW, discard="4h", opened=(0, 1))
    o = view(game, s, 1)
    assert (o["stock_known"] == -1).all() and o["stock_counts"].sum() == 0   # the dealt stock is hidden
    play(game, s, A.DRAW_STOCK, disc("2h"))
    assert s.turnovers == 1 and s.player == 1 and s.phase == DRAW
    return s


def test_after_an_unshuffled_turnover_the_stock_is_public_and_so_is_each_card_drawn_from_it():
    s = turned_over(H2)
    for seat in (0, 1):
        o = view(H2, s, seat)
        top_first = s.stock[::-1]
        assert o["stock_known"][:len(top_first)].tolist() == top_first
        assert (o["stock_known"][len(top_first):] == -1).all()
        assert o["stock_counts"].tolist() == np.bincount(s.stock, minlength=53).tolist()
        assert o["piles"].tolist() == [len(s.stock), 1]
    drawn = s.stock[-1]
    play(H2, s, A.DRAW_STOCK)
    o = view(H2, s, 0)
    assert o["known"][1][drawn] == 1, "a card drawn from a public stock is known to be in that hand"
    assert o["stock_known"][0] == s.stock[-1] and o["stock_counts"].sum() == len(s.stock)
    rng = np.random.default_rng(0)
    for _ in range(10):   # resampling for seat 0 keeps the drawn card and the stock's order
        r = H2.resample_hidden(s, 0, rng)
        assert r.hands[1][drawn] >= 1 and r.stock == s.stock


def test_after_a_shuffled_turnover_the_stock_stays_hidden():
    s = turned_over(SHUFFLED)
    o = view(SHUFFLED, s, 0)
    assert (o["stock_known"] == -1).all() and o["stock_counts"].sum() == 0
    assert o["piles"].tolist() == [len(s.stock), 1]
    drawn = s.stock[-1]
    play(SHUFFLED, s, A.DRAW_STOCK)
    assert view(SHUFFLED, s, 0)["known"][1].sum() == 0
    # the stock's cards and seat 1's draw are one pool to seat 0: a redraw mixes them
    rng = np.random.default_rng(0)
    redrawn = [SHUFFLED.resample_hidden(s, 0, rng) for _ in range(20)]
    assert any(sorted(r.stock) != sorted(s.stock) for r in redrawn)
    assert any(r.hands[1][drawn] == 0 for r in redrawn)


def test_the_discard_history_counts_what_each_seat_discarded_and_took_this_hand():
    s = position(G2, {0: "2h 5d 9s Kd", 1: "3c 6d Jh 8h 8c"}, phase=DRAW, discard="4h", opened=(0, 1))
    play(G2, s, A.DRAW_STOCK, disc("9s"))        # seat 0 discards 9♠
    play(G2, s, A.DRAW_DISCARD, disc("Jh"))      # seat 1 takes it and discards J♥
    play(G2, s, A.DRAW_DISCARD, disc("Jh"))      # seat 0 takes the J♥ and discards it again
    o0, o1 = view(G2, s, 0), view(G2, s, 1)
    for o, me, other in ((o0, 0, 1), (o1, 1, 0)):   # rows are seat-relative: 0 = the observer
        assert o["discarded"][me][card("9s")] == 1 and o["discarded"][me][card("Jh")] == 1
        assert o["taken"][me][card("Jh")] == 1 and o["taken"][me].sum() == 1
        assert o["discarded"][other][card("Jh")] == 1 and o["discarded"][other].sum() == 1
        assert o["taken"][other][card("9s")] == 1 and o["taken"][other].sum() == 1
    G2._deal(s, np.random.default_rng(1), 1)      # the history is per hand
    o = view(G2, s, 0)
    assert o["discarded"].sum() == 0 and o["taken"].sum() == 0


def test_the_whole_discard_pile_is_shown_in_order():
    # two piles with the same top 16 cards, differing in the order of the two at the bottom:
    # after an unshuffled turnover they give different stocks, so the observations differ
    top = "2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks Ah 2h 3h 4h"
    a = position(G2, {0: "7h 8h 2c", 1: "9d"}, discard="5c 6c " + top, phase=DRAW, stock="Kc")
    b = position(G2, {0: "7h 8h 2c", 1: "9d"}, discard="6c 5c " + top, phase=DRAW, stock="Kc")
    oa, ob = view(G2, a, 1), view(G2, b, 1)
    assert (oa["discard_recent"] == ob["discard_recent"]).all()
    assert oa["discard_pile"][:len(a.discard)].tolist() == a.discard[::-1]
    assert oa["discard_pile"][len(a.discard):].tolist() == [-1] * (108 - len(a.discard))
    assert not np.array_equal(G2.observe(a, 1), G2.observe(b, 1))


def test_the_observer_sees_its_place_in_the_turn_order_and_the_turns_left():
    s = position(G3, {0: "2h 5d", 1: "3c 6d", 2: "Jh 8c"}, turn=4, phase=DRAW)
    s.first = 1
    G3._sync(s)
    assert [view(G3, s, seat)["place"].tolist() for seat in (0, 1, 2)] == [[0, 2], [1, 0], [0, 1]]
    assert view(G3, s, 0)["progress"].tolist() == [4, s.turn_limit - 4, 0]
    play(G3, s, A.DRAW_STOCK, disc("2h"))
    assert view(G3, s, 2)["progress"].tolist() == [5, s.turn_limit - 5, 0]
    # an eliminated player is not counted: seat 0 comes right after seat 1
    t = position(G3, {0: "2h 5d", 1: "3c 6d"}, eliminated=(2,), totals=(0, 0, 120), phase=DRAW)
    t.first = 1
    G3._sync(t)
    assert view(G3, t, 0)["place"].tolist() == [0, 1]
    assert view(G3, t, 0)["players"][2].tolist() == [0, 0, 1, 120]


def test_the_env_docstring_states_the_layout_it_has():
    import baralho.envs.scala40_v1 as module
    from baralho.envs.scala40.observation import build_layout

    sizes = [build_layout(n).size for n in range(2, 6)]
    assert f"({sizes[0]},) at 2 players; {sizes[1]}, {sizes[2]}, {sizes[3]} at 3, 4, 5" in module.__doc__
    assert f"({sizes[1] - sizes[0]} per extra player)" in module.__doc__
    assert "int8" in module.__doc__ and build_layout(2).dtype == np.int8
    assert build_layout(2).table() in module.__doc__
