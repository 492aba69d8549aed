"""Behaviour-cloning warm start: fit a MaskablePPO policy to the heuristic before PPO.

PPO from scratch does not find in an hour what the games' heuristics know (opening
with 40 points in Scala 40, harmony and sambistas in Roda de Samba), yet the
heuristic plays ~2,000 decisions a second. So ``baralho train ENV --warm-start
heuristic`` first

1. **collects** demonstrations: the heuristic plays the learner's seat of the same
   :class:`SingleAgentEnv` PPO will train in (same opponent pool, random seat);
   every decision records the observation, the mask, the heuristic's action and the
   learner's discounted return from that decision on;
2. **fits** the policy to them with SB3's own API and the policy's own optimizer:
   ``policy.evaluate_actions(obs, actions, action_masks=masks)`` gives the masked
   log-probabilities and the values, and the loss is
   ``-log_prob + value_coef * (value - return)**2`` over shuffled minibatches, so
   the actor imitates the heuristic and the critic starts out knowing what the
   heuristic's positions are worth (PPO's first advantages are then meaningful).

Agreement (the share of decisions where the argmax of the masked policy is the
heuristic's action) is measured on held-out episodes (the last ``holdout`` share
of the episodes collected), after every epoch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from baralho.agents import bind_if_needed, make_agent
from baralho.training.single_agent import SingleAgentEnv


@dataclass
class Demonstrations:
    """Decisions of a teacher in the learner's seat, in play order."""

    observations: np.ndarray   # float32 [N, obs]
    masks: np.ndarray          # bool [N, actions]: the legal actions
    actions: np.ndarray        # int64 [N]: the teacher's choices
    returns: np.ndarray        # float32 [N]: the learner's discounted return from here on
    episodes: np.ndarray       # int64 [N]: which episode each decision belongs to

    def __len__(self) -> int:
        return len(self.actions)

    def split(self, holdout: float) -> tuple[Demonstrations, Demonstrations]:
        """(train, held-out) by whole episodes: the last ``holdout`` share of them is held out,
        so agreement is measured on games the fit never saw."""
        n_eps = int(self.episodes[-1]) + 1
        cut = n_eps - max(1, round(holdout * n_eps)) if n_eps > 1 else n_eps
        row = int(np.searchsorted(self.episodes, cut))     # episodes are in order: two views, no copy
        return self._rows(slice(0, row)), self._rows(slice(row, None))

    def _rows(self, rows: slice) -> Demonstrations:
        return Demonstrations(self.observations[rows], self.masks[rows], self.actions[rows],
                              self.returns[rows], self.episodes[rows])


def collect(env: SingleAgentEnv, teacher, steps: int, gamma: float, seed: int,
            progress: bool = False) -> Demonstrations:
    """Play episodes with ``teacher`` in the learner's seat and record its first ``steps``
    decisions. The episode that reaches ``steps`` is played to its end, so every recorded
    return is the exact discounted return, but only its decisions up to ``steps`` are kept."""
    from baralho.training.progress import Bar

    # Observations go straight into one array of exactly ``steps`` rows (Scala 40: 400k
    # decisions are 4 GB; a list of rows stacked at the end would need twice that, and
    # growing an array copies the whole block). Reserving room for the last episode's
    # overflow instead would take the game's bound on an episode (Scala 40: 557,520
    # decisions, 10 GB of address space at 400k steps), which numpy cannot get under an
    # address-space limit such as a cluster job's ``ulimit -v`` (seen: MemoryError at 8 GB).
    observations = np.empty((steps, env.observation_space.shape[0]), np.float32)
    masks = np.empty((steps, env.action_space.n), bool)
    actions, returns, episodes = [], [], []
    bar = Bar("warm start: heuristic decisions", steps, enabled=progress).__enter__()
    bound = env.game.max_decisions
    episode = 0
    while len(actions) < steps:
        obs, _ = env.reset(seed=seed + episode)
        teacher.reset(seed=seed + episode)
        bind_if_needed(teacher, env.aec)
        first = len(actions)
        rewards, done = [], False
        while not done:
            if len(rewards) == bound:
                raise RuntimeError(f"{env.env_id}: an episode ran past the game's bound of "
                                   f"{bound} decisions (game.max_decisions)")
            view = env.aec.observe(env.learner)       # exactly what the teacher would see in play
            action = int(teacher.act(view, env.learner))
            i = len(actions)
            if i < steps:
                observations[i] = obs
                masks[i] = view["action_mask"]
                actions.append(action)
                episodes.append(episode)
            obs, reward, done, _, _ = env.step(action)
            rewards.append(reward)
        to_go, tail = [], 0.0
        for r in reversed(rewards):
            tail = r + gamma * tail
            to_go.append(tail)
        kept = len(actions) - first
        returns.extend(to_go[::-1][:kept])
        bar.advance(kept)
        episode += 1
    bar.__exit__(None, None, None)
    return Demonstrations(observations, masks, np.asarray(actions, np.int64),
                          np.asarray(returns, np.float32), np.asarray(episodes, np.int64))


def agreement(policy, demos: Demonstrations, batch_size: int = 2048) -> dict:
    """How close the policy is to the teacher on ``demos``: ``accuracy``, the share of
    decisions where the argmax of the masked policy is the teacher's action;
    ``choice_accuracy``, the same over decisions with two legal actions or more (any
    masked policy agrees on the others); ``value_mse``, the critic's error on the returns."""
    import torch

    if len(demos) == 0:
        return dict(accuracy=float("nan"), choice_accuracy=float("nan"), value_mse=float("nan"))
    policy.set_training_mode(False)
    hits = np.zeros(len(demos), bool)
    values = np.zeros(len(demos), np.float32)
    with torch.no_grad():
        for i in range(0, len(demos), batch_size):
            obs = torch.as_tensor(demos.observations[i:i + batch_size], device=policy.device)
            dist = policy.get_distribution(obs, action_masks=demos.masks[i:i + batch_size])
            hits[i:i + batch_size] = dist.mode().cpu().numpy() == demos.actions[i:i + batch_size]
            values[i:i + batch_size] = policy.predict_values(obs).flatten().cpu().numpy()
    choice = demos.masks.sum(axis=1) > 1
    return dict(accuracy=float(hits.mean()),
                choice_accuracy=float(hits[choice].mean()) if choice.any() else float("nan"),
                value_mse=float(np.mean((values - demos.returns) ** 2)))


def fit(policy, train: Demonstrations, held_out: Demonstrations, epochs: int, batch_size: int,
        learning_rate: float, value_coef: float, seed: int,
        log: Callable[[str], None] = print) -> list[dict]:
    """Supervised epochs over ``train`` with the policy's own (Adam) optimizer; returns one
    record per epoch (loss terms and the held-out agreement)."""
    import torch

    optimizer = policy.optimizer
    previous_lr = [g["lr"] for g in optimizer.param_groups]
    for group in optimizer.param_groups:      # PPO resets it from its schedule on every update
        group["lr"] = learning_rate
    rng = np.random.default_rng(seed)
    obs_all = torch.as_tensor(train.observations, device=policy.device)
    act_all = torch.as_tensor(train.actions, device=policy.device)
    ret_all = torch.as_tensor(train.returns, device=policy.device)
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        order = rng.permutation(len(train))
        sums = np.zeros(2)
        for i in range(0, len(order), batch_size):
            idx = torch.as_tensor(order[i:i + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs_all[idx], act_all[idx],
                                                          action_masks=train.masks[order[i:i + batch_size]])
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), ret_all[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)   # as PPO's max_grad_norm
            optimizer.step()
            sums += len(idx) * np.array([policy_loss.item(), value_loss.item()])
        held = agreement(policy, held_out)
        record = dict(epoch=epoch, seconds=time.perf_counter() - start, nll=sums[0] / len(train),
                      value_mse=sums[1] / len(train),
                      **{f"held_out_{key}" if key == "value_mse" else key: v for key, v in held.items()})
        history.append(record)
        log(f"warm start epoch {epoch}/{epochs}: nll {record['nll']:.3f}, value mse {record['value_mse']:.3f} "
            f"(held out {held['value_mse']:.3f}); held-out accuracy {held['accuracy']:.3f}, "
            f"{held['choice_accuracy']:.3f} on decisions with a choice ({record['seconds']:.0f} s)")
    for group, lr in zip(optimizer.param_groups, previous_lr):
        group["lr"] = lr
    policy.set_training_mode(False)
    return history


def warm_start(model, make_env: Callable[[], SingleAgentEnv], teacher: str, steps: int, epochs: int,
               seed: int, batch_size: int = 256, learning_rate: float = 1e-3, value_coef: float = 0.5,
               holdout: float = 0.05, progress: bool = False,
               log: Callable[[str], None] = print) -> dict:
    """Collect ``steps`` decisions of ``teacher`` (an agent spec) in ``make_env()`` and fit
    ``model.policy`` to them. Returns the figures for ``curve.json``."""
    if steps <= 0 or epochs <= 0:
        raise ValueError(f"warm start needs steps > 0 and epochs > 0, got steps={steps}, epochs={epochs}")
    env = make_env()
    t0 = time.perf_counter()
    demos = collect(env, make_agent(teacher, env.env_id, seed=seed, config=env.config), steps,
                    gamma=model.gamma, seed=seed, progress=progress)
    collect_seconds = time.perf_counter() - t0
    train, held_out = demos.split(holdout)
    before = agreement(model.policy, held_out)
    log(f"warm start: {len(demos)} decisions of {teacher} in {int(demos.episodes[-1]) + 1} episodes "
        f"({collect_seconds:.0f} s); held-out accuracy before fitting {before['accuracy']:.3f} "
        f"({before['choice_accuracy']:.3f} with a choice)")
    t1 = time.perf_counter()
    history = fit(model.policy, train, held_out, epochs, batch_size, learning_rate, value_coef, seed, log)
    return dict(teacher=teacher, steps=len(demos), episodes=int(demos.episodes[-1]) + 1,
                held_out_steps=len(held_out), collect_seconds=collect_seconds,
                fit_seconds=time.perf_counter() - t1, seconds=time.perf_counter() - t0,
                accuracy_before=before["accuracy"], choice_accuracy_before=before["choice_accuracy"],
                accuracy=history[-1]["accuracy"], choice_accuracy=history[-1]["choice_accuracy"], epochs=history)
