"""Roda de Samba v1 (PettingZoo AEC). See baralho/envs/roda_de_samba/env.py."""

import baralho.envs.roda_de_samba.env as _env_module
from baralho.envs.roda_de_samba.env import TEST_CONFIGS, Config, env, raw_env

__all__ = ["Config", "TEST_CONFIGS", "env", "raw_env"]
__doc__ = _env_module.__doc__
