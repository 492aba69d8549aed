"""Self-play PPO on any baralho env with Ray RLlib (new API stack), top to bottom.

    pip install ".[rllib]"
    baralho train-rllib rodizio_v1 --iterations 20 --num-env-runners 1
    baralho train-rllib scala40_v1 --address auto --num-env-runners 64   # on a Ray cluster

1. The env: the baralho AEC env (illegal actions raise, the default) inside
   :class:`MaskedObservation`, a PettingZoo wrapper that renames the
   observation to the keys RLlib's action-masking module reads and counts every
   action against the mask the acting agent was shown; then RLlib's own
   ``PettingZooEnv``, which turns the AEC turn order into multi-agent dicts
   (only the acting agent observes; every agent gets its final reward at the end).
2. One policy ``"shared"`` for every seat (self-play, parameter sharing):
   RLlib's ``ActionMaskingTorchRLModule`` adds log(mask) to the logits, so a
   masked-out action has probability ~0 when sampling and in the PPO loss.
3. Ray: a local instance by default, a cluster when given its address.
   ``num_env_runners`` processes sample in parallel (one CPU each, plus one for
   the driver and learner); ``num_env_runners=0`` samples in the driver.
4. Every iteration prints env steps, steps/s (while sampling, and over the
   whole iteration with the PPO update), episode length and the illegal action
   count (which must stay 0); a checkpoint and ``history.json`` go to ``--out``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import ray
import torch
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

import baralho

POLICY = "shared"


class MaskedObservation(BaseWrapper):
    """Observations as RLlib's action-masking module reads them, and a count of every action against its mask.

    baralho gives ``{"observation": float32[D], "action_mask": int8[A]}``;
    ``ActionMaskingTorchRLModule`` reads ``{"observations": ..., "action_mask": ...}``
    and takes ``log(action_mask)``, so the mask is handed over as float32.

    Why not SuperSuit's ``observation_lambda_v0``: it would rename the keys, but
    not count actions, and it adds a dependency (with a compiled image scaler)
    for a five-line rename.

    ``actions_checked`` and ``illegal_actions`` count the actions that reached
    the env, each against the mask its agent observed last. With
    ``illegal_action="raise"`` (the env default) an illegal action also stops the
    run, so the count is an independent second check, reported by RLlib as a metric.
    """

    def __init__(self, env) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
        })
        self._shown: dict[str, np.ndarray] = {}
        self.actions_checked = 0
        self.illegal_actions = 0

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        self._shown[agent] = mask = obs["action_mask"].astype(np.float32)
        return {"observations": obs["observation"], "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._shown.clear()
        self.env.reset(seed=seed, options=options)

    def step(self, action) -> None:
        agent = self.agent_selection
        if action is not None:           # None is the dead step of a finished agent
            shown = self._shown.get(agent)
            if shown is None:            # PettingZooEnv always observes first; be safe if not
                shown = self.observe(agent)["action_mask"]
            self.actions_checked += 1
            self.illegal_actions += not shown[int(action)]
        self.env.step(action)


class BaralhoMultiAgentEnv(PettingZooEnv):
    """An RLlib ``MultiAgentEnv`` built from ``{"env_id": ..., **env options}`` (RLlib's ``env_config``)."""

    def __init__(self, config: dict | None = None) -> None:
        config = dict(config or {})
        if "env_id" not in config:
            raise ValueError(f"env_config needs an 'env_id', one of {baralho.ENV_IDS}")
        env_id = config.pop("env_id")
        super().__init__(MaskedObservation(baralho.make(env_id, **config)))


def count_illegal_actions(*, env_runner, metrics_logger, **kwargs) -> None:
    """``on_sample_end`` callback: log the actions checked and the illegal ones since the last sample."""
    for sub_env in env_runner.env.envs:              # RLlib's vector of MultiAgentEnvs
        wrapper: MaskedObservation = sub_env.unwrapped.env
        metrics_logger.log_value("baralho_actions_checked", wrapper.actions_checked, reduce="lifetime_sum")
        metrics_logger.log_value("baralho_illegal_actions", wrapper.illegal_actions, reduce="lifetime_sum")
        wrapper.actions_checked = wrapper.illegal_actions = 0


@dataclass
class RLlibConfig:
    env_id: str = "rodizio_v1"
    env_config: dict = field(default_factory=dict)
    iterations: int = 10
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 1
    train_batch_size: int = 4000        # env steps per iteration (all seats together)
    minibatch_size: int = 256
    num_epochs: int = 10
    learning_rate: float = 3e-4
    gamma: float = 0.99
    entropy_coeff: float = 0.01
    hiddens: tuple[int, ...] = (256, 256)
    seed: int | None = None
    address: str | None = None          # None: a local Ray instance; "auto" or "ray://host:10001": a cluster
    out: str = "runs/rllib"


def algorithm_config(cfg: RLlibConfig) -> PPOConfig:
    """PPO, one masked policy shared by every seat."""
    return (
        PPOConfig()
        # RLlib's env check steps one unmasked random action, which a baralho env rightly refuses;
        # tests/conformance runs PettingZoo's own api_test on every env instead.
        .environment(BaralhoMultiAgentEnv, env_config={"env_id": cfg.env_id, **cfg.env_config},
                     disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY: RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                 model_config=DefaultModelConfig(fcnet_hiddens=list(cfg.hiddens))),
        }))
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner)
        .training(train_batch_size_per_learner=cfg.train_batch_size, minibatch_size=cfg.minibatch_size,
                  num_epochs=cfg.num_epochs, lr=cfg.learning_rate, gamma=cfg.gamma,
                  entropy_coeff=cfg.entropy_coeff)
        .callbacks(on_sample_end=count_illegal_actions)
        .debugging(seed=cfg.seed)
    )


def summarize(result: dict) -> dict:
    """The figures printed per iteration, from RLlib's result dict (``*_lifetime``: since the start)."""
    runners = result.get("env_runners", {})
    throughput = runners.get("num_env_steps_sampled_lifetime_throughput", float("nan"))
    if isinstance(throughput, dict):      # ray 2.60 reports {"throughput_since_last_reduce": ..., ...}
        throughput = throughput.get("throughput_since_last_reduce", float("nan"))
    return {
        "iteration": result.get("training_iteration"),
        "env_steps": int(runners.get("num_env_steps_sampled", 0)),
        "env_steps_lifetime": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        # RLlib's throughput: env steps sampled per second of wall time since the last iteration
        "env_steps_per_s": float(throughput),
        # seconds each runner spent in sample() (mean over runners, which sample in parallel):
        # env_steps / sample_s is the sampling rate of all runners together
        "sample_s": float(runners.get("sample", float("nan"))),
        "episodes": int(runners.get("num_episodes", 0)),
        "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
        "actions_checked_lifetime": int(runners.get("baralho_actions_checked", 0)),
        "illegal_actions_lifetime": int(runners.get("baralho_illegal_actions", 0)),
        "iteration_s": float(result.get("time_this_iter_s", float("nan"))),
    }


def init_ray(address: str | None) -> None:
    """A new local instance (no dashboard) when ``address`` is None, else join that cluster.

    ``address="local"`` rather than Ray's default: a plain ``ray.init()`` would join any
    Ray cluster already running on this machine (or a stale one left by a killed head node).
    """
    if ray.is_initialized():
        return
    if address is None:
        ray.init(address="local", include_dashboard=False)
    else:
        ray.init(address=address)


def train(cfg: RLlibConfig, progress: bool = True) -> tuple[list[dict], Path]:
    """Train ``cfg.iterations`` PPO iterations; returns the per-iteration summaries and the checkpoint folder.

    Sets torch to one thread in this process (see below).
    """
    if cfg.env_id not in baralho.ENV_IDS:
        raise ValueError(f"unknown env id {cfg.env_id!r}; one of {baralho.ENV_IDS}")
    baralho.make(cfg.env_id, **cfg.env_config)      # a bad option fails here, clearly, before Ray starts
    init_ray(cfg.address)
    # The learner (and the sampling when num_env_runners=0) runs in this process with one CPU
    # reserved, and Ray gives each of its workers OMP_NUM_THREADS=1; torch here would otherwise
    # use a thread per core and fight the runners for them (measured on 2 busy cores: 50 s -> 13 s
    # per 2,000-step PPO iteration).
    torch.set_num_threads(1)
    algo = algorithm_config(cfg).build_algo()
    history = []
    try:
        for _ in range(cfg.iterations):
            start = time.perf_counter()
            row = summarize(algo.train())
            row["wall_s"] = time.perf_counter() - start
            history.append(row)
            if progress:
                print(f"iter {row['iteration']:>3}  env steps {row['env_steps']:>7,}  "
                      f"sampling {row['env_steps'] / row['sample_s']:,.0f}/s  "
                      f"wall {row['env_steps'] / row['wall_s']:,.0f}/s  "
                      f"episodes {row['episodes']:>5}  len {row['episode_len_mean']:.1f}  "
                      f"illegal actions so far {row['illegal_actions_lifetime']}"
                      f"/{row['actions_checked_lifetime']:,}", flush=True)
        out = Path(cfg.out).resolve()
        out.mkdir(parents=True, exist_ok=True)
        algo.save_to_path(str(out / "checkpoint"))
        (out / "history.json").write_text(json.dumps({"config": asdict(cfg), "history": history}, indent=1))
    finally:
        algo.stop()
    return history, out


def main(args) -> int:
    """``baralho train-rllib`` (the parser is in baralho/cli.py)."""
    cfg = RLlibConfig(env_id=args.env_id, env_config=args.config, iterations=args.iterations,
                      num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner,
                      train_batch_size=args.train_batch_size, seed=args.seed, address=args.address,
                      out=args.out)
    if args.players:
        cfg.env_config["num_players"] = args.players
    history, out = train(cfg, progress=not args.quiet)
    last = history[-1]
    illegal = last["illegal_actions_lifetime"]
    print(f"{last['env_steps_lifetime']:,} env steps, {illegal} illegal actions "
          f"(of {last['actions_checked_lifetime']:,} checked); checkpoint in {out}")
    return 1 if illegal else 0
