"""Per-seat crediting for self-play PPO: the learner's decisions of a rollout, each credited
along its own seat's decision sequence, and GAE along those sequences.

A decision's reward is everything its seat receives from that decision until the same
seat's next decision in the same game, or until the game ends (the terminal reward
included); GAE then runs along each seat's own decision sequence. A decision still open when
the rollout ends waits for the next rollout instead of being cut (``SeatBook.carry``).
"""

from __future__ import annotations

import numba as nb
import numpy as np


class SeatBook:
    """The learner's decisions of one rollout, each credited along its own seat's sequence.

    ``pending[env, seat]`` is that seat's open decision (an index here) or -1. A decision
    closes when the same seat decides again in that game (``next`` is that decision, whose
    value bootstraps it) or when the game ends (``terminal``); rewards of every step in
    between go to it. Open decisions carry over to the next rollout's book (``carry``)."""

    def __init__(self, capacity: int, input_size: int, num_actions: int) -> None:
        self.x = np.zeros((capacity, input_size), np.float32)     # what the nets read (inputs())
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.logp = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.potential = np.zeros(capacity, np.float32)      # shaping's phi at the decision (0: off)
        self.hint = np.full(capacity, -1, np.int64)           # the heuristic's move there (the prior; -1: off)
        self.next = np.full(capacity, -1, np.int64)
        self.terminal = np.zeros(capacity, bool)
        self.closed = np.zeros(capacity, bool)
        self.n = 0

    def inputs_of_next(self, k: int) -> np.ndarray:
        """The rows of ``x`` the next ``decide`` of ``k`` decisions fills: a rollout writes the
        learner's inputs there at once (``inputs(out=...)``) and decides with ``x=None``."""
        if self.n + k > len(self.x):
            raise ValueError(f"the book holds {len(self.x)} decisions: {self.n} + {k} do not fit")
        return self.x[self.n:self.n + k]

    def decide(self, pending, envs, seats, x, mask, action, logp, value, potential=None, hint=None) -> None:
        """Record decisions of ``seats`` in ``envs``; each closes its seat's open one there
        (``x`` None: already written in ``inputs_of_next``)."""
        idx = np.arange(self.n, self.n + len(envs))
        self.n += len(envs)
        if x is not None:
            self.x[idx] = x
        self.mask[idx], self.action[idx] = mask, action
        self.logp[idx], self.value[idx] = logp, value
        self.potential[idx] = 0.0 if potential is None else potential
        self.hint[idx] = -1 if hint is None else hint
        prev = pending[envs, seats]
        had = prev >= 0
        self.next[prev[had]] = idx[had]
        self.closed[prev[had]] = True
        pending[envs, seats] = idx

    def credit(self, pending, rewards, done) -> None:
        """One env step's rewards to every seat's open decision; a finished game closes them."""
        open_ = pending >= 0
        self.reward[pending[open_]] += rewards[open_]        # (env, seat) -> distinct decisions
        ended = pending[open_ & done[:, None]]
        self.terminal[ended] = self.closed[ended] = True
        pending[done] = -1

    def carry(self, pending, capacity: int) -> SeatBook:
        """A new book holding this one's open decisions (pending re-pointed to them). They keep
        the log-probabilities they were taken with, so PPO's ratio weighs them for the policy
        that has been updated since."""
        nxt = SeatBook(capacity, self.x.shape[1], self.mask.shape[1])
        keep = pending[pending >= 0]
        k = len(keep)
        for name in ("x", "mask", "action", "logp", "value", "reward", "potential", "hint"):
            getattr(nxt, name)[:k] = getattr(self, name)[keep]
        pending[pending >= 0] = np.arange(k)
        nxt.n = k
        return nxt

    def advantages(self, gamma: float, lam: float) -> np.ndarray:
        """GAE along each seat's own sequence, for the closed decisions (NaN for open ones),
        over the rewards plus shaping's gamma * phi(next) - phi (-phi at a game's end)."""
        n = self.n
        reward = self.reward[:n] - self.potential[:n]
        follows = self.closed[:n] & ~self.terminal[:n]
        reward[follows] += gamma * self.potential[self.next[:n][follows]]
        return gae(reward, self.value[:n], self.next[:n], self.terminal[:n], self.closed[:n], gamma, lam)


@nb.njit(cache=True)
def gae(reward, value, nxt, terminal, closed, gamma, lam):
    """Backwards over the book: a decision's successor always comes later in it. A successor
    that is still open bootstraps with its value but adds no advantage of its own (the
    truncation every PPO rollout makes at its end)."""
    adv = np.full(len(reward), np.nan, np.float32)
    for i in range(len(reward) - 1, -1, -1):
        if not closed[i]:
            continue
        if terminal[i]:
            adv[i] = reward[i] - value[i]
        else:
            j = nxt[i]
            adv[i] = reward[i] + gamma * value[j] - value[i]
            if closed[j]:
                adv[i] += gamma * lam * adv[j]
    return adv
