"""Roda de Samba as text: the table from one player's view (or omniscient), card and sambista texts."""

from __future__ import annotations

from baralho.envs.roda_de_samba.actions import PHASES
from baralho.envs.roda_de_samba.cards import BANG_ACTIONS, SPACES


def render_text(game, s, player: int | None) -> str:
    """The table as text from ``player``'s view (None: omniscient, every hand shown)."""
    d, n = game.deck, game.num_players
    lines = [f"Roda de Samba  round {s.round}  deck {len(s.deck)}  sambista deck {len(s.samb_deck)}"
             + ("  (last round)" if s.end_triggered else "") + ("  GAME OVER" if s.over else "")]
    if s.samb_top_known:
        lines.append(f"sambista deck top (known): {sambista_text(d, s.samb_deck[-1])}")
    row = ", ".join(sambista_text(d, sid) if sid >= 0 else "—" for sid in s.row)
    lines.append(f"open sambistas: {row}")
    for c, col in enumerate(d.colours):
        cards = cards_text(d, s.piles[c])
        lines.append(f"pile {col}: {cards or '—'}")
    for p in range(n):
        roda = d.rodas[p % len(d.rodas)][0]
        mark = "*" if p == s.player else " "
        lines.append(f"{mark}player_{p} [{roda}]  fame {s.fame[p]}  atravessados {s.atrav[p]}  "
                     f"laid {s.laid_total[p]}")
        spaces = []
        for sp in range(SPACES):
            inst = s.space_inst[p][sp]
            if inst < 0:
                spaces.append(f"{sp + 1}:—")
                continue
            nums = [str(d.kind_number[k]) for k in range(d.num_inst_kinds)
                    if d.kind_inst[k] == inst for _ in range(s.laid[p][k])]
            shown = d.inst_names[inst] + (f"[{','.join(nums)}]" if not d.inst_coringa[inst] else
                                          f"x{s.space_count[p][sp]}")
            spaces.append(f"{sp + 1}:{shown}")
        lines.append("   roda: " + " ".join(spaces))
        called = ", ".join(d.sambistas[i].name for i in s.called[p]) or "—"
        lines.append(f"   sambistas (top last): {called}")
        if s.reserved[p] >= 0:
            lines.append(f"   reserved: {sambista_text(d, s.reserved[p])}")
        if player is None or player == p:
            lines.append(f"   hand: {cards_text(d, s.hands[p]) or '—'}")
        else:
            known = cards_text(d, s.known[p])
            lines.append(f"   hand: {s.hand_size[p]} cards" + (f" (known: {known})" if known else ""))
    if s.selected:
        lines.append("laying: " + ", ".join(d.kind_name(k) for k in s.selected))
    if not s.over:
        lines.append(f"to act: player_{s.player} ({PHASES[s.phase]}"
                     + (f", !{BANG_ACTIONS[s.bang]}" if s.bang >= 0 else "") + ")")
    return "\n".join(lines)


def cards_text(deck, counts) -> str:
    return ", ".join(deck.kind_name(k) + (f" x{c}" if c > 1 else "") for k, c in enumerate(counts) if c)


def sambista_text(deck, sid: int) -> str:
    sb = deck.sambistas[sid]
    req = " ".join(deck.token_name(t) for t in sb.requires)
    if sb.brings >= 0:
        ben = f" +{deck.inst_names[sb.brings]}"
    elif sb.bang >= 0:
        ben = f" !{BANG_ACTIONS[sb.bang]}"
    else:
        ben = ""
    return f"{sb.name} ({req}; {sb.stars}★ +{sb.bonus_points}/{deck.colours[sb.bonus_colour]}{ben})"
