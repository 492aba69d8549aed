"""Roda de Samba's search guide (``ismcts:N:g``): the draw, the instrument, the sambista and
the discard searched in a tree, rollouts cut off between turns and scored by fame;
``baralho/core/guide.py`` says what a guide is."""

from __future__ import annotations

import numpy as np

from baralho.core.guide import ranked, reference_state
from baralho.envs.roda_de_samba import actions as V
from baralho.envs.roda_de_samba.scoring import rewards_for


class RodaDeSambaGuide:
    """Roda de Samba: search the draw (deck or a discard pile), which instrument to lay,
    which sambista to call and which card to discard; the heuristic picks the space,
    the group size and the reserve. Rollouts stop after ``rollout_depth`` decisions and
    are scored by fame (what the game would pay if it ended there)."""

    rollout_depth = 40
    tree = True

    def __init__(self, game, width: int = 4) -> None:
        game = getattr(game, "reference", game)         # its tables are the rules engine's

        self.g, self.V, self.width = game, V, width
        self.phase = game.obs_layout["phase"]

    def candidates(self, policy, obs: dict, proposal: int) -> list[int]:
        g, V, mask = self.g, self.V, obs["action_mask"]
        legal = [int(a) for a in np.flatnonzero(mask)]
        phase = int(np.argmax(obs["observation"][self.phase]))
        if phase in (V.PH_DRAW, V.PH_PILE, V.PH_CALL):
            return [proposal] + [a for a in legal if a != proposal][: self.width - 1]
        if phase == V.PH_LAY:  # one candidate per instrument: its first card kind, as the heuristic does
            firsts: dict[int, int] = {}
            for a in legal:
                firsts.setdefault(policy.kind_inst[a - g.A_LAY], a)
            return [proposal] + [a for a in firsts.values() if a != proposal][: self.width - 1]
        if phase == V.PH_DISCARD and proposal < g.A_DISCARD_MAL:
            r = policy._read(obs["observation"])
            wanted = policy._wanted(r)
            plain = [a for a in legal if a < g.A_DISCARD_MAL]
            return ranked(proposal, plain, lambda a: policy._discard_value(a - g.A_DISCARD, r, wanted),
                           self.width)
        return [proposal]

    def evaluate(self, game, state) -> np.ndarray:

        if game.is_over(state):
            return game.returns(state)
        ref = getattr(game, "reference", game)          # the rules engine, where the state is compiled
        state = reference_state(game, state)
        # the rewards the game would pay now, softened: a lead of a few fame points is not a win yet
        fame = np.asarray(state.fame, dtype=np.float64)
        n = len(fame)
        best_other = np.array([max(np.delete(fame, p)) for p in range(n)])
        hard = np.asarray(rewards_for(ref, list(state.fame), list(state.laid_total)))
        return 0.5 * hard + 0.5 * np.tanh((fame - best_other) / 6.0)


#: the registry finds every game's guide under this name (baralho.agents.guides.guide_for)
Guide = RodaDeSambaGuide
