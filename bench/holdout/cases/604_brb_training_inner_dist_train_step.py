"""Belief-rule-base k-fold experiment: training() defines @tf.function dist_train_step on each call.

Source: Eriri/brb#2 "Performance issue about tf.function" (https://github.com/Eriri/brb/issues/2):
`training` (code/bid.py) wraps `dist_train_step` in `@tf.function` inside its body and main()
calls `training` for every fold of every experiment, so each call traces the distributed step
again (the thread notes the step depends on variables local to `training`).
Changed from the repository: the ecoli data set is replaced by random features and labels,
the k-fold helper by a few index splits, the model is smaller, one epoch per fold, and the
tf.summary logging is dropped; the default strategy replaces MirroredStrategy's GPU devices.
"""
import numpy as np
import tensorflow as tf

tf.keras.backend.set_floatx('float64')
TRACES = []


def generate_variable(shape):
    return tf.Variable(tf.random.normal(shape, dtype=tf.float64), dtype=tf.float64, trainable=True)


class BModel(tf.Module):
    def __init__(self, rule_num, att_dim, res_dim):
        super(BModel, self).__init__()
        self.a = generate_variable((rule_num, att_dim,))
        self.d = generate_variable((att_dim,))
        self.b = generate_variable((rule_num, res_dim,))
        self.r = generate_variable((rule_num,))

    def __call__(self, x):
        w = tf.math.exp(tf.math.negative(
            tf.math.square(self.a - tf.expand_dims(x, -2)) * tf.math.exp(self.d)))
        aw = tf.reduce_sum(tf.where(tf.math.is_nan(w), tf.zeros_like(w), w), -1) * tf.math.exp(self.r)
        bc = tf.reduce_prod(tf.expand_dims(aw / (tf.expand_dims(tf.reduce_sum(aw, -1), -1) - aw), -1) * tf.nn.softmax(self.b) + 1.0, -2) - 1.0
        pc = bc / tf.expand_dims(tf.reduce_sum(bc, -1), -1)
        return tf.where(tf.math.is_nan(pc), tf.zeros_like(pc), pc)


def training(rule_num, att_dim, res_dim, x, y, bs=16, ep=1):
    s = tf.distribute.get_strategy()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64).batch(bs, drop_remainder=True).repeat(ep)
    ds = s.experimental_distribute_dataset(ds)
    with s.scope():
        model = BModel(rule_num, att_dim, res_dim)
        opt, tv = tf.optimizers.Adam(), model.trainable_variables

        def calculate_loss(y_true, y_pred):
            return tf.nn.compute_average_loss(
                tf.keras.losses.categorical_crossentropy(y_true, y_pred),
                global_batch_size=bs)

        def train_step(x, y):
            with tf.GradientTape(persistent=True) as gt:
                loss = calculate_loss(y, model(x))
            opt.apply_gradients(zip(gt.gradient(loss, tv), tv))
            return loss

        @tf.function
        def dist_train_step(x, y):
            TRACES.append(1)
            per_loss = s.run(train_step, args=(x, y,))
            return s.reduce(tf.distribute.ReduceOp.SUM, per_loss, None)

        for step, (x, y) in enumerate(ds):
            loss = dist_train_step(x, y)
    return model


def main():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(80, 5))
    target = rng.integers(0, 3, size=80)
    folds = 5
    acc = tf.metrics.Accuracy()
    for k in range(folds):
        test_idx = np.arange(80) % folds == k
        train_data, train_target = data[~test_idx], target[~test_idx]
        test_data, test_target = data[test_idx], target[test_idx]
        model = training(8, 5, 3, train_data, np.eye(3)[train_target])
        test_pred = tf.math.argmax(model(test_data), -1)
        acc.update_state(test_target, test_pred)
    return folds


if __name__ == "__main__":
    calls = main()
    print(f"ORACLE: bug={len(TRACES) >= calls} dist_train_step_traces={len(TRACES)} training_calls={calls}")
