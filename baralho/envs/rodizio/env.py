"""Rodízio — a sowing game where the **second** highest pizza total wins.

| Import               | `from baralho.envs import rodizio_v1` or `baralho.make("rodizio_v1")` |
|----------------------|------------------------------------------------------------------------|
| Actions              | Discrete(18)                                                           |
| Parallel API         | No                                                                     |
| Manual control       | No                                                                     |
| Agents               | `agents = ['player_0', …, 'player_{n-1}']`, n = 2…5                    |
| Action shape         | (1,)                                                                   |
| Action values        | [0, 17]                                                                |
| Observation shape    | Dict: `observation` int16 (298, 299, 320, 341 for 2–5 players), `action_mask` int8 (18,) |
| Observation values   | see the layout below                                                   |

Three plates hold stacks of pizza cards and the plaquinha. On your turn you
*serve* a plate: its whole stack is dealt, top card first, one card onto each
plate clockwise starting with the next; then you eat the card just below the
last card dealt (or that card, when it is alone). A plate topped by the
plaquinha cannot be served, and serving a stack that held the plaquinha eats
nothing. With 2 players the Comilão, an automatic eater, plays after you both
(it is not an agent) and eats one pizza by the normal rule. The game ends
when 3 cards remain in the centre; the
player(s) with the **second** highest total win. Every rule, its test, and our
decisions: ``baralho/envs/rodizio/RULES.md``.

### Action space

| id     | action                                                                  |
|--------|-------------------------------------------------------------------------|
| 0–2    | serve plate 0, 1, 2                                                     |
| 3–17   | (spicy mode, after an Escolha Livre pepper) eat the card at depth `id-3` from the top of the plate being eaten from |

### Observation space

`observation` is a flat int16 vector; `env.unwrapped.game.obs_layout.decode(obs)`
returns it by name. Eaters are seat-relative: the observer first, the other
players in play order, the Comilão last (2 players). Every value is a small
integer; int16 because round counts reach 1000 (`max_rounds`), half of
float32's memory (learners cast to float).

| name | shape | meaning |
|---|---|---|
| `plates` | (3, 15, 5) | per plate, per depth from the top: present, value (0–8), plaquinha, Escolha Livre, Dupla Ação |
| `stack_size` | (3,) | cards on each plate |
| `eaten` | (e, 17) | pizza ids each eater has eaten; another eater's row only with `memory="perfect"` |
| `eaten_count` | (e,) | size of every eater's pile (always public) |
| `eaten_total` | (e,) | value of every eater's pile (own always; others only with `memory="perfect"`) |
| `to_act` | (e,) | one-hot: who acts now |
| `pending` | (3,) | one-hot: the plate of a pending Escolha Livre choice |
| `position` | (n,) | one-hot: the observer's place in the turn order (seat 0 plays first every round) |
| `round` | (1,) | completed rounds |
| `rounds_left` | (1,) | rounds before the turn bound ends the game, this one included |
| `flags` | (3,) | spicy mode, perfect memory, the Comilão plays (2 players) |

`action_mask` is the legal mask for the acting agent and all zeros for the others.

### Rewards

At the end: +1 to every player holding the second highest total (distinct
totals: with totals 10, 10, 5 the player with 5 wins), −1 to every other player.
If the Comilão holds the second total (alone or tied with a player), or all
totals are equal, everyone gets −1. No intermediate rewards.

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

* v1: the Comilão eats one pizza by the normal rule and does no pepper action
  (v0 played its Escolha Livre and Dupla Ação); if the Comilão's total is the
  second highest every player loses, also when a player ties with it (v0: the
  tied player won); every `max_rounds` in 1..1000 plays (v0 crashed at round
  256). Observation: int16 (was float32), and new fields `position`,
  `rounds_left` and the Comilão flag (`flags` has 3 cells).
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
                 illegal_reward: float = -1.0, render_view: str | int = "current", engine: str | None = None,
                 **config) -> None:
        super().__init__(RodizioGame(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view, engine=engine)


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
