"""Retired: roda_de_samba_v0 was replaced by roda_de_samba_v1 (see its docstring's Version history)."""

from baralho.envs import retired_message

raise ImportError(retired_message("roda_de_samba_v0"))
