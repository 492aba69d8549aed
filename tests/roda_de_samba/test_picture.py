"""Roda de Samba's rgb_array picture: shape, hidden cards face down, harmony marks."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.core.picture import BACK
from baralho.envs.roda_de_samba.picture import (
    BAD,
    GOOD,
    HAND_DY,
    HAND_X,
    HH,
    SH,
    SW,
    family,
    layout,
    panel_origin,
    roda_centre,
    space_centre,
    tint,
)
from tests.roda_de_samba.helpers import game_for, table


def picture(view, steps=0, **cfg):
    env = baralho.make("roda_de_samba_v1", render_mode="rgb_array", render_view=view, **cfg)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.render()


@pytest.mark.parametrize("n", [2, 5])
def test_picture_is_an_rgb_image_of_a_fixed_size(n):
    width, height, _ = layout(n)
    for steps in (0, 30):
        img = picture("current", steps, num_players=n)
        assert img.dtype == np.uint8 and img.shape == (height, width, 3)


def hand_region(img, n, p):
    x0, y0 = panel_origin(n, p)
    return img[y0 + HAND_DY:y0 + HAND_DY + HH, x0 + HAND_X:x0 + HAND_X + 200]


def has_back(region) -> bool:
    return bool((region == BACK).all(axis=-1).any())


def test_other_hands_are_face_down_for_a_player_and_face_up_omniscient():
    own, omni = picture(0, num_players=3), picture("omniscient", num_players=3)
    assert not has_back(hand_region(own, 3, 0))            # own hand face up
    assert has_back(hand_region(own, 3, 1)) and has_back(hand_region(own, 3, 2))
    assert not any(has_back(hand_region(omni, 3, p)) for p in range(3))


def test_atravessado_is_marked_red_and_harmony_green_with_family_colours():
    g = game_for()
    # spaces 10 and 1 are neighbours: violao 1 / surdo 2 out of harmony; spaces 4, 5 share a number
    s = table(g, rodas={0: {10: ["violao 1"], 1: ["surdo 2"], 4: ["banjo 3"], 5: ["agogo 3"]}})
    assert s.atrav[0] == 1
    img = g.render_image(s, None)
    cx, cy = roda_centre(2, 0)

    def mid(a, b):
        (xa, ya), (xb, yb) = space_centre(cx, cy, a), space_centre(cx, cy, b)
        return round((xa + xb) / 2), round((ya + yb) / 2)

    x, y = mid(9, 0)
    assert tuple(img[y - 6, x]) == BAD                      # the red X badge, off its white cross
    x, y = mid(3, 4)
    assert tuple(img[y, x]) == GOOD
    x, y = space_centre(cx, cy, 9)                          # violao's stack is tinted corda
    corda = g.deck.colours.index("corda")
    assert tuple(img[round(y + SH / 2 - 4), round(x - SW / 2 + 4)]) == tint(family(corda))
