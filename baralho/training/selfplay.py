"""Batched self-play PPO over ``baralho.vector``, top to bottom (CleanRL style).

    baralho train rodizio_v1                                  # --algo selfplay is the default
    baralho train scala40_v1 --seed 0 --out runs/scala40
    baralho train scala40_v1 --out runs/scala40 --resume      # continue that run
    tensorboard --logdir runs/scala40/tb

1. **Envs.** ``num_envs`` games in one ``baralho.vector`` batch: the compiled engine where
   the game has one (``baralho.envs.compiled_ids()``), else the reference engine's Python loop.
2. **One network for every seat.** An sb3-contrib ``MaskableActorCriticPolicy`` (so the
   run's policies are the project's weights-only files, ``ppo:PATH`` in tournaments and
   evaluate), stepped here by hand: each env step, the learner's decisions of every env go
   through one forward pass; PPO updates it with its own Adam.
3. **Opponents.** Each new game of each env draws a role: *self-play* (every seat is the
   learner, every decision trains), a frozen *league* snapshot (one learner seat at random,
   the snapshot plays the others: one batched forward pass per snapshot per step), or the
   *heuristic* (one learner seat, the game's heuristic plays the others). The heuristic is
   ``baralho.vector.heuristic.BatchHeuristic``: one call for every env that asks, compiled
   where the game has a ``fast_heuristic.py`` (a few µs a decision), else a Python call per
   env (70-130 µs, far above a compiled engine step); what it cost in a run is in
   ``summary.json`` (``seconds_this_invocation``: env, net, heuristic, update, eval). The
   shares are per-game defaults (table below).
   With ``prior="heuristic"`` (``--prior heuristic``) the heuristic is asked for its move at
   every decision of every env (the hint), and the policy's logits get a learned bonus,
   ``prior_weight`` (from 4), on the hint (``agents.policy.hinted_logits``): a new policy plays
   the heuristic's moves and PPO learns where to depart from them. It costs a heuristic move
   per decision, in training and in play (``ppo:`` asks its own heuristic.py, which moves as
   the compiled one), and replaces a warm start.
4. **Per-seat crediting.** A decision's reward is everything its seat receives from that
   decision until the same seat's next decision in the same game, or until the game ends
   (the terminal reward included); GAE then runs along each seat's own decision sequence
   (``SeatBook``). A decision still open when the rollout ends (its seat has not played
   again, the game is not over) waits for the next rollout instead of being cut. With
   ``shaping`` > 0 (``--shaping``; Chuche and Roda de Samba) the score margin is added as a
   potential (the game's ``shaping.py``): denser rewards, the same best policy.
5. **PPO**: clipped ratio over the masked distribution, advantages normalised per
   minibatch, value loss, entropy bonus, gradient clipping.
6. **League, evaluation, checkpoints.** Every ``snapshot_every`` decisions a frozen copy
   joins the league (``out/pool``, the newest ``league_size`` play; after a warm start the
   clone is its first member). Every ``eval_every``
   decisions, and at the end, the policy (deterministic, as ``ppo:`` plays) meets the
   heuristic on ``eval_games`` deals from every seat (so 2 players: 2 x eval_games games),
   with a Wilson 95% CI, beside heuristic-vs-heuristic on the same deals (the bar for
   Rodízio, where a seat can lose to a tie). A checkpoint (policy, optimizer, counters)
   follows every evaluation; ``--resume`` continues from it.
7. ``out/final.json`` + ``final.npz`` is the policy; ``out/summary.json`` the run's figures,
   including its throughput: env decisions and learner decisions per second, whole run.

Every game: learning stops after its ``minutes`` (``--max-minutes``; issue 24 allows one
``baralho train ENV_ID`` an hour, the final evaluation included) or 50M env decisions
(``--timesteps``; Scala 40's 100M, so its clock binds), whichever comes first, then the final
evaluation and save. Per-game defaults (``DEFAULTS``; flags override):

| env | engine | envs | rollout | net | gamma | epochs | self / heur / league | warm start | prior | shaping | lr/ent/clip | minutes |
|---|---|---:|---:|---|---:|---:|---|---|---|---:|---|---:|
| rodizio_v1 | compiled | 1024 | 16 | 128x128 | 0.99 | 2 | 0.3 / 0.5 / 0.2 | heuristic | none | 0 | 0.0001/0/0.1 | 18 |
| chuche_v1 | compiled | 256 | 16 | 256x256 symlog | 0.995 | 1 | 0.3 / 0.5 / 0.2 | none | none | 0 | 0.0003/0.01/0.2 | 18 |
| roda_de_samba_v1 | compiled | 512 | 16 | 128x128 symlog | 0.995 | 1 | 0.3 / 0.5 / 0.2 | none | heuristic | 1 | 0.0003/0/0.2 | 50 |
| scala40_v1 | compiled | 512 | 16 | 128x128 symlog | 0.98 | 1 | 0.3 / 0.5 / 0.2 | none | heuristic | 1 | 0.0003/0/0.2 | 55 |

Measured (2026-12-01, 2 players, short runs on the 2-core machine under a load of 3-5, 200-game
evaluations, so about +-0.07; every trial is in the commit that set these):

- rodizio_v1: from scratch, the heuristic at 2% of games, 1M decisions: 0.345 vs the heuristic
  (heuristic vs heuristic 0.37); the heuristic at 50% and 2 epochs of minibatch 4096 (the update was
  70% of the time; this is 2.7x the decisions per second): 0.39 at 4M, rising slowly and noisily;
  a warm start then GENTLE PPO, same mix: 0.35-0.40 from the first 0.5M on, steadier. These
  defaults alone on the machine (the zoo's policy, its card in baralho/zoo/v1/rodizio_v1.md):
  16.8M decisions in 18 min, 0.452 [0.412, 0.492] over 600 games against the bar's 0.368.
- chuche_v1: from scratch the heuristic at 50% of games (not 20%) learns faster per decision
  (0.45 against 0.245 at 150k decisions), peaks near 0.47 at 0.6M, then wanders (0.37-0.46 to 1.1M);
  a warm start spent 3.5 of 5 loaded minutes cloning, for 0.38 at 0.1M. Alone on the machine, 18 min
  each, 600-game evaluations (+-0.04): these defaults (epochs 1, 256 envs x 16: 8,514 decisions/s)
  0.48 at 2M, then flat, final 0.465 [0.425, 0.505] at 9.3M; the same with ``shaping=1`` 0.375 at
  0.5M (0.29 without), 0.46 at 1.5M, then 0.38-0.45 to 5.5M, where I stopped it; with every game against the
  heuristic (self 0 / heuristic 1) 0.455 at 2M, then 0.40-0.46, final 0.442 [0.402, 0.482] at 11.3M
  (sampling instead of argmax: 0.413). PPO plateaus near 0.46 on raw inputs. With ``inputs="symlog"``
  (these defaults: the zoo's policy, its card in baralho/zoo/v1/chuche_v1.md): 0.46 at 2.5M, 0.54 at
  4.5M, 0.60 at 7.6M, final 0.578 [0.538, 0.617] over 600 games at 8.1M, 18 min. The scores (to 140)
  and round points (to 113) had saturated the first tanh layer.
- roda_de_samba_v1: a warm start on 50k decisions took 4 loaded minutes and cloned poorly
  (agreement 0.64 on held-out decisions); after 20k PPO decisions 0.035 vs the heuristic. Alone,
  these defaults (Chuche's recipe: from scratch, symlog inputs, epochs 1, 256 envs x 16): 0.053 at
  0.5M, 0.073 at 2M, 0.113 [0.090, 0.141] at 2.5M (about 4,300 decisions/s), rising; stopped there,
  as 18 minutes would not reach 0.5 at that pace. With the heuristic prior (the policy starts as
  the heuristic; 200-game evaluations, +-0.07, each run sharing the machine with a differential run,
  one torch thread, so decisions not minutes): GENTLE steps (lr 1e-4, clip 0.1, 1 epoch) 0.50 at
  0.25M with an approx KL of 0.0000 (the policy did not move); lr 3e-4, clip 0.2, 4 epochs of 512:
  0.52, 0.48, 0.465 at 0.2/0.4/0.6M (drifting down while the critic was still untrained); the same
  with 400k decisions of critic warm-up: 0.50, 0.50, 0.445, 0.50, 0.505, 0.525 from 0.2M to 1.26M.
  These defaults (the hint also an input to the nets), alone on the machine: 0.505 [0.465, 0.545]
  at 2M and 4M decisions, final 0.503 [0.463, 0.543] over 600 games at 5.07M, 50.4 min, 1,677
  decisions/s (seconds: update 1,346, heuristic 1,104, net 456, eval 73, env 19), entropy falling
  from 0.34 to 0.21: PPO keeps the heuristic's level and finds no better moves. Expert iteration's
  first step, distilling the guided search (2026-12-02): ``ismcts:24:g`` (0.75 against the heuristic
  in 20 games) played 907 games against it (26 min on both cores), 58,595 of its decisions recorded,
  39,751 searched, 8,573 where the search overruled the heuristic. A policy with the prior fitted to
  the search's moves (cross-entropy, 6 epochs, games held out) learned the training set's departures,
  not the held-out ones: it predicted 0.1-5% of those, and by the search's own estimates its moves
  gained 0.0008 per searched decision on held-out games (the search's own choices: about 0.07); 0.482
  [0.442, 0.522] against the heuristic over 600 games. Soft targets (a softmax of the search's
  returns) and a regression on its paired advantages departed far more often and lost (0.19-0.32 on
  half the data). The search's edge is lookahead in the position, which 40k noisy labels do not teach
  an MLP. The same prior defaults with ``shaping=1`` (the fame margin as a potential; now a default),
  alone on the machine (a faster host than the runs above: 3,779 decisions/s): 0.500 at 2M, 0.560 at
  4M, 0.587 at 6M, 0.597 at 8M, final **0.585 [0.545, 0.624]** over 600 games at 11.4M decisions,
  50.2 min (heuristic vs heuristic 0.497), 2,433 learner decisions/s (the heuristic, in Python then,
  was 897 s of it). With the compiled heuristic the update was the bottleneck (70% of a 600k-decision
  run at 256x256, 4 epochs: 4,176 learner decisions/s); these defaults (128x128, 1 epoch of 512, 512
  envs: 11,362/s after the critic's warm-up, 8,921/s with 2 epochs of 1024), alone (2026-12-03):
  0.543 at 6M, 0.558 at 12M, 0.620 at 18M, 0.590, 0.628, 0.617, 0.630 to 42M, final **0.615 [0.575,
  0.653]** over 600 games at 45.5M decisions, 50.0 min, 9,777 learner decisions/s whole run (15,145
  every seat's; the league's forward passes, net 1,583 s, grow as it fills): the zoo's policy, its
  card in baralho/zoo/v1/roda_de_samba_v1.md.
- scala40_v1: alone, these defaults (a warm start, symlog inputs, epochs 1, 256 envs x 16): the clone
  agrees with the heuristic on 0.830 of held-out decisions (0.790 where there is a choice), then
  PPO 0.128 [0.104, 0.157] at 0.5M and 0.125 at 1M (8.4 min: the 600-game evaluations of long
  matches are a third of it); stopped there. Roda de Samba's recipe (these defaults: the heuristic
  prior, 400k decisions of critic warm-up, the penalty margin as a potential, 512 envs x 16, 2
  epochs of 1024), alone (2026-12-02): 0.485 [0.445, 0.525] at 4M, 0.423 at 8M, 0.492 at 12M, 0.440
  at 16M decisions (600 games each; about 7,000 decisions/s), approx KL 0.0003, entropy 0.38 -> 0.18:
  the policy stays near the heuristic and finds nothing better. These defaults (gamma 0.98, so the
  penalty-margin potential carries the long match and the advantages look about 50 decisions ahead;
  1 epoch of 512, as Roda de Samba), alone (2026-12-03): 0.503 at 5M, 0.510 at 10M, final 0.528
  [0.488, 0.568] over 600 games at 15.0M decisions, 30.6 min, 5,823 learner decisions/s (8,147 every
  seat's): rising, not yet entirely above 0.5. The nets' inputs by table lookup into the book, a
  gather per minibatch, fused Adam (1M decisions alone: 6,638 -> 11,020 learner decisions/s) and 55
  minutes (these defaults), alone: 0.502 at 10M, 0.543 at 20M, final **0.545 [0.505, 0.584]** over
  600 games at 29.6M decisions, 55.4 min, 6,351 learner decisions/s whole run (8,901 every seat's;
  net 1,606 s, update 1,361: slower per decision than the 1M-decision run, most between 10M and
  20M): the zoo's policy, its card in baralho/zoo/v1/scala40_v1.md.

With a warm start the policy first imitates the heuristic on ``warm_start_steps``
decisions (it plays every seat of the batch; behaviour cloning with
``training.warm_start.fit``), and PPO starts from that clone with gentler steps (GENTLE: the
last column with a warm start; ``--warm-start none`` turns both off): the
``--algo sb3`` path measured that lr 3e-4 with an entropy bonus pulls a clone away from
the heuristic in its first updates (``training/train.py``, FINE_TUNING).
"""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numba as nb
import numpy as np

import baralho
import baralho.vector as bv
from baralho.agents.policy import INPUTS, PRIORS, actor_logits, features_of, hint_onehot, logits_of
from baralho.envs import ENV_IDS, game_module, has_module
from baralho.training.stats import wilson_interval
from baralho.training.tournament import is_win
from baralho.vector.heuristic import BatchHeuristic

RUN_FILES = ("pool", "checkpoint", "tb", "final.json", "final.npz", "summary.json", "run.json")


@dataclass
class SelfPlayConfig:
    env_id: str = "rodizio_v1"
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    engine: str | None = None          # None: compiled where the game has one
    num_envs: int = 64
    rollout: int = 64                  # env steps per env between updates
    decisions: int = 50_000_000        # budget: env decisions (every seat's) stepped
    max_minutes: float | None = 18.0   # wall budget of this invocation, warm start and evals included;
                                       # the final evaluation and save follow (issue 24: four games back to back)
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    epochs: int = 4
    minibatch: int = 2048
    net_arch: tuple[int, ...] = (256, 256)
    inputs: str = "raw"                # "symlog": each input scaled to [-1, 1] (agents/policy.py symlog_inputs)
    prior: str = "none"                # "heuristic": the logits get prior_weight on the heuristic's move
    prior_weight: float = 4.0          # (agents/policy.py hinted_logits); its starting value, then learned
    critic_warmup: int = 0             # decisions at the start during which only the value net learns
    self_share: float = 0.5            # of new games: every seat is the learner
    heuristic_share: float = 0.1       # of new games: the heuristic plays the other seats
    league_size: int = 8               # the rest: a league snapshot plays them (self-play while it is empty)
    snapshot_every: int = 250_000      # 0: no league
    eval_every: int = 500_000          # 0: evaluate at the end only
    eval_games: int = 300              # deals, each played from every seat
    warm_start: str | None = None      # "heuristic" or None
    shaping: float = 0.0               # weight of the score-margin potential (the game's shaping.py; 0: off)
    warm_start_steps: int = 100_000
    warm_start_epochs: int = 5
    torch_threads: int = 2
    out: str = "runs/selfplay"
    resume: bool = False
    overwrite: bool = False
    progress: bool = True


# The table in the module docstring shows these (a test keeps the two in step).
GENTLE = dict(learning_rate=1e-4, ent_coef=0.0, clip_range=0.1)     # PPO after a warm start
DEFAULTS: dict[str, dict] = {
    # measured: see the docstring; 2 epochs of 4096 because the update was 70% of Rodízio's time
    "rodizio_v1": dict(num_envs=1024, rollout=16, net_arch=(128, 128), gamma=0.99, epochs=2, minibatch=4096,
                       self_share=0.3, heuristic_share=0.5, warm_start="heuristic"),
    "chuche_v1": dict(num_envs=256, rollout=16, net_arch=(256, 256), inputs="symlog", gamma=0.995, epochs=1,
                      self_share=0.3, heuristic_share=0.5),
    # the heuristic prior and a critic warm-up, as GENTLE steps left the policy where it began; 1 epoch of 512
    # at 128x128 (4 epochs at 256x256 learned as well, at 0.4x the decisions per second);
    # the fame margin as a potential: without it PPO kept the heuristic's level
    "roda_de_samba_v1": dict(num_envs=512, rollout=16, net_arch=(128, 128), inputs="symlog", gamma=0.995,
                             epochs=1, minibatch=512, self_share=0.3, heuristic_share=0.5, prior="heuristic",
                             critic_warmup=400_000, learning_rate=3e-4, ent_coef=0.0, clip_range=0.2,
                             shaping=1.0, max_minutes=50.0, eval_every=6_000_000),   # a 600-game evaluation: ~1.5 min
    "scala40_v1": dict(num_envs=512, rollout=16, net_arch=(128, 128), inputs="symlog", gamma=0.98, epochs=1,
                       minibatch=512, self_share=0.3, heuristic_share=0.5, prior="heuristic",
                       critic_warmup=400_000, learning_rate=3e-4, ent_coef=0.0, clip_range=0.2, shaping=1.0,
                       decisions=100_000_000, max_minutes=55.0, eval_every=10_000_000),   # the clock binds
}


def config_for(env_id: str, **overrides) -> SelfPlayConfig:
    """SelfPlayConfig's settings, then the game's DEFAULTS, then (with a warm start) GENTLE,
    then ``overrides`` (None values ignored; ``warm_start="none"`` turns a default one off)."""
    cfg = SelfPlayConfig(env_id=env_id)
    given = {k: v for k, v in overrides.items() if v is not None}
    settings = {**DEFAULTS.get(env_id, {}), **given}
    if settings.get("warm_start") == "none":
        settings["warm_start"] = given["warm_start"] = None
    if settings.get("prior") == "heuristic" and "warm_start" not in given:
        settings["warm_start"] = None           # the prior starts at the heuristic's moves: no clone first
    if settings.get("warm_start"):
        settings = {**DEFAULTS.get(env_id, {}), **GENTLE, **given}
    for key, value in settings.items():
        if not hasattr(cfg, key):
            raise ValueError(f"unknown self-play setting {key!r}")
        setattr(cfg, key, value)
    check(cfg)
    return cfg


def check(cfg: SelfPlayConfig) -> None:
    """Refuse settings that cannot work, before anything starts."""
    if cfg.env_id not in baralho.ENV_IDS:
        raise ValueError(f"unknown env {cfg.env_id!r}; have {baralho.ENV_IDS}")
    for key in ("num_envs", "rollout", "decisions", "epochs", "minibatch", "eval_games", "torch_threads",
                "warm_start_steps", "warm_start_epochs"):
        if not isinstance(getattr(cfg, key), int) or getattr(cfg, key) < 1:
            raise ValueError(f"{key} must be a positive integer, got {getattr(cfg, key)!r}")
    for key in ("snapshot_every", "eval_every", "league_size", "critic_warmup"):
        if not isinstance(getattr(cfg, key), int) or getattr(cfg, key) < 0:
            raise ValueError(f"{key} must be an integer >= 0 (0: never), got {getattr(cfg, key)!r}")
    if not (0 <= cfg.self_share and 0 <= cfg.heuristic_share and cfg.self_share + cfg.heuristic_share <= 1):
        raise ValueError(f"need self_share, heuristic_share >= 0 with a sum <= 1 (the rest is the league), "
                         f"got {cfg.self_share} and {cfg.heuristic_share}")
    if not (0 < cfg.clip_range <= 1 and cfg.learning_rate > 0 and cfg.ent_coef >= 0
            and 0 < cfg.gamma <= 1 and 0 <= cfg.gae_lambda <= 1):
        raise ValueError("need 0 < clip_range <= 1, learning_rate > 0, ent_coef >= 0, 0 < gamma <= 1, "
                         "0 <= gae_lambda <= 1")
    if not (isinstance(cfg.shaping, (int, float)) and cfg.shaping >= 0):
        raise ValueError(f"shaping must be a number >= 0 (0: off), got {cfg.shaping!r}")
    if cfg.shaping and not has_module(cfg.env_id, "shaping"):
        have = [e for e in ENV_IDS if has_module(e, "shaping")]
        raise ValueError(f"shaping: no score-margin potential for {cfg.env_id!r} (its folder has no "
                         f"shaping.py); have {have}")
    if cfg.inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {cfg.inputs!r}")
    if cfg.prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {cfg.prior!r}")
    if not (isinstance(cfg.prior_weight, (int, float)) and 0 < cfg.prior_weight < 50):
        raise ValueError(f"prior_weight must be a number in (0, 50), got {cfg.prior_weight!r}")
    if cfg.prior == "heuristic" and cfg.warm_start:
        raise ValueError("prior='heuristic' already starts at the heuristic's moves: no warm start with it "
                         "(--warm-start none)")
    if cfg.warm_start not in (None, "heuristic"):
        raise ValueError(f"warm_start must be 'heuristic' or None, got {cfg.warm_start!r}")




# --- the network: an SB3 policy module, driven by hand ---------------------------------------

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


# --- per-seat crediting -------------------------------------------------------------------

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


# --- opponents, evaluation --------------------------------------------------------------

def evaluate(policy, cfg: SelfPlayConfig, deals: int, seed: int) -> dict:
    """``policy`` (deterministic; None: the heuristic itself) against the heuristic in every
    other seat, on ``deals`` deals from every seat; wins with a Wilson 95% CI."""
    wins = games = 0
    hinted = policy is not None and policy.baralho_prior == "heuristic"
    for learner in range(baralho.make(cfg.env_id, **cfg.env_config).unwrapped.game.num_players):
        venv = bv.make(cfg.env_id, deals, seed, engine=cfg.engine, **cfg.env_config)   # same deals each seat
        obs, mask, seat = venv.reset()
        heuristic = BatchHeuristic(venv.game, deals, seed)
        totals = np.zeros((deals, venv.num_players))
        finished = np.zeros(deals, bool)
        while not finished.all():
            action = mask.argmax(1).astype(np.int64)       # finished envs (re-dealt) idle on a legal move
            playing = np.flatnonzero(~finished)
            mine = np.flatnonzero(~finished & (seat == learner)) if policy is not None else np.array([], int)
            # the heuristic's move everywhere it plays, and where the policy takes its hint
            asked = playing if hinted else np.setdiff1d(playing, mine)
            action[asked] = heuristic.act(asked, obs, mask)
            if len(mine):
                hint = action.copy()
                action[mine] = moves_on(policy, *inputs(policy, obs[mine], hint[mine] if hinted else None),
                                        mask[mine], deterministic=True)
                if hinted:
                    heuristic.forget(mine[action[mine] != hint[mine]])
            obs, mask, seat, rewards, done = venv.step(action)
            totals[~finished] += rewards[~finished]
            finished |= done
        wins += sum(is_win(totals[b].tolist(), learner) for b in range(deals))
        games += deals
    low, high = wilson_interval(wins, games)
    return dict(win_rate=wins / games, ci_low=low, ci_high=high, games=games)


# --- warm start: clone the heuristic, every seat of the batch ------------------------------

def clone_heuristic(policy, cfg: SelfPlayConfig, log) -> dict:
    """Behaviour cloning: the heuristic plays every seat; whole games are kept, each decision
    with its seat's discounted return (the critic's target); then warm_start.fit."""
    from baralho.training.warm_start import Demonstrations, fit

    log(f"warm start: the heuristic plays every seat of {cfg.num_envs} envs for {cfg.warm_start_steps:,} "
        f"decisions (whole games)")
    venv = bv.make(cfg.env_id, cfg.num_envs, cfg.seed + 30_000, engine=cfg.engine, **cfg.env_config)
    obs, mask, seat = venv.reset()
    heuristic = BatchHeuristic(venv.game, cfg.num_envs, cfg.seed + 30_000)
    games = [[] for _ in range(cfg.num_envs)]      # per env: (obs, mask, action, seat) of this game
    rows, episodes = [], 0
    everyone = np.arange(cfg.num_envs)
    while sum(len(r[0]) for r in rows) < cfg.warm_start_steps:
        action = heuristic.act(everyone, obs, mask)
        for b in everyone:
            games[b].append((obs[b], mask[b], action[b], seat[b], np.zeros(venv.num_players)))
        obs_next, mask, seat_next, rewards, done = venv.step(action)
        for b in everyone:
            games[b][-1][4][:] = rewards[b]
            if done[b]:
                o, m, a, s, r = map(np.array, zip(*games[b]))
                ret = np.zeros(len(a), np.float32)
                tail = np.zeros(venv.num_players)
                for t in range(len(a) - 1, -1, -1):     # a seat's return, discounted over its own decisions
                    tail += r[t]
                    ret[t] = tail[s[t]]
                    tail[s[t]] *= cfg.gamma
                rows.append((o, m, a, ret, np.full(len(a), episodes)))
                episodes += 1
                games[b] = []
        obs, seat = obs_next, seat_next
    o, m, a, ret, ep = (np.concatenate(c) for c in zip(*rows))
    # observations stay in the env's dtype (Scala 40: int8, a quarter of float32's memory);
    # the SB3 policy casts them to float on the way in
    demos = Demonstrations(o, m.astype(bool), a.astype(np.int64), ret, ep)
    train, held_out = demos.split(0.05)
    history = fit(policy, train, held_out, cfg.warm_start_epochs, 256, 1e-3, 0.5, cfg.seed, log)
    return dict(steps=len(demos), episodes=episodes, accuracy=history[-1]["accuracy"],
                choice_accuracy=history[-1]["choice_accuracy"])


# --- the run ------------------------------------------------------------------------------

def ppo_update(policy, optimizer, book: SeatBook, adv: np.ndarray, cfg: SelfPlayConfig, rng,
               actor: bool = True) -> dict:
    """Clipped PPO epochs over the book's closed decisions (``actor=False``: the value loss only,
    the critic warm-up)."""
    import torch

    rows = np.flatnonzero(book.closed[:book.n])
    keys = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
    if len(rows) == 0:              # nothing closed yet (long games, a short rollout): no step
        return dict(dict.fromkeys(keys, 0.0), decisions=0)
    onehot = hint_onehot(policy, book.hint[rows])         # hint -1: none
    action = torch.as_tensor(book.action[rows])
    old_logp = torch.as_tensor(book.logp[rows])
    advantage = torch.as_tensor(adv[rows])
    target = advantage + torch.as_tensor(book.value[rows])       # the lambda-return
    stats = []
    for _ in range(cfg.epochs):
        for mb in np.array_split(rng.permutation(len(rows)), max(1, len(rows) // cfg.minibatch)):
            features = torch.from_numpy(book.x[rows[mb]])    # one gather from the book, per minibatch
            logits, latent_vf = logits_of(policy, features, None if onehot is None else onehot[mb])
            logits = masked(logits, book.mask[rows[mb]])
            values = policy.value_net(latent_vf).squeeze(-1)
            logits = logits.log_softmax(-1)       # Categorical's log_prob and entropy, without its logsumexp
            logp = logits.gather(-1, action[mb].unsqueeze(-1)).squeeze(-1)
            ratio = (logp - old_logp[mb]).exp()
            a = advantage[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
            v_loss = 0.5 * ((values - target[mb]) ** 2).mean()
            entropy = -(logits.exp() * logits).sum(-1).mean()     # a masked action: 0 * -1e8 adds 0
            loss = cfg.vf_coef * v_loss + ((pg_loss - cfg.ent_coef * entropy) if actor else 0.0)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = ((ratio - 1) - (logp - old_logp[mb])).mean()
                clipped = ((ratio - 1).abs() > cfg.clip_range).float().mean()
            stats.append((pg_loss.item(), v_loss.item(), entropy.item(), kl.item(), clipped.item()))
    return dict(zip(keys, np.mean(stats, axis=0).tolist()), decisions=len(rows))


def save_checkpoint(out: Path, policy, optimizer, counters: dict, cfg, run_id: str) -> None:
    import torch

    from baralho.agents.policy import save_policy

    ck = out / "checkpoint"
    ck.mkdir(parents=True, exist_ok=True)
    torch.save(optimizer.state_dict(), ck / ".optimizer.pt.part")  # tensors and numbers: weights_only loads it
    (ck / ".optimizer.pt.part").replace(ck / "optimizer.pt")
    save_policy(policy, ck / "policy", cfg.env_id, cfg.env_config, run_id=run_id, **counters["policy_card"])
    (ck / "counters.json").write_text(json.dumps(counters, indent=1))   # last: a checkpoint is whole


def load_checkpoint(out: Path, policy, optimizer, cfg) -> dict:
    import torch

    from baralho.agents.policy import load_policy

    ck = out / "checkpoint"
    if not (ck / "counters.json").exists():
        raise ValueError(f"--resume: {out} has no checkpoint yet (it is written after every evaluation)")
    saved, _ = load_policy(ck / "policy", cfg.env_id, cfg.env_config)
    policy.load_state_dict(saved.state_dict())
    optimizer.load_state_dict(torch.load(ck / "optimizer.pt", weights_only=True))
    for group in optimizer.param_groups:      # this invocation's --learning-rate, not the saved one
        group["lr"] = cfg.learning_rate
    return json.loads((ck / "counters.json").read_text())


def train(cfg: SelfPlayConfig) -> Path:
    import torch
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from torch.utils.tensorboard import SummaryWriter

    from baralho.agents.policy import build_policy, load_policy, save_policy
    from baralho.training.train import claim_out, pool_snapshots

    check(cfg)
    start = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    baralho.make(cfg.env_id, **cfg.env_config)            # a bad config fails before --out is claimed
    manifest = claim_out(cfg, run_files=RUN_FILES, algo="selfplay")
    run_id = manifest["run_id"]
    if cfg.resume and (out / "checkpoint" / "policy.json").exists():   # the run's own architecture
        from baralho.agents.policy import read_card

        card = read_card(out / "checkpoint" / "policy")
        cfg.net_arch, cfg.inputs = tuple(card["net_arch"]["pi"]), card.get("inputs", "raw")
        cfg.prior = card.get("prior", "none")
    policy = build_policy(cfg.env_id, cfg.env_config, dict(pi=list(cfg.net_arch), vf=list(cfg.net_arch)),
                          inputs=cfg.inputs, prior=cfg.prior, prior_weight=cfg.prior_weight)
    policy.set_training_mode(False)
    # fused: one kernel over every parameter (the per-tensor loop was 5% of a Scala 40 run's samples)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    counters = dict(updates=0, decisions=0, learner_decisions=0, seconds=0.0, snapshots=0,
                    last_snapshot=0, last_eval=0, evals=[], baseline=None, warm_start=None)
    if cfg.resume:
        counters = load_checkpoint(out, policy, optimizer, cfg)
    league = [load_policy(p, cfg.env_id, cfg.env_config)[0]
              for p in pool_snapshots(out, run_id, cfg.env_id, cfg.env_config)[-cfg.league_size:]
              if cfg.league_size]
    writer = SummaryWriter(str(out / "tb"))
    log = print if cfg.progress else (lambda line: None)
    if cfg.warm_start and not cfg.resume:
        counters["warm_start"] = clone_heuristic(policy, cfg, log)
        policy.set_training_mode(False)
        if cfg.league_size:                  # the clone is the league's first opponent
            counters["snapshots"] += 1
            save_policy(policy, out / "pool" / f"snapshot_{counters['snapshots']:04d}", cfg.env_id,
                        cfg.env_config, run_id=run_id, decisions=0, clone_of="heuristic")
            league.append(copy.deepcopy(policy))
    if counters["baseline"] is None:            # heuristic vs heuristic on the evaluation deals
        counters["baseline"] = evaluate(None, cfg, cfg.eval_games, cfg.seed + 50_000)
    writer.add_scalar("eval/heuristic_vs_heuristic", counters["baseline"]["win_rate"], counters["decisions"])

    # the batch; a resumed run deals on from a seed of its own
    venv = bv.make(cfg.env_id, cfg.num_envs, cfg.seed + 7919 * counters["updates"], engine=cfg.engine,
                   **cfg.env_config)
    B, P = cfg.num_envs, venv.num_players
    rng = np.random.default_rng([cfg.seed, counters["updates"]])
    obs, mask, seat = venv.reset()
    hinted = cfg.prior == "heuristic"        # every decision takes the heuristic's move as a hint
    everyone = np.arange(B)
    row = np.zeros(B, np.int64)                # env -> its row of this step's net inputs
    heuristic = BatchHeuristic(venv.game, B, cfg.seed) if cfg.heuristic_share > 0 or hinted else None
    phi = game_module(cfg.env_id, "shaping").potential(venv.game.obs_layout, venv.game) if cfg.shaping else None
    role = np.zeros(B, np.int64)               # 0 self-play, -1 heuristic, k > 0 league snapshot k-1
    learner = np.ones((B, P), bool)            # which seats of each env the learner plays
    games = np.zeros(B, np.int64)

    def new_games(envs: np.ndarray) -> None:
        u = rng.random(len(envs))
        role[envs] = np.where(u < cfg.self_share, 0, np.where(u < cfg.self_share + cfg.heuristic_share, -1,
                                                              1 + rng.integers(max(1, len(league)), size=len(envs))))
        if not league:
            role[envs[role[envs] > 0]] = 0
        learner[envs] = role[envs, None] == 0
        learner[envs, rng.integers(P, size=len(envs))] = True
        if heuristic is not None:
            heuristic.reset(envs, cfg.seed * 1_000_003 + envs * 10_007 + games[envs])
        games[envs] += 1

    new_games(np.arange(B))
    pending = np.full((B, P), -1, np.int64)
    capacity = B * (cfg.rollout + P)
    book = SeatBook(capacity, inputs(policy, obs[:1], np.zeros(1, np.int64))[0].shape[1], venv.num_actions)
    split = dict(env=0.0, net=0.0, heuristic=0.0, update=0.0, eval=0.0)
    seconds_before = counters["seconds"]
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[status]}"), TimeElapsedColumn(), disable=not cfg.progress)
    task = progress.add_task(f"{cfg.env_id} self-play", total=cfg.decisions, completed=counters["decisions"],
                             status="")

    status, interrupted = "", False

    def out_of_time() -> bool:
        return cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes

    def evaluate_and_checkpoint(step: int) -> str:
        t0 = time.perf_counter()
        result = dict(decisions=step, **evaluate(policy, cfg, cfg.eval_games, cfg.seed + 50_000),
                      minutes=(time.perf_counter() - start) / 60,
                      load_average=os.getloadavg()[0])    # the model card says what else was running
        split["eval"] += time.perf_counter() - t0
        counters["evals"].append(result)
        counters["last_eval"] = step
        for key in ("win_rate", "ci_low", "ci_high"):
            writer.add_scalar(f"eval/{key}_vs_heuristic", result[key], step)
        counters["seconds"] = seconds_before + time.perf_counter() - start
        counters["policy_card"] = dict(decisions=step)
        save_checkpoint(out, policy, optimizer, counters, cfg, run_id)
        line = f"vs heuristic {result['win_rate']:.3f} [{result['ci_low']:.3f}, {result['ci_high']:.3f}]"
        if cfg.progress:
            progress.console.print(f"{step:,} decisions: {line} over {result['games']} games", highlight=False)
        return line

    progress.start()
    try:
        while counters["decisions"] < cfg.decisions and not out_of_time():
            # 1. rollout: every env steps cfg.rollout times
            for _ in range(cfg.rollout):
                t0 = time.perf_counter()
                mine = learner[np.arange(B), seat]
                # the heuristic's move where it plays the seat, and everywhere when the policy takes it as a hint
                asked = everyone if hinted else np.flatnonzero(~mine & (role == -1))
                hint = np.full(B, -1, np.int64)     # -1 where not asked: no hint (so none without the prior)
                hint[asked] = heuristic.act(asked, obs, mask)
                action = hint.copy()
                t1 = time.perf_counter()
                # the nets' inputs once: the learner's straight into the book, the league's apart
                envs = np.flatnonzero(mine)
                x, onehot = inputs(policy, obs[envs], hint[envs], out=book.inputs_of_next(len(envs)))
                a, logp, value = act_on(policy, x, onehot, mask[envs])
                action[envs] = a
                book.decide(pending, envs, seat[envs], None, mask[envs], a, logp, value,
                            None if phi is None else cfg.shaping * phi(obs[envs]), hint[envs])
                netted = np.flatnonzero(~mine & (role > 0))
                if len(netted):
                    x, onehot = inputs(policy, obs[netted], hint[netted])
                    row[netted] = np.arange(len(netted))
                for k, snapshot in enumerate(league):
                    theirs = netted[role[netted] == k + 1]
                    if len(theirs):
                        action[theirs] = moves_on(snapshot, *rows_of(x, onehot, row[theirs]), mask[theirs])
                if hinted:
                    heuristic.forget(np.flatnonzero(action != hint))
                t2 = time.perf_counter()
                obs, mask, seat, rewards, done = venv.step(action)
                book.credit(pending, rewards, done)
                if done.any():
                    new_games(np.flatnonzero(done))
                split["heuristic"] += t1 - t0
                split["net"] += t2 - t1
                split["env"] += time.perf_counter() - t2
            counters["decisions"] += B * cfg.rollout

            # 2. PPO on the decisions whose outcome is known; the open ones wait
            t0 = time.perf_counter()
            policy.set_training_mode(True)
            stats = ppo_update(policy, optimizer, book, book.advantages(cfg.gamma, cfg.gae_lambda), cfg, rng,
                               actor=counters["decisions"] > cfg.critic_warmup)
            policy.set_training_mode(False)
            book = book.carry(pending, capacity)
            counters["updates"] += 1
            counters["learner_decisions"] += stats["decisions"]
            split["update"] += time.perf_counter() - t0
            step = counters["decisions"]
            for key, value in stats.items():
                writer.add_scalar(f"ppo/{key}", value, step)
            elapsed = seconds_before + time.perf_counter() - start
            writer.add_scalar("throughput/decisions_per_s", step / max(elapsed, 1e-9), step)
            writer.add_scalar("throughput/learner_decisions", counters["learner_decisions"], step)
            writer.add_scalar("league/size", len(league), step)

            # 3. the league, evaluation and a checkpoint
            if cfg.snapshot_every and step - counters["last_snapshot"] >= cfg.snapshot_every:
                counters["snapshots"] += 1
                counters["last_snapshot"] = step
                save_policy(policy, out / "pool" / f"snapshot_{counters['snapshots']:04d}", cfg.env_id,
                            cfg.env_config, run_id=run_id, decisions=step)
                # the newest league_size play; when the oldest leaves, games it was playing
                # go on against the next one (roles index the list)
                league = (league + [copy.deepcopy(policy)])[-cfg.league_size:] if cfg.league_size else []
            last = step >= cfg.decisions or out_of_time()
            if (cfg.eval_every and step - counters["last_eval"] >= cfg.eval_every) or last:
                status = evaluate_and_checkpoint(step)
            progress.update(task, completed=min(step, cfg.decisions),
                            status=f"{status} · {step / max(elapsed, 1e-9):,.0f} decisions/s")
    except KeyboardInterrupt:       # Ctrl-C: stop learning (a rollout cut short is dropped), keep the rest
        interrupted = True
        progress.stop()
        print(f"\ninterrupted at {counters['decisions']:,} decisions: evaluating and saving the policy so far",
              flush=True)
        evaluate_and_checkpoint(counters["decisions"])
    finally:
        progress.stop()
    policy.set_training_mode(False)
    writer.close()

    # 4. the policy and the run's figures
    counters["seconds"] = seconds_before + time.perf_counter() - start
    save_policy(policy, out / "final", cfg.env_id, cfg.env_config, run_id=run_id, decisions=counters["decisions"])
    summary = dict(config={**asdict(cfg), "net_arch": list(cfg.net_arch)}, engine=venv.engine,
                   decisions=counters["decisions"], learner_decisions=counters["learner_decisions"],
                   updates=counters["updates"], wall_seconds=counters["seconds"],
                   decisions_per_second=counters["decisions"] / max(counters["seconds"], 1e-9),
                   learner_decisions_per_second=counters["learner_decisions"] / max(counters["seconds"], 1e-9),
                   seconds_this_invocation=split, baseline=counters["baseline"],
                   final=counters["evals"][-1] if counters["evals"] else None, evals=counters["evals"],
                   warm_start=counters["warm_start"], interrupted=interrupted)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return out


def command_line(args, names: dict) -> str:
    """The ``baralho train`` command of these flags (the ones given), as a model card quotes it."""
    words = ["baralho", "train", args.env_id]
    for flag in names:
        value = getattr(args, flag, None)
        if value is not None and value is not False:
            words += [f"--{flag.replace('_', '-')}"] + ([] if value is True else [str(value)])
    if args.config:
        words += ["--config", *(f"{k}={json.dumps(v)}" for k, v in args.config.items())]
    return " ".join(words)


def main(args) -> int:
    """``baralho train ENV --algo selfplay``: the CLI flags onto SelfPlayConfig."""
    names = dict(timesteps="decisions", n_envs="num_envs", eval_every="eval_every", eval_games="eval_games",
                 snapshot_every="snapshot_every", max_minutes="max_minutes", learning_rate="learning_rate",
                 ent_coef="ent_coef", clip_range="clip_range", seed="seed", out="out", resume="resume",
                 overwrite="overwrite", warm_start="warm_start", warm_start_steps="warm_start_steps",
                 warm_start_epochs="warm_start_epochs", engine="engine", shaping="shaping",
                 inputs="inputs", prior="prior")
    cfg = config_for(args.env_id, env_config=args.config, progress=not args.quiet,
                     **{ours: getattr(args, flag, None) for flag, ours in names.items()})
    out = train(cfg)
    s = json.loads((out / "summary.json").read_text())
    s["command"] = command_line(args, names)             # for the model card (zoo/ship.py)
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    final, base = s["final"], s["baseline"]
    print(f"\n{cfg.env_id}: {s['decisions']:,} decisions ({s['learner_decisions']:,} learned from) in "
          f"{s['wall_seconds']:.0f} s{' (interrupted)' if s['interrupted'] else ''}, "
          f"{s['decisions_per_second']:,.0f} decisions/s; policy {out / 'final.json'}")
    if final:
        print(f"vs heuristic over {final['games']} games: {final['win_rate']:.3f} "
              f"[{final['ci_low']:.3f}, {final['ci_high']:.3f}]; heuristic vs heuristic {base['win_rate']:.3f}")
    return 130 if s["interrupted"] else 0
