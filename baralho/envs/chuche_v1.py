"""chuche_v1: see baralho/envs/chuche/env.py."""

from baralho.envs.chuche import env as _env
from baralho.envs.chuche.env import TEST_CONFIGS, Config, env, raw_env

__doc__ = _env.__doc__
__all__ = ["env", "raw_env", "Config", "TEST_CONFIGS"]
