"""The env registry: ``ENV_IDS`` and ``make(env_id, **config)``."""

from __future__ import annotations

import difflib
import importlib
from types import ModuleType

from baralho.core.config import ConfigError

# env id -> PettingZoo-style module exposing env(), raw_env, Config, TEST_CONFIGS
_MODULES: dict[str, str] = {
    "rodizio_v1": "baralho.envs.rodizio_v1",
    "chuche_v1": "baralho.envs.chuche_v1",
    "roda_de_samba_v1": "baralho.envs.roda_de_samba_v1",
    "scala40_v1": "baralho.envs.scala40_v1",
}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)
# Ids whose rules or observations changed: they raise, naming their successor
# (each env docstring's Version history says what changed).
RETIRED: dict[str, str] = {
    "rodizio_v0": "rodizio_v1",
    "chuche_v0": "chuche_v1",
    "roda_de_samba_v0": "roda_de_samba_v1",
    "scala40_v0": "scala40_v1",
}


def retired_message(env_id: str) -> str:
    new = RETIRED[env_id]
    return (f"{env_id} is retired: use {new!r} (its rules and observations changed; "
            f"help(baralho.env_module({new!r})) lists what changed under 'Version history')")


def gym_id(env_id: str) -> str:
    """The gymnasium id of an env's single-agent view: rodizio_v1 -> baralho/Rodizio-v1."""
    name, _, version = env_id.rpartition("_")
    return "baralho/" + "".join(w.capitalize() for w in name.split("_")) + "-" + version


def _register_gym_ids() -> None:
    import gymnasium

    for env_id in ENV_IDS:
        if gym_id(env_id) not in gymnasium.registry:
            # no OrderEnforcing / PassiveEnvChecker: the env makes those checks itself, and
            # without a wrapper gymnasium.make(...).action_masks() is reachable (gymnasium 1.x
            # wrappers do not forward attributes)
            gymnasium.register(id=gym_id(env_id), entry_point="baralho.training.single_agent:SingleAgentEnv",
                               kwargs={"env_id": env_id}, order_enforce=False, disable_env_checker=True)


def pettingzoo_id(env_id: str) -> str:
    """The PettingZoo registry id of an env: rodizio_v1 -> baralho/rodizio-v1."""
    name, _, version = env_id.rpartition("_")
    return f"baralho/{name}-{version}"


def parallel_env(env_id: str, **kwargs):
    """The env under PettingZoo's parallel API: ``turn_based_aec_to_parallel``, one
    agent acting per parallel step (the others' actions are ignored)."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(make(env_id, **kwargs))


def _register_pettingzoo_ids() -> None:
    """``pettingzoo.make("aec", "baralho/rodizio-v1", **config)`` once baralho is imported
    (PettingZoo has a registry from 1.27; older versions have none: use baralho.make)."""
    import functools

    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    for env_id in ENV_IDS:
        pz_id = pettingzoo_id(env_id)
        if pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=f"{_MODULES[env_id]}:env")
        if pz_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", pz_id, entry_point=functools.partial(parallel_env, env_id))


def env_module(env_id: str) -> ModuleType:
    if env_id in RETIRED:
        raise ConfigError(retired_message(env_id))
    if env_id not in _MODULES:
        close = difflib.get_close_matches(str(env_id), ENV_IDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown env id {env_id!r}{hint}; known ids: {list(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id])


def make(env_id: str, **kwargs):
    """Build the env ``env_id``: ``make("rodizio_v1", num_players=3, spicy=True)``.

    Keyword arguments are the game's config keys (``num_players`` for every
    game) and the adapter's options (``render_mode``, ``illegal_action``,
    ``illegal_reward``, ``render_view``). Unknown keys raise ``ConfigError``.
    """
    return env_module(env_id).env(**kwargs)


_register_gym_ids()
_register_pettingzoo_ids()
