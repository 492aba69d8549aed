"""Scala 40's table as a picture: stock and discard pile, the melds on the
table (a joker shows the card it stands for, on a violet card), the meld being
built, and every player's hand — face up for the viewer (all of them when
omniscient), otherwise only the cards publicly known to be there.

The default font has no suit glyphs, so suits are drawn as small shapes."""

from __future__ import annotations

import numpy as np

from baralho.core.picture import CARD_H, CARD_W, INK, RED, Canvas, font
from baralho.envs.scala40.melds import JOKER, NUM_KINDS, RANKS, RUN, kind_of

WIDTH = 960
JOKER_FILL = (232, 222, 250)
VIOLET = (110, 40, 170)
GOLD = (250, 210, 60)
DIM = (170, 190, 175)
LIGHT = (240, 240, 230)

PILE_Y = 40                  # stock and discard pile
STOCK_X, DISCARD_X, BUILD_X = 10, 96, 520
MELDS_Y, MELD_ROWS, MELD_ROW_H = 112, 4, 66
MELD_STEP, MELD_GAP = 18, 14
PLAYERS_Y, PLAYER_ROW_H = MELDS_Y + MELD_ROWS * MELD_ROW_H + 8, 62
HAND_X, HAND_STEP = 190, 22


def height(num_players: int) -> int:
    return PLAYERS_Y + PLAYER_ROW_H * num_players + 4


# ------------------------------------------------------------------ cards
def _suit(cv: Canvas, cx: float, cy: float, r: float, suit: int, color) -> None:
    """♠ ♥ ♦ ♣ (suit 0–3) centred at (cx, cy), about 2r across (antialiased)."""
    mask = _suit_mask(suit, r)
    cv.image.paste(color, (round(cx - mask.width / 2), round(cy - mask.height / 2)), mask)


_MASKS: dict = {}
_SS = 4  # supersampling: the shapes are drawn 4x larger, then shrunk


def _suit_mask(suit: int, r: float):
    if (suit, r) in _MASKS:
        return _MASKS[suit, r]
    from PIL import Image, ImageDraw

    size = int(2 * r + 2) * _SS
    img = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(img)
    c, R = size / 2, r * _SS
    if suit == 2:                                           # diamond
        d.polygon([(c, c - R), (c + 0.75 * R, c), (c, c + R), (c - 0.75 * R, c)], fill=255)
    elif suit == 1:                                         # heart: two lobes and a point
        for dx in (-R / 2, R / 2):
            d.ellipse((c + dx - R / 2, c - R * 0.9, c + dx + R / 2, c + R * 0.1), fill=255)
        d.polygon([(c - R * 0.97, c - R * 0.3), (c + R * 0.97, c - R * 0.3), (c, c + R)], fill=255)
    elif suit == 0:                                         # spade: a point over two lobes, on a stem
        for dx in (-R / 2, R / 2):
            d.ellipse((c + dx - R / 2, c - R * 0.2, c + dx + R / 2, c + R * 0.6), fill=255)
        d.polygon([(c - R * 0.97, c + R * 0.15), (c + R * 0.97, c + R * 0.15), (c, c - R)], fill=255)
        d.polygon([(c, c), (c - R * 0.4, c + R), (c + R * 0.4, c + R)], fill=255)
    else:                                                   # club: three round leaves on a stem
        q = 0.42 * R
        for ox, oy in ((0, -0.52 * R), (-0.52 * R, 0.12 * R), (0.52 * R, 0.12 * R)):
            d.ellipse((c + ox - q, c + oy - q, c + ox + q, c + oy + q), fill=255)
        d.polygon([(c, c - R * 0.1), (c - R * 0.4, c + R), (c + R * 0.4, c + R)], fill=255)
    mask = img.resize((size // _SS, size // _SS), Image.LANCZOS)
    _MASKS[suit, r] = mask
    return mask


def _star(cv: Canvas, cx: float, cy: float, r: float, color) -> None:
    pts = []
    for i in range(10):
        a = np.pi / 2 + i * np.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((cx + rr * np.cos(a), cy - rr * np.sin(a)))
    cv.draw.polygon(pts, fill=color)


def suit_color(k: int):
    return RED if k // 13 in (1, 2) else INK


def card(cv: Canvas, x: int, y: int, k: int, standin: int = -1, full: bool = True,
         w: int = CARD_W, h: int = CARD_H) -> None:
    """Card kind ``k`` face up at (x, y), its index in the top-left corner (the
    part a fan leaves visible). A joker is violet; in a meld (``standin`` >= 0)
    its corner shows the card it stands for, over a "JK" tag. ``full``: the
    card is not covered by the next one, so it gets a large pip too."""
    small = h < CARD_H
    if k != JOKER:
        cv.card(x, y, w=w, h=h)
        shown = k
    else:
        cv.draw.rounded_rectangle((x, y, x + w, y + h), radius=4, fill=JOKER_FILL, outline=VIOLET, width=2)
        shown = standin
    if shown >= 0:
        color = suit_color(shown)
        cv.draw.text((x + 2, y + 2), RANKS[shown % 13], fill=color, font=_rank_font(cv, small))
        if small:
            _suit(cv, x + w - 7, y + h - 7, 4, shown // 13, color)
        else:
            _suit(cv, x + 9, y + 23, 6, shown // 13, color)
            if full:
                _suit(cv, x + w - 11, y + h - 12, 8, shown // 13, color)
    if k == JOKER:
        if shown >= 0 and not small:
            cv.text(x + 3, y + 33, "JK", VIOLET)
        elif shown < 0:
            cv.text(x + 3, y + 2, "JK", VIOLET)
            if not small:
                _star(cv, x + w / 2, y + h / 2 + 6, 9 if full else 6, VIOLET)


def _rank_font(cv: Canvas, small: bool):
    return font(10 if small else 13)


def _fan(cv: Canvas, x: int, y: int, kinds: list[int], step: int, width: int) -> None:
    """Cards face up from left to right, squeezed to fit ``width``."""
    if len(kinds) > 1:
        step = min(step, (width - CARD_W) // (len(kinds) - 1))
    for i, k in enumerate(kinds):
        card(cv, x + step * i, y, k, full=i == len(kinds) - 1)


# ------------------------------------------------------------------ melds
def _meld_kinds(m: tuple) -> list[tuple[int, int]]:
    """The meld's cards in table order as (kind, stand-in): a run low to high,
    a set by suit; the joker sits where the card it stands for would."""
    if m[0] == RUN:
        _, s, lo, hi, jp = m
        return [(JOKER, kind_of(s, p)) if p == jp else (kind_of(s, p), -1) for p in range(lo, hi + 1)]
    _, v, mask, _, js = m
    return [(JOKER, st * 13 + v - 1) if st == js - 1 else (st * 13 + v - 1, -1)
            for st in range(4) if mask >> st & 1]


def _draw_melds(cv: Canvas, s) -> None:
    x, row = 10, 0
    staged_from = len(s.melds) - s.staged
    for i, m in enumerate(s.melds):
        cards = _meld_kinds(m)
        w = MELD_STEP * (len(cards) - 1) + CARD_W
        if x + w > WIDTH - 10:
            x, row = 10, row + 1
        if row >= MELD_ROWS:
            cv.text(WIDTH - 150, MELDS_Y + MELD_ROWS * MELD_ROW_H - 14, f"+{len(s.melds) - i} more melds", GOLD)
            return
        y = MELDS_Y + row * MELD_ROW_H
        staged = i >= staged_from
        cv.text(x, y, f"#{i}" + (" staged" if staged else ""), GOLD if staged else DIM)
        if staged:
            cv.draw.rectangle((x - 3, y + 12, x + w + 3, y + 15 + CARD_H), outline=GOLD, width=2)
        for j, (k, stand) in enumerate(cards):
            card(cv, x + MELD_STEP * j, y + 14, k, stand, full=j == len(cards) - 1)
        x += w + MELD_GAP


# ------------------------------------------------------------------ the table
def _sorted(counts) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def render_image(game, s, player: int | None = None) -> np.ndarray:
    n = game.num_players
    cv = Canvas(WIDTH, height(n))
    over = s.phase == 2
    if over:
        won = ", ".join(f"player_{i}" for i in s.winners)
        status = "game over" + (f", {won} won" if won else "")
    else:
        status = f"player_{s.player} to {'draw' if s.phase == 0 else 'meld / discard'}"
    cv.text(8, 6, f"Scala 40   hand {s.hands_played + (not over)}   turn {s.turn + 1}   {status}   "
                  f"({'omniscient' if player is None else f'player_{player} view'})")

    # stock: face down (omniscient: its top card face up) and the discard pile, top at the right
    cv.text(STOCK_X, PILE_Y - 14, f"stock {len(s.stock)}" + (f"  turnovers {s.turnovers}" if s.turnovers else ""))
    if s.stock:
        if player is None:
            card(cv, STOCK_X, PILE_Y, s.stock[-1])
        else:
            cv.card(STOCK_X, PILE_Y, face_up=False)
    cv.text(DISCARD_X, PILE_Y - 14, f"discard pile {len(s.discard)} (top at right)")
    shown = s.discard[-16:]
    _fan(cv, DISCARD_X, PILE_Y, shown, MELD_STEP, BUILD_X - DISCARD_X - 20)
    if len(s.discard) > len(shown):
        cv.text(DISCARD_X, PILE_Y + CARD_H + 4, f"+{len(s.discard) - len(shown)} below", DIM)

    # the meld being built (public: the cards leave the hand one by one) and a taken discard to meld
    if s.pending:
        cv.text(BUILD_X, PILE_Y - 14, f"player_{s.player} building")
        _fan(cv, BUILD_X, PILE_Y, list(s.pending), MELD_STEP, 300)
    if s.obligation >= 0 and not over:
        cv.text(WIDTH - 120, PILE_Y - 14, "must meld", GOLD)
        card(cv, WIDTH - 120, PILE_Y, s.obligation)

    cv.text(10, MELDS_Y - 16, f"table melds ({len(s.melds)})" if s.melds else "table melds: none yet")
    _draw_melds(cv, s)

    for i in range(n):
        y = PLAYERS_Y + PLAYER_ROW_H * i
        acting = i == s.player and not over
        if acting:
            cv.draw.rectangle((2, y - 2, WIDTH - 3, y + PLAYER_ROW_H - 6), outline=GOLD, width=2)
        color = DIM if s.eliminated[i] else LIGHT
        name = f"{'> ' if acting else ''}player_{i}" + (" (you)" if i == player else "")
        cv.text(10, y + 6, name, GOLD if acting else color)
        status = "eliminated" if s.eliminated[i] else ("opened" if s.opened[i] else "not opened")
        cards = f"{s.hand_size[i]} card" + ("" if s.hand_size[i] == 1 else "s")
        cv.text(10, y + 22, f"{status}, {cards}", color)
        score = f"penalty {s.totals[i]}"
        if over and s.returns:
            score += f"  return {s.returns[i]:+.2f}"
        elif s.last_penalties and s.hands_played:
            score += f" (last hand +{s.last_penalties[i]})"
        cv.text(10, y + 38, score, color)
        if player is None or i == player:
            face_up, down = _sorted(s.hands[i]), 0
        else:
            face_up = _sorted(s.known[i])
            down = s.hand_size[i] - len(face_up)
        step = HAND_STEP
        total = len(face_up) + down
        if total > 1:
            step = min(step, (WIDTH - HAND_X - 10 - CARD_W) // (total - 1))
        for j, k in enumerate(face_up):
            card(cv, HAND_X + step * j, y + 4, k, full=j == total - 1)
        for j in range(len(face_up), total):
            cv.card(HAND_X + step * j, y + 4, face_up=False)
    return cv.to_array()


__all__ = ["render_image", "card", "height"]
