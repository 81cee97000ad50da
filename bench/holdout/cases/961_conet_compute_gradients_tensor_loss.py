"""CoNet (cross-domain recommendation network) migrated to TF2: compute_gradients on a loss tensor.

Source: njuhugn/CoNet#1 "question about the compute_gradients"
(https://github.com/njuhugn/CoNet/issues/1): running `build_model_app_training` with TF 2.x,
`grads_and_vars = self.opt_app.compute_gradients(self.loss_app_only, params)` raises
"ValueError: tape is required when a Tensor loss is passed"; the reporter notes that
`self.loss_app_only` "is not callable". In eager TF2 the loss is an already computed tensor, and
the Keras optimizer cannot differentiate it without the tape that recorded it.
Changes: placeholders become one random batch of (user, app) pairs passed to
`build_model_app_training`, the user/app counts and layer sizes are small, `tf.random_normal` is
`tf.random.normal`, `xrange` is `range`; `tf.train.AdamOptimizer` (gone in TF2) becomes
`tf.keras.optimizers.Adam`, the optimizer whose message the reporter quotes.
TF_USE_LEGACY_KERAS=1 because Keras 3 optimizers have no `compute_gradients`.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

from collections import defaultdict

import numpy as np
import tensorflow as tf


class CoNet(object):
    def __init__(self, config):
        self.nUsers = config['nUsers']
        self.nItems_app = config['nItems_app']
        self.edim_u = config['edim_u']
        self.edim_v = config['edim_v']
        self.edim = self.edim_u + self.edim_v
        self.layers = config['layers']
        self.nhop = len(self.layers)
        self.init_std = config['init_std']
        self.max_grad_norm = config['max_grad_norm']
        self.activation = config['activation']
        self.learner = config['learner']
        self.objective = config['objective']
        self.class_size = 2  # (pos, neg)
        self.current_lr = config['init_lr']
        self.cross_layers = config['cross_layers']
        self.global_step = tf.Variable(0, name='global_step', trainable=False)

    def build_memory_shared(self):
        self.U = tf.Variable(tf.random.normal([self.nUsers, self.edim_u], stddev=self.init_std))
        self.shared_Hs = defaultdict(object)
        for h in range(1, self.cross_layers + 1):
            self.shared_Hs[h] = tf.Variable(tf.random.normal([self.layers[h - 1], self.layers[h]], stddev=self.init_std))

    def build_memory_app_specific(self):
        self.V_app = tf.Variable(tf.random.normal([self.nItems_app, self.edim_v], stddev=self.init_std))
        self.weights_app = defaultdict(object)
        self.biases_app = defaultdict(object)
        for h in range(1, self.nhop):
            self.weights_app[h] = tf.Variable(tf.random.normal([self.layers[h - 1], self.layers[h]], stddev=self.init_std))
            self.biases_app[h] = tf.Variable(tf.random.normal([self.layers[h]], stddev=self.init_std))
        self.h_app = tf.Variable(tf.random.normal([self.layers[-1], self.class_size], stddev=self.init_std))
        self.b_app = tf.Variable(tf.random.normal([self.class_size], stddev=self.init_std))

    def build_model_app_training(self, input_app, target_app):
        # 1. input & embedding layer
        USERin_app = tf.nn.embedding_lookup(self.U, input_app[:, 0])
        ITEMin_app = tf.nn.embedding_lookup(self.V_app, input_app[:, 1])
        UIin_app = tf.concat(values=[USERin_app, ITEMin_app], axis=1)

        # 2. MLP: hidden layers
        self.layer_h_apps = defaultdict(object)
        layer_h_app = tf.reshape(UIin_app, [-1, self.edim])
        self.layer_h_apps[0] = layer_h_app
        for h in range(1, self.nhop):
            layer_h_app = tf.add(tf.matmul(self.layer_h_apps[h - 1], self.weights_app[h]), self.biases_app[h])
            if self.activation == 'relu':
                layer_h_app = tf.nn.relu(layer_h_app)
            elif self.activation == 'sigmoid':
                layer_h_app = tf.nn.sigmoid(layer_h_app)
            self.layer_h_apps[h] = layer_h_app

        # 3. output layer: dense and linear
        self.z_app_only = tf.matmul(layer_h_app, self.h_app) + self.b_app
        self.pred_app_only = tf.nn.softmax(self.z_app_only)

        ## ------- loss and optimization ------- ##
        if self.objective == 'cross':
            self.loss_app_only = tf.nn.softmax_cross_entropy_with_logits(logits=self.z_app_only, labels=target_app)
        else:
            self.loss_app_only = tf.compat.v1.losses.log_loss(predictions=self.pred_app_only, labels=target_app)

        self.lr = tf.Variable(self.current_lr)
        if self.learner == 'adam':
            self.opt_app = tf.keras.optimizers.Adam(self.lr)
        else:
            self.opt_app = tf.keras.optimizers.SGD(learning_rate=self.lr)

        params = [self.U, self.V_app, self.h_app, self.b_app]
        for h in range(1, self.nhop):
            params.append(self.weights_app[h])
            params.append(self.biases_app[h])
        grads_and_vars = self.opt_app.compute_gradients(self.loss_app_only, params)
        clipped_grads_and_vars = [(tf.clip_by_norm(gv[0], self.max_grad_norm), gv[1]) for gv in grads_and_vars]

        self.global_step.assign_add(1)
        self.optim_app = self.opt_app.apply_gradients(clipped_grads_and_vars)


def main():
    config = {'nUsers': 20, 'nItems_app': 15, 'edim_u': 8, 'edim_v': 8, 'layers': [16, 8, 4],
              'init_std': 0.01, 'max_grad_norm': 50, 'activation': 'relu', 'learner': 'adam',
              'objective': 'cross', 'init_lr': 0.001, 'cross_layers': 1}
    rng = np.random.default_rng(0)
    input_app = tf.constant(np.stack([rng.integers(0, 20, 32), rng.integers(0, 15, 32)], axis=1), tf.int32)
    labels = rng.integers(0, 2, 32)
    target_app = tf.constant(np.eye(2)[labels], tf.float32)

    model = CoNet(config)
    model.build_memory_shared()
    model.build_memory_app_specific()
    try:
        model.build_model_app_training(input_app, target_app)
        print("ORACLE: bug=False trained_one_step=True")
    except ValueError as exc:
        print("ValueError:", str(exc).splitlines()[0][:100])
        print("ORACLE: bug=True error=ValueError")


if __name__ == "__main__":
    main()
