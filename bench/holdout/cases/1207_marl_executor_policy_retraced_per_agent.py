"""Multi-agent executor calls a tf.function policy once per agent with the agent id as a Python str.

Source: instadeepai/Mava#391 "[BUG] Remove nested tf.function"
(https://github.com/instadeepai/Mava/issues/391), comment by jcformanek (2022-02-04): "Having
`tf.function` over the `_policy` function in the executor causes retracing as well because
`_policy` is called inside a `for loop` in the `select_actions` function"; the fix (MADQN
executor in Mava#362) puts the loop over agents inside one tf.function. In
`MADQNFeedForwardExecutor`, `select_actions` loops over the agents and `select_action` calls
the `@tf.function _policy(agent=agent, ...)` with `agent` a Python string ("agent_0", ...):
every distinct string is a new trace, so the policy graph is built once per agent.
Changes: sonnet networks and the acme/reverb adder are replaced by a Keras Q-network shared by
all agents (`agent_net_keys`) and an epsilon-greedy module holding epsilon in a tf.Variable as
Mava does; 6 agents, 4 environment steps of random observations.
"""
import collections

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

OLT = collections.namedtuple("OLT", ["observation", "legal_actions", "terminal"])
# traces of _policy: counted by experimental_get_tracing_count() in main


class EpsilonGreedy(tf.Module):
    def __init__(self, epsilon=0.1, name="EpsilonGreedy"):
        super().__init__(name=name)
        self._epsilon = tf.Variable(epsilon, trainable=False)

    def __call__(self, action_values, legal_actions_mask):
        legal_actions_mask = tf.cast(legal_actions_mask, dtype=tf.float32)
        dither_probs = (1 / tf.reduce_sum(legal_actions_mask, axis=-1, keepdims=True)
                        * legal_actions_mask)
        masked_action_values = tf.where(tf.equal(legal_actions_mask, 1), action_values,
                                        tf.fill(tf.shape(action_values), -np.inf))
        max_value = tf.reduce_max(masked_action_values, axis=-1, keepdims=True)
        greedy_probs = tf.cast(tf.equal(masked_action_values, max_value), action_values.dtype)
        greedy_probs /= tf.reduce_sum(greedy_probs, axis=-1, keepdims=True)
        probs = self._epsilon * dither_probs + (1 - self._epsilon) * greedy_probs
        policy = tfp.distributions.Categorical(probs=probs)
        return tf.cast(policy.sample(), "int64")


class MADQNFeedForwardExecutor:
    def __init__(self, q_networks, action_selectors, agent_net_keys):
        self._q_networks = q_networks
        self._action_selectors = action_selectors
        self._agent_net_keys = agent_net_keys

    @tf.function
    def _policy(self, agent, observation, legal_actions):
        # (the case counts traces with experimental_get_tracing_count, see main)
        # Add a dummy batch dimension and as a side effect convert numpy to TF.
        batched_observation = tf.expand_dims(observation, axis=0)
        batched_legals = tf.expand_dims(legal_actions, axis=0)

        # index network either on agent type or on agent id
        agent_net_key = self._agent_net_keys[agent]
        q_values = self._q_networks[agent_net_key](batched_observation)

        action = self._action_selectors[agent](
            action_values=q_values, legal_actions_mask=batched_legals
        )
        return action

    def select_action(self, agent, observation):
        action = self._policy(
            agent=agent,
            observation=observation.observation,
            legal_actions=observation.legal_actions,
        )
        return np.squeeze(action.numpy(), axis=0)

    def select_actions(self, observations):
        actions = {}
        for agent, observation in observations.items():
            actions[agent] = self.select_action(agent, observation)
        return actions


def main():
    agents = [f"agent_{i}" for i in range(6)]
    obs_dim, num_actions = 8, 4
    q_network = tf.keras.Sequential([
        tf.keras.layers.Input(shape=(obs_dim,)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(num_actions),
    ])
    executor = MADQNFeedForwardExecutor(
        q_networks={"network_agent": q_network},
        action_selectors={a: EpsilonGreedy() for a in agents},
        agent_net_keys={a: "network_agent" for a in agents},
    )
    rng = np.random.default_rng(0)
    for _ in range(4):
        observations = {
            a: OLT(observation=rng.normal(size=obs_dim).astype(np.float32),
                   legal_actions=np.ones(num_actions, np.float32),
                   terminal=np.zeros((), np.float32))
            for a in agents
        }
        executor.select_actions(observations)
    traces = executor._policy.experimental_get_tracing_count()
    print("traces of _policy:", traces, "for", len(agents), "agents")
    print(f"ORACLE: bug={traces > 1} policy_traces={traces} agents={len(agents)}")


if __name__ == "__main__":
    main()
