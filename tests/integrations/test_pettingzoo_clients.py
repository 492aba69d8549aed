"""What README promises about PettingZoo's own tooling, run as README shows it: the
registry, state(), the classic wrapper chain, the parallel API, and the SB3 tutorial
recipe (PettingZoo's "Action Masked PPO" tutorial, its wrapper copied as published)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils import BaseWrapper, wrappers

import baralho

needs_registry = pytest.mark.skipif(not hasattr(pettingzoo, "register"),
                                    reason=f"PettingZoo {pettingzoo.__version__} has no registry (1.27 has)")


@needs_registry
@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_pettingzoo_registry_makes_every_env(env_id):
    pz_id = baralho.pettingzoo_id(env_id)
    assert pz_id == "baralho/" + env_id.replace("_v", "-v")
    env = pettingzoo.make("aec", pz_id, num_players=3)
    assert str(env) == env_id and len(env.possible_agents) == 3
    assert str(pettingzoo.make("aec", f"baralho/{env_id}")) == env_id      # PettingZoo's _v1 spelling too
    par = pettingzoo.make("parallel", pz_id)
    assert isinstance(par, pettingzoo.ParallelEnv)
    obs, _ = par.reset(seed=0)
    assert set(obs) == set(par.possible_agents)


@needs_registry
def test_pettingzoo_registry_passes_config_and_refuses_unknown_keys():
    env = pettingzoo.make("aec", "baralho/rodizio-v1", spicy=True)
    assert env.unwrapped.game.config.spicy
    with pytest.raises(ValueError, match="max_cycles"):
        pettingzoo.make("aec", "baralho/rodizio-v1", max_cycles=10)


def test_state_is_aecenvs_and_the_game_state_has_its_own_name():
    # env.unwrapped.game_state, so that AECEnv.state() (a global-state array for CTDE
    # methods, which these envs do not define) keeps PettingZoo's meaning
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="state\\(\\) method has not been implemented"):
        env.state()
    with pytest.raises(NotImplementedError, match="state\\(\\) method has not been implemented"):
        BaseWrapper(env).state()
    assert not callable(env.unwrapped.game_state)
    assert env.unwrapped.game.current_player(BaseWrapper(env).unwrapped.game_state) >= 0


def classic_chain(env, illegal_reward=-1.0):
    """The wrappers PettingZoo's classic envs put around every raw env."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_classic_wrapper_chain_passes_api_test(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # api_test warns on observations that are all zero at times
        api_test(classic_chain(baralho.make(env_id, num_players=3)), num_cycles=100)


def test_classic_chain_terminates_an_illegal_move_instead_of_the_env_raising():
    env = classic_chain(baralho.make("rodizio_v1", num_players=3), illegal_reward=-7.0)
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # PettingZoo warns "Illegal move made"
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -7.0 and sum(env.rewards.values()) == -7.0
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_turn_based_parallel_view_passes_parallel_api_test(env_id):
    parallel_api_test(baralho.parallel_env(env_id, num_players=3), num_cycles=100)


# ----------------------------------------------------------------------------------------
# PettingZoo's SB3 tutorial (tutorials/SB3/connect_four/sb3_connect_four_action_mask.py),
# run on a baralho env module the way it runs connect_four_v3. Its wrapper as published
# but for one change: gymnasium.Env as a second base. The tutorial requires gymnasium
# <= 0.29.1 (it says so); from gymnasium 1.0 sb3-contrib's ActionMasker refuses anything
# that is not a gymnasium.Env. README says so, and points at baralho's own gym view.
class SB3ActionMaskWrapper(BaseWrapper, gym.Env):
    """Wrapper to allow PettingZoo environments to be used with SB3 illegal action masking."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def test_sb3_tutorial_recipe_trains_and_predicts_legal_moves_without_torch_warnings():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    from baralho.envs import rodizio_v1 as env_fn

    env = SB3ActionMaskWrapper(env_fn.env())
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=64, batch_size=32, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, verbose=0)
    with warnings.catch_warnings():
        # torch.as_tensor on a read-only mask warns "The given NumPy array is not writable"
        warnings.filterwarnings("error", message=".*not writable.*")
        model.learn(total_timesteps=128)
        aec = env_fn.env()
        aec.reset(seed=1)
        for agent in aec.agent_iter():
            obs, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"], deterministic=True)
            assert obs["action_mask"][int(action)], agent
            aec.step(int(action))
