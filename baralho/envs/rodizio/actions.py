"""Rodízio's action ids (Discrete(18)); env.py's docstring lists them."""

from __future__ import annotations

from baralho.envs.rodizio import cards as C

# 0..2 serve plate p; 3..17 eat the card at depth d (0 = top) of the plate being
# eaten from, after an Escolha Livre pepper.
SERVE = 0
EAT = C.NUM_PLATES
MAX_STACK = C.CENTRE_CARDS  # no stack can hold more than the centre's 15 cards
NUM_ACTIONS = EAT + MAX_STACK


def describe_action(state, action: int) -> str:
    if SERVE <= action < EAT:
        stack = state.stacks[action]
        return f"serve plate {action} ({len(stack)} card{'s' * (len(stack) != 1)})"
    depth = action - EAT
    if state.pending >= 0 and depth < len(state.stacks[state.pending]):
        card = state.stacks[state.pending][-1 - depth]
        return f"eat {C.card_name(card)} at depth {depth} of plate {state.pending}"
    return f"eat the card at depth {depth} (Escolha Livre)"
