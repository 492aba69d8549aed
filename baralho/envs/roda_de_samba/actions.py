"""The factored action space of Roda de Samba: action ids and action texts.

One Discrete space; a turn is a short sequence of choices from it (see env.py
for the table): draw / take a pile, lay card kinds of one instrument then
place them on a space, call a sambista, discard, reserve. The ids depend on the
deck (its colours and instrument kinds), so they are a table computed from it
(:func:`action_ids`); the game (rules.py) holds them as its ``A_*`` attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

from baralho.envs.roda_de_samba.cards import ROW, SPACES

#: the decision a turn asks for now (the state's ``phase``)
PHASES = ("draw", "lay", "place", "call", "pile", "discard", "reserve")
PH_DRAW, PH_LAY, PH_PLACE, PH_CALL, PH_PILE, PH_DISCARD, PH_RESERVE = range(len(PHASES))

@dataclass(frozen=True)
class ActionIds:
    """The first id of each block of actions, for one deck."""

    A_DRAW: int
    A_PILE: int            # + colour: take that pile
    A_LAY: int             # + instrument kind: lay a card of it
    A_PLACE: int           # + space: place the laid group there
    A_CALL: int            # + open slot: call that sambista
    A_CALL_RESERVED: int
    A_CALL_NONE: int
    A_DISCARD: int         # + instrument kind
    A_DISCARD_MAL: int     # + colour: a malandro onto that pile
    A_RESERVE: int         # + open slot
    A_RESERVE_TOP: int
    A_RESERVE_NONE: int
    num_actions: int


def action_ids(colours: int, inst_kinds: int) -> ActionIds:
    """The action ids of a deck with ``colours`` colours and ``inst_kinds`` instrument kinds."""
    draw, pile = 0, 1
    lay = pile + colours
    place = lay + inst_kinds
    call = place + SPACES                    # ROW open slots, then reserved, then none
    discard = call + ROW + 2
    mal = discard + inst_kinds
    reserve = mal + colours                  # ROW open slots, then deck top, then none
    return ActionIds(A_DRAW=draw, A_PILE=pile, A_LAY=lay, A_PLACE=place, A_CALL=call, A_CALL_RESERVED=call + ROW,
                     A_CALL_NONE=call + ROW + 1, A_DISCARD=discard, A_DISCARD_MAL=mal, A_RESERVE=reserve,
                     A_RESERVE_TOP=reserve + ROW, A_RESERVE_NONE=reserve + ROW + 1, num_actions=reserve + ROW + 2)


def describe(game, s, action: int) -> str | None:
    """The text of ``action`` in ``game`` (its deck and ids); with ``s`` None, only the texts that
    do not depend on the state (None for the others)."""
    d = game.deck
    dynamic = (game.A_PILE <= action < game.A_LAY or game.A_CALL <= action < game.A_CALL_NONE
               or game.A_RESERVE <= action < game.A_RESERVE_TOP)
    if s is None and dynamic:
        return None
    if action == game.A_DRAW:
        return "draw 2 from the deck"
    if action < game.A_LAY:
        c = action - game.A_PILE
        return f"take the {d.colours[c]} pile ({sum(s.piles[c])} cards)"
    if action < game.A_PLACE:
        return f"lay {d.kind_name(action - game.A_LAY)}"
    if action < game.A_CALL:
        return f"place on space {action - game.A_PLACE + 1}"
    if action == game.A_CALL_NONE:
        return "call nobody"
    if action == game.A_CALL_RESERVED:
        r = s.reserved[s.player] if s.player >= 0 else -1
        return "call the reserved sambista" + (f" {d.sambistas[r].name}" if r >= 0 else "")
    if action < game.A_DISCARD:
        slot = action - game.A_CALL
        sid = s.row[slot]
        return f"call open sambista {slot + 1}" + (f" {d.sambistas[sid].name}" if sid >= 0 else "")
    if action < game.A_DISCARD_MAL:
        return f"discard {d.kind_name(action - game.A_DISCARD)}"
    if action < game.A_RESERVE:
        return f"discard a malandro onto the {d.colours[action - game.A_DISCARD_MAL]} pile"
    if action == game.A_RESERVE_TOP:
        return "reserve the sambista deck top"
    if action == game.A_RESERVE_NONE:
        return "reserve nobody"
    slot = action - game.A_RESERVE
    sid = s.row[slot]
    return f"reserve open sambista {slot + 1}" + (f" {d.sambistas[sid].name}" if sid >= 0 else "")
