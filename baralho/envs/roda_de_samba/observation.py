"""What a player sees: the observation layout, its incremental base vector, and
``resample_hidden`` (a state consistent with what a player sees).

Every value is a small integer (counts, one-hots, fame), so the observation is
integer: ``np.int16``, because fame reaches 145 with the default deck (53 stars
+ 23 colour bonuses × up to 4 spaces of a colour), past int8's 127, and a
replacement deck or ``max_rounds`` up to 200 may need more than int8 anywhere.

The state keeps ONE float32 *base* vector with every public fact in absolute
seats plus every hand (``hands``). ``observe(state, p)`` is a single gather,
``base[index[p]]``: the observer's own hand and the per-player fields rotated
so that the observer is row 0 and the others follow in play order. Nobody
else's hand is ever gathered. The rules engine writes the base incrementally
as cards move; :meth:`View.rebuild` recomputes it from scratch (the
invariant check compares the two).
"""

from __future__ import annotations

import numpy as np

from baralho.core.spaces import ObsLayout
from baralho.envs.roda_de_samba.actions import PHASES
from baralho.envs.roda_de_samba.cards import BANG_ACTIONS, ROW, SPACES, Deck

DTYPE = np.int16
# fields gathered from one row of a per-seat base block: the observer's own
OWN = {"hand": "hands", "position": "positions"}
# per-player fields (shape (n, ...)): rotated so the observer is row 0
PER_PLAYER = ("current", "hand_size", "known", "space_instrument", "space_colour", "space_numbers",
              "space_cards", "laid", "sambistas", "top_sambista", "brought", "reserved",
              "atravessados", "fame", "cards_laid")


def fame_bounds(deck: Deck) -> tuple[int, int]:
    """Every sambista called, every bonus paid for each space its colour can hold (one space per
    instrument of that colour, at most 10); every space pair atravessado."""
    stars = sum(sb.stars for sb in deck.sambistas)
    spaces = [min(SPACES, deck.inst_colour.count(c)) for c in range(len(deck.colours))]
    bonus = sum(sb.bonus_points * spaces[sb.bonus_colour] for sb in deck.sambistas)
    return -2 * SPACES, stars + bonus


class Encoder:
    """The observation layout of one game config and the base-vector offsets."""

    def __init__(self, deck: Deck, n: int, max_rounds: int) -> None:
        self.deck, self.n = deck, n
        K, KI, C = deck.num_kinds, deck.num_inst_kinds, len(deck.colours)
        NI, S, NUM = len(deck.inst_names), len(deck.sambistas), len(deck.numbers)
        total = sum(deck.kind_copies)
        cmax = max(deck.kind_copies)
        lo, hi = fame_bounds(deck)
        stack = max(sum(c for k, c in enumerate(deck.kind_copies[:-1]) if deck.kind_inst[k] == i)
                    for i in range(NI))
        spec = [  # name, shape, low, high, doc
            ("phase", (len(PHASES),), 0, 1, "one-hot: " + ", ".join(PHASES)),
            ("bang", (len(BANG_ACTIONS),), 0, 1, "one-hot: the `!` benefit being resolved: "
             + ", ".join(BANG_ACTIONS)),
            ("selected", (KI,), 0, cmax, "cards of the lay group being built (public)"),
            ("hand", (K,), 0, max(cmax, deck.kind_copies[-1]), "own hand, count per card kind"),
            ("deck_size", (1,), 0, total, "instrument deck size"),
            ("piles", (C, K), 0, max(cmax, deck.kind_copies[-1]), "discard pile per colour, count per kind"),
            ("open_row", (ROW, S), 0, 1, "open sambistas, one-hot per slot (all zero: empty slot)"),
            ("sambista_deck_size", (1,), 0, S, "sambistas in the sambista deck"),
            ("sambista_deck_top", (S,), 0, 1, "the sambista deck's top when it is known (a malandro swap "
             "put the old reserved one there, face up), one-hot; all zero: unknown"),
            ("round", (1,), 0, max_rounds, "rounds completed"),
            ("rounds_left", (1,), 0, max_rounds, "rounds left before the turn bound (max_rounds − round), "
             "this one included"),
            ("end_triggered", (1,), 0, 1, "the end is triggered: this round is the last"),
            ("position", (n,), 0, 1, "one-hot: the observer's place in the turn order (0 = seat 0, who "
             "starts every round; the round ends after place n−1)"),
            ("current", (n,), 0, 1, "the acting seat"),
            ("hand_size", (n,), 0, total, "cards in hand"),
            ("known", (n, K), 0, max(cmax, deck.kind_copies[-1]),
             "cards publicly known to be in that hand (taken from discard piles)"),
            ("space_instrument", (n, SPACES, NI), 0, 1, "instrument on each roda space, one-hot"),
            ("space_colour", (n, SPACES, C), 0, 1, "colour of each roda space, one-hot"),
            ("space_numbers", (n, SPACES, NUM), 0, cmax, "visible numbers on each space (count each)"),
            ("space_cards", (n, SPACES), 0, stack, "cards stacked on each space"),
            ("laid", (n, KI), 0, cmax, "cards laid in the roda, count per kind"),
            ("sambistas", (n, S), 0, 1, "sambistas called"),
            ("top_sambista", (n, S), 0, 1, "the sambista on top (its benefit applies)"),
            ("brought", (n, NI), 0, 1, "instrument the top sambista brings (counts for calls)"),
            ("reserved", (n, S), 0, 1, "reserved sambista beside the roda (face up)"),
            ("atravessados", (n,), 0, SPACES, "neighbouring pairs out of harmony"),
            ("fame", (n,), lo, hi, "fame if the game ended now"),
            ("cards_laid", (n,), 0, total, "cards laid down (tie-break)"),
        ]
        self.layout = ObsLayout(DTYPE)
        base = ObsLayout(DTYPE)
        for name, shape, low, high, doc in spec:
            self.layout.add(name, shape, low, high, doc)
            if name in OWN:
                base.add(OWN[name], (n,) + shape, low, high)
            else:
                base.add(name, shape, low, high)
        self.layout.freeze()
        self.base_layout = base.freeze()
        self.size = base.size
        o = {f.name: f.start for f in base.fields.values()}
        self.o_phase, self.o_bang, self.o_selected = o["phase"], o["bang"], o["selected"]
        self.o_hands, self.o_deck_size, self.o_piles = o["hands"], o["deck_size"], o["piles"]
        self.o_row, self.o_sdeck, self.o_round, self.o_end = o["open_row"], o["sambista_deck_size"], \
            o["round"], o["end_triggered"]
        self.o_rounds_left, self.o_positions = o["rounds_left"], o["positions"]
        self.max_rounds = max_rounds
        self.o_samb_top = o["sambista_deck_top"]
        self.o_current, self.o_hand_size, self.o_known = o["current"], o["hand_size"], o["known"]
        self.o_sp_inst, self.o_sp_col, self.o_sp_num = o["space_instrument"], o["space_colour"], \
            o["space_numbers"]
        self.o_sp_cards, self.o_laid, self.o_called = o["space_cards"], o["laid"], o["sambistas"]
        self.o_top, self.o_brought, self.o_reserved = o["top_sambista"], o["brought"], o["reserved"]
        self.o_atrav, self.o_fame, self.o_cards_laid = o["atravessados"], o["fame"], o["cards_laid"]
        self.num_index = {v: i for i, v in enumerate(deck.numbers)}
        self._inst_colour = np.array(deck.inst_colour, np.intp)
        self._kind_inst = np.array(deck.kind_inst, np.intp)
        self._numbered = np.array([k for k in range(KI) if deck.kind_number[k]], np.intp)
        self._kind_num = np.array([self.num_index.get(x, 0) for x in deck.kind_number], np.intp)
        # gather index per observer
        self.index = []
        for p in range(n):
            idx = np.empty(self.layout.size, np.intp)
            for f in self.layout.fields.values():
                bf = base.fields[OWN.get(f.name, f.name)]
                if f.name in OWN:
                    row = (bf.stop - bf.start) // n
                    idx[f.start:f.stop] = np.arange(bf.start + p * row, bf.start + (p + 1) * row)
                elif f.name in PER_PLAYER:
                    row = (bf.stop - bf.start) // n
                    for r in range(n):
                        a = (p + r) % n
                        idx[f.start + r * row:f.start + (r + 1) * row] = np.arange(bf.start + a * row,
                                                                                   bf.start + (a + 1) * row)
                else:
                    idx[f.start:f.stop] = np.arange(bf.start, bf.stop)
            self.index.append(idx)

    # ------------------------------------------------------------ base vector
    def constant(self) -> np.ndarray:
        """A zero base vector but for what never changes: seat p is place p in the turn order."""
        b = np.zeros(self.size, DTYPE)
        n = self.n
        b[self.o_positions:self.o_positions + n * n] = np.eye(n, dtype=DTYPE).ravel()
        return b

    def initial(self, s) -> np.ndarray:
        """The base vector of a freshly dealt state (empty rodas): the cheap path of ``rebuild``."""
        n, K, S = self.n, self.deck.num_kinds, len(self.deck.sambistas)
        b = self.constant()
        b[self.o_rounds_left] = self.max_rounds
        b[self.o_phase + s.phase] = 1
        for p, hand in enumerate(s.hands):
            for k, c in enumerate(hand):
                if c:
                    b[self.o_hands + p * K + k] = c
        b[self.o_deck_size] = len(s.deck)
        for c, pile in enumerate(s.piles):
            for k, x in enumerate(pile):
                if x:
                    b[self.o_piles + c * K + k] = x
        for i, sid in enumerate(s.row):
            if sid >= 0:
                b[self.o_row + i * S + sid] = 1
        b[self.o_sdeck] = len(s.samb_deck)
        b[self.o_current + s.player] = 1
        b[self.o_hand_size:self.o_hand_size + n] = s.hand_size
        return b

    def rebuild(self, s) -> np.ndarray:
        """The base vector of state ``s`` computed from scratch."""
        d, n = self.deck, self.n
        K, KI, C = d.num_kinds, d.num_inst_kinds, len(d.colours)
        NI, S, NUM = len(d.inst_names), len(d.sambistas), len(d.numbers)
        b = self.constant()
        b[self.o_phase + s.phase] = 1
        if s.bang >= 0:
            b[self.o_bang + s.bang] = 1
        for k in s.selected:
            b[self.o_selected + k] += 1
        b[self.o_hands:self.o_hands + n * K] = np.asarray(s.hands, DTYPE).ravel()
        b[self.o_deck_size] = len(s.deck)
        b[self.o_piles:self.o_piles + C * K] = np.asarray(s.piles, DTYPE).ravel()
        for i, sid in enumerate(s.row):
            if sid >= 0:
                b[self.o_row + i * S + sid] = 1
        b[self.o_sdeck] = len(s.samb_deck)
        if s.samb_top_known:
            b[self.o_samb_top + s.samb_deck[-1]] = 1
        b[self.o_round] = s.round
        b[self.o_rounds_left] = self.max_rounds - s.round
        b[self.o_end] = s.end_triggered
        if s.player >= 0:
            b[self.o_current + s.player] = 1
        b[self.o_hand_size:self.o_hand_size + n] = s.hand_size
        b[self.o_known:self.o_known + n * K] = np.asarray(s.known, DTYPE).ravel()
        sp_inst = np.asarray(s.space_inst)
        pp, ss = np.nonzero(sp_inst >= 0)
        ii = sp_inst[pp, ss]
        b[self.o_sp_inst + (pp * SPACES + ss) * NI + ii] = 1
        b[self.o_sp_col + (pp * SPACES + ss) * C + self._inst_colour[ii]] = 1
        b[self.o_sp_cards:self.o_sp_cards + n * SPACES] = np.asarray(s.space_count, DTYPE).ravel()
        laid = np.asarray(s.laid, DTYPE)
        b[self.o_laid:self.o_laid + n * KI] = laid.ravel()
        kk = self._numbered
        if len(kk):  # a numbered card shows its number on its instrument's space
            sp_of = np.asarray(s.inst_space)[:, self._kind_inst[kk]]  # (n, numbered kinds)
            pos = self.o_sp_num + (np.arange(n)[:, None] * SPACES + sp_of) * NUM + self._kind_num[kk][None, :]
            sel = laid[:, kk] > 0
            np.add.at(b, pos[sel], laid[:, kk][sel])
        for p in range(n):
            for sid in s.called[p]:
                b[self.o_called + p * S + sid] = 1
            if s.called[p]:
                top = s.called[p][-1]
                b[self.o_top + p * S + top] = 1
                if d.sambistas[top].brings >= 0:
                    b[self.o_brought + p * NI + d.sambistas[top].brings] = 1
            if s.reserved[p] >= 0:
                b[self.o_reserved + p * S + s.reserved[p]] = 1
        b[self.o_atrav:self.o_atrav + n] = s.atrav
        b[self.o_fame:self.o_fame + n] = s.fame
        b[self.o_cards_laid:self.o_cards_laid + n] = s.laid_total
        return b


def _hidden_pool(game, s, player: int) -> list[int]:
    """The cards ``player`` cannot place: the deck and the others' hand cards not known from piles."""
    pool = list(s.deck)
    for q in range(game.num_players):
        if q != player:
            for k in range(game.K):
                pool.extend([k] * (s.hands[q][k] - s.known[q][k]))
    return pool


def has_hidden(game, s, player: int) -> bool:
    """Whether a resample can change the state: two sambistas in the deck below a known top (or
    anywhere in it when the top is unknown), or two different unplaced cards and two places for
    them (each deck position is one place, each other hand with unknown cards one more)."""
    if len(s.samb_deck) - s.samb_top_known > 1:
        return True
    places = len(s.deck) + sum(s.hand_size[q] > sum(s.known[q]) for q in range(game.num_players) if q != player)
    return places > 1 and len(set(_hidden_pool(game, s, player))) > 1


def resample_hidden(game, s, player: int, rng: np.random.Generator):
    """Redeal the deck and others' unknown hand cards; reshuffle the sambista deck under its
    known top (a known top stays)."""
    t = s.copy()
    n = game.num_players
    # canonical (sorted): the draw depends only on what `player` knows, not on the true order
    pool = sorted(_hidden_pool(game, t, player))
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for q in range(n):
        if q != player:
            hand = list(t.known[q])
            for _ in range(t.hand_size[q] - sum(hand)):
                hand[pool.pop()] += 1
            t.hands[q] = hand
    t.deck = pool
    top = t.samb_deck[-1:] if t.samb_top_known else []
    samb = sorted(t.samb_deck[:len(t.samb_deck) - len(top)])  # canonical, as the pool
    t.samb_deck = [samb[i] for i in rng.permutation(len(samb))] + top
    t.obs = game.encoder.rebuild(t)
    return t
