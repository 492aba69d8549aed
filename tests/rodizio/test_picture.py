"""Rodízio's rgb_array picture: shape, and hidden cards drawn face down."""

from __future__ import annotations

import numpy as np

import baralho
from baralho.core.picture import BACK, CARD
from baralho.envs.rodizio.picture import PLATES_AT


def picture(view, **cfg):
    env = baralho.make("rodizio_v1", engine="reference", render_mode="rgb_array", render_view=view, **cfg)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(6):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    picture.state = env.unwrapped.game_state
    return env.render()


def test_picture_is_an_rgb_image():
    img = picture("current")
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[:2] == (420, 560)


def test_plate_cards_are_face_down_for_players_and_face_up_omniscient():
    x, y = PLATES_AT[0]
    centre = (y + 16 + 30, x + 20)                  # inside the plate card, off its label
    assert tuple(picture(0)[centre]) in {BACK, (190, 70, 80)}
    assert tuple(picture("omniscient")[centre]) == CARD


def test_other_piles_are_face_down_without_memory():
    own = picture(0, num_players=3, memory="none")
    omni = picture("omniscient", num_players=3, memory="none")
    other = next(w for w in (1, 2) if picture.state.eaten[w])
    row = 300 + 30 * other + 10                      # that player's pile row
    assert (own[row, 110:200] == BACK).all(axis=1).any()
    assert not (omni[row, 110:200] == BACK).all(axis=1).any()
