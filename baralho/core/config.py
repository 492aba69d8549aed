"""Config validation shared by every env: unknown keys, wrong types and bad
values raise a ``ValueError`` that names the env, the key and what is allowed."""

from __future__ import annotations

import dataclasses
import difflib
import typing
from typing import Any, Literal, TypeVar, get_args, get_origin

C = TypeVar("C")


class ConfigError(ValueError):
    """A bad env config (unknown key, wrong type, value out of range)."""


def _check_type(env_id: str, key: str, value: Any, tp: Any) -> None:
    origin = get_origin(tp)
    if origin is Literal:
        choices = get_args(tp)
        if value not in choices or type(value) is not type(choices[0]):
            raise ConfigError(f"{env_id}: option {key}={value!r} must be one of {list(choices)}")
        return
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is str:
        ok = isinstance(value, str)
    else:  # composite types are checked by the config's own __post_init__
        ok = True
    if not ok:
        raise ConfigError(
            f"{env_id}: option {key}={value!r} has type {type(value).__name__}, "
            f"expected {getattr(tp, '__name__', tp)}")


def build_config(cls: type[C], env_id: str, kwargs: dict[str, Any]) -> C:
    """Validate ``kwargs`` against the dataclass ``cls`` and build it.

    Range checks live in ``cls.__post_init__`` (raise :class:`ConfigError`).
    """
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    for key, value in kwargs.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{env_id}: unknown option {key!r}{hint}; options are {names}")
        _check_type(env_id, key, value, hints[key])
    return cls(**kwargs)


def check_player_count(env_id: str, n: int, lo: int, hi: int) -> None:
    if not lo <= n <= hi:
        raise ConfigError(f"{env_id}: num_players={n} is not supported; this game takes {lo}-{hi} players")
