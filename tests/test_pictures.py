"""The pictures' font has a glyph for every character the games write (Pillow's default
draws a box for "ã" in "Comilão", and for the card suits)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import baralho

pytest.importorskip("PIL")
from PIL import ImageFont  # noqa: E402

from baralho.core.picture import FONT_FILE, font  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MISSING = "\U0010fffd"          # a private-use code point no font has: it draws the font's "missing" box


def missing_glyphs(f, chars) -> set[str]:
    box = bytes(f.getmask(MISSING))
    return {c for c in chars if not c.isspace() and bytes(f.getmask(c)) == box}


def game_characters() -> set[str]:
    """Every character of the text views and move descriptions of a few random games."""
    chars: set[str] = set()
    for env_id in baralho.ENV_IDS:
        for n in (2, 3):
            env = baralho.make(env_id, num_players=n)
            env.reset(seed=1)
            game, rng = env.unwrapped.game, np.random.default_rng(0)
            for _ in range(80):
                state = env.unwrapped.game_state
                if game.is_over(state):
                    break
                chars |= set(game.render_text(state, None)) | set(game.render_text(state, 0))
                legal = np.flatnonzero(game.legal_mask(state))
                chars |= {c for a in legal for c in game.describe_action(state, int(a))}
                env.step(int(rng.choice(legal)))
    return {c for c in chars if c != "\x1b"}


def test_the_shipped_font_draws_every_character_the_games_write():
    assert FONT_FILE.exists() and (FONT_FILE.parent / "LICENSE-DejaVu.txt").exists()
    chars = game_characters() | set("Comilão Rodízio ♠♣♥♦ ★ → ·")
    assert {"ã", "♥"} <= chars
    assert missing_glyphs(font(10), chars) == set()


def test_pillows_default_font_is_what_drew_the_boxes():
    default = ImageFont.load_default()
    if not missing_glyphs(default, "ã♥"):
        pytest.skip("this Pillow's default font has the glyphs")
    assert missing_glyphs(default, "ã♥") == {"ã", "♥"}


def test_no_game_picture_uses_pillows_default_font():
    for path in (ROOT / "baralho" / "envs").glob("*/picture.py"):
        assert not re.search(r"load_default\(", path.read_text()), f"{path}: use baralho.core.picture.font"
