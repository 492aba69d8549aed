"""Search guides: which decisions guided ISMCTS searches, and how it scores a cut-off rollout.

A guided search (``ISMCTSAgent(guided=True)``, spec ``ismcts:N:g``) lets the
game's heuristic propose every move; the guide of the game then says, from the
acting seat's observation, the legal mask and that proposal, which moves are
worth comparing — the *key* decisions of a turn, the proposal first — and the
heuristic plays the rest (the cards of a meld, the space of an instrument, …).
The tree only branches at the key decisions, so a budget of a few dozen
simulations is spent where the game is decided, not spread over micro-actions.

A guide reads only what the seat knows (its observation and mask) to pick
candidates; ``evaluate`` scores the state a rollout stopped in, which in a
search is always a determinization drawn by ``resample_hidden``.

A game's guide is the ``Guide`` of its folder's ``guide.py`` (Scala 40, Roda de Samba;
``baralho.agents.guides.guide_for`` finds it through the registry); games without one
search every decision with more than one legal move (the proposal first, ``DefaultGuide``)
and play rollouts to the end. This module holds what every guide shares.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Guide(Protocol):
    #: default rollout length in decisions before ``evaluate`` scores it (None: to the end);
    #: the rollout then runs on to the end of the turn (the next change of actor)
    rollout_depth: int | None
    #: default search shape: a tree below the root's candidates (True) or flat Monte Carlo
    tree: bool

    def candidates(self, policy, obs: dict, proposal: int) -> list[int]:
        """The moves to compare at this decision, ``proposal`` first; ``[proposal]`` when
        the decision is left to the heuristic."""
        ...

    def evaluate(self, game, state) -> np.ndarray:
        """``float[num_players]`` in the scale of ``game.returns``: a cut-off rollout's value."""
        ...


def ranked(proposal: int, others: list[int], score, width: int) -> list[int]:
    """``proposal`` then the best-scored other moves (lowest score first), ``width`` in all."""
    rest = sorted((a for a in others if a != proposal), key=score)
    return [proposal] + rest[: width - 1]


class DefaultGuide:
    """Every decision with a choice is searched; rollouts run to the end."""

    rollout_depth = None
    tree = True

    def __init__(self, game, width: int = 6) -> None:
        self.width = width

    def candidates(self, policy, obs: dict, proposal: int) -> list[int]:
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        return [proposal] + [a for a in legal if a != proposal][: self.width - 1]

    def evaluate(self, game, state) -> np.ndarray:
        return game.returns(state)


def reference_state(game, state):
    """The state as the reference engine's (the guides read its fields): a compiled
    engine's state is converted (baralho.core.compiled.CompiledGame.to_reference)."""
    to_reference = getattr(game, "to_reference", None)
    return to_reference(state) if to_reference is not None and hasattr(state, "records") else state
