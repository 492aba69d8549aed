"""Scala 40's search guide (``ismcts:N:g``): the discard (and the draw) searched by flat Monte
Carlo on determinizations a heuristic opponent could be in; ``baralho/core/guide.py`` says
what a guide is."""

from __future__ import annotations

import numpy as np

from baralho.core.guide import ranked, reference_state
from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.heuristic import _fits, best_melds, discard_score
from baralho.envs.scala40.melds import JOKER, NUM_KINDS, OPEN_MIN, extend_options, hand_penalty, meld_cards
from baralho.envs.scala40.rules import DRAW


class Scala40Guide:
    """Scala 40: search which card to discard (and, with ``draws``, the draw: stock or
    discard pile); the heuristic draws, lays down and lays off. Discards are ranked by the
    heuristic's own score (penalty points minus links to the rest of the hand), ``width``
    of them.

    Flat Monte Carlo (``tree = False``) with rollouts to the end of the hand, on
    determinizations filtered by an opponent model (:class:`Scala40Belief`), scored by the
    win (``objective``), racing at the root (``race``: alternatives that change nothing or
    trail are dropped after a few determinizations) and a lower bar to overrule the
    heuristic (``confidence`` 0.5). Measured against the heuristic (duplicate games on the
    same deals, standard error ~0.06): before this session, ismcts:96:g flat to the end
    0.417, cut off after 20 decisions 0.483, scoring wins 0.42 (60 games each). This
    session, with the opponent model: 96 simulations 0.450 (60 games); scoring wins 0.500
    (60); racing, 256 at most, 0.517 (60); racing, 320 at most, discards only, confidence
    0.5, 0.525 (40) -- all parity within the noise. With the true hands (only the stock
    reshuffled) the heuristic's draw was the best candidate at every draw sampled, while at
    discards the best candidate beat its pick by a few points of win rate: what the search
    can gain is there, and small. ``evaluate`` (a hand's returns if it ended now, each seat
    laying down its best melds first) is what a search with ``rollout_depth`` set scores."""

    rollout_depth = None
    tree = False
    confidence = 0.5
    race = 1.0

    def __init__(self, game, width: int = 4, objective: str = "win", draws: bool = False) -> None:

        if objective not in ("returns", "win"):
            raise ValueError(f"objective={objective!r} must be 'returns' or 'win'")
        self.A, self.width, self.layout = A, width, game.obs_layout
        self.objective = objective
        self.draws = draws      # False: the heuristic's draw is played unsearched
        self.belief = Scala40Belief()
        self.game = game

    def violations(self, det, seat: int) -> int:
        """How implausible ``det`` is for a heuristic opponent (0: plausible; Scala40Belief)."""
        return self.belief.violations(reference_state(self.game, det), seat)

    def candidates(self, policy, obs: dict, proposal: int) -> list[int]:
        A, mask = self.A, obs["action_mask"]
        if proposal in (A.DRAW_STOCK, A.DRAW_DISCARD):
            if not self.draws:
                return [proposal]
            return [proposal] + [a for a in (A.DRAW_STOCK, A.DRAW_DISCARD) if a != proposal and mask[a]]
        if proposal < A.DISCARD:
            return [proposal]

        o = self.layout.decode(obs["observation"])
        hand = [int(x) for x in o["hand"]] + [int(o["hand_jokers"][0])]
        discards = [int(a) for a in np.flatnonzero(mask[A.DISCARD:]) + A.DISCARD]

        def score(a: int) -> float:
            k = a - A.DISCARD
            return 100.0 if k == JOKER else -discard_score(hand, k)

        return ranked(proposal, discards, score, self.width)

    def evaluate(self, game, state) -> np.ndarray:
        if self.objective == "win" and game.is_over(state):
            # a win (best return, someone worse; ties shared) counts, the penalty breaks ties
            r = game.returns(state)
            best = r == r.max()
            win = best / best.sum() if r.max() > r.min() else np.full(len(r), 1.0 / len(r))
            return win + 0.1 * r
        if game.is_over(state) or not game.config.scope == "hand":
            return game.returns(state)
        state = reference_state(game, state)
        # the hand's returns if it ended now, each seat laying down its best melds first
        # (an unopened seat only if they reach the opening): -deadwood / 100
        return np.array([-self.deadwood(game, state, p) / 100.0 for p in range(game.num_players)])

    @staticmethod
    def deadwood(game, state, p: int) -> int:
        """Penalty points ``p`` would still hold after laying down their best disjoint melds
        (before opening only if those reach 40; lay-offs on the table are not counted)."""

        if state.eliminated[p]:
            return 0
        hand = list(state.hands[p])
        need = 0 if state.opened[p] else OPEN_MIN
        value, chosen, _ = best_melds(hand, -1, 0, False, OPEN_MIN - need)
        if value < 0:
            return hand_penalty(hand)
        for m in chosen:
            for k in meld_cards(m):
                hand[k] -= 1
        return hand_penalty(hand)


class Scala40Belief:
    """Which determinizations a heuristic opponent could be in: ``plausible(det, seat)``
    rejects the ones in which the seat that played the last turn holds what
    :class:`~baralho.envs.scala40.heuristic.Scala40Heuristic` would not have kept.

    ``resample_hidden`` deals an opponent a uniformly random hand from the unseen cards,
    but the heuristic opens as soon as it can, lays down every meld and lays off every card
    it can, and discards the card it scores worst: most uniform hands hold melds and
    lay-offs the real opponent would already have played, so rollouts from them face a
    different opponent. The checks replay the heuristic's own rules on the determinized
    hand ``H`` plus the card ``d`` it just discarded (its hand when it chose the discard):

    * unopened: ``best_melds(H + d)`` finds no opening (the heuristic's own search, so exact);
    * the discard: no card of ``H`` scores above ``d`` by the heuristic's discard score
      (penalty - 7 x links, plus its tie noise below 0.1);
    * opened: ``H`` holds no meld it could have laid (leaving the cards it keeps), and, at
      the draw (the table is then the one it left), no card that lays off on the table.

    Only the determinization (public fields and the resampled hands) is read, never the
    live state, so a search that filters stays blind to the true hidden cards."""

    def violations(self, det, seat: int) -> int:
        """How many of the checks the previous seat's determinized hand fails (0: plausible)."""

        n = det.num_players
        if det.turn < 1 or det.phase not in (0, 1):
            return 0
        prev = (seat - 1) % n
        while det.eliminated[prev] and prev != seat:
            prev = (prev - 1) % n
        if prev == seat or not det.discard and det.took < 0:
            return 0
        # the card the previous seat discarded: the top, or the one this seat took from it
        d = det.took if det.phase != DRAW and det.took >= 0 else det.discard[-1]
        hand = list(det.hands[prev])
        if sum(hand) == 0:
            return 0
        can_close = det.turn - 1 >= det.eliminated.count(False)
        keep = 1 if can_close else 2
        full = hand[:]
        full[d] += 1
        bad = 0
        if not det.opened[prev]:
            if best_melds(full, -1, keep, can_close, 0)[0] >= 0:
                bad += 1
        else:
            if best_melds(hand, -1, max(keep - 1, 0), False, OPEN_MIN)[1]:   # any meld at all
                bad += 1
            if det.phase == DRAW and sum(hand) >= keep:
                if any(hand[k] and _fits(m, k) and extend_options(m, [k])
                       for m in det.melds for k in range(NUM_KINDS)):
                    bad += 1
        if d != JOKER:
            top = discard_score(full, d) + 0.1
            if any(hand[k] and discard_score(full, k) > top for k in range(JOKER)):
                bad += 1
        return bad

    def plausible(self, det, seat: int) -> bool:
        return self.violations(det, seat) == 0


#: the registry finds every game's guide under this name (baralho.agents.guides.guide_for)
Guide = Scala40Guide
