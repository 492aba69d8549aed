"""Scala 40 (scala40_v1): the Italian rummy for 2–5 players, with the MegaJogos (Brazil) rules.

| | |
|---|---|
| Import | `from baralho.envs import scala40_v1` |
| Actions | Discrete(274) |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', 'player_1']` (2–5 by `num_players`) |
| Action shape | (1,) |
| Action values | Discrete(274) |
| Observation shape | (3129,) at 2 players; 3293, 3457, 3621 at 3, 4, 5 (164 per extra player) |
| Observation values | int8, [-1, 127] (each slice has its own bound, see below) |

## Rules

Two French decks plus 2 (or 4) jokers; 13 cards each, one card face up on the
discard pile, the rest is the stock. Each turn: draw (stock, or the top discard —
which a player who has not opened may take only to use it in the opening, except
the first player's free pick of the dealt discard), then meld, lay off and swap
jokers, then discard. Sets are 3–4 cards of one rank in different suits; runs
3+ cards of one suit, ace low (A-2-3) or high (Q-K-A), never K-A-2; at most one
joker per meld, standing for a named card. Opening needs 40 points from your own
hand in one turn; after it you may lay off on any meld and swap a table joker
for the card it stands for. Closing: meld everything but one card and discard it
(never in the first round); closing in hand (opening and going out in one turn)
doubles the opponents' penalties. Penalties: joker 25, ace 11 (a lone ace 1),
faces 10, others face value. Past 100 a player is eliminated; the last player
standing wins the match. The full rules as implemented, the decisions we took
where the source is silent, and the bounds are in
`baralho/envs/scala40/RULES.md`.

## Observation space

`observe(agent)` is a dict: `observation` (int8 vector) and `action_mask`
(int8, the acting player's legal actions; all zeros for the others).
The dtype is `int8` on purpose: every cell is a small integer (a card count, a
flag, a card kind, a number of turns or points), every field's bound fits in
−128…127 (piles hold at most 108 cards, a hand lasts at most 100 turns; the
staged value is capped at 100 and penalty totals at 127, beyond which nothing
changes), and int8 is a quarter of float32's buffer memory and of the data
moved between workers. Learners cast to float (SB3 and the trainer do). The
vector is seat-relative: index 0 of every per-player slice is the observer,
the others follow in play order. Decode it with
`env.unwrapped.game.obs_layout.decode(obs["observation"])`. The layout at 2
players (per-player slices have `num_players` rows):

{layout}

The observation never holds another player's hidden cards or a hidden stock
order. `known` is public knowledge: cards a player took from the discard pile
(or drew from a stock whose order is public), took from the table with a joker
swap, or took back with an undo, and still holds (a card leaves `known` when a
card of that kind is seen leaving the hand). The discard pile is shown in full:
by counts, its last 16 cards one-hot, and the whole pile in order as card kinds
(`discard_pile`). After an unshuffled turnover everyone saw the pile go over,
so the stock's order is public: `stock_known` lists it (card kinds, top first)
and `stock_counts` counts it; after a shuffled one, or while the dealt stock
lasts, both are empty. `discarded` and `taken` count, per seat, what each
player has discarded and taken from the pile this hand. `place` and
`progress` give the observer's place in this hand's turn order and the turns
left before the hand's bound.

## Action space

A card kind is `k = 13·suit + rank` (suits ♠ ♥ ♦ ♣, rank 0 = ace … 12 = king), 52 =
joker. Melds are built card by card (`select`), then laid down (`commit`) or
laid off (`extend`); no meld subsets are enumerated.

{actions}

Turn structure: draw (0 or 1), then any number of select/commit/extend/swap/
undo actions, then one discard (221+k), which ends the turn. The mask only
offers actions from which the turn can end legally: a selected card can always
be completed into a meld or lay-off; a player who took the discard before
opening is only offered plays that still reach the opening with that card.
Melds staged before the 40 points are reached are marked `staged` in the
observation and return to the hand (publicly) on `undo` (once per turn) or on
the discard. A meld or lay-off must leave one card in hand for the discard (two
while closing is not yet allowed, in the first round). Bounds: at most 69
decisions per turn, 20 turns per player per hand (RULES.md).

## Rewards

`scope="match"` (default): at the end of the match +1 to the winner and
−1/(n−1) to every other player (ties for the win share the winners' total;
the rewards sum to zero). `scope="hand"`: one hand is the episode; each player
receives −(penalty points)/100, the closer 0.

## Config options

| option | default | values |
|---|---|---|
| `num_players` | 2 | 2–5 |
| `num_jokers` | 2 | 2 or 4 (106 or 108 cards) |
| `scope` | `"match"` | `"match"` (to the last player standing) or `"hand"` |
| `dealt_joker` | `"take"` | `"take"`: the first player may take a dealt joker freely; `"reshuffle"`: a joker turned at the deal is shuffled back into the stock |
| `taken_discard` | `"free"` | after opening, the top discard may be taken `"free"`ly or only if it is melded or laid off that turn (`"must_use"`) |
| `turnover` | `"unshuffled"` | stock exhausted: the discard pile turned over as it is, or `"shuffled"` |
| `engine` | `"compiled"` | env option: `"compiled"` (fast.py, numba; the default) or `"reference"` (rules.py): the same game, move for move (tests/vector) |

## Version history

* v1 (later): the compiled engine (`fast.py` and its twins of melds.py, solver.py and mask.py) is the default; the
  same seed gives the same game on both engines (the deal and in-play chance are
  the reference's).
* v1: observation dtype `int8` (raw counts, points and turns instead of
  fractions: hand sizes, pile sizes, staged value, penalty totals); new fields
  `place` (you are first to play, your place in this hand's turn order),
  `discard_pile` (the whole pile in order), `stock_counts` and `stock_known`
  (the stock after an unshuffled turnover), `discarded` and `taken` (the
  discard history per seat); `progress` is now [turns played, turns left
  before the bound, turnovers] (the "you are first" cell moved to `place`).
  Rules: a card drawn from a public stock (after an unshuffled turnover) is
  publicly known to be in that hand; after a shuffled turnover the stock is
  hidden again (a resample redraws it with the opponents' unknown cards).
  `resample_hidden` for a seat that is not acting only returns positions from
  which the actor can end its turn (v0: about 6% of such resamples left the
  actor with no legal move).
* v0: initial release.
"""

from baralho.core.aec import BaralhoEnv
from baralho.core.config import build_config
from baralho.envs.scala40.actions import action_table
from baralho.envs.scala40.observation import build_layout
from baralho.envs.scala40.rules import ENV_ID, Config, Scala40Game

__doc__ = __doc__.replace("{layout}", build_layout(2).table()).replace("{actions}", action_table())


class raw_env(BaralhoEnv):
    metadata = {**BaralhoEnv.metadata, "name": ENV_ID}

    def __init__(self, render_mode=None, illegal_action="raise", illegal_reward=-1.0,
                 render_view="current", engine=None, **config):
        super().__init__(Scala40Game(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view, engine=engine)


def env(**kwargs) -> raw_env:
    return raw_env(**kwargs)


# configs the conformance suite runs: 2-5 players and every variant flag once. The
# larger tables play one hand (scope="hand"): random play never closes, so a random
# match runs several full-length hands and would dominate the suite's time budget.
TEST_CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, scope="hand", dealt_joker="reshuffle", taken_discard="must_use"),
    dict(num_players=4, scope="hand", num_jokers=4, turnover="shuffled"),
    dict(num_players=5, scope="hand"),
]
