"""Peak model with predict_step decorated once, as a method, outside run_predictions (the fix).

Source: YosefLab/epitome#43 "Extra TF function retracing"
(https://github.com/YosefLab/epitome/issues/43), fixed by YosefLab/epitome#48 "Move tf.function
outside of predict functions and fix Pyranges issue" (https://github.com/YosefLab/epitome/pull/48):
the graph function is defined once, so repeated run_predictions() calls reuse one trace.
Changed from the repository: random tf.data pipeline and a small Dense model instead of the
genomic loaders and the Bayesian model; metrics dropped.
"""
import numpy as np
import tensorflow as tf



class VariationalPeakModel():
    """Model for learning from ChIP-seq peaks (reduced)."""

    def __init__(self, num_inputs=(8, 4), num_outputs=3, batch_size=16, samples=50):
        self.batch_size = batch_size
        self.num_inputs = num_inputs
        self.num_outputs = num_outputs
        self.samples = samples
        self.model = self.create_model()

    def create_model(self):
        inputs = [tf.keras.Input(shape=(n,)) for n in self.num_inputs]
        x = tf.keras.layers.Concatenate()(inputs)
        x = tf.keras.layers.Dense(16, activation="relu")(x)
        return tf.keras.Model(inputs, tf.keras.layers.Dense(self.num_outputs)(x))

    def test(self, num_samples, ds):
        return self.run_predictions(num_samples, ds)

    @tf.function
    def predict_step(self, inputs_b):
        samples = self.samples
        inputs_tiled = [tf.tile(i, (samples, 1)) for i in inputs_b]
        tmp = self.model(inputs_tiled)
        y_pred = tf.sigmoid(tmp)
        preds = tf.stack(tf.split(y_pred, samples, axis=0), axis=0)
        return tf.math.reduce_mean(preds, axis=0), tf.math.reduce_std(preds, axis=0)

    def run_predictions(self, num_samples, iter_, calculate_metrics=False):
        batches = int(num_samples / self.batch_size) + 1
        preds_mean = []
        preds_std = []
        for f in iter_.take(batches):
            inputs_b = f[:-2]
            mean, std = self.predict_step(inputs_b)
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
    for _ in range(calls):
        model.test(48, ds)
    traces = model.predict_step.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= calls} traces={traces} run_predictions_calls={calls}")
