"""A small DQN learner with a target network update inside a tf.function."""
import tensorflow as tf


class Learner(tf.Module):
    def __init__(self, model, target_model, gamma=0.99):
        self.model = model
        self.target_model = target_model
        self.gamma = gamma
        self.optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train(self, states, actions, rewards, next_states, dones):
        step = tf.Variable(0, dtype=tf.int64)  # a new variable on every trace
        step.assign_add(1)
        next_q = tf.reduce_max(self.target_model(next_states), axis=1)
        targets = rewards + self.gamma * next_q * (1.0 - dones)
        with tf.GradientTape() as tape:
            q = tf.reduce_sum(self.model(states) * tf.one_hot(actions, 2), axis=1)
            loss = tf.reduce_mean(tf.square(targets - q))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss
