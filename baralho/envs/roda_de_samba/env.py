"""Roda de Samba — build the most famous roda de samba.

| Import             | `from baralho.envs import roda_de_samba_v1`                     |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete(135) with the default deck (depends on the card list)   |
| Parallel API       | No                                                               |
| Manual control     | No                                                               |
| Agents             | `agents = ['player_0', …, 'player_{n-1}']`, n = 2…5              |
| Action shape       | (1,)                                                             |
| Action values      | [0, 134]                                                         |
| Observation shape  | (1340,) for 2 players with the default deck (+446 per player)    |
| Observation values | int16, bounded, see the table below                              |

Rules (RULES.md next to this file; source: the Portuguese rules, with our
decisions where they are silent): on your turn draw 2 cards or take a whole
colour's discard pile; lay one instrument, or a pair/trio/quartet of one
instrument, on the space it already holds or on an empty one of the 10 spaces
around your roda (neighbours must share a colour or a visible number — coringas
by colour only — or cost 2 fame each: samba atravessado); call at most one
sambista whose requirements your roda meets (his benefit: an instrument that
counts for later calls, or a one-shot `!` action); discard one card to its
colour's pile (a malandro to any pile, and you may reserve a sambista: one
already reserved swaps places with it, on the open row or face up on top of
the sambista deck). The game
ends after the round in which a roda fills its 10 spaces or the deck runs out
(or after `max_rounds` rounds). Fame = stars + colour bonuses − 2 per samba
atravessado; ties go to most cards laid. The card list is ONE data file
(`deck.json`), replaceable with `deck=path`.

Observation space
-----------------
`observation` is seat-relative: the observer is row 0 of every per-player
field, the others follow in play order; `position` gives the observer's place
in the turn order (seat 0 starts every round), so with `end_triggered` or
`rounds_left` a policy knows whether its turn is the game's last. Never another
player's unknown hand cards, never a deck order; cards taken from discard piles
are public (`known`), and so is a sambista a malandro swap put on top of the
sambista deck (`sambista_deck_top`).

dtype: `np.int16`. Every value is a small integer (counts, one-hots, fame), so
an integer dtype cuts buffers 2× against float32; not int8, because fame
reaches 145 with the default deck (53 stars + 23 colour bonuses × up to 4
spaces of a colour), and a replacement deck or `max_rounds` up to 200 can pass
127 elsewhere. Learners cast to float themselves.

With the default deck, 2 players (I = 16 instruments incl. 4 coringas, K = 53
card kinds incl. the malandro, S = 23 sambistas):

| slice | name | shape | meaning |
|---|---|---|---|
| 0:7 | `phase` | (7,) | one-hot: draw, lay, place, call, pile, discard, reserve |
| 7:11 | `bang` | (4,) | the `!` benefit being resolved: compra, descarte, baixa, malandragem |
| 11:63 | `selected` | (52,) | cards of the lay group being built |
| 63:116 | `hand` | (53,) | own hand, count per card kind |
| 116:117 | `deck_size` | (1,) | instrument deck size |
| 117:329 | `piles` | (4, 53) | discard pile per colour, count per kind |
| 329:421 | `open_row` | (4, 23) | open sambistas, one-hot per slot |
| 421:422 | `sambista_deck_size` | (1,) | sambistas in the sambista deck |
| 422:445 | `sambista_deck_top` | (23,) | its top when known (put there by a malandro swap), one-hot; all zero: unknown |
| 445:446 | `round` | (1,) | rounds completed |
| 446:447 | `rounds_left` | (1,) | rounds left before the turn bound, this one included (`max_rounds` − `round`) |
| 447:448 | `end_triggered` | (1,) | this round is the last |
| 448:450 | `position` | (n,) | one-hot: the observer's place in the turn order (0 = seat 0, who starts) |
| 450:452 | `current` | (n,) | the acting seat |
| 452:454 | `hand_size` | (n,) | cards in hand |
| 454:560 | `known` | (n, 53) | cards publicly known in each hand |
| 560:880 | `space_instrument` | (n, 10, 16) | instrument on each roda space |
| 880:960 | `space_colour` | (n, 10, 4) | colour of each space |
| 960:1040 | `space_numbers` | (n, 10, 4) | visible numbers on each space |
| 1040:1060 | `space_cards` | (n, 10) | cards stacked on each space |
| 1060:1164 | `laid` | (n, 52) | cards laid, count per kind |
| 1164:1210 | `sambistas` | (n, 23) | sambistas called |
| 1210:1256 | `top_sambista` | (n, 23) | the sambista on top |
| 1256:1288 | `brought` | (n, 16) | instrument the top sambista brings |
| 1288:1334 | `reserved` | (n, 23) | reserved sambista (face up) |
| 1334:1336 | `atravessados` | (n,) | pairs out of harmony |
| 1336:1338 | `fame` | (n,) | fame if the game ended now, in [−20, 145] |
| 1338:1340 | `cards_laid` | (n,) | cards laid (tie-break) |

`env.unwrapped.game.obs_layout.decode(obs)` returns these as named arrays;
`.table()` prints the exact slices for any config. `action_mask` is int8, a fresh writable
copy on every `observe` (editing it changes nothing in the env; the game's own cached masks,
shared between positions with the same legal set, stay read-only inside it).

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
- `engine` (str, "compiled"): the compiled engine (`fast.py`, numba; any
  deck file) or "reference" (`rules.py`); the same game move for move.

Version history
---------------
- v1: rule: a malandro swap with the sambista deck's top puts the old reserved
  sambista on top of that deck, face up (public, kept by `resample_hidden`,
  the next refill), instead of shuffling it in; the in-state rng that served
  the shuffle is gone. Observation: dtype float32 → int16; new fields
  `sambista_deck_top` (that known top), `rounds_left` (rounds before the
  `max_rounds` bound) and `position` (the observer's place in the turn order);
  `fame`'s upper bound is now tight (145 with the default deck, was 283).
  The slices after `sambista_deck_size` moved (see the table).
- v0: initial release.
"""

from baralho.core.aec import BaralhoEnv
from baralho.core.config import build_config
from baralho.envs.roda_de_samba.rules import ENV_ID, Config, RodaDeSambaGame

__all__ = ["ENV_ID", "Config", "TEST_CONFIGS", "env", "raw_env"]


class raw_env(BaralhoEnv):
    metadata = {**BaralhoEnv.metadata, "name": ENV_ID}

    def __init__(self, render_mode=None, illegal_action="raise", illegal_reward=-1.0,
                 render_view="current", engine=None, **config):
        super().__init__(RodaDeSambaGame(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view, engine=engine)


def env(**kwargs) -> raw_env:
    return raw_env(**kwargs)


# configs the conformance suite runs: every player count (the layout grows with n)
TEST_CONFIGS = [dict(num_players=2), dict(num_players=3), dict(num_players=4), dict(num_players=5)]
