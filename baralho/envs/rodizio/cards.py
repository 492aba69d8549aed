"""Rodízio's 18 cards: the one place their data lives.

17 pizza cards, each with a value and (for spicy mode) an optional pepper
action, plus the plaquinha. Card ids are indices into these tables; the
plaquinha is id 17. Values follow ../shared/rules/rodizio.md; which cards show
peppers is our decision (three of each action, spread over the values).
"""

from __future__ import annotations

NONE, LIVRE, DUPLA = 0, 1, 2  # pepper actions: none, Escolha Livre, Dupla Ação
PEPPER_NAMES = {NONE: "", LIVRE: "Escolha Livre", DUPLA: "Dupla Ação"}

# (value, pepper) for pizza ids 0..16
PIZZAS: tuple[tuple[int, int], ...] = (
    (1, NONE), (1, NONE),
    (2, LIVRE), (2, NONE), (2, NONE),
    (3, DUPLA), (3, NONE), (3, NONE),
    (4, LIVRE), (4, NONE), (4, NONE),
    (5, DUPLA), (5, NONE),
    (6, LIVRE), (6, NONE),
    (7, DUPLA),
    (8, NONE),
)
NUM_PIZZAS = len(PIZZAS)            # 17
PLAQUINHA = NUM_PIZZAS              # card id 17
NUM_CARDS = NUM_PIZZAS + 1          # 18
VALUE = tuple(v for v, _ in PIZZAS) + (0,)
PEPPER = tuple(p for _, p in PIZZAS) + (NONE,)
MAX_VALUE = max(VALUE)
TOTAL_VALUE = sum(VALUE)            # 66

NUM_PLATES = 3
CENTRE_CARDS = NUM_CARDS - NUM_PLATES   # 15: 14 pizzas + the plaquinha
COLUMNS = (2, 3, 2, 3, 2, 3)            # two columns (5 cards) in front of each plate
END_CENTRE = 3                          # the game ends when 3 cards remain in the centre

assert len(PIZZAS) == 17 and sum(COLUMNS) == CENTRE_CARDS
assert sum(p == LIVRE for p in PEPPER) == 3 and sum(p == DUPLA for p in PEPPER) == 3


def card_name(card: int) -> str:
    """'5', '6L' (Escolha Livre), '7D' (Dupla Ação) or 'P' (plaquinha)."""
    if card == PLAQUINHA:
        return "P"
    return f"{VALUE[card]}{' LD'[PEPPER[card]].strip()}"
