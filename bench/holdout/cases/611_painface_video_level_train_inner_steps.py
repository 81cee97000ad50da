"""Cross-validation sweep calling a training function that defines its @tf.function steps inside.

Source: sofiabroome/painface-recognition#4 "Probable performance issues"
(https://github.com/sofiabroome/painface-recognition/issues/4): `video_level_train` (train.py)
defines `@tf.function def train_step` and `@tf.function def validation_step` in its body and is
called for every fold of main_wandb_crossval_sweep.py, so every call traces both steps anew.
Changed from the repository: wandb/tqdm logging, the MIL/sparse pain losses and checkpointing
are dropped; the video features are random tensors, the model is a small Dense classifier, and
the same model is passed to every fold so that only the re-definition causes the new traces.
"""
import numpy as np
import tensorflow as tf

TRACES = {"train": 0, "val": 0}


def video_level_train(model, optimizer, config_dict, train_dataset=None, val_dataset=None):
    loss_fn = tf.keras.losses.BinaryCrossentropy()
    train_acc_metric = tf.keras.metrics.BinaryAccuracy()
    val_acc_metric = tf.keras.metrics.BinaryAccuracy()

    @tf.function
    def train_step(x, y):
        TRACES["train"] += 1
        with tf.GradientTape() as tape:
            preds = model(x, training=True)
            loss = loss_fn(y, preds)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y, preds)
        return grads, loss

    @tf.function
    def validation_step(x, y):
        TRACES["val"] += 1
        preds = model(x, training=False)
        loss = loss_fn(y, preds)
        val_acc_metric.update_state(y, preds)
        return loss

    for epoch in range(config_dict['video_nb_epochs']):
        for step, sample in enumerate(train_dataset):
            feats_batch, labels_batch = sample
            grads, loss_value = train_step(feats_batch, labels_batch)
        train_acc_metric.reset_state()
        for step, sample in enumerate(val_dataset):
            feats_batch, labels_batch = sample
            loss_value = validation_step(feats_batch, labels_batch)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_state()
    return float(val_acc)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    feats = rng.normal(size=(40, 16)).astype("float32")
    labels = rng.integers(0, 2, size=(40, 2)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(2, activation="sigmoid")])
    optimizer = tf.keras.optimizers.Adam(1e-3)
    config_dict = {'video_nb_epochs': 2}
    folds = 4
    for fold in range(folds):  # main_wandb_crossval_sweep: one call per held-out subject
        idx = np.arange(40) % folds != fold
        train_dataset = tf.data.Dataset.from_tensor_slices((feats[idx], labels[idx])).batch(10, drop_remainder=True)
        val_dataset = tf.data.Dataset.from_tensor_slices((feats[~idx], labels[~idx])).batch(10, drop_remainder=True)
        video_level_train(model, optimizer, config_dict, train_dataset, val_dataset)
    print(f"ORACLE: bug={TRACES['train'] >= folds} train_step_traces={TRACES['train']} "
          f"validation_step_traces={TRACES['val']} calls={folds}")
