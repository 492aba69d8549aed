"""Tianshou and TorchRL on baralho envs, through each library's own PettingZoo wrapper.

Both come with the ``integrations`` extra (``pip install -e ".[integrations]"``,
versions tested: tianshou 2.0.1, torchrl 0.14.1 with tensordict 0.14.3); without them
these tests skip.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import baralho


def test_tianshou_pettingzoo_example_with_masked_random_policies():
    """Tianshou's multi-agent recipe (its tic-tac-toe example): PettingZooEnv, one masked
    policy per agent under MultiAgentPolicy, a Collector over vectorised envs."""
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(baralho.make("rodizio_v1", num_players=3))

    env = make()
    assert env.agents == ["player_0", "player_1", "player_2"]
    policy = MultiAgentPolicy({agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
                               for agent in env.agents})
    collector = Collector(policy, DummyVectorEnv([make, make]))
    collector.reset()
    np.random.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # tianshou's summary of 2-D returns
        stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes == 6
    # Rodízio pays +1 to the second highest total(s), -1 to the rest, only at the end:
    # a masked policy never made an illegal move (the env would have raised)
    returns = np.asarray(stats.returns)
    assert returns.shape == (6, 3) and set(np.unique(returns)) <= {-1.0, 1.0}
    assert (returns == -1).any(axis=1).all()


def test_torchrl_pettingzoo_wrapper_with_a_masked_policy():
    pytest.importorskip("torchrl")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.modules import MaskedCategorical

    aec = baralho.make("chuche_v1", num_players=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # "tested using PettingZoo 1.24.3"
        env = PettingZooWrapper(aec, use_mask=True, categorical_actions=True)
    groups = list(env.group_map)
    assert groups == aec.possible_agents        # AEC envs: one group per agent

    def policy(td):
        for group in groups:
            mask = td[group, "action_mask"]
            td[group, "action"] = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()
        return td

    torch.manual_seed(0)
    td = env.reset(seed=0)
    acting = [g for g in groups if td[g, "mask"].item()]
    assert acting == [aec.agent_selection]
    np.testing.assert_array_equal(td[acting[0], "action_mask"][0].numpy(),
                                  aec.observe(aec.agent_selection)["action_mask"].astype(bool))
    rollout = env.rollout(5_000, policy=policy, auto_reset=False, tensordict=td, break_when_any_done=True)
    assert rollout["next", "done"][-1].item(), "the game reached its end within the bound"
    game = aec.unwrapped.game
    returns = game.returns(aec.unwrapped.game_state)
    for seat, group in enumerate(groups):
        assert rollout["next", group, "reward"].sum().item() == pytest.approx(returns[seat])
