"""Roda de Samba's table as a picture (``render_mode="rgb_array"``).

Top strip: the instrument deck and the sambista deck (face down unless
omniscient), the open row of sambistas, one discard pile per colour (all
visible). Below, one panel per player: the roda as a circle of its 10 spaces
(space 1 at the top, clockwise, space 10 next to space 1), each stack tinted
by its colour (family) with its instrument and visible numbers; a green link
joins neighbours in harmony, a red link with an X marks a samba atravessado.
The sambista on top sits in the centre, the reserved one beside the roda,
the hand below (others' unknown cards face down, publicly known ones face up).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from baralho.core.picture import CARD, INK, Canvas
from baralho.core.picture import font as _font
from baralho.envs.roda_de_samba.actions import PHASES
from baralho.envs.roda_de_samba.cards import BANG_ACTIONS, SPACES

# family colours by colour index (corda, mao, baqueta, criativos in the default deck); more cycle
FAMILY = ((150, 95, 40), (222, 120, 20), (40, 90, 175), (135, 60, 155), (20, 140, 125), (185, 45, 95))
MALANDRO = (60, 60, 60)
GOOD, BAD, GOLD = (110, 215, 110), (230, 30, 30), (245, 195, 40)
PANEL = (16, 74, 43)
FAINT = (150, 200, 165)
LIGHT = (240, 240, 230)

W_MIN = 1100
TOP = 120                   # panels start below the top strip
PANEL_W, PANEL_H = 456, 362
R = 120                     # radius of the ring of spaces
SW, SH = 54, 42             # a space's stack
SAMB_W, SAMB_H = 120, 72    # a sambista card
HAND_DY = 314               # hand row, from the panel's top
HAND_X = 56                 # first hand card, from the panel's left
HW, HH = 30, 40             # a hand card


@cache
def font(size: int = 10):
    return _font(size)      # the shipped DejaVu subset: accents and suits


def layout(n: int) -> tuple[int, int, int]:
    """(width, height, columns) of the picture for ``n`` players: fixed per config."""
    cols = 2 if n in (2, 4) else 3
    rows = -(-n // cols)
    return max(W_MIN, cols * PANEL_W + 8), TOP + rows * PANEL_H + 4, cols


def panel_origin(n: int, p: int) -> tuple[int, int]:
    """Top-left corner of seat ``p``'s panel."""
    width, _, cols = layout(n)
    pw = (width - 8) // cols
    return 4 + (p % cols) * pw, TOP + (p // cols) * PANEL_H


def roda_centre(n: int, p: int) -> tuple[int, int]:
    """Centre of seat ``p``'s ring of spaces."""
    x0, y0 = panel_origin(n, p)
    return x0 + 14 + SW // 2 + R, y0 + 24 + SH // 2 + R


def space_centre(cx: int, cy: int, sp: int, radius: float = R) -> tuple[float, float]:
    a = math.radians(-90 + 36 * sp)       # space 1 at the top, clockwise
    return cx + radius * math.cos(a), cy + radius * math.sin(a)


def tint(c, amount: float = 0.72) -> tuple[int, int, int]:
    return tuple(int(x + (255 - x) * amount) for x in c)


def family(c: int) -> tuple[int, int, int]:
    return FAMILY[c % len(FAMILY)] if c >= 0 else MALANDRO


def fit(text: str, width: int, size: int = 10) -> str:
    """``text`` cut (with a final dot) to fit ``width`` pixels."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + ".") > width:
        text = text[:-1]
    return text.rstrip() + "."


def short(name: str) -> str:
    """An instrument's name for a small card: no coringa colour, no underscores, no 'de'/'e'."""
    name = name.split(" (")[0].replace("_", " ")
    words = name.split()
    return " ".join(w for w in words if len(w) > 2 or len(words) == 1)


def text(cv: Canvas, x, y, s: str, fill=LIGHT, size: int = 10, anchor: str | None = None) -> None:
    cv.draw.text((x, y), s, fill=fill, font=font(size), anchor=anchor)


# ------------------------------------------------------------------ pieces
def star(cv: Canvas, x: float, y: float, r: float = 5) -> None:
    pts = [(x + (r if k % 2 == 0 else r * 0.45) * math.cos(math.radians(-90 + 36 * k)),
            y + (r if k % 2 == 0 else r * 0.45) * math.sin(math.radians(-90 + 36 * k))) for k in range(10)]
    cv.draw.polygon(pts, fill=GOLD, outline=(120, 90, 0))


def chip(cv: Canvas, x: int, y: int, label: str, colour) -> int:
    """A small family-coloured token; returns its right edge."""
    w = int(font(9).getlength(label)) + 6
    cv.draw.rounded_rectangle((x, y, x + w, y + 12), radius=3, fill=colour)
    text(cv, x + 3, y + 1, label, fill=(255, 255, 255), size=9)
    return x + w


def sambista_card(cv: Canvas, game, x: int, y: int, sid: int, face_up: bool = True, outline=INK) -> None:
    """Name, requirement chips (family colours; ? any, ?? a pair), stars, colour bonus, benefit."""
    d = game.deck
    if not face_up:
        cv.card(x, y, face_up=False, w=SAMB_W, h=SAMB_H)
        return
    sb = d.sambistas[sid]
    cv.draw.rounded_rectangle((x, y, x + SAMB_W, y + SAMB_H), radius=5, fill=CARD, outline=outline, width=2)
    size = 11 if font(11).getlength(sb.name) <= SAMB_W - 10 else 10
    text(cv, x + 5, y + 3, fit(sb.name, SAMB_W - 10, size), fill=INK, size=size)
    for cut in (None, 5, 3):  # shorten the tokens until they fit on one line
        chips = []
        for kind, arg in sb.requires:
            if kind == 0:   # REQ_INSTRUMENT
                chips.append((short(d.inst_names[arg])[:cut], d.inst_colour[arg]))
            else:
                chips.append((("?" if kind == 1 else "??") + d.colours[arg][:cut], arg))
        if sum(font(9).getlength(label) + 8 for label, _ in chips) <= SAMB_W - 8:
            break
    cx = x + 5
    for label, col in chips:
        cx = chip(cv, cx, y + 19, label, family(col)) + 2
    for k in range(sb.stars):
        star(cv, x + 9 + 11 * k, y + 43)
    if sb.bonus_points:
        chip(cv, x + SAMB_W - 34, y + 37, f"+{sb.bonus_points}/sp", family(sb.bonus_colour))
    if sb.brings >= 0:
        ben, col = "brings " + short(d.inst_names[sb.brings]), family(d.inst_colour[sb.brings])
    elif sb.bang >= 0:
        ben, col = "!" + BANG_ACTIONS[sb.bang], BAD
    else:
        ben, col = "no benefit", (120, 120, 120)
    text(cv, x + 5, y + 55, fit(ben, SAMB_W - 10), fill=col)


def hand_card(cv: Canvas, game, x: int, y: int, k: int, face_up: bool) -> None:
    d = game.deck
    if not face_up:
        cv.card(x, y, face_up=False, w=HW, h=HH)
        return
    if k == d.malandro:
        cv.draw.rounded_rectangle((x, y, x + HW, y + HH), radius=3, fill=MALANDRO, outline=INK)
        text(cv, x + HW / 2, y + HH / 2, "M", fill=GOLD, size=16, anchor="mm")
        return
    inst = d.kind_inst[k]
    col = family(d.inst_colour[inst])
    cv.draw.rounded_rectangle((x, y, x + HW, y + HH), radius=3, fill=tint(col), outline=col, width=2)
    cv.draw.rectangle((x + 2, y + 2, x + HW - 2, y + 12), fill=col)
    text(cv, x + HW / 2, y + 7, short(d.inst_names[inst])[:3], fill=(255, 255, 255), size=9, anchor="mm")
    num = str(d.kind_number[k]) if d.kind_number[k] else "*"
    text(cv, x + HW / 2, y + 27, num, fill=INK, size=15, anchor="mm")


def mini_cards(cv: Canvas, game, x: int, y: int, kinds: list[tuple[int, bool]], width: int) -> None:
    """A row of hand cards (kind, face up), overlapped to fit ``width``."""
    if not kinds:
        text(cv, x, y + 14, "none", fill=FAINT)
        return
    step = min(HW + 3, (width - HW) / max(1, len(kinds) - 1))
    for i, (k, up) in enumerate(kinds):
        hand_card(cv, game, int(x + i * step), y, k, up)


def space_stack(cv: Canvas, game, s, p: int, sp: int, x: float, y: float) -> None:
    """One roda space centred at (x, y): instrument on a family band, visible numbers (or the count)."""
    d = game.deck
    box = (x - SW / 2, y - SH / 2, x + SW / 2, y + SH / 2)
    inst = s.space_inst[p][sp]
    if inst < 0:
        cv.draw.rounded_rectangle(box, radius=4, outline=(70, 140, 95), width=1)
        return
    col = family(d.inst_colour[inst])
    cv.draw.rounded_rectangle(box, radius=4, fill=tint(col), outline=col, width=2)
    cv.draw.rectangle((box[0] + 2, box[1] + 2, box[2] - 2, box[1] + 14), fill=col)
    name = short(d.inst_names[inst])
    size = 9 if font(9).getlength(name) <= SW - 4 else 8
    text(cv, x, box[1] + 8, fit(name, SW - 4, size), fill=(255, 255, 255), size=size, anchor="mm")
    if d.inst_coringa[inst]:
        label = f"coringa x{s.space_count[p][sp]}"
        text(cv, x, y + 7, label, fill=INK, size=9, anchor="mm")
    else:
        nums = [str(d.kind_number[k]) for k in range(d.num_inst_kinds)
                if d.kind_inst[k] == inst for _ in range(s.laid[p][k])]
        label = " ".join(nums)
        size = 14 if len(nums) <= 3 else 12
        text(cv, x, y + 7, fit(label, SW - 4, size), fill=INK, size=size, anchor="mm")


def atravessado(game, s, p: int, a: int, b: int) -> bool | None:
    """Harmony of neighbouring spaces a, b (as scoring.py counts it); None if one is empty."""
    ia, ib = s.space_inst[p][a], s.space_inst[p][b]
    if ia < 0 or ib < 0:
        return None
    col, cor = game.inst_colour, game.inst_coringa
    return col[ia] != col[ib] and (cor[ia] or cor[ib] or not s.space_nums[p][a] & s.space_nums[p][b])


# ------------------------------------------------------------------ regions
def top_strip(cv: Canvas, game, s, omniscient: bool) -> None:
    d = game.deck
    text(cv, 8, 22, f"deck {len(s.deck)}", size=11)
    if s.deck:
        hand_card(cv, game, 12, 40, s.deck[-1], omniscient)
    text(cv, 60, 22, f"sambista deck {len(s.samb_deck)}", size=11)
    if s.samb_deck:
        sambista_card(cv, game, 60, 40, s.samb_deck[-1], omniscient or s.samb_top_known)
    text(cv, 192, 22, "open sambistas", size=11)
    for i, sid in enumerate(s.row):
        x = 192 + 126 * i
        if sid >= 0:
            sambista_card(cv, game, x, 40, sid)
        else:
            cv.draw.rounded_rectangle((x, 40, x + SAMB_W, 40 + SAMB_H), radius=5, outline=FAINT)
    text(cv, 700, 22, "discard piles", size=11)
    pw = (cv.image.width - 704) // max(1, len(d.colours))
    for c, name in enumerate(d.colours):
        x, col = 700 + pw * c, family(c)
        cv.draw.rounded_rectangle((x, 40, x + pw - 4, 112), radius=4, fill=tint(col, 0.8), outline=col, width=2)
        cv.draw.rectangle((x + 2, 42, x + pw - 6, 54), fill=col)
        text(cv, x + 4, 42, fit(f"{name} {s.pile_size[c]}", pw - 10), fill=(255, 255, 255))
        lines = []
        for inst in d.colour_insts[c] + tuple(i for i in range(len(d.inst_names))
                                              if d.inst_coringa[i] and d.inst_colour[i] == c):
            nums = [str(d.kind_number[k]) if d.kind_number[k] else "*" for k in range(d.num_inst_kinds)
                    if d.kind_inst[k] == inst for _ in range(s.piles[c][k])]
            if nums:
                lines.append(f"{short(d.inst_names[inst])[:4]} {' '.join(nums)}")
        if s.piles[c][d.malandro]:
            lines.append(f"malandro x{s.piles[c][d.malandro]}")
        for j, line in enumerate(lines[:5] or ["empty"]):
            text(cv, x + 4, 56 + 11 * j, fit(line, pw - 10), fill=INK)


def roda_panel(cv: Canvas, game, s, p: int, player: int | None) -> None:
    d = game.deck
    x0, y0 = panel_origin(game.num_players, p)
    pw = (cv.image.width - 8) // layout(game.num_players)[2]
    acting = p == s.player and not s.over
    cv.draw.rounded_rectangle((x0, y0, x0 + pw - 4, y0 + PANEL_H - 6), radius=8, fill=PANEL,
                              outline=GOLD if acting else (40, 110, 70), width=3 if acting else 1)
    roda = d.rodas[p % len(d.rodas)][0]
    text(cv, x0 + 8, y0 + 5, f"player_{p}" + (" (you)" if player == p else ""), fill=GOLD if acting else LIGHT,
         size=13)
    text(cv, x0 + 118, y0 + 7, roda, fill=FAINT, size=11)
    stats = f"fame {s.fame[p]}   laid {s.laid_total[p]}   "
    text(cv, x0 + 250, y0 + 7, stats, size=11)
    text(cv, x0 + 250 + font(11).getlength(stats), y0 + 7, f"atravessados {s.atrav[p]}",
         fill=BAD if s.atrav[p] else LIGHT, size=11)

    cx, cy = roda_centre(game.num_players, p)
    cv.draw.ellipse((cx - R, cy - R, cx + R, cy + R), outline=(45, 120, 75), width=2)
    links = []
    for a in range(SPACES):
        b = (a + 1) % SPACES
        bad = atravessado(game, s, p, a, b)
        if bad is not None:
            pa, pb = space_centre(cx, cy, a), space_centre(cx, cy, b)
            cv.draw.line((pa, pb), fill=BAD if bad else GOOD, width=6 if bad else 3)
            links.append(((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2, bad))
    for sp in range(SPACES):
        x, y = space_centre(cx, cy, sp)
        space_stack(cv, game, s, p, sp, x, y)
        lx, ly = space_centre(cx, cy, sp, R - 42)
        text(cv, lx, ly, str(sp + 1), fill=FAINT, size=10, anchor="mm")
    for x, y, bad in links:     # the X on top of the stacks: visible even where cards nearly touch
        if bad:
            cv.draw.ellipse((x - 8, y - 8, x + 8, y + 8), fill=BAD, outline=(255, 255, 255))
            cv.draw.line((x - 4, y - 4, x + 4, y + 4), fill=(255, 255, 255), width=2)
            cv.draw.line((x - 4, y + 4, x + 4, y - 4), fill=(255, 255, 255), width=2)

    called = s.called[p]
    if called:
        text(cv, cx, cy - SAMB_H // 2 - 8, f"on top ({len(called)} called)", fill=FAINT, size=10, anchor="mm")
        sambista_card(cv, game, cx - SAMB_W // 2, cy - SAMB_H // 2, called[-1], outline=GOLD)
    else:
        text(cv, cx, cy, "no sambista yet", fill=FAINT, size=11, anchor="mm")

    rx = x0 + 2 * R + SW + 28
    text(cv, rx, y0 + 28, "reserved", fill=FAINT, size=11)
    if s.reserved[p] >= 0:
        sambista_card(cv, game, rx, y0 + 44, s.reserved[p])
    else:
        text(cv, rx, y0 + 48, "none", fill=FAINT)
    text(cv, rx, y0 + 124, "called, top first", fill=FAINT, size=11)
    width = pw - rx + x0 - 10
    for j, sid in enumerate(reversed(called[-13:])):
        sb = d.sambistas[sid]
        text(cv, rx, y0 + 140 + 12 * j, fit(f"{sb.name} {sb.stars}*", width), size=10)
    if len(called) > 13:
        text(cv, rx, y0 + 140 + 12 * 13, f"... {len(called) - 13} more", fill=FAINT)

    hy = y0 + HAND_DY
    text(cv, x0 + 8, hy + 4, f"hand {s.hand_size[p]}", size=11)
    seen = player is None or player == p
    if seen:
        kinds = [(k, True) for k, c in enumerate(s.hands[p]) for _ in range(c)]
    else:
        known = [(k, True) for k, c in enumerate(s.known[p]) for _ in range(c)]
        kinds = known + [(-1, False)] * (s.hand_size[p] - len(known))
    mini_cards(cv, game, x0 + HAND_X, hy, kinds, pw - HAND_X - 12)


def render_image(game, s, player: int | None = None) -> np.ndarray:
    n = game.num_players
    width, height, _ = layout(n)
    cv = Canvas(width, height)
    if s.over:
        status = "GAME OVER"
    else:
        status = f"player_{s.player} to act: {PHASES[s.phase]}" + (f" !{BANG_ACTIONS[s.bang]}" if s.bang >= 0 else "")
        if s.selected:
            status += "  (laying " + ", ".join(game.deck.kind_name(k) for k in s.selected) + ")"
    who = "omniscient" if player is None else f"player_{player} view"
    text(cv, 8, 3, f"Roda de Samba   round {s.round}" + ("  (last round)" if s.end_triggered else "")
         + f"   {status}   [{who}]", size=13)
    top_strip(cv, game, s, player is None)
    for p in range(n):
        roda_panel(cv, game, s, p, player)
    return cv.to_array()
