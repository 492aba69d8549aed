"""The single-learner views over a batch: gymnasium VectorEnv and SB3 VecEnv, and step(active=)."""

from __future__ import annotations

import numpy as np
import pytest

import baralho.vector as bv
from baralho.vector.gym import LearnerVectorEnv, sb3_vec_env


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_stepping_only_the_active_envs_leaves_the_others_as_they_were(engine):
    venv = bv.make("rodizio_v1", num_envs=6, seed=4, engine=engine, num_players=3)
    obs, mask, seat = venv.reset()
    before = [venv.get_state(i) for i in range(6)]
    active = np.array([True, False, True, False, False, True])
    actions = mask.argmax(1)
    actions[~active] = 99                       # not read for the envs left out
    obs2, mask2, seat2, rewards, done = venv.step(actions, active=active)
    for i in range(6):
        if active[i]:
            assert venv.get_state(i) != before[i]
        else:
            assert venv.get_state(i) == before[i] and np.array_equal(obs2[i], obs[i])
            assert np.array_equal(mask2[i], mask[i]) and not done[i] and (rewards[i] == 0).all()


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_the_learner_acts_only_at_its_seat_and_gets_its_terminal_reward(opponent):
    env = LearnerVectorEnv("rodizio_v1", num_envs=32, opponent=opponent, seed=0, num_players=3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (32, env.venv.obs_size) and info["action_mask"].shape == (32, 18)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        _, _, seat = env.venv.observe()
        assert (seat == env.learner).all()      # every env waits for its learner
        mask = info["action_mask"]
        obs, reward, terminated, truncated, info = env.step((rng.random(mask.shape) * mask).argmax(1))
        assert np.isin(reward[terminated], (-1.0, 1.0)).all() and (reward[~terminated] == 0).all()
        assert not truncated.any()
        ended += terminated.sum()
    assert ended > 32
    assert set(np.unique(env.learner)) == {0, 1, 2}          # a random seat each game


def test_learner_seat_can_be_fixed_and_opponent_can_be_a_batched_policy():
    calls = []

    def first_legal(obs, mask, seat):
        calls.append(len(mask))
        return mask.argmax(1)

    env = LearnerVectorEnv("rodizio_v1", num_envs=8, opponent=first_legal, seat=1, seed=3)
    obs, info = env.reset()
    assert (env.learner == 1).all() and calls and max(calls) <= 8
    with pytest.raises(ValueError, match="seat"):
        LearnerVectorEnv("rodizio_v1", num_envs=2, seat=5)


def test_sb3_maskable_ppo_trains_on_the_vec_env_view():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = sb3_vec_env("rodizio_v1", num_envs=16, opponent="random", seed=0)
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, device="cpu", seed=0)
    model.learn(512)
    obs = venv.reset()
    masks = get_action_masks(venv)
    actions, _ = model.predict(obs, action_masks=masks)
    assert masks[np.arange(16), actions].all()


def test_the_uniform_opponent_never_picks_an_illegal_action_on_a_zero_draw():
    from baralho.vector.gym import _uniform

    class Zeros:                 # a float32 draw of exactly 0 happens once in 2**24
        def random(self, shape, dtype):
            return np.zeros(shape, dtype)

    mask = np.array([[0, 0, 1, 0], [0, 1, 1, 0]], np.int8)
    assert _uniform(Zeros())(None, mask, None).tolist() == [2, 1]
