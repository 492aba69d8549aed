"""What a Rodízio player sees: the observation layout, its encoder, and
``resample_hidden`` (a full table drawn from what a player does not see).

Everything on the table is public (cards lie half-covered, every face visible),
so is every eat (it happens in view); hidden are the pizzas lying face down as
plates and, with ``memory="none"``, the contents of the other piles.

Every value is a small integer (a card feature, a count, a round), the largest
being a round count of up to 1000 (``max_rounds``): the observation is int16,
half of float32's size; int8 cannot hold the round counts.
"""

from __future__ import annotations

import numpy as np

from baralho.core.spaces import ObsLayout
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.actions import MAX_STACK

DTYPE = np.int16
# Per card id, the features shown for it on a plate: present, value, plaquinha,
# Escolha Livre, Dupla Ação.
CARD_FEATURES = np.array(
    [(1, C.VALUE[c], c == C.PLAQUINHA, C.PEPPER[c] == C.LIVRE, C.PEPPER[c] == C.DUPLA)
     for c in range(C.NUM_CARDS)], DTYPE)


def build_layout(num_players: int, num_eaters: int, max_rounds: int) -> ObsLayout:
    e = num_eaters
    lay = ObsLayout(DTYPE)
    lay.add("plates", (C.NUM_PLATES, MAX_STACK, 5), high=C.MAX_VALUE,
            doc="per plate, per depth from the top: present, value, plaquinha, escolha livre, dupla")
    lay.add("stack_size", C.NUM_PLATES, high=MAX_STACK, doc="cards on each plate")
    lay.add("eaten", (e, C.NUM_PIZZAS), doc="pizza ids eaten per eater, seat-relative "
            "(self first, Comilão last); others' rows only with memory='perfect'")
    lay.add("eaten_count", e, high=C.CENTRE_CARDS, doc="pile size per eater")
    lay.add("eaten_total", e, high=C.TOTAL_VALUE, doc="pile value per eater (others: perfect memory)")
    lay.add("to_act", e, doc="one-hot: the eater whose turn it is, seat-relative")
    lay.add("pending", C.NUM_PLATES, doc="one-hot: plate awaiting an Escolha Livre choice")
    lay.add("position", num_players, doc="one-hot: the observer's place in the turn order (0 plays first)")
    lay.add("round", 1, high=max_rounds, doc="completed rounds")
    lay.add("rounds_left", 1, high=max_rounds, doc="rounds before the turn bound ends the game, this one included")
    lay.add("flags", 3, doc="spicy mode, memory='perfect', the Comilão plays (2 players)")
    return lay.freeze()


def eater_order(game, player: int) -> list[int]:
    """Eaters seat-relative: ``player`` first, the others in play order, the Comilão last."""
    n = game.num_players
    order = [(player + k) % n for k in range(n)]
    return order + [n] if game.comilao else order


def observe(game, s, player: int) -> np.ndarray:
    lay = game.obs_layout
    obs = lay.zeros()
    view = lay.decode(obs)          # views into obs, by field
    for p, stack in enumerate(s.stacks):
        view["plates"][p, :len(stack)] = CARD_FEATURES[stack[::-1]]   # top first
        view["stack_size"][p] = len(stack)
    for k, eater in enumerate(eater_order(game, player)):
        seen = k == 0 or game.perfect_memory
        if seen:
            view["eaten"][k, s.eaten[eater]] = 1
            view["eaten_total"][k] = s.totals[eater]
        view["eaten_count"][k] = len(s.eaten[eater])
        view["to_act"][k] = not s.over and eater == s.seat
    if s.pending >= 0 and not s.over:
        view["pending"][s.pending] = 1
    view["position"][player] = 1        # seat 0 starts every round
    view["round"][0] = s.round
    view["rounds_left"][0] = game.max_rounds - s.round
    view["flags"][:] = game.spicy, game.perfect_memory, game.comilao
    return obs


def hidden_piles(game, player: int) -> list[int]:
    """Eaters whose piles ``player`` cannot see (memory='none': everyone else)."""
    return [] if game.perfect_memory else [w for w in range(game.num_eaters) if w != player]


def resample_hidden(game, s, player: int, rng: np.random.Generator):
    """The plate pizzas and the unseen piles' contents redrawn among themselves."""
    t = s.copy()
    piles = hidden_piles(game, player)
    # sorted first, so the draw depends only on what ``player`` knows
    pool = sorted(t.plates + [c for w in piles for c in t.eaten[w]])
    pool = [pool[i] for i in rng.permutation(len(pool))]
    t.plates, at = pool[:C.NUM_PLATES], C.NUM_PLATES
    for w in piles:
        k = len(t.eaten[w])
        t.eaten[w] = pool[at:at + k]
        t.totals[w] = sum(C.VALUE[c] for c in t.eaten[w])
        at += k
    if t.over:
        t.final = game.final_rewards(t)
    return t
