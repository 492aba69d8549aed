"""The game registry: ``GAMES``, ``ENV_IDS``, ``make(env_id, **config)`` and ``game_module``.

``GAMES`` names each game once: its env id and its folder. Everything else a game has is
found in that folder by the folder template's file names (``baralho/envs/README.md``):
``game_module(env_id, "fast")`` is its compiled engine, ``"heuristic"`` and
``"fast_heuristic"`` its baselines, ``"guide"`` its search guide, ``"shaping"`` its reward
potential; ``None`` where the game has no such file. Adding a game is a folder and a line.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util
from types import ModuleType

from baralho.core.config import ConfigError

# env id -> the game's folder under baralho/envs/ (and its PettingZoo-style module, baralho/envs/<env_id>.py)
GAMES: dict[str, str] = {
    "rodizio_v1": "rodizio",
    "chuche_v1": "chuche",
    "roda_de_samba_v1": "roda_de_samba",
    "scala40_v1": "scala40",
}
ENV_IDS: tuple[str, ...] = tuple(GAMES)
#: the files of the folder template a game may have (baralho/envs/README.md)
ROLES = ("rules", "fast", "heuristic", "fast_heuristic", "guide", "shaping", "env")
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
            pettingzoo.register("aec", pz_id, entry_point=f"baralho.envs.{env_id}:env")
        if pz_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", pz_id, entry_point=functools.partial(parallel_env, env_id))


def _check_id(env_id: str) -> None:
    if env_id in RETIRED:
        raise ConfigError(retired_message(env_id))
    if env_id not in GAMES:
        close = difflib.get_close_matches(str(env_id), ENV_IDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown env id {env_id!r}{hint}; known ids: {list(ENV_IDS)}")


def env_module(env_id: str) -> ModuleType:
    """The env's PettingZoo-style module (``env()``, ``raw_env``, ``Config``, ``TEST_CONFIGS``)."""
    _check_id(env_id)
    return importlib.import_module(f"baralho.envs.{env_id}")


@functools.cache
def has_module(env_id: str, role: str) -> bool:
    """Whether ``env_id``'s folder has the file of ``role`` (found without importing it)."""
    _check_id(env_id)
    if role not in ROLES:
        raise ValueError(f"role {role!r} is not one of the folder template's files {ROLES}")
    return importlib.util.find_spec(f"baralho.envs.{GAMES[env_id]}.{role}") is not None


def game_module(env_id: str, role: str) -> ModuleType | None:
    """The module of ``env_id``'s folder that plays ``role`` (one of ``ROLES``), or None
    when the game has none (``game_module("rodizio_v1", "guide")``: no guide)."""
    if not has_module(env_id, role):
        return None
    return importlib.import_module(f"baralho.envs.{GAMES[env_id]}.{role}")


def compiled_ids() -> tuple[str, ...]:
    """The env ids whose game has a compiled engine (a ``fast.py``)."""
    return tuple(e for e in ENV_IDS if has_module(e, "fast"))


def make(env_id: str, **kwargs):
    """Build the env ``env_id``: ``make("rodizio_v1", num_players=3, spicy=True)``.

    Keyword arguments are the game's config keys (``num_players`` for every
    game) and the adapter's options (``render_mode``, ``illegal_action``,
    ``illegal_reward``, ``render_view``). Unknown keys raise ``ConfigError``.
    """
    return env_module(env_id).env(**kwargs)


_register_gym_ids()
_register_pettingzoo_ids()
