"""The search guide of a game (``ismcts:N:g``): its folder's ``guide.py`` where it has one,
else :class:`~baralho.core.guide.DefaultGuide` (``baralho/core/guide.py`` says what a guide is)."""

from __future__ import annotations

from baralho.core.guide import DefaultGuide, Guide
from baralho.envs import game_module

__all__ = ["DefaultGuide", "Guide", "guide_for"]


def guide_for(game) -> Guide:
    module = game_module(game.env_id, "guide")
    return (module.Guide if module is not None else DefaultGuide)(game)
