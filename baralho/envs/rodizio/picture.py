"""Rodízio's table as a picture: the three plates in a triangle, each stack
fanned from bottom (back) to top (front), and every eater's pile — face up
when the viewer may know it, face down otherwise."""

from __future__ import annotations

import numpy as np

from baralho.core.picture import CARD_H, Canvas
from baralho.envs.rodizio import cards as C

PLATES_AT = ((40, 40), (300, 40), (170, 200))     # triangle
FAN = 16


def render_image(game, s, player: int | None = None) -> np.ndarray:
    cv = Canvas(560, 420)
    status = "game over" if s.over else f"{game.eater_name(s.seat)} to act"
    cv.text(8, 6, f"Rodízio  round {s.round}/{game.max_rounds}  {status}  "
                  f"({'omniscient' if player is None else f'player_{player} view'})")
    for p, (x, y) in enumerate(PLATES_AT):
        cv.text(x, y + 2, f"plate {p}" + ("  <- choose" if s.pending == p else ""))
        # the plate card itself lies pizza-side down: drawn as a back
        cv.card(x, y + 16, face_up=player is None, label=C.card_name(s.plates[p]))
        for k, card in enumerate(s.stacks[p]):
            if card == C.PLAQUINHA:
                cv.card(x + 40 + FAN * k, y + 16, "P", color=(30, 60, 160))
            else:
                mark = {C.LIVRE: "L", C.DUPLA: "D"}.get(C.PEPPER[card], "")
                cv.card(x + 40 + FAN * k, y + 16, str(C.VALUE[card]), mark=mark)
    y = 300
    for w in range(game.num_eaters):
        known = player is None or w == player or game.perfect_memory
        total = f" = {s.totals[w]}" if known else ""
        cv.text(8, y, f"{game.eater_name(w)}{total}")
        for k, card in enumerate(s.eaten[w]):
            cv.card(110 + 14 * k, y - 4, str(C.VALUE[card]), face_up=known, h=CARD_H // 2 + 4)
        y += 30
    return cv.to_array()
