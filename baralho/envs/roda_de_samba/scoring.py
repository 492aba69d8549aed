"""Harmony and fame: samba atravessado, the score, the winners and the rewards.

Plain functions of (game, state); the game class binds them as methods.
"""

from __future__ import annotations

from baralho.envs.roda_de_samba.cards import SPACES


def bad_around(game, s, p: int, sp: int) -> int:
    """Atravessados among the two neighbouring pairs of space ``sp``."""
    insts, nums, col, cor = s.space_inst[p], s.space_nums[p], game.inst_colour, game.inst_coringa
    a = insts[sp]
    if a < 0:
        return 0
    bad = 0
    for t in (sp - 1 if sp else SPACES - 1, sp + 1 if sp + 1 < SPACES else 0):
        b = insts[t]
        if b >= 0 and col[a] != col[b] and (cor[a] or cor[b] or not nums[sp] & nums[t]):
            bad += 1
    return bad


def atravessados(game, s, p: int) -> int:
    """Neighbouring occupied spaces out of harmony (space 10 neighbours space 1)."""
    insts, nums, col, cor = s.space_inst[p], s.space_nums[p], game.inst_colour, game.inst_coringa
    bad = 0
    for a in range(SPACES):
        b = a + 1 if a + 1 < SPACES else 0
        ia, ib = insts[a], insts[b]
        if ia < 0 or ib < 0 or col[ia] == col[ib]:
            continue
        if cor[ia] or cor[ib] or not nums[a] & nums[b]:
            bad += 1
    return bad


def fame_of(game, s, p: int) -> int:
    """Stars + colour bonuses (points per occupied space of the colour) − 2 per atravessado."""
    sambs = game.deck.sambistas
    per_colour = [0] * game.C
    for inst in s.space_inst[p]:
        if inst >= 0:
            per_colour[game.inst_colour[inst]] += 1
    total = 0
    for sid in s.called[p]:
        sb = sambs[sid]
        total += sb.stars + sb.bonus_points * per_colour[sb.bonus_colour]
    return total - 2 * s.atrav[p]


def rewards_for(game, fame: list[int], laid: list[int]) -> list[float]:
    """+1 to the winner, −1/(n−1) to each other seat; tied winners share the +1's worth."""
    n = game.num_players
    best = max(zip(fame, laid, strict=True))
    winners = [p for p in range(n) if (fame[p], laid[p]) == best]
    w = len(winners)
    if w == n:
        return [0.0] * n
    win = (n - w) / (w * (n - 1))
    return [win if p in winners else -1.0 / (n - 1) for p in range(n)]


def winners(game, s) -> list[int]:
    best = max(zip(s.fame, s.laid_total, strict=True))
    return [p for p in range(game.num_players) if (s.fame[p], s.laid_total[p]) == best]
