"""Chuche's action ids (Discrete(124)) and ``describe_action``; env.py's docstring lists them."""

from __future__ import annotations

from baralho.envs.chuche.cards import card_name, kind_name
from baralho.envs.chuche.observation import BOMBA_ROUND

A_CAPTURE = 0                 # +slot (3): capture with this hand card (then add table cards)
A_PLACE = 3                   # +slot (3): place this hand card on the table (also under Bomba)
A_ADD = 6                     # +kind (36): add a table card of this kind to the capture
A_COMMIT = 42                 # take the capture (sum == target)
A_COMMIT_CORINGA = 43         # take it with a Coringa (sum == target +- 1)
A_BLOCK = 44                  # +kind (36): Bloqueio on a table card of this kind
A_UNBLOCK = 80                # +kind (36): Escudo: unblock a card of this kind reserved by another
A_ROUBAR = 116                # +offset-1 (5): Roubar from the player `offset` seats after you
A_BOMBA = 121                 # play Bomba
A_ESCUDO = 122                # answer Roubar / Bomba with Escudo
A_PASS = 123                  # let the window go by
NUM_ACTIONS = 124


def describe_action(game, s, a: int) -> str:
    p = s.actor
    hand = s.hands[p] if p >= 0 else []

    def slot(i: int) -> str:
        return card_name(hand[i]) if i < len(hand) else f"slot {i} (empty)"

    if a < A_PLACE:
        return f"capture with {slot(a - A_CAPTURE)}"
    if a < A_ADD:
        return ("Bomba: place " if s.phase == BOMBA_ROUND else "place ") + slot(a - A_PLACE)
    if a < A_COMMIT:
        return f"add {kind_name(a - A_ADD)} to the capture"
    if a in (A_COMMIT, A_COMMIT_CORINGA):
        parts = " + ".join(card_name(c) for c in ([s.cap_card] if s.cap_card >= 0 else []) + s.cap_sel)
        extra = ""
        if a == A_COMMIT_CORINGA:
            extra = " with Coringa " + ("+1" if s.cap_sum < game.target(s) else "-1")
        return f"commit {parts or '(nothing)'} = {s.cap_sum}{extra}"
    if a < A_UNBLOCK:
        return f"Bloqueio on {kind_name(a - A_BLOCK)}"
    if a < A_ROUBAR:
        return f"Escudo: unblock {kind_name(a - A_UNBLOCK)}"
    if a < A_BOMBA:
        j = a - A_ROUBAR + 1
        return f"Roubar from player_{(p + j) % game.num_players} ({j} seat(s) on)"
    if a == A_BOMBA:
        return "Bomba"
    if a == A_ESCUDO:
        return "Escudo (defend)"
    if a == A_PASS:
        return "pass"
    return f"action {a} (out of range)"
