"""The Scala 40 action ids (one flat Discrete space, factored: no meld subsets)."""

from __future__ import annotations

from baralho.envs.scala40.melds import JOKER, NUM_KINDS, card_name, kind_of

MAX_MELDS = 36  # 108 cards / 3: the table can never hold more melds

# the turn's phases and the hand's limits (rules.py plays them; checks.py and the compiled engine read them)
DRAW, PLAY, OVER = 0, 1, 2
HAND_SIZE = 13
ELIMINATION = 100          # a total above this eliminates the player
ROUNDS_PER_HAND = 20       # a hand lasts at most 20 turns per player; then it ends with no one closing

DRAW_STOCK = 0
DRAW_DISCARD = 1
SELECT = 2                                  # SELECT + k: move card kind k into the meld being built
COMMIT = SELECT + NUM_KINDS                 # 55: commit the built cards as a new meld (no joker)
COMMIT_JOKER = COMMIT + 1                   # 56 + 14*suit + (pos-1): commit, the joker stands for (suit, pos)
EXTEND = COMMIT_JOKER + 4 * 14              # 112 + m: lay the built cards off on meld m (higher placement)
EXTEND_LOW = EXTEND + MAX_MELDS             # 148 + m: same, the lower placement (only when it differs)
SWAP = EXTEND_LOW + MAX_MELDS               # 184 + m: swap the joker of meld m for the card it stands for
UNDO = SWAP + MAX_MELDS                     # 220: take back the melds staged this turn (opening not reached)
DISCARD = UNDO + 1                          # 221 + k: discard card kind k, ending the turn
NUM_ACTIONS = DISCARD + NUM_KINDS           # 274


def action_table() -> str:
    """Markdown rows documenting every action id (used by the env docstring)."""
    return "\n".join([
        "| id | action |", "|---|---|",
        f"| {DRAW_STOCK} | draw the top card of the stock |",
        f"| {DRAW_DISCARD} | take the top card of the discard pile |",
        f"| {SELECT}–{SELECT + NUM_KINDS - 1} | `{SELECT} + k`: put card kind k (0–51 = suit·13 + rank, "
        f"52 = joker) from the hand into the meld being built |",
        f"| {COMMIT} | lay the built cards down as a new meld (no joker) |",
        f"| {COMMIT_JOKER}–{EXTEND - 1} | `{COMMIT_JOKER} + 14·suit + (pos−1)`: lay them down as a new meld, "
        f"the joker standing for that suit and run position 1–14 (14 = ace high; for a set pos is the rank) |",
        f"| {EXTEND}–{EXTEND_LOW - 1} | `{EXTEND} + m`: lay the built cards off on table meld m "
        f"(when two placements exist, the higher one) |",
        f"| {EXTEND_LOW}–{SWAP - 1} | `{EXTEND_LOW} + m`: lay them off on meld m at the lower placement "
        f"(joker or ace at the low end) |",
        f"| {SWAP}–{UNDO - 1} | `{SWAP} + m`: give the card meld m's joker stands for, take the joker |",
        f"| {UNDO} | take back the melds staged this turn and the meld being built |",
        f"| {DISCARD}–{NUM_ACTIONS - 1} | `{DISCARD} + k`: discard card kind k, ending the turn |",
    ])


def joker_action(suit: int, pos: int) -> int:
    return COMMIT_JOKER + 14 * suit + pos - 1


def joker_target(action: int) -> tuple[int, int]:
    """(suit, position) named by a COMMIT_JOKER action."""
    i = action - COMMIT_JOKER
    return i // 14, i % 14 + 1


def joker_target_name(action: int) -> str:
    suit, pos = joker_target(action)
    name = card_name(kind_of(suit, pos))
    return name + (" (high)" if pos == 14 else "")


__all__ = ["JOKER", "MAX_MELDS", "NUM_ACTIONS", "DRAW_STOCK", "DRAW_DISCARD", "SELECT", "COMMIT",
           "COMMIT_JOKER", "EXTEND", "EXTEND_LOW", "SWAP", "UNDO", "DISCARD"]
