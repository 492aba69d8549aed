"""Chuche's rgb_array picture: shape, hidden cards face down (backs showing), face up omniscient."""

from __future__ import annotations

import numpy as np

import baralho
from baralho.core.picture import BACK, CARD
from baralho.envs.chuche.picture import BLOCKED, COLOUR_RGB, STOCK_XY, H, W, hand_xy, size, table_xy
from tests.chuche.helpers import AZ, LA, VD, VM, card, chuche, position


def _at(img, xy, dx=W - 5, dy=H // 2):
    """A pixel inside a card, right of its number and off every label."""
    x, y = xy
    return tuple(int(v) for v in img[y + dy, x + dx])


def test_picture_is_a_fixed_size_rgb_image():
    for n in (2, 6):
        env = baralho.make("chuche_v1", num_players=n, render_mode="rgb_array", render_view="current")
        env.reset(seed=1)
        img = env.render()
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        assert img.shape[:2] == size(env.unwrapped.game)[::-1]
        rng = np.random.default_rng(0)
        for _ in range(30):
            a = env.agent_selection
            if env.terminations[a] or env.truncations[a]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(a)["action_mask"]))))
            assert env.render().shape == img.shape


def _table():
    return position(n=3, hands=[[card(VM, 5)], [card(LA, 1), card(VD, 6)], [card(AZ, 3)]],
                    table=[card(VM, 2), card(AZ, 4)], stock=[card(VD, 4)], target=8,
                    owner={card(AZ, 4): 1}, held=[chuche(bloqueio=1), chuche(), chuche()])


def test_other_hands_are_face_down_for_a_player_and_face_up_omniscient():
    game, s = _table()
    own, omni = game.render_image(s, 0), game.render_image(s, None)
    for i in range(2):                              # player_1's two cards
        assert _at(own, hand_xy(1, i)) == BACK
        assert _at(omni, hand_xy(1, i)) == CARD
    assert _at(own, hand_xy(0, 0)) == CARD          # the viewer's own card
    assert _at(own, STOCK_XY) == BACK               # the stock, its target back up
    assert _at(omni, STOCK_XY) == CARD


def test_a_face_down_card_shows_its_back_number():
    game, s = _table()
    own = game.render_image(s, 0)
    x, y = hand_xy(2, 0)                            # player_2's one card, back 8 (deck data)
    face = own[y + 4:y + H - 4, x + 4:x + W - 4].reshape(-1, 3)
    assert (face != BACK).all(axis=1).sum() > 20, "the back number is drawn on the card"


def test_number_cards_are_drawn_in_their_colour():
    game, s = _table()
    img = game.render_image(s, None)
    for k, colour in enumerate((VM, AZ)):
        x, y = table_xy(k, 2)
        assert _at(img, (x, y), dx=W // 2, dy=5) == COLOUR_RGB[colour]   # the colour band


def test_a_blocked_table_card_is_tinted():
    game, s = _table()                              # AZ 4 blocked by player_1, VM 2 free
    img = game.render_image(s, 0)
    assert _at(img, table_xy(0, 2)) == CARD
    assert _at(img, table_xy(1, 2)) == BLOCKED
