"""Roda de Samba — build the most famous roda de samba.

| Import             | `from baralho.envs import roda_de_samba_v1`                     |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete(135) with the default deck (depends on the card list)   |
| Parallel API       | No                                                               |
| Manual control     | No                                                               |
| Agents             | `agents = ['player_0', …, 'player_{n-1}']`, n = 2…5              |
| Action shape       | (1,)                                                             |
| Action values      | [0, 134]                                                         |
| Observation shape  | (1314,) for 2 players with the default deck (grows with n)       |
| Observation values | bounded floats, see the table below                              |

Rules (RULES.md next to this file; source: the Portuguese rules, with our
decisions where they are silent): on your turn draw 2 cards or take a whole
colour's discard pile; lay one instrument, or a pair/trio/quartet of one
instrument, on the space it already holds or on an empty one of the 10 spaces
around your roda (neighbours must share a colour or a visible number — coringas
by colour only — or cost 2 fame each: samba atravessado); call at most one
sambista whose requirements your roda meets (his benefit: an instrument that
counts for later calls, or a one-shot `!` action); discard one card to its
colour's pile (a malandro to any pile, and you may reserve a sambista). The game
ends after the round in which a roda fills its 10 spaces or the deck runs out
(or after `max_rounds` rounds). Fame = stars + colour bonuses − 2 per samba
atravessado; ties go to most cards laid. The card list is ONE data file
(`deck.json`), replaceable with `deck=path`.

Observation space
-----------------
`observation` is seat-relative: the observer is row 0 of every per-player
field, the others follow in play order. Never another player's unknown hand
cards, never a deck order; cards taken from discard piles are public
(`known`). With the default deck, 2 players (I = 16 instruments incl. 4
coringas, K = 53 card kinds incl. the malandro, S = 23 sambistas):

| slice | name | shape | meaning |
|---|---|---|---|
| 0:7 | `phase` | (7,) | one-hot: draw, lay, place, call, pile, discard, reserve |
| 7:11 | `bang` | (4,) | the `!` benefit being resolved: compra, descarte, baixa, malandragem |
| 11:63 | `selected` | (52,) | cards of the lay group being built |
| 63:116 | `hand` | (53,) | own hand, count per card kind |
| 116:117 | `deck_size` | (1,) | instrument deck size |
| 117:329 | `piles` | (4, 53) | discard pile per colour, count per kind |
| 329:421 | `open_row` | (4, 23) | open sambistas, one-hot per slot |
| 421:422 | `sambista_deck_size` | (1,) | face-down sambistas |
| 422:423 | `round` | (1,) | rounds completed |
| 423:424 | `end_triggered` | (1,) | this round is the last |
| 424:426 | `current` | (n,) | the acting seat |
| 426:428 | `hand_size` | (n,) | cards in hand |
| 428:534 | `known` | (n, 53) | cards publicly known in each hand |
| 534:854 | `space_instrument` | (n, 10, 16) | instrument on each roda space |
| 854:934 | `space_colour` | (n, 10, 4) | colour of each space |
| 934:1014 | `space_numbers` | (n, 10, 4) | visible numbers on each space |
| 1014:1034 | `space_cards` | (n, 10) | cards stacked on each space |
| 1034:1138 | `laid` | (n, 52) | cards laid, count per kind |
| 1138:1184 | `sambistas` | (n, 23) | sambistas called |
| 1184:1230 | `top_sambista` | (n, 23) | the sambista on top |
| 1230:1262 | `brought` | (n, 16) | instrument the top sambista brings |
| 1262:1308 | `reserved` | (n, 23) | reserved sambista (face up) |
| 1308:1310 | `atravessados` | (n,) | pairs out of harmony |
| 1310:1312 | `fame` | (n,) | fame if the game ended now |
| 1312:1314 | `cards_laid` | (n,) | cards laid (tie-break) |

`env.unwrapped.game.obs_layout.decode(obs)` returns these as named arrays;
`.table()` prints the exact slices for any config. `action_mask` is int8 and read-only
(the game shares one mask array between positions with the same legal set).

Action space (default deck; `game.A_*` hold the offsets for any card list)
---------------------------------------------------------------------------
| id | meaning |
|---|---|
| 0 | draw 2 from the instrument deck (1 if only 1 is left) |
| 1–4 | take the whole discard pile of colour corda, mao, baqueta, criativos (also the `!descarte` choice) |
| 5–56 | lay card kind a−5 (instrument × number, coringas last); again for a pair/trio/quartet |
| 57–66 | place the group on space s−57 (its instrument's space, or an empty one) |
| 67–70 | call the open sambista in slot a−67 |
| 71 | call the reserved sambista |
| 72 | call nobody |
| 73–124 | discard instrument kind a−73 onto its colour's pile |
| 125–128 | discard a malandro onto the pile of colour a−125 |
| 129–132 | reserve the open sambista in slot a−129 (after a malandro or `!malandragem`) |
| 133 | reserve the top of the sambista deck |
| 134 | reserve nobody |

Rewards
-------
At the end: +1 to the winner, −1/(n−1) to each other player; tied winners
(same fame, same cards laid) share (each (n−w)/(w(n−1))). Zero otherwise.

Config options
--------------
- `num_players` (int, 2): 2–5.
- `deck` (str or None, None): path of a card-list JSON file; None = the bundled
  `deck.json`. Validated on load (errors name the bad entry).
- `max_rounds` (int, 30): the turn bound; the game ends after this round.

Version history
---------------
- v0: initial release.
"""

from baralho.core.aec import BaralhoEnv
from baralho.core.config import build_config
from baralho.envs.roda_de_samba.rules import ENV_ID, Config, RodaDeSambaGame

__all__ = ["ENV_ID", "Config", "TEST_CONFIGS", "env", "raw_env"]


class raw_env(BaralhoEnv):
    metadata = {**BaralhoEnv.metadata, "name": ENV_ID}

    def __init__(self, render_mode=None, illegal_action="raise", illegal_reward=-1.0,
                 render_view="current", **config):
        super().__init__(RodaDeSambaGame(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view)


def env(**kwargs) -> raw_env:
    return raw_env(**kwargs)


# configs the conformance suite runs: every player count (the layout grows with n)
TEST_CONFIGS = [dict(num_players=2), dict(num_players=3), dict(num_players=4), dict(num_players=5)]
