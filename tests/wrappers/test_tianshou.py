"""Tianshou 2.x on the multi-agent learning view, with no adapter code.

``tianshou.env.PettingZooEnv(MultiSeatEnv(...))`` is all the glue: Tianshou reads the
``{"observation", "action_mask"}`` observation as its ``obs``/``mask``, one DQN per learning
seat trains through ``MultiAgentOffPolicyAlgorithm``, and masked choices never reach the game.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

tianshou = pytest.importorskip("tianshou")  # an optional dependency (the `tianshou` extra)

from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Batch, Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from cluegym.wrappers.multiseat import MultiSeatEnv  # noqa: E402

#: (game, learning seats, opponents): a turn-based pair and a simultaneous five-seat vote.
SETUPS = [
    ("decrypto", "bob,eve", {"alice": "random"}),
    ("undercover", "all", {}),
]


class RejectionLog:
    """Builds the envs and records every error the game reports to a learning seat.

    Wrapping the game env's ``step`` is test instrumentation, not glue: Tianshou sees the
    ``PettingZooEnv(MultiSeatEnv(...))`` a user would build.
    """

    def __init__(self, game: str, learners: str, opponents: dict[str, str]) -> None:
        self.game, self.learners, self.opponents = game, learners, opponents
        self.errors: list[tuple[str, str]] = []
        self.learner_steps = 0

    def make(self) -> PettingZooEnv:
        multiseat = MultiSeatEnv(self.game, self.learners, opponents=self.opponents, numeric_infos=True)
        game_env, inner_step = multiseat.game_env, multiseat.game_env.step

        def step(action):
            seat = game_env.agent_selection
            inner_step(action)
            if seat in multiseat.tasks and action is not None:
                error = game_env.infos.get(seat, {}).get("error")
                self.learner_steps += 1
                if error:
                    self.errors.append((seat, error))

        game_env.step = step
        return PettingZooEnv(multiseat)


def _dqn(env: PettingZooEnv) -> DQN:
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.3)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=20)


@pytest.mark.parametrize("game, learners, opponents", SETUPS)
def test_dqn_per_seat_trains_through_pettingzoo_env(game, learners, opponents):
    torch.manual_seed(0)
    # Tianshou's epsilon-greedy exploration draws from NumPy's global generator.
    np.random.seed(0)
    torch.set_num_threads(1)
    log = RejectionLog(game, learners, opponents)
    env = log.make()
    assert env.agents == MultiSeatEnv(game, learners, opponents=opponents).possible_agents
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[_dqn(env) for _ in env.agents], env=env)
    before = {seat: [p.detach().clone() for p in algorithm.get_algorithm(seat).policy.model.parameters()]
              for seat in env.agents}
    train_envs = DummyVectorEnv([log.make, log.make])
    train_envs.seed([0, 1])
    collector = Collector(algorithm, train_envs, VectorReplayBuffer(1_000, len(train_envs)), exploration_noise=True)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, max_epochs=2, epoch_num_steps=150, collection_step_num_env_steps=30,
        batch_size=16, update_step_num_gradient_steps_per_sample=0.2, test_collector=None,
        show_progress=False, verbose=False))

    assert result.train_step >= 300 and result.update_step > 0, "training collected and updated"
    for seat in env.agents:  # every seat's own network was updated
        after = list(algorithm.get_algorithm(seat).policy.model.parameters())
        assert any(not torch.equal(a, b) for a, b in zip(after, before[seat])), f"{seat}'s DQN never updated"

    data = collector.buffer.sample(0)[0]  # every stored transition
    assert set(np.unique(data.obs.agent_id)) == set(env.agents), "every learning seat decided"
    chosen_legal = data.obs.mask[np.arange(len(data)), data.act.astype(int)]
    assert chosen_legal.all(), "exploration and greedy choices stay inside the mask"
    assert log.learner_steps >= 300 and not log.errors, f"the game rejected learner choices: {log.errors[:3]}"

    # The trained policies, greedy, on fresh games: every choice legal.
    greedy_log = RejectionLog(game, learners, opponents)
    algorithm.policy.eval()
    for seat in env.agents:
        algorithm.get_algorithm(seat).policy.set_eps_inference(0.0)
    eval_env = greedy_log.make()
    observation, _ = eval_env.reset(seed=7)
    decisions = 0
    while decisions < 60:
        batch = Batch(obs=Batch(obs=observation["obs"][None], mask=np.asarray(observation["mask"])[None],
                                agent_id=np.array([observation["agent_id"]], dtype=object)), info=Batch())
        with torch.no_grad():
            action = int(algorithm.policy(batch).act[0])
        assert observation["mask"][action], f"{observation['agent_id']} chose masked choice {action}"
        observation, _, terminated, truncated, _ = eval_env.step(action)
        decisions += 1
        if terminated or truncated:
            observation, _ = eval_env.reset()
    assert not greedy_log.errors
