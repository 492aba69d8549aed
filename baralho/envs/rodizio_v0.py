"""Retired: rodizio_v0 was replaced by rodizio_v1 (see its docstring's Version history)."""

from baralho.envs import retired_message

raise ImportError(retired_message("rodizio_v0"))
