"""Drawing primitives for ``render_mode="rgb_array"`` (Pillow, optional).

Games draw their table with a :class:`Canvas`: felt background, cards face up
(a label in the card's colour) or face down (a patterned back), and text.
Pillow is imported lazily: it comes with the ``train`` and ``render`` extras.

Text is drawn with :func:`font`: a subset of DejaVu Sans shipped in ``core/fonts``
(Latin-1 and Latin Extended-A, punctuation, arrows, card suits), because Pillow's
default font has no accents or suits and draws a box for them ("Comilão").
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

FONT_FILE = Path(__file__).parent / "fonts" / "DejaVuSans-baralho.ttf"

FELT = (22, 92, 54)
CARD = (250, 248, 240)
BACK = (150, 30, 40)
INK = (20, 20, 20)
RED = (200, 30, 30)
CARD_W, CARD_H = 34, 48


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        try:
            from PIL import Image, ImageDraw
        except ImportError as err:          # pragma: no cover - depends on the install
            raise ImportError('render_mode="rgb_array" needs Pillow: pip install "baralho[render]"') from err
        self.image = Image.new("RGB", (width, height), FELT)
        self.draw = ImageDraw.Draw(self.image)
        self.font = font(10)

    def text(self, x: int, y: int, text: str, color=(240, 240, 230)) -> None:
        self.draw.text((x, y), text, fill=color, font=self.font)

    def card(self, x: int, y: int, label: str = "", color=INK, face_up: bool = True, mark: str = "",
             w: int = CARD_W, h: int = CARD_H) -> None:
        """A card at (x, y); face down draws the back (and hides the label)."""
        fill = CARD if face_up else BACK
        self.draw.rounded_rectangle((x, y, x + w, y + h), radius=4, fill=fill, outline=INK, width=1)
        if face_up:
            self.draw.text((x + 4, y + 3), label, fill=color, font=self.font)
            if mark:
                self.draw.text((x + 4, y + h - 14), mark, fill=RED, font=self.font)
        else:
            for k in range(6, w - 3, 6):
                self.draw.line((x + k, y + 3, x + 3, y + k), fill=(190, 70, 80))

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


@functools.cache
def font(size: int = 10):
    """The pictures' font at ``size`` pixels: the shipped DejaVu Sans subset (Pillow's
    default only if this Pillow was built without FreeType, which the wheels never are)."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype(str(FONT_FILE), size)
    except OSError:                     # pragma: no cover - Pillow without FreeType
        return ImageFont.load_default()
