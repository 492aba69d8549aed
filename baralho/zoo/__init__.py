"""The model zoo: one trained policy per game, shipped in the package.

``baralho/zoo/v1/<env_id>.json`` is the policy's card (env, config, architecture) and
``<env_id>.npz`` its weights, in the weights-only format of baralho/agents/policy.py
(nothing in either file is code); ``<env_id>.md`` is its model card (command,
decisions, wall time, learning curve, win rates), written with the policy from a
finished run by ``python -m baralho.zoo.ship RUN`` (zoo/ship.py). Load one with the
agent spec ``ppo`` (the zoo model of the env) or ``ppo:<env_id>``.

``v0/`` keeps the model cards of the v0 policies for the record. Their weights
are not shipped: they were trained on v0 observations, which v1 changed, so no
v1 env can use them; ``ppo`` on a v1 env without a zoo model says so.
"""

from __future__ import annotations

from pathlib import Path

ZOO = Path(__file__).parent
V1 = ZOO / "v1"             # the policies of the v1 envs
MAX_BYTES = 10 * 2**20      # issue 24: each shipped policy under 10 MB (a zoo policy's weights are loaded within it)


def zoo_name(env_id: str, num_players: int | None = None) -> str:
    """The zoo's name for ``env_id``'s policy at ``num_players`` (None or 2: ``env_id``; else
    ``env_id_3p``...: one net serves one player count, its observation's size depends on it)."""
    return env_id if num_players in (None, 2) else f"{env_id}_{num_players}p"


def zoo_path(env_id: str, num_players: int | None = None) -> Path | None:
    path = V1 / f"{zoo_name(env_id, num_players)}.json"
    return path if path.exists() else None


def is_zoo_name(name: str) -> bool:
    """``ppo:NAME`` and ``ismcts:N:p:NAME`` play the zoo's policy NAME (not a file) when the zoo has
    one and NAME names no folder."""
    return zoo_path(name) is not None and "/" not in name


def load_init(init: str | Path, env_id: str, config: dict | None = None) -> tuple:
    """A trainer's starting policy (``--init``): ``"zoo"`` for the env's zoo policy at the
    config's player count, else a policy file; returns ``(policy, card)`` as ``load_policy``."""
    from baralho.agents.policy import load_policy

    config = dict(config or {})
    players = config.get("num_players")
    path = zoo_path(env_id, players) if init == "zoo" else init
    if path is None:
        raise ValueError(f"--init zoo: no zoo policy for {env_id} at {players or 2} players")
    return load_policy(path, env_id, config)


def available() -> list[str]:
    return sorted(p.stem for p in V1.glob("*.json"))


def export(model: str | Path, out: str | Path, env_id: str | None = None, config: dict | None = None) -> Path:
    """Write the policy of ``model`` as ``out``.json + ``out``.npz (weights only, float32, no
    optimizer state) for shipping or for ``ppo:``; returns the card's path.

    ``model`` is a policy card (NAME.json: checked and copied) or an SB3 zip made by
    MaskablePPO.save: of a zip only ``policy.pth`` is read, with torch's weights-only
    unpickler, never the pickled ``data``, so ``env_id`` (and ``config`` when not the
    defaults) must be given, and the activation is SB3's default (tanh). Needs the
    ``train`` extra."""
    from baralho.agents import policy as P

    if Path(model).suffix != ".zip":
        policy, card = P.load_policy(model, env_id, config)    # how its net searches goes along (checked)
        search = {"search": card["search"]} if card.get("search") else {}
        return P.save_policy(policy, out, card["env_id"], card["config"], **search)
    if env_id is None:
        raise P.PolicyError(f"{model}: an SB3 zip names its env only in pickled fields, which are not read; "
                            f"pass env_id (and config)")
    state = P.weights_from_sb3_zip(model)
    policy = P.build_policy(env_id, config or {}, P.net_arch_of({k: v.shape for k, v in state.items()}))
    P.load_weights(policy, state, model)
    return P.save_policy(policy, out, env_id, config or {})
