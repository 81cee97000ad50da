"""Peak model whose run_predictions() decorates a fresh @tf.function predict_step on every call.

Source: YosefLab/epitome#43 "Extra TF function retracing"
(https://github.com/YosefLab/epitome/issues/43): `VariationalPeakModel.run_predictions` defines
`@tf.function def predict_step(inputs_b)` in its body; test()/eval_vector() call run_predictions
again and again, so each call builds and traces a new graph ("9 out of the last 9 calls to
<function VariationalPeakModel.run_predictions.<locals>.predict_step> triggered tf.function
retracing"). Changed from the posted code: the genomic data loaders are replaced by a small
random tf.data pipeline, the Bayesian (Flipout) model by a two-input Dense model, the metric
computation is dropped, and `tf.config.experimental_run_functions_eagerly(True)` (a temporary
workaround in the repository, absent when the warning was reported) is left out.
"""
import numpy as np
import tensorflow as tf

TRACES = []


class VariationalPeakModel():
    """Model for learning from ChIP-seq peaks (reduced)."""

    def __init__(self, num_inputs=(8, 4), num_outputs=3, batch_size=16):
        self.batch_size = batch_size
        self.num_inputs = num_inputs
        self.num_outputs = num_outputs
        self.model = self.create_model()

    def create_model(self):
        inputs = [tf.keras.Input(shape=(n,)) for n in self.num_inputs]
        x = tf.keras.layers.Concatenate()(inputs)
        x = tf.keras.layers.Dense(16, activation="relu")(x)
        return tf.keras.Model(inputs, tf.keras.layers.Dense(self.num_outputs)(x))

    def test(self, num_samples, ds):
        return self.run_predictions(num_samples, ds)

    def run_predictions(self, num_samples, iter_, calculate_metrics=False, samples=50):
        batches = int(num_samples / self.batch_size) + 1

        preds_mean = []
        preds_std = []

        @tf.function
        def predict_step(inputs_b):
            TRACES.append(1)
            # sample n times by tiling batch by rows, running
            # predictions for each row
            inputs_tiled = [tf.tile(i, (samples, 1)) for i in inputs_b]
            tmp = self.model(inputs_tiled)
            y_pred = tf.sigmoid(tmp)
            preds = tf.stack(tf.split(y_pred, samples, axis=0), axis=0)
            return tf.math.reduce_mean(preds, axis=0), tf.math.reduce_std(preds, axis=0)

        for f in iter_.take(batches):
            inputs_b = f[:-2]
            mean, std = predict_step(inputs_b)
            preds_mean.append(mean)
            preds_std.append(std)
        return {"preds_mean": tf.concat(preds_mean, 0), "preds_std": tf.concat(preds_std, 0)}


def make_dataset(n=64, batch_size=16):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(n, 8)).astype("float32")
    b = rng.normal(size=(n, 4)).astype("float32")
    labels = rng.integers(0, 2, size=(n, 3)).astype("float32")
    weights = np.ones((n, 3), "float32")
    return tf.data.Dataset.from_tensor_slices((a, b, labels, weights)).batch(batch_size, drop_remainder=True)


if __name__ == "__main__":
    model = VariationalPeakModel()
    ds = make_dataset()
    calls = 6
    for _ in range(calls):  # e.g. validation after every training chunk
        model.test(48, ds)
    traces = len(TRACES)
    print(f"ORACLE: bug={traces >= calls} traces={traces} run_predictions_calls={calls}")
