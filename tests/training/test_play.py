"""baralho play: narration, how to answer, help, word matching, forced moves, seeds."""

from __future__ import annotations

import io

import numpy as np

import baralho
from baralho.cli import main
from baralho.training.play import HOW_TO_ANSWER, choose_move, matching_moves, play

NAMES = ["serve plate 0 (5 cards)", "serve plate 1 (10 cards)", "serve plate 2 (4 cards)"]


def test_any_words_of_a_move_pick_it_and_ambiguity_is_listed():
    legal = [0, 1, 2]
    assert matching_moves("plate 2", legal, NAMES) == [2]          # not the start of the text
    assert matching_moves("2", legal, NAMES) == [2]
    assert matching_moves("10 cards", legal, NAMES) == [1]
    assert matching_moves("serve plate 0 (5 cards)", legal, NAMES) == [0]
    assert matching_moves("plate", legal, NAMES) == legal
    assert matching_moves("plate 3", legal, NAMES) == []
    assert matching_moves("0", legal, NAMES) == [0], "a word must start with it: '10' does not start with '0'"


class Game:
    def describe_action(self, state, a):
        return NAMES[a]


def ask(answers: str, mask=(1, 1, 1), auto=False):
    out = io.StringIO()
    move = choose_move(Game(), None, np.array(mask, np.int8), io.StringIO(answers), out, auto=auto)
    return move, out.getvalue()


def test_help_shows_the_moves_and_how_to_answer_again():
    move, text = ask("help\nplate\n10 cards\n")
    assert move == 1
    assert text.count("serve plate 2 (4 cards)") == 3           # listed, again on help, again as ambiguous
    assert HOW_TO_ANSWER in text
    assert "more than one legal move matches 'plate': serve plate 0" in text


def test_a_forced_move_is_played_unless_asked_not_to():
    move, text = ask("", mask=(0, 1, 0), auto=True)
    assert move == 1 and "your only move: serve plate 1 (10 cards) (played for you)" in text
    move, text = ask("", mask=(0, 1, 0), auto=False)
    assert move is None and "your move>" in text                  # it asked (and input ended)


def test_opponent_moves_are_narrated_and_the_answers_explained():
    out = io.StringIO()
    play("rodizio_v1", 0, ["heuristic"], {}, seed=4, stdin=io.StringIO("1\n" * 100), stdout=out)
    text = out.getvalue()
    assert HOW_TO_ANSWER in text.splitlines()[1]
    assert text.count("player_1 (heuristic): serve plate") >= 3
    assert "game over: your reward" in text


def test_play_command_takes_players_and_draws_a_seed_when_none_is_given(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "rodizio_v1", "--players", "3", "--opponents", "random"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("rodizio_v1 num_players=3, seed ") and "player_2 random" in first
    assert main(["play", "rodizio_v1", "--players", "3", "--opponents", "random"]) == 0
    second = capsys.readouterr().out.splitlines()[0]
    assert first != second, "two runs without --seed deal different games"


def test_the_comilaos_automatic_moves_are_narrated_too(tmp_path):
    """The Comilão is no agent (it plays inside ``apply``), yet a human must see what it ate:
    one line per Comilão turn, naming the card it ate, in the order of the game."""
    from baralho.envs.rodizio import cards as C
    from baralho.training.records import load

    out = io.StringIO()
    play("rodizio_v1", 0, ["heuristic"], {}, seed=4, stdin=io.StringIO("1\n" * 100), stdout=out,
         record_path=str(tmp_path / "game.json"))
    said = [line for line in out.getvalue().splitlines() if line.startswith("Comilão (automatic): ")]
    env = baralho.make("rodizio_v1", engine="reference")  # replay the record: what did the Comilão do?
    env.reset(seed=4)
    game, s = env.unwrapped.game, env.unwrapped.game_state
    ate = []
    for action in load(tmp_path / "game.json").actions:
        rounds, pile = s.round, len(s.eaten[2])
        game.apply(s, action)
        if s.round > rounds or len(s.eaten[2]) > pile:          # the Comilão played
            ate.append(C.card_name(s.eaten[2][-1]) if len(s.eaten[2]) > pile else None)
    assert ate and len(said) == len(ate), (said, ate)
    for line, card in zip(said, ate):
        assert "serve plate" in line
        assert (f"and eat {card} " in line) if card else ("eat nothing" in line), (line, card)
