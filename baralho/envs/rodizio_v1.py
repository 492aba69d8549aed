"""PettingZoo-style module for Rodízio: ``from baralho.envs import rodizio_v1; env = rodizio_v1.env()``."""

from baralho.envs.rodizio import env as _env
from baralho.envs.rodizio.env import TEST_CONFIGS, Config, env, raw_env

__doc__ = _env.__doc__
__all__ = ["Config", "TEST_CONFIGS", "env", "raw_env"]
