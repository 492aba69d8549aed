"""Retired: chuche_v0 was replaced by chuche_v1 (see its docstring's Version history)."""

from baralho.envs import retired_message

raise ImportError(retired_message("chuche_v0"))
