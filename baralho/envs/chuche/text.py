"""Chuche's table as text: ``render_text`` (one player's view, or omniscient) and the
terminal colours of ``render_mode="human"``."""

from __future__ import annotations

from baralho.envs.chuche.cards import CHUCHE_NAMES, POINTS, card_name, chuche_points, kind_name
from baralho.envs.chuche.observation import PHASES

# every number card in its colour
ANSI_RULES = ((r"\d+Vm(?:/\d+)?", "red"), (r"\d+La(?:/\d+)?", "orange"), (r"\d+Am(?:/\d+)?", "yellow"),
              (r"\d+Vd(?:/\d+)?", "green"), (r"\d+Az(?:/\d+)?", "blue"), (r"\d+Rx(?:/\d+)?", "magenta"))


def render_text(game, s, player: int | None = None) -> str:
    n = game.num_players
    who = "omniscient" if player is None else f"player_{player}'s view"
    lines = [f"Chuche ({who}) round {s.rounds_played + 1}, scores {s.scores} (goal {game.goal})"
             + (" - OVER" if s.over else ""),
             f"target {game.target(s)}  stock {len(s.stock)}  Chuche deck {len(s.chuche_deck)}"]
    if player is None:
        lines.append("stock (top last): " + " ".join(f"{card_name(c)}/{s.back[c]}" for c in s.stock))
    table = [card_name(c) + (f"[P{s.owner[c]}]" if s.owner[c] >= 0 else "") for c in s.table]
    lines.append("table: " + (" ".join(table) or "(empty)"))
    if s.cap_card >= 0:
        lines.append(f"capture: {card_name(s.cap_card)} + "
                     f"{' + '.join(card_name(c) for c in s.cap_sel) or '...'} = {s.cap_sum}")
    if s.must_use >= 0:
        lines.append(f"Escudo unblocked {kind_name(s.must_use)}: the capture must use it")
    for q in range(n):
        if player is None or q == player:
            hand = " ".join(f"{card_name(c)}/{s.back[c]}" for c in s.hands[q])
        else:
            hand = "backs " + " ".join(str(s.back[c]) for c in sorted(s.hands[q], key=lambda c: s.back[c]))
        held = ", ".join(f"{CHUCHE_NAMES[t]}x{k}" for t, k in enumerate(s.held[q]) if k)
        won = sum(s.held[q]) + sum(s.used[q])
        pts = sum(POINTS[c] for c in s.piles[q]) + chuche_points(won)
        mark = "*" if q == s.turn else " "
        lines.append(f"{mark}P{q}: hand [{hand}]  captured {len(s.piles[q])} ({pts} pts)"
                     f"  Chuche won {won}{': ' + held if held else ''}")
    if not s.over:
        lines.append(f"phase: {PHASES[s.phase]}, to act: player_{s.actor}")
    return "\n".join(lines)
