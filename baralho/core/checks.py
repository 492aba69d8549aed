"""Checks of what a caller hands an engine: a seat, a state's fields.

The engines trust their own states: the compiled kernels index tables with a state's card
ids, seats and counts without bounds checks (numba has none), and the reference engine's
lists take a negative index as one from the end. A state or a seat from outside (a
hand-built position, another game's state, a typo) is checked here first, so it is refused
with a ``ValueError`` that names it, instead of reading outside a table or playing a wrong
game in silence. Each game's ``checks.py`` lists its state's fields with these helpers
(``loadable_state``); ``baralho.vector``'s ``set_state`` and the games' ``observe`` call them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class StateError(ValueError):
    """A state that is not a position of the game it is handed to (the message names the field)."""


def is_int(value) -> bool:
    """A Python or numpy integer (not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seat(game, player, name: str = "player") -> int:
    """``player`` as a seat of ``game`` (0 .. num_players - 1), else a ValueError naming it."""
    if not is_int(player) or not 0 <= player < game.num_players:
        raise ValueError(f"{game.env_id}: {name}={player!r} is not a seat of this game; seats are "
                         f"0..{game.num_players - 1} (agent player_i is seat i)")
    return int(player)


def integer(value, name: str, lo: int, hi: int) -> None:
    if not is_int(value):
        raise StateError(f"field {name} must be an integer, got {type(value).__name__} {value!r}")
    if not lo <= value <= hi:
        raise StateError(f"field {name}={value!r} is outside {lo}..{hi}")


def flag(value, name: str) -> None:
    if not (isinstance(value, (bool, np.bool_)) or (is_int(value) and value in (0, 1))):
        raise StateError(f"field {name} must be a bool, got {type(value).__name__} {value!r}")


def number(value, name: str) -> None:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(value):
        raise StateError(f"field {name} must be a finite number, got {value!r}")


def sequence(values, name: str, length: int | None = None, max_length: int | None = None) -> Sequence:
    """A list, tuple or 1-d array of ``length`` (or at most ``max_length``) items."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise StateError(f"field {name} must be one-dimensional, got shape {values.shape}")
    elif not isinstance(values, (list, tuple)):
        raise StateError(f"field {name} must be a list, got {type(values).__name__}")
    if length is not None and len(values) != length:
        raise StateError(f"field {name} must have {length} items (this game's config), got {len(values)}")
    if max_length is not None and len(values) > max_length:
        raise StateError(f"field {name} holds {len(values)} items, at most {max_length} fit")
    return values


def integers(values, name: str, lo: int, hi: int, length: int | None = None,
             max_length: int | None = None) -> None:
    """A sequence of integers in ``lo..hi``."""
    for k, v in enumerate(sequence(values, name, length, max_length)):
        integer(v, f"{name}[{k}]", lo, hi)


def flags(values, name: str, length: int | None = None) -> None:
    for k, v in enumerate(sequence(values, name, length)):
        flag(v, f"{name}[{k}]")


def numbers(values, name: str, length: int | None = None) -> None:
    for k, v in enumerate(sequence(values, name, length)):
        number(v, f"{name}[{k}]")


def rows(values, name: str, count: int, lo: int, hi: int, width: int | None = None,
         max_width: int | None = None) -> None:
    """``count`` sequences of integers in ``lo..hi``, each of ``width`` (or at most ``max_width``) items."""
    for k, row in enumerate(sequence(values, name, count)):
        integers(row, f"{name}[{k}]", lo, hi, width, max_width)


def distinct(values, name: str) -> None:
    if len(set(values)) != len(values):
        raise StateError(f"field {name} lists an item twice: {list(values)}")
