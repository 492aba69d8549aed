"""Chuche: a sum-to-target fishing game with action cards played in and out of turn.

| Import             | `from baralho.envs import chuche_v1`                       |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete(124)                                              |
| Parallel API       | No                                                         |
| Manual control     | No                                                         |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`, n = 2..6      |
| Action shape       | (1,)                                                       |
| Action values      | Discrete(124)                                              |
| Observation shape  | (236 + 61·n,): 358 for 2 players ... 602 for 6            |
| Observation values | int16, [0, R·max_rounds], R = 113/125/137 (each slice has its own bound) |

Rules (RULES.md next to this file has every rule and decision with its test):
each player holds 3 number cards (fronts 1-6 in 4-6 colours; the backs, 6-10,
face the table). The target is the back of the stock's top card (7 once the
stock is empty). On your turn capture exactly one hand card plus one or more
table cards summing to the target, or, if no capture is possible, place a card.
Clearing the table wins the top Chuche (action) card; refill to 3 at the end of
your turn. Chuche cards: Coringa (sum ±1), Roubar (a random card of an opponent
goes to the table), Bomba (everyone places a card), Bloqueio (reserve a table
card, also out of turn), Escudo (defend against Roubar/Bomba, or unblock). At
most one per turn by the turn player, in every window of that turn too
(reactions by the others excepted). Scoring: red 5 = 5, other 5s = 4, other
reds = 3, the rest 1, Chuche cards 2 each (4 each from 3 on). Rounds repeat until
someone reaches 140/120/100/80/60 points (2/3/4/5/6 players); ties play on.

Out of turn: whoever must decide now is the selected agent. When Roubar hits a
player holding an Escudo, that player is asked (Escudo or pass). Under Bomba
every player with cards is asked in turn order from the next seat, the bomber
last (place a card, or Escudo if held; never the bomber's own Escudo). After
cards reach the table (a place, a Roubar, a Bomba) each Bloqueio holder is asked
once, nearest next turn first, the turn player last and only if it has not
played a Chuche card this turn (block a card or pass). Only holders are asked.
Then play returns to the turn player (or the next turn). Escudo unblocks only a
card an exact capture can then use, and the turn's capture must use it.

### Observation space

`observe(agent)` is a dict: `"observation"` (int16 vector, named slices below;
`env.unwrapped.game.obs_layout.decode(obs)` returns them by name) and
`"action_mask"` (int8, 124). Seat-relative: rows "by seat" put the observer
first, then the others in play order.

dtype: every value is a count, a flag or points, so an integer dtype (as
PettingZoo's board games use; learners cast to float). int8 cannot hold the
points: a round can give one player R = 113 (2 players), 125 (3-4) or 137 (5-6)
points (every card plus all 12 Chuche cards at 4), and `scores` reach
R·max_rounds ≤ 27,400 at the cap of 200 rounds, so **int16** (half of float32's
memory).

| name | shape | meaning |
|---|---|---|
| `hand` | (3, 17) | own hand by slot (hand sorted): colour one-hot (6), front 1-6 (6), back 6-10 (5) |
| `capture_card` | 17 | hand card of the capture being built (it is shown face up) |
| `capture_selected` | 36 | table cards already added to it, by kind |
| `capture_sum` | 1 | hand card + added cards (0..11) |
| `must_use` | 36 | the kind this turn's Escudo unblocked: the capture must still add it (one-hot) |
| `table` | 36 | unblocked table cards by kind (kind = colour·6 + front−1) |
| `blocked` | (n, 36) | table cards reserved by each seat, by kind |
| `target` | 5 | target 6..10, one-hot |
| `stock_size` | 1 | cards left in the stock |
| `colours` | 6 | colours in this deck (vermelho, laranja, amarelo, verde, azul, roxo) |
| `gone` | 36 | cards captured this round by anyone, by kind (public) |
| `phase` | 5 | turn, capture, bloqueio window, roubar escudo window, bomba |
| `chuche_played` | 1 | the turn player has used the turn's Chuche card |
| `window_ends_turn` | 1 | in a Bloqueio window: the turn ends after it (it follows a place) |
| `bomba_placed` | 1 | under Bomba: cards placed so far (a Bloqueio window follows if any) |
| `chuche_deck` | 1 | Chuche cards left to win |
| `turn_player` | n | whose turn it is, by seat |
| `turn_order` | n | each seat's place in this round's turn order, 0 = the round's first player (row 0: the observer's) |
| `hand_size` | n | cards in each hand |
| `hand_backs` | (n, 5) | the public backs of each hand: counts of 6..10 |
| `chuche_held` | (n, 5) | unused Chuche cards (face up): Coringa, Roubar, Bomba, Bloqueio, Escudo |
| `chuche_used` | (n, 5) | used Chuche cards by type; with `chuche_held` and the 12 of the deck, what is left to win |
| `chuche_won` | n | Chuche cards won this round, used or not |
| `captured` | (n, 4) | captured cards by scoring kind: red 5, other 5s, other reds, the rest |
| `round_points` | n | points of the round so far |
| `scores` | n | match totals of the finished rounds (0..R·max_rounds) |
| `rounds_played` | 1 | finished rounds |
| `rounds_left` | 1 | rounds before the match cap, this one included (1 in scope "round") |

What is left before the round's end: `stock_size` and `hand_size` (the round
ends when both are empty); before the match's: `scores` against the goal
(140/120/100/80/60, fixed by the player count) and `rounds_left`.

Never in it: the fronts of other hands, the stock order, the Chuche deck order.

### Action space

| id | meaning | when |
|---|---|---|
| 0-2 | capture with hand slot i: start a capture | turn |
| 3-5 | place hand slot i on the table | turn (only if no capture is possible), Bomba |
| 6-41 | add a table card of kind k (= id − 6) to the capture | capture |
| 42 | commit the capture (sum = target) | capture |
| 43 | commit with Coringa (sum = target ± 1) | capture |
| 44-79 | Bloqueio on a table card of kind k (= id − 44) | turn, Bloqueio window |
| 80-115 | Escudo: unblock a card of kind k (= id − 80) reserved by another seat | turn |
| 116-120 | Roubar from the player j = id − 115 seats after you | turn |
| 121 | Bomba | turn |
| 122 | Escudo: defend against Roubar / Bomba | Roubar window, Bomba |
| 123 | pass | Bloqueio window, Roubar window |

The capture mask lets in only table cards that can still complete the target
(with a Coringa if you may use one), so a started capture always completes.

### Rewards

Zero-sum, at the end of the episode only: the highest match total (or round
points with `scope="round"`) gets +1 (shared by a tie), the others share −1
(each −1/(n−w) for w winners); all 0 when everyone ties.

### Config options

- `num_players` (int, 2..6, default 2)
- `scope` ("match" default: rounds to the goal; "round": one round)
- `place_rule` ("capture_first" default: place only when no capture exists; "free")
- `max_rounds` (int, 1..200, default 20): cap of a match (ties play on); at
  the cap the highest total wins, ties share.

Episode bound: at most 6·N + 12 decisions per round (N = 36/45/54 cards) and
`max_rounds` rounds: `env.unwrapped.game.max_decisions`.

### Version history

- v1: rules: the bomber may not answer its own Bomba with Escudo; a turn player
  who already played a Chuche card this turn is not asked in the Bloqueio
  windows that follow; Escudo unblocks only a card an exact capture can then
  use, and that capture must use it. Observation: int16 instead of float32,
  with exact bounds (`round_points`, `scores`); new `must_use`,
  `window_ends_turn`, `bomba_placed`, `turn_order`, `chuche_used`,
  `rounds_left` (236 + 61·n instead of 197 + 55·n).
- v0: initial release.
"""

from baralho.core.aec import BaralhoEnv
from baralho.core.config import build_config
from baralho.envs.chuche.rules import ENV_ID, ChucheGame, Config


class raw_env(BaralhoEnv):
    metadata = {**BaralhoEnv.metadata, "name": ENV_ID}

    def __init__(self, render_mode=None, illegal_action="raise", illegal_reward=-1.0,
                 render_view="current", engine=None, **config):
        super().__init__(ChucheGame(build_config(Config, ENV_ID, config)), render_mode=render_mode,
                         illegal_action=illegal_action, illegal_reward=illegal_reward,
                         render_view=render_view, engine=engine)


def env(**kwargs) -> raw_env:
    return raw_env(**kwargs)


# configs the conformance suite runs: every player count, each option value at least once
# (match scope at 2 players: whole matches are long and the suite fuzzes 200 games per config;
#  tests/chuche plays matches at every player count)
TEST_CONFIGS = [
    dict(num_players=2), dict(num_players=3, scope="round"), dict(num_players=4, scope="round"),
    dict(num_players=5, scope="round", place_rule="free"), dict(num_players=6, scope="round"),
]
