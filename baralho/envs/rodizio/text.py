"""Rodízio's table as text: the plates, their stacks and every pile, from one
player's view (face-down piles shown as sizes) or omniscient."""

from __future__ import annotations

from baralho.envs.rodizio import cards as C

# terminal colours (render_mode="human"): peppers red, the plaquinha blue
ANSI_RULES = ((r"\b\d[LD]\b", "red"), (r"\bP\b", "blue"))


def eater_name(game, w: int) -> str:
    return "Comilão" if w == game.num_players else f"player_{w}"


def render_text(game, s, player: int | None = None) -> str:
    view = "omniscient" if player is None else f"player_{player}'s view"
    status = "game over" if s.over else (
        f"{eater_name(game, s.seat)} to act"
        + (f" (Escolha Livre on plate {s.pending})" if s.pending >= 0 else ""))
    lines = [f"Rodízio · round {s.round}/{game.max_rounds} · {status} · {view}"]
    for p, stack in enumerate(s.stacks):
        plate = C.card_name(s.plates[p]) if player is None else "?"
        lines.append(f"  plate {p} [{plate}]: " + " ".join(C.card_name(c) for c in stack) + "   (bottom → top)")
    for w in range(game.num_eaters):
        known = player is None or w == player or game.perfect_memory
        if not s.eaten[w]:
            pile = "nothing eaten"
        elif known:
            pile = " ".join(C.card_name(c) for c in s.eaten[w]) + f" = {s.totals[w]}"
        else:
            pile = f"{len(s.eaten[w])} cards face down"
        lines.append(f"  {eater_name(game, w)}: {pile}")
    if s.over:
        lines.append("  rewards: " + ", ".join(f"player_{i} {r:+g}" for i, r in enumerate(s.final)))
    return "\n".join(lines)
