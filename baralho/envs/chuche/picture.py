"""Chuche's table as a picture: the stock (its top back is the target), the
Chuche deck, the table cards (blocked ones framed with their owner), the capture
being built, and one row per player — hand, Chuche cards held and used, points.

Number cards are drawn in their colour with the front number. A hand card the
viewer cannot know lies face down but shows its back (the target total printed
on it is public); the viewer's own cards carry their back as a small tag.
"""

from __future__ import annotations

import numpy as np

from baralho.core.picture import BACK, CARD, INK, Canvas, font
from baralho.envs.chuche.cards import CHUCHE_NAMES, COLOUR, COLOUR_SHORT, FRONT, LAST_TARGET, POINTS, chuche_points
from baralho.envs.chuche.observation import PHASES

# vermelho, laranja, amarelo, verde, azul, roxo (yellow darkened to read on cream)
COLOUR_RGB = ((205, 35, 35), (235, 120, 20), (200, 155, 0), (30, 140, 60), (35, 80, 200), (125, 50, 160))
CHUCHE_SHORT = ("Cor", "Rou", "Bom", "Blq", "Esc")
CHUCHE_FILL = (225, 232, 250)
USED_FILL = (165, 170, 165)
LIGHT = (240, 240, 230)
DIM = (170, 200, 180)
BAND = (34, 112, 70)                   # the turn player's row
GOLD = (245, 200, 60)
BLOCKED = (255, 236, 175)              # a blocked table card's tint

W, H = 36, 52                          # a number card
W_SMALL, H_SMALL = 30, 40              # a Chuche card
WIDTH = 780
TABLE_X, TABLE_Y, TABLE_ROW, TABLE_STEP = 200, 58, 70, 40
TABLE_END = WIDTH - 12
PER_ROW = (TABLE_END - W - TABLE_X) // TABLE_STEP + 1
STOCK_XY = (14, 58)
DECK_XY = (64, 58)
CAPTURE_Y = 212
PLAYERS_Y, ROW_H = 290, 74
HAND_X = 200
CHUCHE_X = 340


def size(game) -> tuple[int, int]:
    """(width, height): fixed per player count."""
    return WIDTH, PLAYERS_Y + ROW_H * game.num_players + 6


def hand_xy(q: int, i: int) -> tuple[int, int]:
    """Top-left corner of slot ``i`` of seat ``q``'s hand."""
    return HAND_X + i * (W + 6), PLAYERS_Y + ROW_H * q + 10


def table_xy(k: int, n: int) -> tuple[int, int]:
    """Top-left corner of table card ``k`` of ``n``: up to two rows, squeezed beyond."""
    per_row = n if n <= PER_ROW else (n + 1) // 2
    step = TABLE_STEP if per_row <= PER_ROW else (TABLE_END - W - TABLE_X) / (per_row - 1)
    row, col = divmod(k, per_row)
    return TABLE_X + round(col * step), TABLE_Y + row * TABLE_ROW


class _Fonts:
    def __init__(self, cv: Canvas) -> None:
        self.big, self.mid, self.small = (font(s) for s in (22, 13, 10))   # accents and suits


def _number_card(cv: Canvas, f: _Fonts, x: int, y: int, c: int, back: int | None = None,
                 blocked: bool = False) -> None:
    """A number card face up: a band and the front number in its colour; ``back`` tags
    it; a blocked card is tinted and framed in gold."""
    rgb = COLOUR_RGB[COLOUR[c]]
    cv.draw.rounded_rectangle((x, y, x + W, y + H), radius=4, fill=BLOCKED if blocked else CARD,
                              outline=GOLD if blocked else INK, width=3 if blocked else 1)
    cv.draw.rectangle((x + 3, y + 3, x + W - 3, y + 8), fill=rgb)
    cv.draw.text((x + 6, y + 13), str(FRONT[c]), fill=rgb, font=f.big)
    cv.draw.text((x + 4, y + H - 13), COLOUR_SHORT[COLOUR[c]], fill=rgb, font=f.small)
    if back is not None:
        cv.draw.rounded_rectangle((x + W - 15, y + H - 15, x + W - 3, y + H - 3), radius=3, fill=BACK)
        cv.draw.text((x + W - 9, y + H - 9), str(back), fill=LIGHT, font=f.small, anchor="mm")


def _back_card(cv: Canvas, f: _Fonts, x: int, y: int, back: int) -> None:
    """A card face down: only its back, the target total, shows."""
    cv.draw.rounded_rectangle((x, y, x + W, y + H), radius=4, fill=BACK, outline=INK, width=1)
    cv.draw.rounded_rectangle((x + 3, y + 3, x + W - 3, y + H - 3), radius=3, outline=(190, 70, 80), width=1)
    cv.draw.text((x + W // 2, y + H // 2), str(back), fill=LIGHT, font=f.big, anchor="mm")


def _chuche_card(cv: Canvas, f: _Fonts, x: int, y: int, t: int, count: int, used: bool = False) -> None:
    fill = USED_FILL if used else CHUCHE_FILL
    cv.draw.rounded_rectangle((x, y, x + W_SMALL, y + H_SMALL), radius=4, fill=fill, outline=INK, width=1)
    cv.draw.text((x + W_SMALL // 2, y + 12), CHUCHE_SHORT[t], fill=INK, font=f.small, anchor="mm")
    cv.draw.text((x + W_SMALL // 2, y + 28), f"x{count}", fill=INK, font=f.mid, anchor="mm")


def _chuche_back(cv: Canvas, f: _Fonts, x: int, y: int, label: str) -> None:
    cv.draw.rounded_rectangle((x, y, x + W, y + H), radius=4, fill=(40, 60, 120), outline=INK, width=1)
    cv.draw.text((x + W // 2, y + H // 2), label, fill=LIGHT, font=f.mid, anchor="mm")


def render_image(game, s, player: int | None = None) -> np.ndarray:
    n = game.num_players
    cv = Canvas(*size(game))
    f = _Fonts(cv)
    text = cv.draw.text
    view = "omniscient" if player is None else f"player_{player} view"
    text((8, 5), f"Chuche  round {s.rounds_played + (0 if s.over else 1)}/{game.max_rounds}   "
                 f"goal {game.goal}   ({view})", fill=LIGHT, font=f.mid)
    if s.over:
        best = max(s.rets)
        status = "game over: " + ", ".join(f"player_{q}" for q in range(n) if s.rets[q] == best) + " won"
    else:
        status = f"player_{s.turn}'s turn   {PHASES[s.phase]}: player_{s.actor} to act"
        if s.chuche_played:
            status += "   (Chuche card of the turn played)"
    text((8, 22), status, fill=GOLD, font=f.mid)

    # stock: its top's back is the target; an empty stock leaves the 7 marker
    x, y = STOCK_XY
    text((x, y - 14), f"stock {len(s.stock)}" if s.stock else "double 7", fill=LIGHT, font=f.small)
    if not s.stock:
        _back_card(cv, f, x, y, LAST_TARGET)
    elif player is None:
        _number_card(cv, f, x, y, s.stock[-1], s.back[s.stock[-1]])
    else:
        _back_card(cv, f, x, y, s.back[s.stock[-1]])
    x, y = DECK_XY
    text((x, y - 14), f"Chuche {len(s.chuche_deck)}", fill=LIGHT, font=f.small)
    if s.chuche_deck:
        _chuche_back(cv, f, x, y, CHUCHE_SHORT[s.chuche_deck[-1]] if player is None else "?")
    text((14, 120), f"target {game.target(s)}", fill=GOLD, font=f.big)
    text((14, 150), f"discard {len(s.discard)}", fill=DIM, font=f.small)

    # the table; a blocked card is framed, its owner on a tab below it
    text((TABLE_X, TABLE_Y - 14), f"table ({len(s.table)}, {len(s.table) - s.nfree} blocked)",
         fill=LIGHT, font=f.small)
    for k, c in enumerate(s.table):
        x, y = table_xy(k, len(s.table))
        _number_card(cv, f, x, y, c, blocked=s.owner[c] >= 0)
        if s.owner[c] >= 0:
            cv.draw.rectangle((x + 4, y + H + 2, x + W - 4, y + H + 14), fill=INK)
            text((x + W // 2, y + H + 8), f"P{s.owner[c]}", fill=GOLD, font=f.small, anchor="mm")

    # the capture being built: its hand card is public from the moment it is chosen
    y = CAPTURE_Y
    if s.cap_card >= 0:
        text((14, y + 18), f"player_{s.turn} captures:", fill=LIGHT, font=f.mid)
        x = TABLE_X
        for k, c in enumerate([s.cap_card, *s.cap_sel]):
            if k:
                text((x + 3, y + 16), "+", fill=LIGHT, font=f.big)
                x += 20
            _number_card(cv, f, x, y, c)
            x += W + 4
        text((x + 6, y + 16), f"= {s.cap_sum}  (target {game.target(s)})", fill=GOLD, font=f.big)

    # one row per player
    for q in range(n):
        top = PLAYERS_Y + ROW_H * q
        if not s.over and q == s.turn:
            cv.draw.rectangle((0, top, WIDTH, top + ROW_H - 4), fill=BAND)
        mark = "  <- to act" if q == s.actor else ""
        text((8, top + 6), f"player_{q}{mark}", fill=GOLD if q == s.actor else LIGHT, font=f.mid)
        won = sum(s.held[q]) + sum(s.used[q])
        pts = sum(POINTS[c] for c in s.piles[q]) + chuche_points(won)
        text((8, top + 26), f"score {s.scores[q]}  (round +{pts})", fill=LIGHT, font=f.small)
        text((8, top + 42), f"captured {len(s.piles[q])}, Chuche {won}", fill=DIM, font=f.small)
        if player is None or q == player:
            for i, c in enumerate(s.hands[q]):
                _number_card(cv, f, *hand_xy(q, i), c, s.back[c])
        else:   # sorted by back: slot order (by card id) would leak fronts
            for i, b in enumerate(sorted(s.back[c] for c in s.hands[q])):
                _back_card(cv, f, *hand_xy(q, i), b)
        x, y = CHUCHE_X, top + 16
        for t in range(len(CHUCHE_NAMES)):
            if s.held[q][t]:
                _chuche_card(cv, f, x, y, t, s.held[q][t])
                x += W_SMALL + 4
        if any(s.used[q]):
            text((x + 6, y + 12), "used", fill=DIM, font=f.small)
            x += 36
            for t in range(len(CHUCHE_NAMES)):
                if s.used[q][t]:
                    _chuche_card(cv, f, x, y, t, s.used[q][t], used=True)
                    x += W_SMALL + 4
    return cv.to_array()
