"""baralho: PettingZoo environments for Scala 40, Chuche, Roda de Samba and Rodízio."""

from baralho.core.config import ConfigError
from baralho.envs import ENV_IDS, env_module, gym_id, make, parallel_env, pettingzoo_id

__all__ = ["ENV_IDS", "ConfigError", "env_module", "gym_id", "make", "parallel_env", "pettingzoo_id"]
__version__ = "0.1.0"
