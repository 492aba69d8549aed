"""Retired: scala40_v0 was replaced by scala40_v1 (see its docstring's Version history)."""

from baralho.envs import retired_message

raise ImportError(retired_message("scala40_v0"))
