"""DQN update: the online network is trained, the target network only gives bootstrap values."""
import numpy as np
import tensorflow as tf


def q_net():
    return tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(2)])


online = q_net()
target = q_net()
target.set_weights(online.get_weights())
optimizer = tf.keras.optimizers.Adam(1e-3)


def dqn_update(obs, actions, rewards, next_obs, gamma=0.99):
    next_q = tf.reduce_max(target(next_obs), axis=1)
    y = rewards + gamma * next_q
    with tf.GradientTape() as tape:
        q = online(obs)
        q_taken = tf.reduce_sum(q * tf.one_hot(actions, 2), axis=1)
        loss = tf.reduce_mean(tf.square(y - q_taken))
    grads = tape.gradient(loss, online.trainable_variables)
    optimizer.apply_gradients(zip(grads, online.trainable_variables))
    return loss


rng = np.random.default_rng(17)
for it in range(4):
    obs = tf.constant(rng.normal(size=(32, 4)).astype("float32"))
    nxt = tf.constant(rng.normal(size=(32, 4)).astype("float32"))
    acts = tf.constant(rng.integers(0, 2, size=32).astype("int32"))
    rew = tf.constant(rng.normal(size=32).astype("float32"))
    loss = dqn_update(obs, acts, rew, nxt)
print("td loss", float(loss))
