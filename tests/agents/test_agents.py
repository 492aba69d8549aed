"""Agents and tournaments: protocol, seat rotation, Wilson CIs, ISMCTS's
hidden-information discipline, and a tiny tournament end to end."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import baralho
from baralho.agents import Agent, ISMCTSAgent, RandomAgent, bind_if_needed, make_agent
from baralho.training import tournament as T
from baralho.training.stats import wilson_interval


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:20", "ismcts:0.01s"])
def test_agents_follow_the_protocol_and_the_mask(spec):
    env = baralho.make("rodizio_v1", num_players=3, spicy=True)
    agent = make_agent(spec, "rodizio_v1", seed=0, config=dict(num_players=3, spicy=True))
    assert isinstance(agent, Agent)
    for g in range(3):
        env.reset(seed=g)
        agent.reset(seed=g)
        bind_if_needed(agent, env)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = agent.act(obs, name)
            assert obs["action_mask"][a] == 1
            env.step(a)


@pytest.mark.parametrize("spec", ["randm", "ismcts:abc", "ismcts:0", "heuristic:3", "ppo:/no/such/model.zip"])
def test_bad_agent_specs_are_refused(spec):
    with pytest.raises(ValueError):
        make_agent(spec, "rodizio_v1")


@pytest.mark.parametrize("spec", ["ismcts:nans", "ismcts:infs", "ismcts:-infs", "ismcts:0s", "ismcts:-1s",
                                  "ismcts:-3", "ismcts:0.5"])
def test_ismcts_budgets_that_search_nothing_or_forever_are_refused(spec):
    # nan/inf seconds hung on the first move; 0s and -1s searched nothing
    with pytest.raises(ValueError, match="budget"):
        make_agent(spec, "rodizio_v1")


def test_every_env_has_a_heuristic_that_reads_only_the_observation():
    for env_id in baralho.ENV_IDS:
        env = baralho.make(env_id)
        env.reset(seed=1)
        agent = make_agent("heuristic", env_id, seed=0)
        assert not hasattr(agent, "bind"), "a heuristic must not get the env"
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"][agent.act(obs, env.agent_selection)]


def test_random_agent_is_seeded():
    mask = np.ones(18, np.int8)
    obs = {"action_mask": mask}
    a, b = RandomAgent(5), RandomAgent(5)
    assert [a.act(obs, "p") for _ in range(20)] == [b.act(obs, "p") for _ in range(20)]


def test_ismcts_decisions_ignore_the_true_hidden_state():
    """Swap the true hidden state for another one consistent with the acting
    seat's observation: with the same seed, ISMCTS makes the same decision."""
    game = baralho.make("rodizio_v1", num_players=3, memory="none").unwrapped.game
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(6):
        state = game.new_state(np.random.default_rng(g))
        while not game.is_over(state):
            seat = game.current_player(state)
            for _ in range(30):                       # a truly different hidden state
                other = game.resample_hidden(state, seat, rng)
                if other != state:
                    break
            assert other != state
            a = ISMCTSAgent(simulations=40, seed=123).search(game, state, seat)
            b = ISMCTSAgent(simulations=40, seed=123).search(game, other, seat)
            assert a == b
            checked += 1
            game.apply(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    assert checked > 30


def test_ismcts_beats_random_at_rodizio():
    results = T.run("rodizio_v1", ["random", "ismcts:60"], games=40, num_players=2, workers=1, progress=False)
    summary = T.summarize(results, ["random", "ismcts:60"])
    rates = [a["win_rate"] for a in summary["agents"]]
    assert rates[1] > rates[0] + 0.2


@pytest.mark.parametrize("k, n", [(2, 2), (3, 2), (4, 3), (2, 3), (3, 5), (1, 2)])
def test_every_agent_sits_in_every_seat_equally_often(k, n):
    arr = T.arrangements(k, n)
    for seat in range(n):
        counts = Counter(a[seat] for a in arr)
        assert set(counts) == set(range(k)) and len(set(counts.values())) == 1
    total = Counter(i for a in arr for i in a)
    assert len(set(total.values())) == 1


def test_schedule_plays_each_deal_under_every_arrangement():
    sched = T.schedule(3, 2, games=13)
    assert len(sched) == 18                     # 6 arrangements x 3 deals
    assert {m.deal for m in sched} == {0, 1, 2}


@pytest.mark.parametrize("k, n, lo, hi", [
    # reference values computed by hand from the closed form (z = 1.96); 0/n has upper bound z²/(n + z²)
    (81, 263, 0.2553, 0.3662),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_interval_matches_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-4) and b == pytest.approx(hi, abs=1e-4)


def test_win_means_best_return_and_someone_did_worse():
    assert T.is_win([1.0, -1.0, -1.0], 0) and not T.is_win([1.0, -1.0, -1.0], 1)
    assert not T.is_win([-1.0, -1.0], 0)                    # Rodízio: nobody won
    assert T.is_win([1.0, 1.0, -1.0], 1)                    # shared win


def test_tiny_tournament_end_to_end(tmp_path, capsys):
    from baralho.cli import main

    rc = main(["tournament", "rodizio_v1", "--agents", "random", "heuristic", "--games", "8",
               "--players", "2..3", "--out", str(tmp_path), "--quiet", "--workers", "2",
               "--records", str(tmp_path / "records")])
    assert rc == 0
    from baralho.training import records

    saved = sorted((tmp_path / "records").glob("*.json"))
    assert len(saved) == 8 + 12                  # 2 players: 8 games; 3 players: 6 arrangements x 2 deals
    for _ in records.replay(records.load(saved[0])):
        pass
    md = (tmp_path / "rodizio_v1_2p_3p.md").read_text()
    assert "| heuristic |" in md and "95% CI" in md
    assert (tmp_path / "rodizio_v1_2p_h2h.png").stat().st_size > 1000

    report = json.loads((tmp_path / "rodizio_v1_2p_3p.json").read_text())
    assert set(report["by_players"]) == {"2", "3"}
    assert report["by_players"]["2"]["matches"] == 8
    # another player count into the same folder leaves that report alone
    assert main(["tournament", "rodizio_v1", "--agents", "random", "heuristic", "--games", "2",
                 "--players", "4", "--out", str(tmp_path), "--quiet", "--workers", "1"]) == 0
    assert (tmp_path / "rodizio_v1_4p.md").exists()
    assert json.loads((tmp_path / "rodizio_v1_2p_3p.json").read_text()) == report


@pytest.mark.parametrize("specs", [["random", "heuristic"], ["heuristic", "ismcts:8:h"]])
def test_tournaments_are_deterministic_whatever_the_worker_count(specs):
    # a worker reuses its agents from game to game: each game must start from its own seed only
    a = T.run("rodizio_v1", specs, games=12, num_players=3, workers=1, progress=False)
    b = T.run("rodizio_v1", specs, games=12, num_players=3, workers=2, progress=False)
    assert [(r.deal, r.seats, r.returns) for r in a] == [(r.deal, r.seats, r.returns) for r in b]


def test_a_resumed_tournament_plays_only_what_is_missing_and_matches_a_whole_run(tmp_path, monkeypatch):
    from baralho.training import records

    specs = ["random", "heuristic", "ismcts:8:h"]
    whole = T.run("rodizio_v1", specs, games=18, num_players=2, seed=3, workers=1, progress=False)
    # the first 12 games, recorded; then one record lost, as if the run had been killed
    first = T.run("rodizio_v1", specs, games=12, num_players=2, seed=3, workers=1, progress=False,
                  records_dir=str(tmp_path))
    assert [r.returns for r in first] == [r.returns for r in whole[:12]]
    lost = T.record_path(tmp_path, "rodizio_v1", whole[4])
    lost.unlink()
    played = []
    real = T.play_match
    monkeypatch.setattr(T, "play_match", lambda *a: played.append(a[3]) or real(*a))
    resumed = T.run("rodizio_v1", specs, games=18, num_players=2, seed=3, workers=1, progress=False,
                    records_dir=str(tmp_path), resume=True)
    assert [(r.deal, r.seats, r.returns, r.steps) for r in resumed] == \
        [(r.deal, r.seats, r.returns, r.steps) for r in whole]
    assert sorted((m.deal, m.seats) for m in played) == \
        sorted([(whole[4].deal, whole[4].seats)] + [(r.deal, r.seats) for r in whole[12:]])
    assert lost.exists() and len(list(tmp_path.glob("*.json"))) == 18

    # another tournament's resume into the folder, a record of another tournament copied in,
    # an edited record, and resume without a folder are refused
    with pytest.raises(ValueError, match=r"belongs to another tournament \(seed 3\)"):
        T.run("rodizio_v1", specs, games=6, num_players=2, seed=4, workers=1, progress=False,
              records_dir=str(tmp_path), resume=True)
    with pytest.raises(ValueError, match="belongs to another tournament .agents"):
        T.run("rodizio_v1", ["random", "heuristic", "ismcts:9:h"], games=6, num_players=2, seed=3,
              workers=1, progress=False, records_dir=str(tmp_path), resume=True)
    T.run("rodizio_v1", specs, games=6, num_players=2, seed=4, workers=1, progress=False,
          records_dir=str(tmp_path / "other"))
    other = T.record_path(tmp_path / "other", "rodizio_v1", whole[1])
    kept = T.record_path(tmp_path, "rodizio_v1", whole[1])
    original = kept.read_bytes()
    kept.write_bytes(other.read_bytes())
    with pytest.raises(records.RecordError, match="another tournament: seed"):
        T.run("rodizio_v1", specs, games=6, num_players=2, seed=3, workers=1, progress=False,
              records_dir=str(tmp_path), resume=True)
    kept.write_bytes(original)
    edited = T.record_path(tmp_path, "rodizio_v1", whole[0])
    data = json.loads(edited.read_text())
    data["returns"] = [-x for x in data["returns"]]
    edited.write_text(json.dumps(data))
    with pytest.raises(records.RecordError, match="returns differ"):
        T.run("rodizio_v1", specs, games=6, num_players=2, seed=3, workers=1, progress=False,
              records_dir=str(tmp_path), resume=True)
    with pytest.raises(ValueError, match="resume needs records_dir"):
        T.run("rodizio_v1", specs, games=6, num_players=2, workers=1, progress=False, resume=True)
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_the_zoo_model_loads_by_name_and_plays_legal_moves(env_id):
    from baralho.zoo import available

    if env_id not in available():
        pytest.skip(f"no zoo model for {env_id}")
    agent = make_agent("ppo", env_id, seed=0)
    assert agent.name == f"ppo:{env_id}"
    env = baralho.make(env_id)
    env.reset(seed=5)
    for n, name in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agent.act(obs, name)
        assert obs["action_mask"][a]
        env.step(a)
        if n > 300:      # a Scala 40 or Chuche match is long; 300 moves cover several turns
            break


def test_a_game_without_a_zoo_model_is_refused_clearly(empty_zoo):
    # the v0 policies are retired, and the message says so
    with pytest.raises(ValueError, match=r"no zoo model for 'scala40_v1' at 2 players \(zoo: \[\]\).*v0 .*retired"):
        make_agent("ppo", "scala40_v1")


def test_zoo_export_writes_the_same_policy_as_weights_only(tmp_path):
    import gymnasium
    from sb3_contrib import MaskablePPO

    from baralho.zoo import export

    src = tmp_path / "trained.zip"
    MaskablePPO("MlpPolicy", gymnasium.make(baralho.gym_id("rodizio_v1")), n_steps=64, batch_size=32,
                policy_kwargs=dict(net_arch=[32, 16]), device="cpu").learn(64).save(src)
    card = export(src, tmp_path / "small", "rodizio_v1")
    assert card.name == "small.json" and (tmp_path / "small.npz").exists()
    a = MaskablePPO.load(src, device="cpu")     # our own file, made just above
    b = make_agent(f"ppo:{card}", "rodizio_v1").policy
    assert json.loads(card.read_text())["net_arch"] == {"pi": [32, 16], "vf": [32, 16]}
    env = baralho.make("rodizio_v1")
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    dist = [p.get_distribution(p.obs_to_tensor(obs["observation"])[0],
                               action_masks=obs["action_mask"].astype(bool)).distribution.probs
            for p in (a.policy, b)]
    assert (dist[0] == dist[1]).all()
    assert (tmp_path / "small.npz").stat().st_size < src.stat().st_size
    # a card re-exported is the same policy again
    again = make_agent(f"ppo:{export(card, tmp_path / 'again')}", "rodizio_v1").policy
    assert all((x == y).all() for x, y in zip(b.state_dict().values(), again.state_dict().values()))
    # and how its net searches (the card's search: an expert iteration run's) goes along
    searched = json.loads(card.read_text()) | {"search": {"exploration": 1.0, "mix": 1.0, "temperature": 2.0}}
    card.write_text(json.dumps(searched))
    assert json.loads(export(card, tmp_path / "shipped").read_text())["search"] == searched["search"]


# ---------------------------------------------------------------- guided ISMCTS (ismcts:N:g)

def _key_decisions(env_id: str, config: dict, games: int, per_game: int):
    """(game, state, seat, candidates, agent) at the guided agent's key decisions of
    heuristic-played games: positions where the guide offers more than one move."""
    env = baralho.make(env_id, **config)
    game = env.unwrapped.game
    from baralho.agents import heuristic_for
    from baralho.agents.guides import guide_for

    guide, own = guide_for(game), heuristic_for(env_id, game, seed=0)
    for g in range(games):
        state = game.new_state(np.random.default_rng(g))
        found = 0
        while not game.is_over(state) and found < per_game:
            seat = game.current_player(state)
            obs = {"observation": game.observe(state, seat), "action_mask": game.legal_mask(state)}
            proposal = int(own.act(obs, f"player_{seat}"))
            cands = guide.candidates(own, obs, proposal) if len(np.flatnonzero(obs["action_mask"])) > 1 else [proposal]
            if len(cands) > 1:
                assert cands[0] == proposal and len(set(cands)) == len(cands)
                assert all(obs["action_mask"][a] for a in cands)
                yield env, game, state, seat, cands
                found += 1
            game.apply(state, proposal)


def _guided(env, seed=123):
    agent = ISMCTSAgent(simulations=8, seed=seed, guided=True, rollout_depth=6)
    agent.bind(env)
    return agent


@pytest.mark.parametrize("env_id, config", [("scala40_v1", {"scope": "hand"}), ("roda_de_samba_v1", {})])
def test_guided_ismcts_decisions_ignore_the_true_hidden_state(env_id, config):
    """The guided search too reads the live state only through resample_hidden."""
    rng = np.random.default_rng(0)
    checked = 0
    for env, game, state, seat, cands in _key_decisions(env_id, config, games=2, per_game=3):
        for _ in range(30):
            other = game.resample_hidden(state, seat, rng)
            if other != state:
                break
        assert other != state
        a = _guided(env).search(game, state, seat, cands)
        b = _guided(env).search(game, other, seat, cands)
        assert a == b and a in cands
        checked += 1
    assert checked >= 4


def test_guided_ismcts_with_one_candidate_plays_the_heuristic(monkeypatch):
    """A guide that offers only the proposal leaves every move to the heuristic."""
    from baralho.agents import guides

    monkeypatch.setattr(guides.DefaultGuide, "candidates", lambda self, policy, obs, proposal: [proposal])
    env = baralho.make("chuche_v1")
    agent = make_agent("ismcts:5:g", "chuche_v1", seed=4)
    heuristic = make_agent("heuristic", "chuche_v1", seed=4)
    env.reset(seed=2)
    agent.reset(seed=4)
    bind_if_needed(agent, env)
    moves = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        want = int(legal[0]) if len(legal) == 1 else heuristic.act(obs, name)
        a = agent.act(obs, name)
        assert a == want
        env.step(a)
        moves += 1
    assert moves > 10


@pytest.mark.parametrize("env_id, config", [("scala40_v1", {"scope": "hand"}), ("roda_de_samba_v1", {})])
def test_guided_ismcts_plays_legal_moves(env_id, config):
    env = baralho.make(env_id, **config)
    env.reset(seed=5)
    agents = {name: _guided(env, seed=i) for i, name in enumerate(env.possible_agents)}
    searched = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agents[name].act(obs, name)
        assert obs["action_mask"][a] == 1
        env.step(a)
        searched += 1
        if searched > 120:
            break


def test_guided_spec_and_bad_specs():
    agent = make_agent("ismcts:12:g", "scala40_v1", seed=0)
    assert agent.guided and agent.rollout == "heuristic" and agent.name == "ismcts:12:g"
    with pytest.raises(ValueError):
        make_agent("ismcts:12:x", "scala40_v1")
    with pytest.raises(ValueError):
        ISMCTSAgent(simulations=4, guided=True, rollout_depth=-1)


def test_guided_choice_keeps_the_proposal_unless_an_alternative_is_clearly_better():
    agent = ISMCTSAgent(simulations=8, guided=True)
    rng = np.random.default_rng(0)
    base = rng.normal(size=(12, 1))                          # the deal's luck, shared by the candidates
    clear = np.hstack([base, base + 0.5 + 0.01 * rng.normal(size=(12, 1)), base - 0.2])
    assert agent._choose([7, 8, 9], clear) == 8
    swing = np.array([[1.0], [-0.8]] * 6)                    # +0.1 on average, give or take 0.27
    noisy = np.hstack([base, base + swing, base - 0.2])
    assert noisy[:, 1].mean() > noisy[:, 0].mean()           # better on average, but within the noise
    assert agent._choose([7, 8, 9], noisy) == 7
    assert agent._choose([7, 8], np.hstack([base, base])) == 7   # a tie goes to the proposal


def test_guided_rollouts_are_cut_off_between_turns(monkeypatch):
    """A cut-off rollout is scored at the start of a turn (or the end of the game), never
    half-way through one, whatever ``rollout_depth`` says."""
    from baralho.core.guide import reference_state
    from baralho.envs.scala40.rules import DRAW, OVER

    scored = []
    for env, game, state, seat, cands in _key_decisions("scala40_v1", {"scope": "hand"}, games=1, per_game=2):
        agent = _guided(env)
        monkeypatch.setattr(agent._guide, "evaluate",
                            lambda game, s, scored=scored: scored.append(reference_state(game, s).phase)
                            or game.returns(s))
        for depth in (0, 1, 3):
            agent.rollout_depth = depth
            agent.search(game, state, seat, cands)
    assert len(scored) >= 8 and all(p in (DRAW, OVER) for p in scored)


def test_flat_guided_search_grows_no_tree_below_the_root():
    env, game, state, seat, cands = next(_key_decisions("scala40_v1", {"scope": "hand"}, games=1, per_game=1))
    agent = ISMCTSAgent(simulations=4 * len(cands), seed=0, guided=True, rollout_depth=30, tree=False)
    agent.bind(env)
    paths = []
    backup = agent._backup

    def spy(path, ret):
        paths.append(len(path))
        backup(path, ret)

    agent._backup = spy
    assert agent.search(game, state, seat, cands) in cands
    assert len(paths) == 4 * len(cands) and set(paths) == {1}    # the root move only


def test_scala40_deadwood_counts_what_the_best_melds_leave():
    from baralho.envs.scala40.guide import Scala40Guide
    from baralho.envs.scala40.melds import NUM_KINDS

    game = baralho.make("scala40_v1", engine="reference", scope="hand").unwrapped.game
    state = game.new_state(np.random.default_rng(0))
    hand = [0] * NUM_KINDS
    for k in (10, 11, 12, 23, 24, 25, 1 + 26, 7 + 39):   # J Q K of spades, J Q K of hearts, 2♦, 8♣
        hand[k] += 1
    state.hands[0] = hand
    state.opened = [True, False]
    assert Scala40Guide.deadwood(game, state, 0) == 2 + 8         # two runs of 30 laid, 2 and 8 left
    state.hands[1] = hand[:]
    assert Scala40Guide.deadwood(game, state, 1) == 2 + 8         # unopened, but 60 >= 40 opens
    small = [0] * NUM_KINDS
    for k in (1, 2, 3, 39 + 7):                                   # 2-3-4 of spades (9 points) and 8♣
        small[k] += 1
    state.hands[1] = small
    assert Scala40Guide.deadwood(game, state, 1) == 9 + 8         # unopened, 9 < 40: all of it counts


def _heuristic_positions(games: int):
    """(game, state, seat) before every draw and discard of Scala 40 heuristic self-play
    after the first turn: the positions a guided search starts from."""
    from baralho.agents import heuristic_for
    from baralho.envs.scala40 import actions as A

    game = baralho.make("scala40_v1", engine="reference", scope="hand").unwrapped.game
    for g in range(games):
        players = [heuristic_for("scala40_v1", game, seed=g * 10 + i) for i in range(2)]
        state = game.new_state(np.random.default_rng(100 + g))
        while not game.is_over(state):
            seat = game.current_player(state)
            obs = {"observation": game.observe(state, seat), "action_mask": game.legal_mask(state)}
            a = int(players[seat].act(obs, f"player_{seat}"))
            if state.turn >= 1 and (state.phase == 0 or a >= A.DISCARD):
                yield game, state, seat
            game.apply(state, a)


def test_scala40_belief_keeps_what_a_heuristic_opponent_really_holds_and_rejects_much_else():
    """The opponent model: against the heuristic the true hidden state is always plausible,
    while many uniform redeals are not (melds it would have laid, a card it would have
    discarded first)."""
    from baralho.envs.scala40.guide import Scala40Belief

    belief, rng = Scala40Belief(), np.random.default_rng(0)
    positions = rejected = 0
    for game, state, seat in _heuristic_positions(games=3):
        assert belief.violations(state, seat) == 0
        positions += 1
        rejected += sum(not belief.plausible(game.resample_hidden(state, seat, rng), seat) for _ in range(4))
    assert positions > 40
    assert rejected > 0.3 * 4 * positions


def test_scala40_belief_rejects_an_unopened_opponent_sitting_on_an_opening():
    from baralho.envs.scala40.guide import Scala40Belief
    from baralho.envs.scala40.melds import NUM_KINDS

    for _game, state, seat in _heuristic_positions(games=2):
        prev = 1 - seat
        if state.opened[prev] or state.phase != 0:
            continue
        belief = Scala40Belief()
        det = state.copy()
        hand = [0] * NUM_KINDS
        for k in (10, 11, 12, 23, 24, 25, 1 + 26, 3 + 26, 5 + 39, 7 + 39, 2, 4, 6):  # J Q K ♠ and ♥: 60
            hand[k] += 1
        det.hands[prev] = hand
        assert belief.violations(det, seat) >= 1
        return
    pytest.skip("no unopened opponent met")


def test_filtered_guided_ismcts_decisions_ignore_the_true_hidden_state():
    """With the opponent model filtering determinizations, a swapped hidden state still
    gives the same decision: the filter reads only what resample_hidden drew."""
    env = baralho.make("scala40_v1", scope="hand")
    rng = np.random.default_rng(1)
    checked = filtered = 0
    for game, state, seat in _heuristic_positions(games=2):
        if checked >= 6:
            break
        obs = {"observation": game.observe(state, seat), "action_mask": game.legal_mask(state)}
        agent = _guided(env)
        proposal = int(agent._own.act(obs, f"player_{seat}"))
        cands = agent._guide.candidates(agent._own, obs, proposal)
        if len(cands) < 2:
            continue
        other = next(o for o in (game.resample_hidden(state, seat, rng) for _ in range(30)) if o != state)
        a, b = _guided(env), _guided(env)
        calls = []
        check = a._guide.violations
        a._guide.violations = lambda det, seat, calls=calls, check=check: calls.append(check(det, seat)) or calls[-1]
        assert a.search(game, state, seat, cands) == b.search(game, other, seat, cands)
        filtered += any(calls)
        checked += 1
    assert checked >= 4 and filtered >= 1
