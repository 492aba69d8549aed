"""Scala 40's rgb_array picture: shape, hidden cards face down, jokers with their stand-in."""

from __future__ import annotations

import numpy as np

import baralho
from baralho.core.picture import BACK, CARD
from baralho.envs.scala40.picture import (
    HAND_X,
    JOKER_FILL,
    MELD_STEP,
    MELDS_Y,
    PILE_Y,
    PLAYER_ROW_H,
    PLAYERS_Y,
    STOCK_X,
    WIDTH,
    height,
)
from baralho.envs.scala40.rules import Config, Scala40Game
from tests.scala40.helpers import meld, position

DOWN = {BACK, (190, 70, 80)}                         # the back and its pattern


def picture(view, steps=3, **cfg):
    env = baralho.make("scala40_v1", engine="reference", render_mode="rgb_array", render_view=view, **cfg)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    picture.state = env.unwrapped.game_state
    return env.render()


def test_picture_is_an_rgb_image_of_a_fixed_size():
    for n in (2, 5):
        for steps in (0, 40):
            img = picture("current", steps, num_players=n)
            assert img.dtype == np.uint8 and img.ndim == 3 and img.shape == (height(n), WIDTH, 3)


def test_other_hand_and_stock_are_face_down_for_a_player_and_face_up_omniscient():
    own, omni = picture(0), picture("omniscient")
    s = picture.state
    assert s.hand_size[1] and not any(s.known[1]), "want an opponent with no publicly known card"
    hand = (PLAYERS_Y + PLAYER_ROW_H + 4 + 40, HAND_X + 10)   # player_1's first card, off its index
    stock = (PILE_Y + 40, STOCK_X + 10)
    for at in (hand, stock):
        assert tuple(own[at]) in DOWN
        assert tuple(omni[at]) == CARD
    mine = (PLAYERS_Y + 4 + 40, HAND_X + 10)                  # the viewer's own hand is face up
    assert tuple(own[mine]) == CARD


def test_a_joker_in_a_meld_is_violet_and_a_real_card_is_not():
    game = Scala40Game(Config())
    s = position(game, {0: "2h 9d", 1: "Kc Ks"}, melds=[meld("3c 4c JK", joker_as="5c"), meld("7s 8s 9s")],
                 opened=(0,))
    img = game.render_image(s, 0)
    y = MELDS_Y + 14 + 10                           # a meld card's top, right of its index
    assert tuple(img[y, 10 + 2 * MELD_STEP + 14]) == JOKER_FILL   # meld #0, third card: the joker as 5♣
    assert tuple(img[y, 10 + 14]) == CARD                         # meld #0, first card: 3♣
