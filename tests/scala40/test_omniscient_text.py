"""The omniscient text view names the stock's next draw first (the list's end is the top)."""

from __future__ import annotations

import baralho
from baralho.envs.scala40.actions import DRAW_STOCK
from baralho.envs.scala40.text import card_name


def test_omniscient_view_names_the_card_the_next_draw_takes():
    env = baralho.make("scala40_v1", engine="reference")
    env.reset(seed=5)
    game, s = env.unwrapped.game, env.unwrapped.game_state
    line = next(ln for ln in game.render_text(s, None).splitlines() if ln.startswith("stock"))
    shown = line.split(": ", 1)[1].split()
    top = s.stock[-1]
    assert shown[0] == card_name(top) and shown[1] == card_name(s.stock[-2])
    assert line.endswith(f"… {len(s.stock) - 8} more")
    player, before = s.player, list(s.hands[s.player])
    assert env.observe(env.agent_selection)["action_mask"][DRAW_STOCK]
    env.step(DRAW_STOCK)
    after = env.unwrapped.game_state.hands[player]
    assert [b - a for a, b in zip(before, after)] == [int(k == top) for k in range(len(after))], \
        "the draw took the card the view named first"
    assert "stock" not in "\n".join(ln for ln in game.render_text(s, 0).splitlines() if ln.startswith("stock"))
