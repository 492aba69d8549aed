"""The Game protocol: the one surface every game's ``rules.py`` implements.

The AEC adapter (:mod:`baralho.core.aec`), the agents, the conformance suite and
the benchmarks are written once against this protocol. A game object is bound
to one validated config (player count and variant flags), so the protocol's
``new_state(config, rng)`` of DESIGN.md reads ``game.new_state(rng)`` here.

Conventions every game keeps:

* Players are seat indices ``0 … n-1``; the adapter names them ``player_i``.
  Non-agent players (Rodízio's Comilão) and chance events are resolved inside
  :meth:`Game.apply`, so :meth:`Game.current_player` is always an agent seat.
* A state is mutated in place by :meth:`Game.apply`; ``state.copy()`` is cheap
  and independent, and states pickle.
* All randomness comes from the ``np.random.Generator`` handed to
  :meth:`Game.new_state` (a game that needs chance during play keeps its own
  generator, or a seed, inside the state, as hidden information). Same seed
  and same actions give the same game.

Optional members, used when present:

* ``reference_legal_mask(state)``: a slow, independent legality oracle; the
  conformance suite compares it with :meth:`Game.legal_mask`.
* ``render_image(state, player)``: the table as an RGB array, which enables
  ``render_mode="rgb_array"`` (see :mod:`baralho.core.picture`).
* ``ansi_rules``: ``(regex, colour)`` pairs for terminal colours (:mod:`baralho.core.ansi`).
* ``segment(state)`` and ``estimate(state)``: a game played in parts (Scala 40's match of
  hands) names the part ``state`` is in, and each seat's expected return where a part ends;
  the net-guided search's ``horizon="segment"`` rolls out to a part's end and backs that up
  (:mod:`baralho.core.net_search`). Its compiled engine has the same two, ``segment(s, d)`` and
  ``estimate(s, d, out)``.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from baralho.core.spaces import ObsLayout


@runtime_checkable
class State(Protocol):
    """A game position. Games use a dataclass; only ``copy`` is required."""

    def copy(self) -> State:
        """An independent copy (no shared mutable parts)."""
        ...


class Game(Protocol):
    """The rules of one game under one config. Pure: no I/O, no global state."""

    #: PettingZoo-style env id, e.g. ``"rodizio_v1"``.
    env_id: ClassVar[str]
    #: The validated config dataclass this game was built with.
    config: Any
    #: Number of agent seats.
    num_players: int
    #: Size of the Discrete action space.
    num_actions: int
    #: Named slices of the flat observation vector (see :mod:`baralho.core.spaces`).
    obs_layout: ObsLayout
    #: Upper bound on the number of agent decisions in one episode (RULES.md
    #: states it; the conformance suite checks it).
    max_decisions: int

    def new_state(self, rng: np.random.Generator) -> State:
        """Deal a new game (a match, or a hand/round when the scope says so)."""
        ...

    def current_player(self, state: State) -> int:
        """The seat to act, or -1 once the game is over."""
        ...

    def legal_mask(self, state: State) -> np.ndarray:
        """``int8[num_actions]``: 1 exactly for the legal actions of the acting seat.
        It may be read-only (the adapter locks a writable one and hands out copies)."""
        ...

    def apply(self, state: State, action: int) -> Sequence[float] | None:
        """Play a legal ``action`` for the acting seat, in place.

        Returns the rewards this transition produced (one per seat), or
        ``None`` when they are all zero. The caller guarantees legality
        (the adapter checks the mask first); ``apply`` does not re-check.
        """
        ...

    def is_over(self, state: State) -> bool:
        """True once the episode has ended (the game's own end or its bound)."""
        ...

    def returns(self, state: State) -> np.ndarray:
        """``float[num_players]``: the sum of every reward produced so far."""
        ...

    def observe(self, state: State, player: int) -> np.ndarray:
        """What ``player`` may know, as a flat ``obs_layout`` vector.

        Own private cards, everything public, and public knowledge of the past;
        never another player's private cards, never the order of a deck.
        """
        ...

    def resample_hidden(self, state: State, player: int, rng: np.random.Generator) -> State:
        """A full state drawn from those consistent with everything ``player`` knows.

        ``observe`` and (for the acting seat) ``legal_mask`` of the result equal
        those of ``state`` for ``player``; everything hidden from ``player`` is
        redrawn. Used by search agents and by the hidden-information test.
        """
        ...

    def has_hidden(self, state: State, player: int) -> bool:
        """True when some part of ``state`` is unknown to ``player``.

        When True, repeated ``resample_hidden`` calls must be able to produce a
        different state; when False they return an equal one. The conformance
        suite checks both directions.
        """
        ...

    def describe_action(self, state: State, action: int) -> str:
        """Human-readable action in this position, e.g. ``"serve plate 2"``."""
        ...

    def render_text(self, state: State, player: int | None = None) -> str:
        """The table as text, from ``player``'s view, or omniscient when None."""
        ...

    def check_invariants(self, state: State) -> None:
        """Raise ``AssertionError`` when the state breaks a rule of conservation
        (every card in exactly one place, scores consistent, counters in range)."""
        ...


def state_key(state: State) -> bytes:
    """A byte fingerprint of the whole state, for equality checks in tests."""
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
