"""The net-guided search (``ismcts:N:p``): ISMCTS with a trained policy's net as prior and value.

AlphaZero's PUCT over single-observer ISMCTS (the tree of ``core/search.py``: one shared tree
of action histories over determinizations, availability counts), on the game's compiled engine:

- each simulation draws a determinization with the compiled ``resample_hidden`` and walks the
  tree, choosing among the actions legal in it the one of highest
  ``Q(a) + c * P(a) * sqrt(avail(a)) / (1 + N(a))``: ``Q`` the mean return of the acting seat
  (0 before a visit), ``N`` the visits, ``avail`` how often the action was legal when the node
  was reached (ISMCTS's parent count), ``P`` the net's policy at the node, a softmax of its
  logits over the actions legal in this determinization;
- a new leaf (its first visit) backs up an estimate, on that simulation's determinization: the
  value net from every seat's own observation, or with ``mix`` > 0 a random rollout from it whose
  returns are mixed in (AlphaGo's leaf evaluation: a new net's values say little; ``mix`` = 1:
  the rollout alone, no value pass); a finished game backs up its returns; with
  ``horizon="segment"`` the rollout stops at the end of the game's segment (Scala 40: the hand
  being played; its ``segment``) and backs up the game's ``estimate`` there (Scala 40's, from
  the penalty totals): a match of many hands is valued a hand ahead, not by its last card;
- a node gets its prior at its ``prior_visits``-th visit (default 2: the first walk through it;
  the root at its first; before it, a uniform prior): the policy net's logits from the acting
  seat's observation divided by ``temperature`` (above 1: flatter; a zoo card's ``search``
  sets it where measured), kept for the node (a node with one legal move in this
  determinization takes it and asks nothing). Most nodes of a tree are leaves reached
  once, whose prior would never be read: asking the net only when a node is walked through
  spends one policy pass per inner node, not one per simulation.

The net is the policy file's own (``agents/policy.py``: SB3's MLP, raw or symlog inputs), read
here as flat float32 arrays (``net_arrays``) and run by ``mlp`` in the kernel; a policy with the
heuristic prior (its card's ``prior``) reads the compiled heuristic's move at every node it is
asked at (``_hint``). The search's root visits are the policy target of expert iteration.
"""

from __future__ import annotations

import functools
import math
from types import ModuleType

import numba as nb
import numpy as np

from baralho.core import batch
from baralho.core.jit import jit, linked
from baralho.core.search import Searcher, _heuristic_rollout, _random_rollout, backup, clear_node, segment_of


def net_arrays(policy, obs_dtype) -> tuple:
    """An SB3 ``MaskableActorCriticPolicy`` (``agents.policy.load_policy``'s) as the kernel's net:
    (input table, column scales, policy weights, biases, widths, value weights, biases, widths,
    relu); the widths run input, hidden..., output, and each layer's weights, transposed to
    (in, out), follow the last's, flat. A policy with the heuristic prior reads the hint's one-hot
    after the observation (its table and scales cover those columns; its ``prior_weight`` is
    NetSearcher's to read)."""
    from baralho.training.batch_policy import input_table

    lut, scale = input_table(policy, obs_dtype)
    state = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in policy.state_dict().items()}

    def layers(extractor: str, head: str):
        names = sorted((int(k.split(".")[2]), k[:-len(".weight")]) for k in state
                       if k.startswith(f"mlp_extractor.{extractor}.") and k.endswith(".weight"))
        names = [n for _, n in names] + [head]
        weights = [state[f"{n}.weight"] for n in names]
        widths = [weights[0].shape[1]] + [w.shape[0] for w in weights]
        return (np.concatenate([w.T.reshape(-1) for w in weights]),      # (in, out) each: mlp's order
                np.concatenate([state[f"{n}.bias"] for n in names]), np.array(widths, np.int64))

    relu = policy.activation_fn.__name__ == "ReLU"          # else torch.nn.Tanh (agents.policy.ACTIVATIONS)
    return (np.ascontiguousarray(lut, np.float32), np.ascontiguousarray(scale, np.float32),
            *layers("policy_net", "action_net"), *layers("value_net", "value_net"), np.bool_(relu))


#: a node's state in ``evaluated``: not reached yet, or its prior (the policy net's logits) known;
#: between them, how often it was reached (once: a leaf, its estimate backed up)
UNSEEN, PRIOR = 0, -1


@jit(entry=True)
def mlp(x, weights, biases, widths, relu, h, out) -> None:
    """``out`` = the MLP's output on ``x`` (Linear layers with tanh or relu between them, none after
    the last); ``h`` two rows of scratch as wide as the widest hidden layer. Each layer's weights
    are stored transposed, (in, out): the sum runs input by input over contiguous rows (a loop
    numba vectorizes) and skips the zero inputs (most of an observation: flags and one-hots)."""
    src_row, w0, b0 = -1, 0, 0
    layers = len(widths) - 1
    for layer in range(layers):
        m, n = widths[layer], widths[layer + 1]
        dst = out if layer == layers - 1 else h[(src_row + 1) % 2]
        for i in range(n):
            dst[i] = biases[b0 + i]
        for j in range(m):
            xj = x[j] if src_row < 0 else h[src_row, j]
            if xj != 0:
                w = weights[w0 + j * n:w0 + (j + 1) * n]   # a slice: indexing weights[row + i] (numba's
                for i in range(n):                           # wraparound check) kept this loop scalar, 3x
                    dst[i] += w[i] * xj                      # slower
        if layer < layers - 1:
            for i in range(n):
                # tanh as 1 - 2 / (exp(2x) + 1): exp is the cheaper call (tanh was a third of a
                # pass once the sums were vectorized), the same value to 3e-7
                dst[i] = max(dst[i], np.float32(0.0)) if relu else (
                    np.float32(1.0) - np.float32(2.0) / (math.exp(np.float32(2.0) * dst[i]) + np.float32(1.0)))
            src_row = (src_row + 1) % 2
        w0, b0 = w0 + m * n, b0 + n


@jit
def inputs(obs, lut, scale, x) -> None:
    """The net's inputs from an observation (``batch_policy.fill_inputs`` without a hint)."""
    zero = len(lut) // 2
    for j in range(obs.size):
        x[j] = lut[np.int64(obs[j]) + zero] * scale[j]


@nb.njit
def _forward(obs, net, h, logits, value) -> None:
    lut, scale, pi_w, pi_b, pi_widths, vf_w, vf_b, vf_widths, relu = net
    x = np.zeros(obs.size, np.float32)
    inputs(obs, lut, scale, x)
    mlp(x, pi_w, pi_b, pi_widths, relu, h, logits)
    mlp(x, vf_w, vf_b, vf_widths, relu, h, value)


def forward(net: tuple, obs: np.ndarray) -> tuple[np.ndarray, float]:
    """(logits, value) of one observation by the kernel's arithmetic (what tests compare with torch)."""
    widths = np.concatenate([net[4][1:], net[7][1:]])
    h = np.zeros((2, int(widths.max())), np.float32)
    logits, value = np.zeros(int(net[4][-1]), np.float32), np.zeros(1, np.float32)
    _forward(obs, net, h, logits, value)
    return logits, float(value[0])


def _hint(fast: ModuleType, heuristic: ModuleType | None):
    """The heuristic's move for the acting seat of ``s`` (the hint a net with the heuristic prior
    reads), planned afresh from this position (a plan kept from another node of the tree would be
    another position's); -1 without a heuristic."""
    if heuristic is None:
        def no_hint(s, d, actor, mask, slot, heur, obs_at):
            return -1
        return linked(no_hint)
    observe, act_batch = fast.observe, heuristic.act_batch
    forget = getattr(heuristic, "forget_one", None) or _no_plan

    def hint(s, d, actor, mask, slot, heur, obs_at):
        hmemory, hrows, hobs, hmasks, hout, htables = heur
        forget(hmemory, slot)
        hmasks[slot, :] = mask
        observe(s, d, obs_at, actor, hobs[slot])
        act_batch(hmemory, hrows[slot:slot + 1], hobs, hmasks, hout[slot:slot + 1], *htables)
        return hout[slot]
    return linked(hint)


@jit
def _no_plan(memory, row) -> None:
    """A heuristic without a plan forgets nothing."""


def net_search_kernel(fast: ModuleType, parallel: bool, heuristic: ModuleType | None = None):
    """The net-guided search over ``fast``'s primitives (``net_search_kernels`` compiles it); with
    ``heuristic`` (the game's ``fast_heuristic``), its rollouts and the hints of a net with the prior
    can be the heuristic's."""
    legal_mask, current_player, returns, resample, apply, observe = (
        fast.legal_mask, fast.current_player, fast.returns, fast.resample_hidden, fast.apply, fast.observe)
    random_rollout = _random_rollout(fast)
    heuristic_rollout = random_rollout if heuristic is None else _heuristic_rollout(fast, heuristic)
    hint_of = _hint(fast, heuristic)
    segment, estimate = segment_of(fast), getattr(fast, "estimate", returns)

    def run(root_bytes, tables, seats, sims, c, gens, resume, scratch, scratch_bytes, child, visits, value,
            avail, logits, evaluated, nodes, masks, paths, rets, obs, x, h, out, out_visits, out_value, obs_at,
            net, mix, max_rollout, fresh, estimates, heur, by_heuristic, horizon, prior, first, last, slot) -> None:
        d = tables[0]
        hmemory, hrows, hobs, hmasks, hout, htables = heur
        prior_weight, prior_visits, temperature = prior
        A = masks.shape[1]
        lut, scale, pi_w, pi_b, pi_widths, vf_w, vf_b, vf_widths, relu = net
        width, zero = obs.shape[1], len(lut) // 2
        s = scratch[slot]
        mask, ret, path, o, xs, hs, outs = masks[slot], rets[slot], paths[slot], obs[slot], x[slot], h[slot], out[slot]
        legal, v = fresh[slot], estimates[slot]
        t_child, t_visits, t_value, t_avail, t_logits, t_eval = (
            child[slot], visits[slot], value[slot], avail[slot], logits[slot], evaluated[slot])
        for r in range(first, last):
            g = gens[r]
            seat = seats[r]
            if not resume:
                nodes[slot] = 0
            if nodes[slot] == 0:                              # the root, not yet evaluated
                clear_node(t_child, t_visits, t_value, t_avail, 0)
                t_eval[0] = UNSEEN
                nodes[slot] = 1
            for _ in range(sims[r]):
                scratch_bytes[slot, :] = root_bytes[r, :]     # the root's record, copied
                resample(s, d, seat, g)                       # a determinization
                node, depth = 0, 0
                while True:
                    actor = current_player(s, d)
                    if actor < 0:                             # the game is over: its returns
                        for p in range(ret.size):
                            ret[p] = 0.0
                        returns(s, d, ret)
                        break
                    legal_mask(s, d, mask)
                    if t_eval[node] == UNSEEN and depth > 0:  # a new leaf: its estimate, no prior yet
                        t_eval[node] = 1
                        if mix < 1:                           # the value net, from every seat's observation
                            for p in range(ret.size):
                                observe(s, d, obs_at, p, o)
                                inputs(o, lut, scale, xs)
                                mlp(xs, vf_w, vf_b, vf_widths, relu, hs, outs)
                                ret[p] = outs[0]
                        if mix > 0:                           # beside (or in place of) a random rollout's returns
                            for p in range(ret.size):
                                v[p] = ret[p] if mix < 1 else 0.0
                                ret[p] = 0.0
                            until = segment(s, d) if horizon else -1     # to the segment's end, or the game's
                            if by_heuristic:
                                heuristic_rollout(s, d, g, max_rollout, mask, legal, slot, hmemory, hrows, hobs,
                                                  hmasks, hout, obs_at, htables, until)
                            else:
                                random_rollout(s, d, g, max_rollout, mask, legal, slot, hmemory, hrows, hobs,
                                               hmasks, hout, obs_at, htables, until)
                            if horizon:
                                estimate(s, d, ret)
                            else:
                                returns(s, d, ret)
                            for p in range(ret.size):
                                ret[p] = (1.0 - mix) * v[p] + mix * ret[p]
                        break
                    count, best = 0, -1
                    for a in range(A):
                        if mask[a]:
                            t_avail[node, a] += 1
                            count += 1
                            best = a
                    if count > 1 and t_eval[node] != PRIOR:
                        if depth > 0 and t_eval[node] + 1 < prior_visits:
                            t_eval[node] += 1                 # walked through, not yet at its prior's visit
                        else:                                 # the root, or a node's prior_visits-th visit
                            hint = hint_of(s, d, actor, mask, slot, heur, obs_at) if prior_weight != 0 else -1
                            observe(s, d, obs_at, actor, o)   # (a forced move needs none)
                            inputs(o, lut, scale, xs)
                            if prior_weight != 0:             # the hint, one-hot after the observation
                                for b in range(A):
                                    xs[width + b] = 0.0
                                xs[width + hint] = lut[zero + 1] * scale[width + hint]
                            mlp(xs, pi_w, pi_b, pi_widths, relu, hs, outs)
                            for b in range(A):
                                t_logits[node, b] = outs[b]
                            if prior_weight != 0:
                                t_logits[node, hint] += prior_weight
                            for b in range(A):                # its temperature
                                t_logits[node, b] /= temperature
                            t_eval[node] = PRIOR
                    if count > 1:
                        known = t_eval[node] == PRIOR
                        top, total = 0.0, float(count)        # the prior: uniform until it is known,
                        if known:                             # then a softmax over the legal actions
                            top, total = -math.inf, 0.0
                            for a in range(A):
                                if mask[a]:
                                    top = max(top, t_logits[node, a])
                            for a in range(A):
                                if mask[a]:
                                    total += math.exp(t_logits[node, a] - top)
                        best, best_score = -1, -math.inf      # PUCT
                        for a in range(A):
                            if mask[a]:
                                n = t_visits[node, a]
                                q = t_value[node, a] / n if n else 0.0
                                p = math.exp(t_logits[node, a] - top) / total if known else 1.0 / total
                                score = q + c * p * math.sqrt(t_avail[node, a]) / (1 + n)
                                if score > best_score:
                                    best, best_score = a, score
                    path[depth, 0], path[depth, 1], path[depth, 2] = node, best, actor
                    depth += 1
                    apply(s, d, best)
                    nxt = t_child[node, best]
                    if nxt < 0:                               # a new child, evaluated at the next step
                        nxt = nodes[slot]
                        nodes[slot] = nxt + 1
                        clear_node(t_child, t_visits, t_value, t_avail, nxt)
                        t_eval[nxt] = UNSEEN
                        t_child[node, best] = nxt
                    node = nxt
                backup(path, depth, t_visits, t_value, ret)
            for a in range(A):
                out_visits[r, a] = t_visits[0, a]
                out_value[r, a] = t_value[0, a]

    run = linked(run)

    if parallel:
        def net_search_batch_threads(root_bytes, tables, seats, sims, c, gens, resume, scratch, scratch_bytes, child,
                                     visits, value, avail, logits, evaluated, nodes, masks, paths, rets, obs, x, h,
                                     out, out_visits, out_value, obs_at, net, mix, max_rollout, fresh, estimates, heur,
                                     by_heuristic, horizon, prior):
            count, slots = len(seats), len(nodes)
            per = (count + slots - 1) // slots
            # numba's threads (parfor) take a tuple's items as arguments, but not a tuple within a
            # tuple (numba#9098): the heuristic's tables cross on their own
            hmemory, hrows, hobs, hmasks, hout, htables = heur
            for slot in nb.prange(slots):
                run(root_bytes, tables, seats, sims, c, gens, resume, scratch, scratch_bytes, child, visits, value,
                    avail, logits, evaluated, nodes, masks, paths, rets, obs, x, h, out, out_visits, out_value,
                    obs_at, net, mix, max_rollout, fresh, estimates, (hmemory, hrows, hobs, hmasks, hout, htables),
                    by_heuristic, horizon, prior,
                    min(slot * per, count),
                    min((slot + 1) * per, count), slot)
        return net_search_batch_threads

    def net_search_batch(root_bytes, tables, seats, sims, c, gens, resume, scratch, scratch_bytes, child, visits,
                         value, avail, logits, evaluated, nodes, masks, paths, rets, obs, x, h, out, out_visits,
                         out_value, obs_at, net, mix, max_rollout, fresh, estimates, heur, by_heuristic,
                         horizon, prior):
        run(root_bytes, tables, seats, sims, c, gens, resume, scratch, scratch_bytes, child, visits, value, avail,
            logits, evaluated, nodes, masks, paths, rets, obs, x, h, out, out_visits, out_value, obs_at, net,
            mix, max_rollout, fresh, estimates, heur, by_heuristic, horizon, prior, 0, len(seats), 0)
    return net_search_batch


def check_prior(prior_visits: int, temperature: float) -> None:
    """The prior's visit (a node's count is an int8 in the tree) and temperature, or a ValueError."""
    if isinstance(prior_visits, bool) or not isinstance(prior_visits, (int, np.integer)) \
            or not 2 <= prior_visits <= 127:
        raise ValueError(f"prior_visits={prior_visits!r} must be an integer in [2, 127]")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not (math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature={temperature!r} must be a finite number above 0")


#: how far a leaf's rollout runs: to the game's end, or to the end of the game's segment (its
#: ``segment``, valued by its ``estimate``: Scala 40's hand, its penalty totals); a card's are
#: agents/policy.py's HORIZONS, the same two
HORIZONS = ("game", "segment")


def check_horizon(horizon: str, game=None) -> None:
    """A horizon of HORIZONS (and, given ``game``, one it can stop at), or a ValueError."""
    if horizon not in HORIZONS:
        raise ValueError(f"horizon={horizon!r} must be one of {HORIZONS}")
    rules = getattr(game, "reference", game)          # a compiled game's reference: the rules that define it
    if game is not None and horizon == "segment" and not callable(getattr(rules, "segment", None)):
        raise ValueError(f"{game.env_id} is played in one piece (its rules define no segment): horizon='game'")


@functools.cache
def net_search_kernels(fast: ModuleType, parallel: bool, heuristic: ModuleType | None = None) -> batch.Kernel:
    k = batch.kernels(fast)
    seconds = getattr(fast, "COMPILE_SECONDS", {}).get("search", 10) * (1 if heuristic is None else 2)
    options = {"parallel": True} if parallel else {}
    return batch.Kernel(lambda: k.kernel(net_search_kernel(fast, parallel, heuristic), **options),
                        f"the {k.title} net-guided search" + (" with its heuristic" if heuristic else "")
                        + (" for threads" if parallel else ""), seconds)


class NetSearcher(Searcher):
    """The net-guided search of one compiled game with one policy (``agents.policy.load_policy``'s):
    ``search`` (B roots) and ``search_one`` as :class:`~baralho.core.search.Searcher`'s, the
    exploration constant ``c`` of PUCT in place of UCB's."""

    def __init__(self, game, policy=None, threads: int = 1, nodes: int = 1024, mix: float = 0.0,
                 max_rollout: int = 10_000, net: tuple | None = None, rollout: str = "random",
                 heuristic_seed: int | None = None, prior_weight: float | None = None, prior_visits: int = 2,
                 temperature: float = 1.0, horizon: str = "game") -> None:
        """``mix`` > 0: a new leaf's estimate is ``(1 - mix) * the value net's + mix * the returns of a
        rollout`` from it: random moves drawn from the search's generator, as the plain search's, or
        with ``rollout="heuristic"`` the game's compiled heuristic's (as ``Searcher``'s). A policy
        with the heuristic prior reads the heuristic's move at every node it is asked at (its
        card's ``prior``); its value net read that hint too, so it takes ``mix`` = 1. ``net``:
        ``net_arrays``' output in place of ``policy`` (a process without torch: a Ray worker),
        with ``prior_weight`` if that net reads the hint. A node other than the root asks the policy
        net at its ``prior_visits``-th visit (2: the first walk through it; before it, the prior is
        uniform), and its logits are divided by ``temperature`` (above 1: a flatter prior).
        ``horizon="segment"``: a leaf's rollout stops where the game's segment ends (Scala 40: the
        hand being played), valued by the game's ``estimate`` (HORIZONS)."""
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix={mix!r} must be in [0, 1]")
        check_prior(prior_visits, temperature)
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"rollout={rollout!r} must be 'random' or 'heuristic'")
        self.mix, self.max_rollout = float(mix), max_rollout
        check_horizon(horizon, game)
        self.horizon = np.bool_(horizon == "segment")
        if not hasattr(game.fast, "resample_hidden"):
            raise NotImplementedError(f"{game.env_id}: no compiled resample_hidden yet")
        self.rollout = "net"
        self.net = net if net is not None else net_arrays(policy, game.obs_layout.dtype)
        if prior_weight is None:
            from baralho.agents.policy import prior_weight_of

            prior_weight = prior_weight_of(policy)
        size, A = game.obs_layout.size, game.num_actions
        pi_widths, vf_widths = self.net[4], self.net[7]
        hinted = prior_weight != 0
        if pi_widths[0] != size + (A if hinted else 0) or vf_widths[0] != pi_widths[0]:   # the widths' first: the input
            raise ValueError(f"{game.env_id}: the policy reads {pi_widths[0]} inputs, the observation has {size}"
                             + (f" and the hint {A}" if hinted else ""))
        if pi_widths[-1] != A or vf_widths[-1] != 1:
            raise ValueError(f"{game.env_id}: the policy has {pi_widths[-1]} actions, the game {A}")
        if hinted and self.mix != 1:
            raise ValueError(f"{game.env_id}: this policy reads the heuristic's move (its prior), at its own turns "
                             f"only: its values are not an estimate of every seat's; use mix=1 (rollouts)")
        self.prior_weight = np.float32(prior_weight)
        self.prior_visits, self.temperature = np.int64(prior_visits), np.float64(temperature)
        self.by_heuristic = rollout == "heuristic"
        heuristic = (self._heuristic(game, threads, heuristic_seed) if (hinted or self.by_heuristic)
                     else self._no_heuristic(threads))
        self._slots(game, threads, net_search_kernels(game.fast, threads > 1, heuristic))
        self._estimates = np.zeros((threads, self.P), np.float64)
        self._obs = np.zeros((threads, size), game.obs_layout.dtype)
        self._x = np.zeros((threads, pi_widths[0]), np.float32)
        wide = int(max(pi_widths[1:].max(), vf_widths[1:].max()))
        self._h = np.zeros((threads, 2, wide), np.float32)
        self._out = np.zeros((threads, wide), np.float32)
        self._key = (self._kernel, game._blank.dtype, self._tables.dtype, bool(self.net[-1]), self._hmemory.dtype,
                     tuple((getattr(t, "dtype", type(t)), np.ndim(t)) for t in self._htables))
        self._grow(nodes)

    def _grow(self, capacity: int) -> None:
        old = getattr(self, "_logits", None)
        super()._grow(capacity)
        logits = np.zeros((self.threads, capacity, self.A), np.float32)
        evaluated = np.zeros((self.threads, capacity), np.int8)
        if old is not None:
            n = old.shape[1]
            logits[:, :n], evaluated[:, :n] = old, self._evaluated
        self._logits, self._evaluated = logits, evaluated

    def _args(self, root_bytes, seats, sims, exploration, gens, resume, out_visits, out_value) -> tuple:
        return (root_bytes, self._tables, seats, sims, exploration, gens, resume, self._scratch, self._scratch_bytes,
                self._child, self._visits, self._value, self._avail, self._logits, self._evaluated, self.nodes,
                self._masks, self._paths, self._rets, self._obs, self._x, self._h, self._out, out_visits, out_value,
                self._obs_at, self.net, self.mix, self.max_rollout, self._fresh, self._estimates,
                (self._hmemory, self._hrows, self._hobs, self._masks, self._hout, self._htables), self.by_heuristic,
                self.horizon, (self.prior_weight, self.prior_visits, self.temperature))
