"""Correct look-alike: the critic's TD target V(s') is computed before the GradientTape on purpose.

Source: tensorlayer/TensorLayer#1071 "problem about tutorial_AC . why should 'v_' be placed here"
(https://github.com/tensorlayer/TensorLayer/issues/1071). In the actor-critic tutorial the
critic's `learn` computes `v_ = self.model(np.array([state_]))` above
`with tf.GradientTape() as tape:` and only `v = self.model(np.array([state]))` inside it;
the reporter asks why (moving `v_` into the tape made the model not converge). The maintainer
answers that `v_` is the target value, which is not supposed to be optimized, like a label in
supervised learning. The forward pass that must be differentiated (`v`) is on the tape, so
the critic's gradients are all present.
Changes: TensorLayer's Model is a small Keras model; CartPole is replaced by random 4-number
states and rewards; 10 learning steps.
"""
import numpy as np
import tensorflow as tf

LAM = 0.9  # reward discount in TD error
LR_C = 0.01


class Critic(object):

    def __init__(self, n_features, lr=LR_C):
        self.model = tf.keras.Sequential([
            tf.keras.layers.Input(shape=(n_features,)),
            tf.keras.layers.Dense(30, activation="relu", name="hidden"),
            tf.keras.layers.Dense(1, name="V"),
        ])
        self.optimizer = tf.optimizers.Adam(lr)
        self.none_grads = 0

    def learn(self, state, reward, state_):
        v_ = self.model(np.array([state_]))
        with tf.GradientTape() as tape:
            v = self.model(np.array([state]))
            ## TD_error = r + lambda * V(newS) - V(S)
            td_error = reward + LAM * v_ - v
            loss = tf.square(td_error)
        grad = tape.gradient(loss, self.model.trainable_weights)
        self.none_grads += sum(g is None for g in grad)
        self.optimizer.apply_gradients(zip(grad, self.model.trainable_weights))
        return td_error


def main():
    rng = np.random.default_rng(0)
    critic = Critic(n_features=4)
    state = rng.normal(size=4).astype(np.float32)
    for _ in range(10):
        state_ = rng.normal(size=4).astype(np.float32)
        reward = float(rng.random())
        critic.learn(state, reward, state_)
        state = state_
    print("None gradients:", critic.none_grads)
    print(f"ORACLE: bug={critic.none_grads > 0} none_gradients={critic.none_grads}")


if __name__ == "__main__":
    main()
