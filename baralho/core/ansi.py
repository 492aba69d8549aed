"""Terminal colours for ``render_mode="human"`` and ``baralho play``.

Each game may declare ``ansi_rules``: ``(regex, colour)`` pairs; matching text
is wrapped in that ANSI colour. Colours are off when ``NO_COLOR`` is set
(https://no-color.org) or the output is not a terminal; ``render_mode="ansi"``
always returns plain text.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

CODES = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36",
         "orange": "38;5;208", "brown": "38;5;130", "bold": "1"}


def colorize(text: str, rules: Iterable[tuple[str, str]]) -> str:
    for pattern, colour in rules:
        code = CODES[colour]
        text = re.sub(pattern, lambda m, c=code: f"\x1b[{c}m{m.group(0)}\x1b[0m", text)
    return text


def wants_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()
