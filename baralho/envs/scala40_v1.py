"""scala40_v1: Scala 40 rummy (see baralho/envs/scala40/env.py)."""

from baralho.envs.scala40.env import TEST_CONFIGS, Config, env, raw_env
from baralho.envs.scala40.env import __doc__ as _doc

__doc__ = _doc
__all__ = ["env", "raw_env", "Config", "TEST_CONFIGS"]
