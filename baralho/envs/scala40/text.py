"""Human-readable Scala 40: action descriptions and the table as text."""

from __future__ import annotations

from functools import lru_cache

from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.melds import (
    JOKER,
    NUM_KINDS,
    card_name,
    extend_options,
    joker_key,
    joker_standin,
    meld_name,
    parse_group,
)


def cards_text(counts) -> str:
    return " ".join(card_name(k) for k in range(NUM_KINDS) for _ in range(counts[k])) or "—"


_SELECT = [f"select {card_name(k)}" for k in range(NUM_KINDS)]
_DISCARD = [f"discard {card_name(k)}" for k in range(NUM_KINDS)]


def describe(s, a: int) -> str:
    """``"meld 7♥ 8♥ 9♥"``, ``"discard Q♠"`` … (the action in this position)."""
    if A.DISCARD <= a < A.NUM_ACTIONS:
        return _DISCARD[a - A.DISCARD]
    if A.SELECT <= a < A.COMMIT and not s.pending:
        return _SELECT[a - A.SELECT]
    if a == A.COMMIT or A.COMMIT_JOKER <= a < A.SWAP:
        return _describe_play(tuple(s.pending), tuple(s.melds), a)
    return _describe_other(s, a)


@lru_cache(maxsize=65536)
def _describe_play(pending: tuple, melds: tuple, a: int) -> str:
    if a == A.COMMIT or A.COMMIT_JOKER <= a < A.EXTEND:
        opts = parse_group(list(pending))
        if a == A.COMMIT:
            opts = [m for m in opts if not m[4]]
        else:
            opts = [m for m in opts if m[4] and joker_key(m) == A.joker_target(a)]
        if opts:
            return "meld " + meld_name(opts[-1])
        what = " ".join(card_name(c) for c in pending) or "nothing"
        tail = "" if a == A.COMMIT else f", joker as {A.joker_target_name(a)}"
        return f"meld {what}{tail} (not a meld)"
    i = (a - A.EXTEND) % A.MAX_MELDS
    low = a >= A.EXTEND_LOW
    built = " ".join(card_name(c) for c in pending) or "nothing"
    if i >= len(melds):
        return f"lay off {built} on meld {i} (no such meld)"
    opts = extend_options(melds[i], list(pending))
    res = f" → {meld_name(opts[0] if low else opts[-1])}" if opts else ""
    return f"lay off {built} on meld {i} ({meld_name(melds[i])}){res}" + (" [low end]" if low else "")


def _describe_other(s, a: int) -> str:
    if a == A.DRAW_STOCK:
        return "draw from the stock"
    if a == A.DRAW_DISCARD:
        top = card_name(s.discard[-1]) if s.discard else "?"
        return f"take {top} from the discard pile"
    if A.SELECT <= a < A.COMMIT:
        k = a - A.SELECT
        built = " ".join(card_name(c) for c in s.pending)
        return f"select {card_name(k)}" + (f" (building {built})" if built else "")
    if A.SWAP <= a < A.UNDO:
        i = a - A.SWAP
        if i >= len(s.melds) or not s.melds[i][4]:
            return f"swap the joker of meld {i} (no joker there)"
        m = s.melds[i]
        return f"swap {card_name(joker_standin(m))} for the joker of meld {i} ({meld_name(m)})"
    if a == A.UNDO:
        return "undo the melds staged this turn"
    return f"action {a} (out of range)"


def render(game, s, player: int | None) -> str:
    n = game.num_players
    lines = [f"Scala 40 — hand {s.hands_played + 1}, turn {s.turn + 1}, "
             f"stock {len(s.stock)}, turnovers {s.turnovers}"]
    top = card_name(s.discard[-1]) if s.discard else "—"
    lines.append(f"discard pile ({len(s.discard)}): top {top}")
    for i, m in enumerate(s.melds):
        staged = " (staged)" if i >= len(s.melds) - s.staged else ""
        lines.append(f"  meld {i}: {meld_name(m)}{staged}")
    for i in range(n):
        mark = ">" if i == s.player and s.phase != 2 else " "
        status = "out" if s.eliminated[i] else ("opened" if s.opened[i] else "not opened")
        head = f"{mark} player_{i} [{status}, penalty {s.totals[i]}]"
        if player is None or player == i:
            lines.append(f"{head}: {cards_text(s.hands[i])}")
        else:
            known = [k for k in range(NUM_KINDS) for _ in range(s.known[i][k])]
            hidden = s.hand_size[i] - len(known)
            shown = " ".join([card_name(k) for k in known] + ["▒"] * hidden)
            lines.append(f"{head}: {shown or '—'}")
    if s.pending:
        lines.append("building: " + " ".join(card_name(k) for k in s.pending))
    if s.phase == 2:
        lines.append(f"over; returns {[round(r, 3) for r in s.returns]}")
    elif player is None:
        nxt = s.stock[::-1][:8]         # the top (next draw) is the list's end: name it first
        more = f" … {len(s.stock) - len(nxt)} more" if len(s.stock) > len(nxt) else ""
        lines.append(f"stock (next draw first): {' '.join(card_name(k) for k in nxt) or '—'}{more}")
    return "\n".join(lines)


__all__ = ["describe", "render", "cards_text", "JOKER"]
