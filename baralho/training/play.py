"""Play a baralho game in the terminal against any agents.

    baralho play rodizio_v1 --seat 0 --opponents heuristic

Your legal moves are listed with their descriptions; answer with the number in
the list (``2``), the action id (``#12``), or words of the move's text (``plate 2``:
every word you type must start a word of exactly one move). ``help`` (or ``?``)
shows the moves and this again. A move that is the only legal one is played for
you (``--no-auto`` asks anyway). Every opponent move is narrated, and so is every
automatic move (Rodízio's Comilão). Bad input gets
a message and another prompt; Ctrl-D or Ctrl-C leaves.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

import numpy as np

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.core.ansi import colorize, wants_colour
from baralho.training.records import play_and_record

HOW_TO_ANSWER = ("answer with a number from the list, an action id (#12), or words of the move "
                 "(each must start a word of one move); help shows this again")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]+", text.lower())


def matching_moves(text: str, legal: list[int], names: list[str]) -> list[int]:
    """The moves whose text is ``text``, else those it starts, else those in which every
    word of ``text`` starts a word (``plate 2`` finds "serve plate 2 (4 cards)")."""
    low = text.lower()
    for test in (lambda n: n.lower() == low, lambda n: n.lower().startswith(low)):
        hits = [a for a, n in zip(legal, names) if test(n)]
        if hits:
            return hits
    asked = _words(text)
    return [a for a, n in zip(legal, names)
            if asked and all(any(w.startswith(x) for w in _words(n)) for x in asked)]


def choose_move(game, state, mask: np.ndarray, stdin: TextIO, stdout: TextIO, auto: bool = False) -> int | None:
    """Ask until the answer names a legal move; None on end of input. With ``auto``
    a single legal move is played without asking."""
    legal = np.flatnonzero(mask).tolist()
    names = [game.describe_action(state, a) for a in legal]
    if auto and len(legal) == 1:
        print(f"  your only move: {names[0]} (played for you)", file=stdout)
        return legal[0]

    def show(hint: bool):
        for i, (a, name) in enumerate(zip(legal, names), 1):
            print(f"  {i:>3}. {name}   (#{a})", file=stdout)
        if hint:
            print(f"  ({HOW_TO_ANSWER})", file=stdout)

    show(hint=False)
    while True:
        print("your move> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            return None
        text = line.strip()
        if not text:
            continue
        if text.lower() in ("help", "?", "h"):
            show(hint=True)
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
        hits = matching_moves(text, legal, names)
        if len(hits) == 1:
            return hits[0]
        if hits:
            shown = "; ".join(names[legal.index(a)] for a in hits[:6])
            print(f"  more than one legal move matches {text!r}: {shown}", file=stdout)
        else:
            print(f"  no legal move matches {text!r} (help lists them)", file=stdout)


def _coloured(env, stdout) -> str:
    text = env.render()
    rules = getattr(env.unwrapped.game, "ansi_rules", ())
    return colorize(text, rules) if rules and wants_colour(stdout) else text


def _automatic_moves(game, state, action: int) -> list[str]:
    """The moves of a non-agent that ``action`` sets off (Rodízio's Comilão), one
    "name (automatic): move" line each; the reference game describes them."""
    ref = getattr(game, "reference", game)           # the compiled engine plays the reference's game
    describe = getattr(ref, "describe_automatic", None)
    if describe is None:
        return []
    ref_state = game.to_reference(state) if ref is not game else state
    return [f"{who} (automatic): {move}" for who, move in describe(ref_state, action)]


class _Quit(Exception):
    pass


def play(env_id: str, seat: int, opponents: list[str], config: dict, seed: int,
         stdin: TextIO | None = None, stdout: TextIO | None = None, record_path: str | None = None,
         auto: bool = True) -> int:
    """Play ``env_id`` from ``seat``; ``auto`` plays a forced move (one legal move) for you."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    env = baralho.make(env_id, render_mode="ansi", **config)
    n = env.unwrapped.game.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat {seat}: this game has seats 0..{n - 1}")
    env.unwrapped.render_view = seat
    specs = [opponents[i % len(opponents)] for i in range(n - 1)]
    agents, labels = {}, {}
    for s in range(n):
        if s != seat:
            labels[f"player_{s}"] = spec = specs.pop(0)
            agents[f"player_{s}"] = make_agent(spec, env_id, seed=seed + s, config=config)
    human = f"player_{seat}"

    def choose(env, agent, obs):
        game, state = env.unwrapped.game, env.unwrapped.game_state
        if agent != human:
            action = agents[agent].act(obs, agent)
            print(f"{agent} ({labels[agent]}): {game.describe_action(state, int(action))}", file=stdout)
        else:
            print("\n" + _coloured(env, stdout), file=stdout)
            action = choose_move(game, state, obs["action_mask"], stdin, stdout, auto=auto)
            if action is None:
                raise _Quit
        for line in _automatic_moves(game, state, int(action)):
            print(line, file=stdout)
        return action

    setup = " ".join([env_id, *(f"{k}={v}" for k, v in config.items())])
    print(f"{setup}, seed {seed}: you are {human}; opponents "
          f"{', '.join(f'{k} {v}' for k, v in labels.items())}\n{HOW_TO_ANSWER}", file=stdout)
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
