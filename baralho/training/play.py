"""Play a baralho game in the terminal against any agents.

    baralho play rodizio_v1 --seat 0 --opponents heuristic

Your legal moves are listed with their descriptions; answer with the number
in the list, the action id (``#12``), or the move's text (a unique prefix is
enough). Bad input gets a message and another prompt; Ctrl-D or Ctrl-C leaves.
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.core.ansi import colorize, wants_colour
from baralho.training.records import play_and_record


def choose_move(game, state, mask: np.ndarray, stdin: TextIO, stdout: TextIO) -> int | None:
    """Ask until the answer names a legal move; None on end of input."""
    legal = np.flatnonzero(mask).tolist()
    names = [game.describe_action(state, a) for a in legal]
    for i, (a, name) in enumerate(zip(legal, names), 1):
        print(f"  {i:>3}. {name}   (#{a})", file=stdout)
    while True:
        print("your move> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            return None
        text = line.strip()
        if not text:
            continue
        if text.startswith("#") and text[1:].isdigit():
            if int(text[1:]) in legal:
                return int(text[1:])
            print(f"  action #{text[1:]} is not legal now", file=stdout)
            continue
        if text.isdigit():
            if 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            print(f"  choose 1..{len(legal)}", file=stdout)
            continue
        hits = [a for a, n in zip(legal, names) if n.lower() == text.lower()] or \
               [a for a, n in zip(legal, names) if n.lower().startswith(text.lower())]
        if len(hits) == 1:
            return hits[0]
        print(f"  {'no' if not hits else 'more than one'} legal move matches {text!r}", file=stdout)


def _coloured(env, stdout) -> str:
    text = env.render()
    rules = getattr(env.unwrapped.game, "ansi_rules", ())
    return colorize(text, rules) if rules and wants_colour(stdout) else text


class _Quit(Exception):
    pass


def play(env_id: str, seat: int, opponents: list[str], config: dict, seed: int,
         stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, record_path: str | None = None) -> int:
    env = baralho.make(env_id, render_mode="ansi", **config)
    n = env.unwrapped.game.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat {seat}: this game has seats 0..{n - 1}")
    env.unwrapped.render_view = seat
    specs = [opponents[i % len(opponents)] for i in range(n - 1)]
    agents = {}
    for s in range(n):
        if s != seat:
            agents[f"player_{s}"] = make_agent(specs.pop(0), env_id, seed=seed + s, config=config)
    human = f"player_{seat}"

    def choose(env, agent, obs):
        if agent != human:
            return agents[agent].act(obs, agent)
        print("\n" + _coloured(env, stdout), file=stdout)
        move = choose_move(env.unwrapped.game, env.unwrapped.game_state, obs["action_mask"], stdin, stdout)
        if move is None:
            raise _Quit
        return move

    env.reset(seed=seed)
    for a in agents.values():
        bind_if_needed(a, env)
    try:
        rec = play_and_record(env_id, config, seed, choose, players=["human" if s == seat else "agent"
                                                                      for s in range(n)], env=env)
    except (_Quit, KeyboardInterrupt):
        print("\nbye", file=stdout)
        return 0
    env.unwrapped.render_view = "omniscient"
    print("\n" + _coloured(env, stdout), file=stdout)
    print(f"\ngame over: your reward {rec.returns[seat]:+g}", file=stdout)
    if record_path:
        print(f"record saved to {rec.save(record_path)}", file=stdout)
    return 0
