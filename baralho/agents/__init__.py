"""Agents: the protocol, random, the per-game heuristics, ISMCTS, trained policies.

``make_agent(spec, env_id, seed)`` builds one from a short spec:
``random`` · ``heuristic`` · ``ismcts:200`` (simulations) · ``ismcts:0.5s`` (seconds
per move) · ``ismcts:200:h`` (heuristic rollouts) · ``ismcts:30:g`` (guided: searches
only the game's key decisions, the heuristic plays the rest; see agents/guides.py) ·
``ismcts:200:p`` (guided by the env's zoo policy net: PUCT with its policy as prior, random
rollouts at the leaves, or its value where an expert-iteration card says so; the card's
``search`` may also flatten the prior (``temperature``, measured per game); see
core/net_search.py) · ``ismcts:200:p:PATH`` (by a policy file) · ``ismcts:200:ph`` (with heuristic rollouts) ·
``ppo:PATH`` (a trained policy, PATH.json + PATH.npz: weights only, see
agents/policy.py; SB3 zips are refused, they unpickle) · ``ppo`` (the env's zoo model).
"""

from __future__ import annotations

import numpy as np

import baralho
from baralho.agents.base import Agent, RandomAgent, bind_if_needed, heuristic_for, table_of
from baralho.agents.ismcts import ISMCTSAgent

__all__ = ["Agent", "ISMCTSAgent", "RandomAgent", "bind_if_needed", "heuristic_for", "make_agent"]


def make_agent(spec: str, env_id: str, seed: int | None = None, config: dict | None = None):
    """Build the agent ``spec`` names for ``env_id`` with ``config`` (see the module docstring).

    Heuristics and policies are built for that table (env, player count, observation
    size): a policy whose input does not fit is refused here, and ``bind_if_needed``
    refuses either at another table, with a message naming both."""
    agent = _build(spec, env_id, seed, config)
    if isinstance(agent, (RandomAgent, ISMCTSAgent)):
        return agent                                  # they fit any table (ISMCTS reads the env it is bound to)
    table = table_of(baralho.make(env_id, **(config or {})).unwrapped.game)
    model = getattr(agent, "model", None)
    if model is not None:
        wants = dict(observation=int(np.prod(model.observation_space.shape)), actions=int(model.action_space.n))
        if wants != {k: table[k] for k in wants}:
            raise ValueError(f"{spec}: the model takes {wants['observation']} observation values and "
                             f"{wants['actions']} actions; {env_id} with {config or 'its defaults'} has "
                             f"{table['observation']} and {table['actions']} (a model trained on another env "
                             f"or player count)")
    agent.table = table
    return agent


def net_of(spec: str) -> str | None:
    """The net an agent spec plays: ``ppo:X`` and ``ismcts:N:p:X`` X (a policy file or a zoo name),
    ``ppo`` and ``ismcts:N:p`` "" (the env's zoo net); None for an agent without one."""
    kind, _, arg = spec.partition(":")
    if kind == "ppo":
        return arg
    style, _, path = arg.partition(":")[2].partition(":")
    return path if kind == "ismcts" and style in ("p", "ph") else None


def _build(spec: str, env_id: str, seed: int | None = None, config: dict | None = None):
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        return RandomAgent(seed)
    if kind == "heuristic" and not arg:
        game = baralho.make(env_id, **(config or {})).unwrapped.game
        return heuristic_for(env_id, game, seed)
    if kind == "ismcts":
        budget, _, style = arg.partition(":")
        style, _, path = style.partition(":")
        if style not in ("", "h", "g", "p", "ph") or (path and style not in ("p", "ph")):
            raise ValueError(f"bad ISMCTS mode in {spec!r}: use ismcts:N, ismcts:N:h (heuristic rollouts), "
                             f"ismcts:N:g (guided by the heuristic) or ismcts:N:p[:PATH] (guided by a policy net; "
                             f":ph with heuristic rollouts)")
        kw = dict(seed=seed, rollout="heuristic" if style in ("h", "ph") else "random", guided=style == "g",
                  policy=path if style in ("p", "ph") else None)
        try:
            if budget.endswith("s"):
                return ISMCTSAgent(simulations=None, seconds=float(budget[:-1]), **kw)
            return ISMCTSAgent(simulations=int(budget or 200), **kw)
        except ValueError as err:
            raise ValueError(f"bad ISMCTS budget in {spec!r}: {err}") from None
    if kind == "ppo":
        from baralho.agents.policy import PolicyAgent
        from baralho.zoo import MAX_BYTES, available, is_zoo_name, zoo_name, zoo_path

        players = (config or {}).get("num_players")
        name = arg or zoo_name(env_id, players)
        if is_zoo_name(name):
            return PolicyAgent(zoo_path(name), env_id=env_id, seed=seed, config=config, max_bytes=MAX_BYTES)
        if not arg:
            retired = " (the v0 policies in baralho/zoo/v0/ were trained on v0 observations and are retired)"
            raise ValueError(f"no zoo model for {env_id!r} at {players or 2} players (zoo: {available()}){retired}; "
                             f"train one with `baralho train {env_id}` and use ppo:PATH")
        return PolicyAgent(arg, env_id=env_id, seed=seed, config=config)
    raise ValueError(f"unknown agent spec {spec!r}: use random, heuristic, ismcts[:N|:Ts][:h|:g|:p[:PATH]], ppo "
                     f"or ppo:PATH")
