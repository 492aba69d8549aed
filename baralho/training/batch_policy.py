"""The self-play trainer's network over a batch: an SB3 policy module, driven by hand.

What the nets read for a batch of observations (``inputs``, by table lookup), one forward
pass, masking, and the moves drawn from it (``act_on``, ``moves_on``, ``sample``): the
rollout's learner decisions and the league snapshots' moves (training/selfplay.py).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from baralho.agents.policy import actor_logits, features_of, hint_onehot, logits_of


def inputs(policy, obs: np.ndarray, hint: np.ndarray | None = None, out: np.ndarray | None = None):
    """What the nets read, for a batch of observations (and, for a policy with the heuristic
    prior, the heuristic's move in each row): ``features_of``'s (features, hint one-hot or
    None), tensors, no gradient. A rollout step computes them once per decision, the league
    snapshots' too (same inputs and prior: the run's), and the book keeps the learner's for the update
    (symlog over Scala 40's 3,129 inputs, recomputed there, was a quarter of a run's time).

    The observations are int8 or int16, so the features extractor's value of each is a table
    lookup times its column's scale: ``fill_inputs`` gives features_of's numbers bit for bit
    (tests/training/test_selfplay.py) in a sixth of torch's time (1.7 ms against 10.3 for 512
    of Scala 40's observations, measured: 13% of a run's samples under py-spy). ``out``: the
    float32 rows to write them in (the book's, for the learner's decisions: no copy after)."""
    import torch

    if obs.dtype not in (np.int8, np.int16):
        with torch.no_grad():
            return features_of(policy, torch.as_tensor(obs, dtype=torch.float32), hint)
    lut, scale = input_table(policy, obs.dtype)
    onehot = hint_onehot(policy, hint)
    if obs.ndim != 2 or obs.shape[1] + (0 if onehot is None else onehot.shape[1]) != len(scale):
        raise ValueError(f"inputs: observations of shape {obs.shape} for a policy reading {len(scale)} inputs")
    x = np.empty((len(obs), len(scale)), np.float32) if out is None else out
    if x.shape != (len(obs), len(scale)) or x.dtype != np.float32 or not x.flags.c_contiguous:
        raise ValueError(f"inputs: out must be C-contiguous float32 {(len(obs), len(scale))}, not {x.dtype} {x.shape}")
    # a policy without the prior reads no hint (a rollout passes -1s or the heuristic's moves)
    hints = np.full(len(obs), -1, np.int64) if onehot is None else np.asarray(hint, np.int64)
    fill_inputs(obs, hints, lut, scale, x)
    return torch.from_numpy(x), onehot


def input_table(policy, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(the features extractor's value of every integer of ``dtype`` before its column's scale,
    indexed by value - the dtype's min; every column's scale, the hint's one-hot columns
    included), kept on the policy: symlog's sign(x) log1p(|x|) computed by torch itself, or x
    for raw inputs."""
    import torch

    tables = policy.__dict__.setdefault("_baralho_input_tables", {})
    key = np.dtype(dtype).name
    if key not in tables:
        info = np.iinfo(dtype)
        values = torch.arange(info.min, info.max + 1, dtype=torch.float32)
        columns = policy.features_extractor.features_dim
        if getattr(policy, "baralho_inputs", "raw") == "symlog":
            lut, scale = torch.sign(values) * torch.log1p(values.abs()), policy.features_extractor.scale
        else:
            lut, scale = values, torch.ones(columns)
        tables[key] = (lut.numpy().copy(), scale.numpy().astype(np.float32).copy())
    return tables[key]


@nb.njit(cache=True)
def fill_inputs(obs, hint, lut, scale, out):
    """out = the nets' inputs: each observation's values looked up and scaled, then the hint's
    one-hot (1 at the hint's column, none for -1), looked up and scaled the same way. ``lut``
    covers obs's dtype, so the value v sits at v + zero."""
    width, zero = obs.shape[1], len(lut) // 2
    for i in range(obs.shape[0]):
        for j in range(width):
            out[i, j] = lut[np.int64(obs[i, j]) + zero] * scale[j]
        for j in range(width, out.shape[1]):
            out[i, j] = lut[zero] * scale[j]
        if hint[i] >= 0:
            out[i, width + hint[i]] = lut[zero + 1] * scale[width + hint[i]]


def forward(policy, x, onehot, mask: np.ndarray):
    """(masked logits, values) from ``inputs``' output and int8/bool masks."""
    logits, latent_vf = logits_of(policy, x, onehot)
    return masked(logits, mask), policy.value_net(latent_vf).squeeze(-1)


def masked(logits, mask: np.ndarray):
    """The logits with every illegal action's at -1e8 (an int8/bool mask)."""
    import torch

    return logits.masked_fill(~torch.as_tensor(np.asarray(mask, bool)), -1e8)


def rows_of(x, onehot, rows: np.ndarray):
    """``inputs``' output for these rows."""
    import torch

    rows = torch.as_tensor(rows)
    return x[rows], None if onehot is None else onehot[rows]


def act(policy, obs, mask, deterministic: bool = False, hint=None):
    """Actions, their log-probabilities and the values of a batch of observations."""
    return act_on(policy, *inputs(policy, obs, hint), mask, deterministic)


def act_on(policy, x, onehot, mask, deterministic: bool = False):
    """act, from ``inputs``' output: one forward pass, no gradient."""
    import torch

    if len(x) == 0:                 # every env waits on an opponent this step
        return np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.float32)
    with torch.no_grad():
        logits, values = forward(policy, x, onehot, mask)
        logits = logits.log_softmax(-1)     # logits - logsumexp: 8x faster than logsumexp on CPU (measured)
        actions = logits.argmax(-1) if deterministic else sample(logits.exp())
        logp = logits.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        return actions.numpy(), logp.numpy(), values.numpy()


def moves_on(policy, x, onehot, mask, deterministic: bool = False) -> np.ndarray:
    """act_on's actions alone, through the policy net only: a league snapshot's moves and an
    evaluation's need no value (the value net was half of their forward passes)."""
    import torch

    if len(x) == 0:
        return np.zeros(0, np.int64)
    with torch.no_grad():
        logits = masked(actor_logits(policy, x, onehot), mask)
        return (logits.argmax(-1) if deterministic else sample(logits.softmax(-1))).numpy()


def sample(probs):
    """One draw per row of a batch of categorical distributions, by inverse CDF: the first
    action whose cumulative probability exceeds u * total (u uniform in [0, 1)), so an action of
    probability 0 (masked out) is never drawn. ``torch.multinomial`` draws the same distribution
    25x slower on this CPU (4.6 ms against 0.2 for 1024 rows of 124 actions, measured): it was
    the largest single cost of a rollout step."""
    import torch

    cdf = probs.cumsum(-1)
    u = torch.rand(len(probs), 1) * cdf[:, -1:]
    actions = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    over = actions >= probs.shape[1]           # u * total rounded up to the total: the last possible action
    if over.any():
        last = probs.shape[1] - 1 - (probs[over].flip(-1) > 0).int().argmax(-1)
        actions[over] = last
    return actions
