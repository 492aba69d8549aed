"""Rodízio — a sowing game where the **second** highest pizza total wins.

| Import               | `from baralho.envs import rodizio_v1` or `baralho.make("rodizio_v1")` |
|----------------------|------------------------------------------------------------------------|
| Actions              | Discrete(18)                                                           |
| Parallel API         | No                                                                     |
| Manual control       | No                                                                     |
| Agents               | `agents = ['player_0', …, 'player_{n-1}']`, n = 2…5                    |
| Action shape         | (1,)                                                                   |
| Action values        | [0, 17]                                                                |
| Observation shape    | Dict: `observation` float32 (2 players: 299, grows with n), `action_mask` int8 (18,) |
| Observation values   | see the layout below                                                   |

Three plates hold stacks of pizza cards and the plaquinha. On your turn you
*serve* a plate: its whole stack is dealt, top card first, one card onto each
plate clockwise starting with the next; then you eat the card just below the
last card dealt (or that card, when it is alone). A plate topped by the
plaquinha cannot be served, and serving a stack that held the plaquinha eats
nothing. With 2 players the Comilão, an automatic eater, plays after you both
(it is not an agent). The game ends when 3 cards remain in the centre; the
player(s) with the **second** highest total win. Every rule, its test, and our
decisions: ``baralho/envs/rodizio/RULES.md``.

### Action space

| id     | action                                                                  |
|--------|-------------------------------------------------------------------------|
| 0–2    | serve plate 0, 1, 2                                                     |
| 3–17   | (spicy mode, after an Escolha Livre pepper) eat the card at depth `id-3` from the top of the plate being eaten from |

### Observation space

`observation` is a flat float32 vector; `env.unwrapped.game.obs_layout.decode(obs)`
returns it by name. Eaters are seat-relative: the observer first, the other
players in play order, the Comilão last (2 players).

| name | shape | meaning |
|---|---|---|
| `plates` | (3, 15, 5) | per plate, per depth from the top: present, value (0–8), plaquinha, Escolha Livre, Dupla Ação |
| `stack_size` | (3,) | cards on each plate |
| `eaten` | (e, 17) | pizza ids each eater has eaten; another eater's row only with `memory="perfect"` |
| `eaten_count` | (e,) | size of every eater's pile (always public) |
| `eaten_total` | (e,) | value of every eater's pile (own always; others only with `memory="perfect"`) |
| `to_act` | (e,) | one-hot: who acts now |
| `pending` | (3,) | one-hot: the plate of a pending Escolha Livre choice |
| `round` | (1,) | completed rounds |
| `flags` | (2,) | spicy mode, perfect memory |

`action_mask` is the legal mask for the acting agent and all zeros for the others.

### Rewards

At the end: +1 to every player holding the second highest total (distinct
totals: with totals 10, 10, 5 the player with 5 wins), −1 to every other player.
If the Comilão alone holds the second total, or all totals are equal, everyone
gets −1. No intermediate rewards.

### Config

| key | default | meaning |
|---|---|---|
| `num_players` | 2 | 2–5; with 2 the Comilão plays after every round |
| `spicy` | False | modo apimentado: pepper actions Escolha Livre and Dupla Ação |
| `memory` | "perfect" | "perfect": everyone remembers which pizzas every eater ate (they were eaten in view); "none": only the table now, own pile and pile sizes |
| `max_rounds` | 30 | turn bound: the game ends (scored as usual) after this many rounds |

Adapter options: `render_mode` ("ansi", "human"), `render_view` ("current",
"omniscient" or a seat), `illegal_action` ("raise" or "penalize"), `illegal_reward`.

### Version history

* v0: initial release.
"""

from __future__ import annotations

from baralho.core.aec import BaralhoEnv
from baralho.core.config import build_config
from baralho.envs.rodizio.rules import ENV_ID, Config, RodizioGame

__all__ = ["ENV_ID", "Config", "TEST_CONFIGS", "env", "raw_env"]


class raw_env(BaralhoEnv):
    metadata = {**BaralhoEnv.metadata, "name": ENV_ID}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 illegal_reward: float = -1.0, render_view: str | int = "current", **config) -> None:
        super().__init__(RodizioGame(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view)


def env(**kwargs) -> raw_env:
    """The Rodízio env (checks built in; see the module docstring for options)."""
    return raw_env(**kwargs)


# What the conformance suite runs: every player count, both memories, spicy mode.
TEST_CONFIGS: list[dict] = [
    dict(num_players=2),
    dict(num_players=2, spicy=True),
    dict(num_players=2, memory="none", spicy=True),
    dict(num_players=3),
    dict(num_players=3, memory="none"),
    dict(num_players=4, spicy=True),
    dict(num_players=5, spicy=True, memory="none"),
]
