#!/usr/bin/env python3
"""The labels of the report corpus, written with the text of the labelled lines.

labels.json is generated from this file (``python catalog.py``) so that a label names
its root-cause line by its text, not by a number that drifts when a case is edited:
``line`` (and each of ``alt``) is a substring that must occur exactly once in the code of
the case's files (module docstrings are not searched; for a notebook the cell holding it
is also recorded). ``python
catalog.py --check`` verifies that labels.json is up to date and exits 1 otherwise.

Sources are public threads: ``src`` is their address (the first one is the main
source), ``title`` the thread's title, ``kind`` one of github-issue, github-pr, qa
(Q&A / forum / blog posts, the seeds of this project among them).
``python catalog.py --tables`` prints the family and case tables of the README.
"""
from __future__ import annotations

import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
LABELS = os.path.join(HERE, "labels.json")

SEED0 = "shared/seeds/000_79d60a25feeeec3a.txt (Chinese blog/Q&A post on tapes in double loops)"
SEED1 = "shared/seeds/001_14662b533dfed873.txt (Stack Overflow question, Chinese translation)"
SEED3 = "shared/seeds/003_db6fc64a560434bd.txt (Stack Overflow question, Chinese translation)"
SEED4 = "shared/seeds/004_fa787a00b66c339f.txt (Stack Exchange question, Chinese answer)"

# Family names follow the dev corpus (shared/corpus/dev) where one fits; the others are new.
FAMILIES = {
    "tape-nested-rebind": "an inner `with tf.GradientTape() as NAME` reuses the outer tape's name",
    "tape-outside": "the target, or the forward pass it depends on, is computed outside the tape's block",
    "tape-higher-order-outside": "(new) a first-order gradient taken after the block, then differentiated again",
    "tape-reused": "a non-persistent tape asked for gradients twice",
    "tape-stale": "a tape kept across episodes: data recorded by an earlier tape",
    "tape-unwatched-constant": "sources the tape never watches (watch_accessed_variables=False, plain tensors)",
    "tape-integer-source": "an integer source (int Variable)",
    "tape-watch-symbolic-input": "(new) `tape.watch(model.input(s))`: the symbolic Keras inputs, not the batch",
    "param-not-variable": "(new) a parameter to update in place is a tensor, not a tf.Variable",
    "grad-numpy-escape": ".numpy() / float() / NumPy on the differentiated path",
    "grad-nondiff-op": "argmax / round / floor / comparisons on the path (also in Lambda layers and losses)",
    "grad-numpy-function": "tf.numpy_function / py_func on the path",
    "grad-through-assign": "a value routed through Variable.assign / assign_add / set_weights",
    "grad-through-optimizer-step": "(new) a meta-gradient expected through optimizer.apply_gradients",
    "grad-unconnected-target": "sources not connected to the target (re-wrapped variables, empty variable lists)",
    "grad-symbolic-api-eager": "(new) K.gradients / tf.gradients called eagerly in TF2",
    "optimizer-minimize-tensor": "minimize() given a tensor, or a callable returning a precomputed tensor",
    "tffunc-variable-creation": "variables, optimizers, K.variable created while a tf.function traces",
    "tffunc-variable-argument": "(new) a variable passed as a tf.function argument (seed 003)",
    "tffunc-python-side-effect": "Python state changed inside a tf.function",
    "keras-train-step-side-effect": "(new) Python state changed inside a Keras train_step traced by fit()",
    "data-map-python-side-effect": "(new) Python/NumPy randomness in a tf.data map function",
    "tffunc-frozen-python-state": "Python values read (or Python conditions decided) at trace time, changed later",
    "tffunc-iterator-per-call": "(new) an iterator created inside the tf.function, so it restarts on every call",
    "tffunc-retracing-python-scalar": "Python numbers that change per call (also from another tf.function's loop)",
    "tffunc-recreated": "tf.functions defined inside a function that is called in a loop",
    "tffunc-list-in-tf-loop": "a Python list appended inside a graph loop",
    "tffunc-numpy-in-graph": "(new) .numpy() / NumPy on symbolic tensors inside traced code (tf.function, fit)",
    "tensor-numpy-method": "a NumPy-only method (.astype, .sum) called on a tf.Tensor",
    "mapfn-vectorizable": "tf.map_fn over work that one vectorized op does (speed-up measured) vs per-row work",
    "tf1-control-flow-tape": "TF1 graph mode: a GradientTape over v1 map_fn",
}


def gh(repo: str, number: int, pr: bool = False) -> str:
    return f"https://github.com/{repo}/{'pull' if pr else 'issues'}/{number}"


CATALOG: list[dict] = [
    # ---- GradientTape: names, blocks, reuse -------------------------------------------
    dict(case="001_nested_tape_rebind_x4.py", positive=True, family="tape-nested-rebind",
         line="with tf.GradientTape(persistent=False) as tape:\n            dy", alt=["dy = tape.gradient(target=y, sources=x)"],
         src=[SEED0], title="双重或双层循环中tf.GradientTape的注意点", kind="qa", repo="-",
         tf_symptom="dy is None", context="toy derivative (x**4), nested tapes",
         note="The inner `with ... as tape` rebinds the outer tape's name; the gradient is asked of the inner tape, which recorded nothing."),
    dict(case="002_single_tape_x4.py", positive=False, family="tape-nested-rebind",
         line="dy = tape.gradient(target=y, sources=x)", src=[SEED0],
         title="双重或双层循环中tf.GradientTape的注意点", kind="qa", repo="-",
         tf_symptom="none; dy = 108", context="toy derivative (x**4), one tape",
         note="The author's working version: one tape, gradient asked inside its block."),
    dict(case="003_reinforce_tape_across_episodes.py", positive=True, family="tape-stale",
         line="with tf.GradientTape(persistent=True) as tape:", alt=["grads = tape.gradient(loss, self.trainable_variables)"],
         src=[SEED0, gh("dragen1860/Deep-Learning-with-TensorFlow-book", 218)], title="14章reinforce算法有疑问",
         kind="github-issue", repo="dragen1860/Deep-Learning-with-TensorFlow-book",
         tf_symptom="ValueError: No gradients provided for any variable (transition recorded by the previous episode's tape)",
         context="RL (REINFORCE, keras.Model policy, persistent tape per episode)", expect="No gradients provided",
         note="After `break`, the episode's last transition stays in self.data; the next episode's tape never recorded it, so its gradients are all None."),
    dict(case="004_gradient_of_call_outside_tape.py", positive=True, family="tape-outside",
         line="return t.gradient(f(x), x)", src=[gh("tensorflow/tensorflow", 27660)],
         title="gradient not computed unless variable is assigned.", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="gradient is None", context="helper computing d/dx f(x)",
         note="f(x) is evaluated in the argument of tape.gradient, after the block: the tape never recorded it."),
    dict(case="005_gradient_of_call_inside_tape.py", positive=False, family="tape-outside",
         line="return t.gradient(f(x), x)", src=[gh("tensorflow/tensorflow", 27660)],
         title="gradient not computed unless variable is assigned.", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="none; gradient 18.0", context="helper computing d/dx f(x)",
         note="The reporter's fix: the same call inside the block, so f(x) is recorded."),
    dict(case="006_cnn_logits_before_train_step.py", positive=True, family="tape-outside",
         line="logits = model(image_batch)", alt=["gradient_of_cnn = cnn_tape.gradient(loss, model.trainable_variables)"],
         src=[gh("tensorflow/tensorflow", 28836), gh("ftramer/ensemble-adv-training", 4)],
         title="No gradients provided for any variable: ['cnn_model_14/conv2d_42/kernel:0', ...]",
         kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="ValueError: No gradients provided for any variable", expect="No gradients provided",
         context="CNN classifier, tf.function train step fed with precomputed logits",
         note="The forward pass runs in the epoch loop; train_step's tape only records the loss of a constant."),
    dict(case="007_tfp_joint_scale_exp_before_tape.py", positive=True, family="tape-outside",
         line="joint = tfd.JointDistributionSequential([tfd.Normal(loc=loc_1, scale=tf.exp(logscale_1)),",
         alt=["grads = tape.gradient(ll, [loc_1, loc_2, logscale_1, logscale_2])"],
         src=[gh("tensorflow/probability", 1165)], title="Gradients are None", kind="github-issue",
         repo="tensorflow/probability", tf_symptom="gradients w.r.t. logscale_1, logscale_2 are None",
         context="TFP joint distribution with variable parameters",
         note="tf.exp(logscale) is computed once, at construction, before the tape; only the locations (read in log_prob) get gradients."),
    dict(case="008_tfp_normal_built_outside_tape.py", positive=False, family="tape-outside",
         line="normal = tfd.Normal(loc=var1, scale=var2)", src=[gh("tensorflow/probability", 285)],
         title="tf.identity op on parameters in Distribution \"breaks\" GradientTape", kind="github-issue",
         repo="tensorflow/probability", tf_symptom="none on TFP 0.25: both gradients exist",
         context="TFP distribution built outside the tape", note="Reported in 2019 (parameters stored as tf.identity at construction); the symptom is gone."),
    dict(case="009_second_derivative_after_block.py", positive=True, family="tape-higher-order-outside",
         line="grads = tape.gradient(w, y)  # 2*y*v", alt=["dgradsdv = tape.gradient(grads, v)"],
         src=[gh("tensorflow/tensorflow", 41510)],
         title="ValueError: Tape is still recording, This can happen if you try to re-enter an already-active tape.",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="second-order gradient is None",
         context="mixed second derivative with a persistent tape",
         note="The first gradient is computed after the block, so it is not recorded and cannot be differentiated again."),
    dict(case="010_second_derivative_inside_block.py", positive=False, family="tape-higher-order-outside",
         line="grads = tape.gradient(w, y)  # 2*y*v", src=[gh("tensorflow/tensorflow", 41510)],
         title="ValueError: Tape is still recording, This can happen if you try to re-enter an already-active tape.",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="none; 12.0 and 4.0",
         context="mixed second derivative with a persistent tape",
         note="First gradient inside the persistent tape's block (recorded), second outside."),
    dict(case="011_two_losses_one_tape.py", positive=True, family="tape-reused",
         line="clf_grads = tape.gradient(clf_loss, classifier.trainable_variables)",
         src=[gh("tensorflow/tensorflow", 31265)], title="No gradients provided for any variable", kind="github-issue",
         repo="tensorflow/tensorflow", expect="non-persistent GradientTape",
         tf_symptom="RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients",
         context="autoencoder + classifier, two optimizers", note="Two gradient calls on a default (non-persistent) tape."),
    dict(case="012_two_losses_persistent_tape.py", positive=False, family="tape-reused",
         line="clf_grads = tape.gradient(clf_loss, classifier.trainable_variables)",
         src=[gh("tensorflow/tensorflow", 31265)], title="No gradients provided for any variable", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none", context="autoencoder + classifier, two optimizers",
         note="The answer's fix: persistent=True and del tape."),
    dict(case="013_gan_single_tape_proposal.py", positive=True, family="tape-reused",
         line="gradients_of_discriminator = tape.gradient(disc_loss, self.GAN.D.trainable_variables)",
         src=[gh("manicman1999/StyleGAN2-Tensorflow-2.0", 14)], title="Why two gradient tapes are used?",
         kind="github-issue", repo="manicman1999/StyleGAN2-Tensorflow-2.0", expect="non-persistent GradientTape",
         tf_symptom="RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients",
         context="GAN trainer class", note="The single-tape rewrite proposed in the question."),
    dict(case="014_dcgan_gradients_inside_with.py", positive=False, family="tape-reused",
         line="gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)",
         src=[gh("tensorflow/docs", 1391, pr=True)], title="Indentation fixes for with statement.", kind="github-pr",
         repo="tensorflow/docs", tf_symptom="none", context="DCGAN tutorial step, two tapes",
         note="Gradient calls inside the two tapes' block: each tape is asked once, so this works."),
]

CATALOG += [
    # ---- sources the tape does not track: plain tensors, integers, symbolic inputs ----
    dict(case="015_mlp_bias_plain_tensor.py", positive=True, family="param-not-variable",
         line="b1 = tf.zeros([512])", alt=["p.assign_sub(lr * g)    # update the parameters"],
         src=[gh("dragen1860/Deep-Learning-with-TensorFlow-book", 156)], title="p.assign_sub(lr * g)报错",
         kind="github-issue", repo="dragen1860/Deep-Learning-with-TensorFlow-book", expect="has no attribute 'assign_sub'",
         tf_symptom="AttributeError: 'EagerTensor' object has no attribute 'assign_sub' (the gradient itself exists: b1 feeds a recorded op)",
         context="MLP from scratch (book chapter 5), manual SGD",
         note="b1 is tf.zeros, not a Variable: the manual update cannot assign it, and it would never be trained."),
    dict(case="016_int_variable_sgd_minimize.py", positive=True, family="tape-integer-source",
         line='x = tf.Variable(3, name="x")', alt=['opt.minimize(lambda: (x - 1) ** 2, var_list=[x])'],
         src=[gh("tensorflow/tensorflow", 43845)],
         title="\"No gradients provided\" with GradientDescentOptimizer if not using float variable",
         kind="github-issue", repo="tensorflow/tensorflow", expect="No gradients provided",
         tf_symptom="ValueError: No gradients provided for any variable", context="toy minimisation, compat.v1 optimizer",
         note="An int32 Variable: integer sources get no gradient."),
    dict(case="017_float_variable_sgd_minimize.py", positive=False, family="tape-integer-source",
         line='x = tf.Variable(3.0, name="x")', src=[gh("tensorflow/tensorflow", 43845)],
         title="\"No gradients provided\" with GradientDescentOptimizer if not using float variable",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="none; x moves towards 1",
         context="toy minimisation, compat.v1 optimizer", note="The float version."),
    dict(case="018_watch_model_inputs.py", positive=True, family="tape-watch-symbolic-input",
         line="        tape.watch(model.inputs)", alt=["print(tape.gradient(loss, model.inputs))"],
         src=[gh("tensorflow/tensorflow", 31264)], title="GradientTape() unable to compute the gradient wrt Keras model inputs",
         kind="github-issue", repo="tensorflow/tensorflow", expect="KerasTensor|\\[None\\]",
         tf_symptom="[None] in TF 2.0; Keras 3: ValueError, a KerasTensor cannot be watched",
         context="Keras Sequential classifier, eager train step",
         note="model.inputs are the symbolic inputs of the model, not the batch it was called on."),
    dict(case="019_watch_images.py", positive=False, family="tape-watch-symbolic-input",
         line="        tape.watch(images)", src=[gh("tensorflow/tensorflow", 31264)],
         title="GradientTape() unable to compute the gradient wrt Keras model inputs", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none", context="Keras Sequential classifier, eager train step",
         note="alextp's answer: watch the batch itself."),
    dict(case="020_watch_model_input_variable_fed.py", positive=True, family="tape-watch-symbolic-input",
         line="        tape.watch(model.input)", alt=["by_input = tape.gradient(model_vals, model.input)"],
         src=[gh("tensorflow/tensorflow", 36596)], title="tf.keras GradientTape: get gradient with respect to input",
         kind="github-issue", repo="tensorflow/tensorflow", expect="KerasTensor|grad_is_none=True",
         tf_symptom="gradient w.r.t. model.input is None (Keras 3: ValueError on watching a KerasTensor)",
         context="Keras functional model called on a tf.Variable",
         note="The model ran on v; model.input is a symbolic placeholder that no computation used."),
    dict(case="021_physics_loss_watch_model_input.py", positive=True, family="tape-watch-symbolic-input",
         line="x_tensor = tf.convert_to_tensor(model.input, dtype=tf.float32)", alt=["t.watch(x_tensor)", "output = model(model.input)"],
         src=[gh("tensorflow/tensorflow", 52383)],
         title="Inputs to eager execution function cannot be Keras symbolic tensors, Custom loss function, Tensorflow 2.3.0, Gradient Tape",
         kind="github-issue", repo="tensorflow/tensorflow", expect="KerasTensor|symbolic|no defined input",
         tf_symptom="error: a symbolic Keras tensor used as a tensor inside the loss", context="physics-informed loss in compile()/fit()",
         note="The loss differentiates the symbolic model.input instead of the batch fit() feeds."),
    # ---- leaving TensorFlow on the differentiated path, non-differentiable ops ----------
    dict(case="022_gan_moments_numpy_in_tape.py", positive=True, family="grad-numpy-escape",
         line="dg_fake_decision = D(get_moments(g_fake_data.numpy().T).reshape((1, 4)))",
         alt=["grads = tape.gradient(g_error, G.trainable_variables)"],
         src=[gh("tensorflow/tensorflow", 31919)], title="tf.GradientTape().tape() is returning None on the generator loss",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="all generator gradients are None",
         context="toy 1-D GAN (GANs in 50 lines port)", note=".numpy() and NumPy moments between G and D."),
    dict(case="023_histogram_distance_loss_float.py", positive=True, family="grad-numpy-escape",
         line="losses.append(float(loss))", alt=["return loss_value, tape.gradient(loss_value, model.trainable_variables)"],
         src=[gh("tensorflow/tensorflow", 30190)], title="TF 2.0: tf.GradientTape().gradient() returns None",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="all gradients are None",
         context="Iris classifier (custom training walkthrough) with a histogram-distance loss",
         note="float() of each per-sample loss, NumPy histogram, converted back to a constant."),
    dict(case="024_custom_loss_numpy_under_fit.py", positive=True, family="tffunc-numpy-in-graph",
         line="y_in = y_pred.numpy()", src=[gh("keras-team/keras", 12057)],
         title="does it only keras or backend function can be used in custom loss function?", kind="github-issue",
         repo="keras-team/keras", expect="numpy", tf_symptom="AttributeError: 'SymbolicTensor' object has no attribute 'numpy'",
         context="custom loss in compile()/fit()", note="fit() traces the loss: y_pred is symbolic there."),
    dict(case="025_argmax_lambda_between_layers.py", positive=True, family="grad-nondiff-op",
         line="encoder_outputs = Lambda(K.argmax, arguments={'axis': -1})(encoder_outputs)",
         src=[gh("keras-team/keras", 11157)], title="backend argmax has none for gradients. Can you even define one?",
         kind="github-issue", repo="keras-team/keras", tf_symptom="no gradient for any layer before the argmax",
         context="Keras functional encoder-decoder with Lambda layers", note="argmax (then cast) in the middle of the model."),
    dict(case="026_round_in_custom_loss.py", positive=True, family="grad-nondiff-op",
         line="y_pred_rounded = K.round(y_pred)", src=[gh("keras-team/keras", 4175)],
         title="Error using K.round() in custom loss function", kind="github-issue", repo="keras-team/keras",
         expect="No gradients provided|weights_changed=False", tf_symptom="ValueError: No gradients provided for any variable",
         context="custom loss in compile()/fit()", note="round() has no gradient: the loss is constant for the optimizer."),
    dict(case="027_argmax_between_generator_discriminator.py", positive=True, family="grad-nondiff-op",
         line='out2 = Lambda(lambda x: K.cast(K.expand_dims(K.argmax(x)), dtype="float32"))(out1)',
         src=[gh("eriklindernoren/Keras-GAN", 61)], title="argmax between generator and discriminator",
         kind="github-issue", repo="eriklindernoren/Keras-GAN", tf_symptom="generator gradients are all None",
         context="Keras GAN, combined model with a Lambda layer", note="argmax of the generator's mask before the discriminator."),
    dict(case="028_floor_sampling_lambda_layer.py", positive=True, family="grad-nondiff-op",
         line="return tf.floor(x + tf.random.uniform(tf.shape(x), 0, 1))", alt=["model.add(Lambda(FloorSampling, output_shape=lambda x: x))"],
         src=[gh("keras-team/keras", 5521)], title="Error using K.round() and tf.floor() in custom layers",
         kind="github-issue", repo="keras-team/keras", tf_symptom="all gradients are None",
         context="Keras Sequential with a Lambda sampling layer", note="tf.floor has no gradient (registered as None)."),
    dict(case="029_count_correct_round_loss.py", positive=True, family="grad-nondiff-op",
         line="correct_count = tf.math.count_nonzero(tf.math.equal(tf.round(prediction), tf.cast(output, tf.float32)))",
         src=[gh("tensorflow/tensorflow", 58614)], title="Gradient return None", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="all gradients are None", context="custom training loop in a trainer class",
         note="A count of correct rounded predictions: round/equal/count_nonzero are not differentiable."),
    dict(case="030_spearman_numpy_function_loss.py", positive=True, family="grad-numpy-function",
         line="rank_a, rank_b = tf.numpy_function(rankdata, [a], Tout=tf.float32)",
         src=[gh("tensorflow/tensorflow", 35713)], title="No gradient in custom loss function", kind="github-issue",
         repo="tensorflow/tensorflow", expect="No gradients provided",
         tf_symptom="ValueError: No gradients provided for any variable", context="custom loss in compile()/fit()",
         note="Ranks computed by scipy through tf.numpy_function: no gradient."),
    dict(case="031_py_func_keras_layer.py", positive=True, family="grad-numpy-function",
         line="return tf.reshape(tf.compat.v1.py_func(__function, [X], tf.float32), shape=(-1, *X.shape[1:]))",
         src=[gh("cleverhans-lab/cleverhans", 432)],
         title="tf.gradients(loss, x) returns None. Is CleverHans asking me to implement the gradient for a newly defined operation?",
         kind="github-issue", repo="cleverhans-lab/cleverhans", tf_symptom="input gradient is None",
         context="custom Keras layer wrapping NumPy, FGSM-style input gradient", note="py_func has no gradient."),
]

CATALOG += [
    # ---- gradients expected through assignments and optimizer steps ---------------------
    dict(case="032_model_call_assigns_weight.py", positive=True, family="grad-through-assign",
         line="self.w.assign(x)", alt=["g = tape.gradient(log_posterior, x)"],
         src=[gh("tensorflow/tensorflow", 54532)],
         title="tape.gradient returns None when assign is used in a model for computation of a function",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="gradient w.r.t. x is None",
         context="Keras model as log-posterior for HMC", note="x reaches the output only through Variable.assign."),
    dict(case="033_memory_layer_assign_state.py", positive=True, family="grad-through-assign",
         line="self.key_memory.assign(self.key_memory * (1.0 - erase) + erase)",
         src=[gh("tensorflow/tensorflow", 54568), gh("keras-team/keras", 16128)],
         title="How to propagate gradients after a assign op?", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="the write controller's gradients are None (\"Gradients do not exist for variables\")",
         context="custom Keras layer with a memory updated in call()",
         note="The controller's output only reaches the loss through the assigned memory."),
    dict(case="034_maml_copy_model_set_weights.py", positive=True, family="grad-through-assign",
         line="copied_model.set_weights(model.get_weights())", alt=["meta_grads = test_tape.gradient(test_loss, model.trainable_variables)"],
         src=[gh("tensorflow/tensorflow", 34335)], title="[TF 2.0] Nested Gradient Tape - unconnected graphs",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="all meta-gradients are None",
         context="meta-learning (MAML) with a copied Keras model",
         note="set_weights copies values (assignments); the adapted copy is not connected to the meta-model."),
    dict(case="035_meta_loop_assign_add.py", positive=True, family="grad-through-assign",
         line="v.assign_add(x)", alt=["g = t.gradient(loss, x)"], src=[gh("tensorflow/tensorflow", 30234)],
         title="How to calculate gradients for meta learning loop?", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="gradient w.r.t. x is None", context="meta-learning loop (maintainer's reduction)",
         note="The adapted value is stored with assign_add, which the tape does not differentiate."),
    dict(case="036_meta_loop_tensor_update.py", positive=False, family="grad-through-assign",
         line="adapted = v + x", src=[gh("tensorflow/tensorflow", 30234)],
         title="How to calculate gradients for meta learning loop?", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="none; gradient 6.0", context="meta-learning loop (maintainer's fix)",
         note="The adapted value is a tensor."),
    dict(case="037_meta_gradient_through_apply_gradients.py", positive=True, family="grad-through-optimizer-step",
         line="optimizer.apply_gradients(zip(grads, [w]))", alt=["meta_grad = outer.gradient(val_loss, log_lr)"],
         src=[gh("tensorflow/tensorflow", 55181)],
         title="Make computation of higher order gradients through apply_gradients possible",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="meta-gradient is None",
         context="hyper-gradient of the learning rate", note="apply_gradients updates w by assignment: not differentiable."),
    # ---- target not connected to the sources asked for -----------------------------------
    dict(case="038_tfp_transformed_variable_in_tape.py", positive=True, family="grad-unconnected-target",
         line="scale=tfp.util.TransformedVariable(scale_1, tfp.bijectors.Exp(), name='scale_1')),",
         alt=["grads = tape.gradient(nll, [loc_1, loc_2, scale_1, scale_2])"],
         src=[gh("tensorflow/probability", 1167)], title="No gradients when using bijector and TransformedVariable",
         kind="github-issue", repo="tensorflow/probability", tf_symptom="gradients w.r.t. scale_1, scale_2 are None",
         context="TFP joint distribution", note="TransformedVariable(scale_1, ...) creates a new variable from scale_1's value."),
    dict(case="039_tfp_distribution_trainable_variables.py", positive=True, family="grad-unconnected-target",
         line="grads = tape.gradient(loss, y_dist.trainable_variables)",
         alt=["optimizer.apply_gradients(zip(grads, y_dist.trainable_variables))"],
         src=[gh("tensorflow/probability", 1431)],
         title="Training for the parameters of a probabilistic model does not work when use .trainable_variables",
         kind="github-issue", repo="tensorflow/probability", expect="beta_moved=False|No gradients|not enough values to unpack",
         tf_symptom="the distribution has no variables: Keras 3 apply_gradients fails on the empty list (ValueError), beta never trains", context="TFP Poisson regression in a tf.function",
         note="The distribution is built from tensors computed from beta; its trainable_variables is empty."),
    dict(case="040_tfp_explicit_variable_list.py", positive=False, family="grad-unconnected-target",
         line="grads = tape.gradient(loss, [beta])", src=[gh("tensorflow/probability", 1431)],
         title="Training for the parameters of a probabilistic model does not work when use .trainable_variables",
         kind="github-issue", repo="tensorflow/probability", tf_symptom="none; beta trains",
         context="TFP Poisson regression in a tf.function", note="The reporter's working version."),
    # ---- graph-mode gradient APIs in eager TF2 ------------------------------------------
    dict(case="nb_041_deep_dream_k_gradients.ipynb", positive=True, family="grad-symbolic-api-eager",
         line="grads = K.gradients(loss, dream)[0]", src=[gh("fchollet/deep-learning-with-python-notebooks", 169)],
         title="K.gradients (chapter -8)", kind="github-issue", repo="fchollet/deep-learning-with-python-notebooks",
         expect="tf.gradients is not supported when eager execution is enabled",
         tf_symptom="RuntimeError: tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.",
         context="notebook: Deep Dream (book notebook), Keras 2 backend", note="K.gradients is tf.gradients: graph mode only."),
    dict(case="042_ewc_fisher_k_gradients.py", positive=True, family="grad-symbolic-api-eager",
         line="grads = K.gradients(K.log(model.output), model.weights)[m]",
         src=[gh("King-Of-Knights/overcoming-catastrophic", 1)], title="gradients problem", kind="github-issue",
         repo="King-Of-Knights/overcoming-catastrophic", expect="tf.gradients is not supported when eager execution is enabled",
         tf_symptom="RuntimeError: tf.gradients is not supported when eager execution is enabled",
         context="continual learning (EWC Fisher information)", note="K.gradients in eager TF2."),
    dict(case="043_ewc_fisher_gradient_tape.py", positive=False, family="grad-symbolic-api-eager",
         line="gradients = tape.gradient(K.log(output), model.weights[m])",
         src=[gh("King-Of-Knights/overcoming-catastrophic", 1)], title="gradients problem", kind="github-issue",
         repo="King-Of-Knights/overcoming-catastrophic", tf_symptom="none; Fisher terms are non-zero",
         context="continual learning (EWC Fisher information)", note="The GradientTape rewrite from the thread."),
    dict(case="044_tfp_lbfgs_tf_gradients.py", positive=True, family="grad-symbolic-api-eager",
         line="return value, tf.gradients(value, x)[0]", src=[gh("tensorflow/probability", 624)],
         title="LBFGS documentation example error in TensorFlow 2.0", kind="github-issue", repo="tensorflow/probability",
         expect="tf.gradients is not supported when eager execution is enabled",
         tf_symptom="RuntimeError: tf.gradients is not supported when eager execution is enabled",
         context="TFP L-BFGS optimiser (documentation example)", note="tf.gradients inside the objective, run eagerly."),
    dict(case="045_tfp_lbfgs_value_and_gradient.py", positive=False, family="grad-symbolic-api-eager",
         line="return tfp.math.value_and_gradient(", src=[gh("tensorflow/probability", 624)],
         title="LBFGS documentation example error in TensorFlow 2.0", kind="github-issue", repo="tensorflow/probability",
         tf_symptom="none; converges to the minimum", context="TFP L-BFGS optimiser (documentation example)",
         note="The TF2 form of the example."),
    dict(case="046_k_gradients_in_lambda_layer.py", positive=True, family="grad-symbolic-api-eager",
         line="V = tf.keras.layers.Lambda(lambda z: K.gradients(z[0], z[1]), output_shape=[1])([y, x])",
         src=[gh("tensorflow/tensorflow", 31719)], title="keras.backend.gradients shows error as tf.gradients",
         kind="github-issue", repo="tensorflow/tensorflow", expect="tf.gradients is not supported when eager execution is enabled",
         tf_symptom="RuntimeError when the model is called eagerly", context="Keras functional model with a gradient Lambda layer",
         note="The Lambda runs K.gradients when the model is called on an eager tensor."),
    # ---- optimizer.minimize given a value instead of a loss function -------------------
    dict(case="047_regression_minimize_tensor_loss.py", positive=True, family="optimizer-minimize-tensor",
         line="adam_opt.minimize(fx, [X])", alt=["fx = f_batch_tensorflow(X, C, D)"],
         src=[gh("tensorflow/tensorflow", 29944)], title="[TF 2.0] tf.keras.optimizers.Adam", kind="github-issue",
         repo="tensorflow/tensorflow", expect="not callable|tape. is required",
         tf_symptom="TypeError 'EagerTensor' object is not callable (tf_keras 2.21: ValueError `tape` is required when a `Tensor` loss is passed)",
         context="least-squares regression with a Keras 2 optimizer", note="minimize() needs a callable (or a tape) in eager mode."),
    dict(case="048_som_minimize_tensor_loss.py", positive=True, family="optimizer-minimize-tensor",
         line="optimizer.minimize(loss, self.weightage_vects)", src=[gh("tensorflow/tensorflow", 37933)],
         title="TypeError: 'tensorflow.python.framework.ops.EagerTensor' object is not callable", kind="github-issue",
         repo="tensorflow/tensorflow", expect="not callable|tape. is required",
         tf_symptom="TypeError / ValueError: a Tensor loss without a tape", context="self-organising map class migrated from TF 1.14",
         note="The loss tensor goes to minimize()."),
    dict(case="049_minimize_lambda_returns_precomputed.py", positive=True, family="optimizer-minimize-tensor",
         line="loss = lambda: cost", alt=["train_step = tf.keras.optimizers.Adam(0.5).minimize(loss, var_list=[y_N])"],
         src=[gh("tensorflow/tensorflow", 42167)], title="ValueError: No gradients provided for any variable",
         kind="github-issue", repo="tensorflow/tensorflow", expect="No gradients provided",
         tf_symptom="ValueError: No gradients provided for any variable", context="toy minimisation, Keras 2 optimizer",
         note="The callable returns a tensor computed before minimize() opened its tape."),
    dict(case="050_minimize_lambda_computes_loss.py", positive=False, family="optimizer-minimize-tensor",
         line="loss = lambda: -tf.reduce_mean(", src=[gh("tensorflow/tensorflow", 42167)],
         title="ValueError: No gradients provided for any variable", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="none; y_N moves", context="toy minimisation, Keras 2 optimizer", note="The answer's fix."),
    dict(case="pkg_051_netnmf_sc", positive=True, family="optimizer-minimize-tensor",
         line="train_step = optimizer.minimize(cost)", src=[gh("raphael-group/netNMF-sc", 3)],
         title="RuntimeError: `loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled",
         kind="github-issue", repo="raphael-group/netNMF-sc", expect="should be a function when eager execution is enabled",
         tf_symptom="RuntimeError: `loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled",
         context="package: NMF class in classes.py (compat.v1 optimizer), entry point main.py",
         note="TF1 graph-style code: the cost tensor is passed to a tf.compat.v1 optimizer's minimize() in eager TF2."),
]


def _code_lines(text: str) -> list[str]:
    """The lines of a module with its docstring blanked, so that labels match code only."""
    lines = text.split("\n")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return lines
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        for i in range(body[0].lineno - 1, body[0].end_lineno):
            lines[i] = ""
    return lines

CATALOG += [
    # ---- tf.function: variables and optimizers created while tracing --------------------
    dict(case="052_variable_in_tf_function_body.py", positive=True, family="tffunc-variable-creation",
         line="b = tf.Variable(12.)", src=[gh("tensorflow/tensorflow", 26812), SEED1],
         title="Can't declare tf.Variable in @tf.function decorated function", kind="github-issue",
         repo="tensorflow/tensorflow", expect="singleton tf.Variables|non-first call",
         tf_symptom="ValueError: tf.function only supports singleton tf.Variables created on the first call",
         context="plain function decorated with tf.function", note="A Variable created in the traced body."),
    dict(case="053_variable_global_none_guard.py", positive=False, family="tffunc-variable-creation",
         line="b = tf.Variable(12.)", src=[SEED1, gh("tensorflow/tensorflow", 26812)],
         title="tf.function-decorated function tried to create variables on non-first call", kind="qa", repo="-",
         tf_symptom="none", context="plain function decorated with tf.function",
         note="The answer's structure: a global created once behind `if b is None`."),
    dict(case="062_optimizer_created_in_train_step.py", positive=True, family="tffunc-variable-creation",
         line="optim = optimizers.Adam(0.001)", src=[gh("tensorflow/tensorflow", 27120)],
         title="tf.function-decorated function tried to create variables on non-first call", kind="github-issue",
         repo="tensorflow/tensorflow", expect="singleton tf.Variables|non-first call",
         tf_symptom="ValueError: tf.function only supports singleton tf.Variables created on the first call",
         context="seq2seq tf.function train step", note="A new optimizer (and its slot variables) per traced call."),
    dict(case="063_adam_minimize_inside_tf_function.py", positive=True, family="tffunc-variable-creation",
         line="tf.keras.optimizers.Adam(0.5).minimize(loss, var_list=[y_N])", src=[gh("tensorflow/tensorflow", 42183)],
         title="Adam optimizer - ValueError: tf.function-decorated function tried to create variables on non-first call",
         kind="github-issue", repo="tensorflow/tensorflow", expect="singleton tf.Variables|non-first call",
         tf_symptom="ValueError: tf.function only supports singleton tf.Variables created on the first call",
         context="toy minimisation inside a tf.function (Keras 2 optimizer)", note="The optimizer is constructed in the traced body."),
    dict(case="064_k_variable_in_weighted_loss.py", positive=True, family="tffunc-variable-creation",
         line="weights = K.variable(weights)",
         src=[gh("dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors", 1)],
         title="ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function.",
         kind="github-issue", repo="dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors",
         expect="singleton tf.Variables|non-first call",
         tf_symptom="ValueError: tf.function only supports singleton tf.Variables created on the first call",
         context="segmentation loss in compile()/fit()", note="The loss creates a variable each time Keras traces its train function."),
    dict(case="060_one_train_step_two_optimizers.py", positive=False, family="tffunc-variable-creation",
         line="optimizer.apply_gradients(zip(gradients, model.trainable_variables))", src=[gh("tensorflow/tensorflow", 34983)],
         title="ValueError: tf.function-decorated function tried to create variables on non-first call", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none on TF 2.21 / Keras 3 (the step retraces per optimizer argument)",
         context="one tf.function step, two optimizers in sequence",
         note="Reported on TF 2.0; Keras 3 optimizers passed as arguments build their variables without error."),
    dict(case="061_fresh_train_step_per_experiment.py", positive=False, family="tffunc-variable-creation",
         line="train_step = get_apply_grad_fn()", src=[gh("tensorflow/tensorflow", 42000)],
         title="Report error 'non-first' call when repeate experiment", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="none; one trace per experiment", context="repeated experiments, tf.function factory",
         note="bhack's workaround: a new tf.function per experiment, traced once and reused for its steps."),
    # ---- Python side effects, randomness and state in traced code -----------------------
    dict(case="054_dqn_train_trace_time_buffer_check.py", positive=True, family="tffunc-frozen-python-state",
         line="if len(self.experience['s']) < self.min_experiences:", alt=["net.train(target)"],
         src=[SEED1], title="tf.function-decorated function tried to create variables on non-first call",
         kind="qa", repo="-", tf_symptom="the network never trains (the traced function returns 0 forever)",
         context="RL (DQN agent class, tf.function train method)",
         note="The Python length check is decided at trace time, while the buffer is still short."),
    dict(case="055_python_counter_in_tf_function.py", positive=True, family="tffunc-python-side-effect",
         line="o.value += 1", src=[gh("tensorflow/tensorflow", 31362)],
         title="Non-tensorflow code gets executed only on the first run of tf.function", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="value is 1 after 5 calls", context="tf.function with a Python object argument",
         note="A Python attribute update runs only while tracing."),
    dict(case="056_dataset_map_np_randint.py", positive=True, family="data-map-python-side-effect",
         line="x[f] = np.random.randint(low=low, high=high)", alt=["mapped = dataset.map(test_function)"],
         src=[gh("tensorflow/tensorflow", 60848)], title="tf.data.Dataset.map does not support randomization",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="the same 'random' value for every element and epoch",
         context="tf.data map function", note="The map function is traced once: the NumPy draw is a constant."),
    dict(case="057_dataset_map_tf_random_uniform.py", positive=False, family="data-map-python-side-effect",
         line="x[f] = tf.random.uniform(shape=(), minval=low, maxval=high, dtype=tf.int32)",
         src=[gh("tensorflow/tensorflow", 60848)], title="tf.data.Dataset.map does not support randomization",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="none; values vary", context="tf.data map function",
         note="The reporter's toggle: a TensorFlow random op."),
    dict(case="058_segmentation_loader_random_sample.py", positive=True, family="data-map-python-side-effect",
         line="augment_func = random.sample(options, 1)[0]", alt=["data = data.map(self._map_function)"],
         src=[gh("HasnainRaz/SemSegPipeline", 10, pr=True)], title="creating parent map function + flexible augmentations",
         kind="github-pr", repo="HasnainRaz/SemSegPipeline", tf_symptom="one augmentation for every element",
         context="segmentation data loader class, tf.data map method", note="random.sample runs once, while map traces."),
    dict(case="059_iterator_created_inside_tf_function.py", positive=True, family="tffunc-iterator-per-call",
         line="iterator = iter(ds)", src=[gh("tensorflow/tensorflow", 55359)], title="tf2.0 dataset disable_eager_execution",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="the first element on every call",
         context="tf.function pulling one element of a dataset", note="Each call makes a new iterator, which starts over."),
    # ---- retracing and re-creation ---------------------------------------------------------
    dict(case="065_ncsn_langevin_alpha_from_tensor_sigmas.py", positive=False, family="tffunc-retracing-python-scalar",
         line="x = sample_one_step(model, x, idx_sigmas, alpha_i)", src=[gh("Xemnas0/NCSN-TF2.0", 26)],
         title="Performance issues about tf.function", kind="github-issue", repo="Xemnas0/NCSN-TF2.0",
         tf_symptom="none; one trace (alpha_i is a tensor)", context="score-based generative model sampler",
         note="The static checker's report is a false alarm here: the sigma levels are a tensor."),
    dict(case="066_cmd_kth_moment_python_k.py", positive=True, family="tffunc-retracing-python-scalar",
         line="p_ck = compute_kth_marginal_moment(ps, k)", alt=["q_ck = compute_kth_marginal_moment(qs, k)"],
         src=[gh("lingxiaoli94/CWB", 2)], title="Performance issue in blob/master/cwb/common/utils.py.py",
         kind="github-issue", repo="lingxiaoli94/CWB", tf_symptom="the inner tf.function is traced once per k",
         context="tf.function calling a tf.function from its Python loop", note="Python ints from `for k in range(...)`."),
    dict(case="067_behavior_cloning_epoch_argument.py", positive=True, family="tffunc-retracing-python-scalar",
         line="train(train_images, train_labels, epoch, 0)", src=[gh("microsoft/AirSim-Drone-Racing-VAE-Imitation", 10)],
         title="Performance issues about tf.function", kind="github-issue", repo="microsoft/AirSim-Drone-Racing-VAE-Imitation",
         tf_symptom="one trace per epoch", context="imitation learning trainer", note="The Python epoch number as an argument."),
    dict(case="068_pix2pix_train_step_epoch.py", positive=True, family="tffunc-retracing-python-scalar",
         line="            train_step(input_image, target, epoch)", src=[gh("solaris33/deep-learning-tensorflow-book-code", 8)],
         title="Performance issue in Appendix/pix2pix_v2_keras.py", kind="github-issue",
         repo="solaris33/deep-learning-tensorflow-book-code", tf_symptom="one trace per epoch",
         context="pix2pix GAN (tutorial shape), summary step", note="The Python epoch used as the summary step."),
    dict(case="069_snlds_annealed_python_floats.py", positive=True, family="tffunc-retracing-python-scalar",
         line="train_step(data, model, optimizer, learning_rate, temperature, cross_entrophy_coef)",
         src=[gh("yerkojahve/Meta-Pseudo-label", 1)], title="Performance issue in snlds/examples/lorenz_attractor_trainer.py",
         kind="github-issue", repo="yerkojahve/Meta-Pseudo-label", tf_symptom="one trace per step",
         context="annealed schedules in a while loop", note="Annealed Python floats passed to the step."),
    dict(case="070_animate_defines_tf_functions_per_call.py", positive=True, family="tffunc-recreated",
         line="    @tf.function\n    def next_batch(driving):", src=[gh("lshug/first-order-model-tf", 22)],
         title="Performance issues about tf.function", kind="github-issue", repo="lshug/first-order-model-tf",
         tf_symptom="the helpers are traced again on every animate() call", context="image animation inference",
         note="tf.functions defined inside a function that is called in a loop."),
    dict(case="071_ode_timings_tf_function_per_call.py", positive=True, family="tffunc-recreated",
         line="    @tf.function\n    def tf_loss(y):", src=[gh("google-research/google-research", 1485)],
         title="Performance issues about tf.function", kind="github-issue", repo="google-research/google-research",
         tf_symptom="tf_loss is traced on every call", context="ODE benchmark helper",
         note="tf.functions defined inside a function that is called in a loop."),
    # ---- frozen Python state, lists in graph loops, NumPy inside graphs -----------------
    dict(case="072_network_attribute_changed_between_calls.py", positive=True, family="tffunc-frozen-python-state",
         line="return self.weights + x", alt=["self.weights = tf.zeros((2, 3), dtype=tf.double)"],
         src=[gh("tensorflow/tensorflow", 44980)], title="Changing self properties does not trigger retracing",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="the second call still uses the first tensor",
         context="class with a tf.function method", note="self.weights is captured at trace time."),
    dict(case="073_adam_callable_learning_rate_eager.py", positive=False, family="tffunc-frozen-python-state",
         line="optimizer = tf.keras.optimizers.Adam(learning_rate=learning_rate)", src=[gh("tensorflow/tensorflow", 31323)],
         title="Passing a callable learning_rate to Adam optimizer does not work as documented", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none on Keras 3: the callable is called at every eager step",
         context="eager training loop with a callable learning rate", note="Reported on TF 2.0 beta; the symptom is gone."),
    dict(case="074_list_append_over_tf_range.py", positive=True, family="tffunc-list-in-tf-loop",
         line="digit_list.append(i)", src=[gh("tensorflow/tensorflow", 29504)],
         title="tf.function fails to parse for-loop in some circumstances", kind="github-issue", repo="tensorflow/tensorflow",
         expect="out of scope|InaccessibleTensor", tf_symptom="InaccessibleTensorError: ... is out of scope",
         context="toy tf.function", note="A Python list appended in a graph loop."),
    dict(case="075_nested_loops_over_tensors_append.py", positive=True, family="tffunc-list-in-tf-loop",
         line="S.append(-cosine_loss(a, b))", src=[gh("tensorflow/tensorflow", 47139)],
         title="InaccessibleTensorError for tensor defined in same scope", kind="github-issue", repo="tensorflow/tensorflow",
         expect="InaccessibleTensor|out of scope|cannot be accessed|not allowed",
         tf_symptom="error: the appended tensors belong to the loop body", context="pairwise losses in a tf.function",
         note="Iterating over tensors makes graph loops; the list cannot collect their tensors."),
    dict(case="076_list_append_python_range.py", positive=False, family="tffunc-list-in-tf-loop",
         line="l.append(i)", src=[gh("tensorflow/tensorflow", 46518)],
         title="Very slow tf.TensorArray and a possible bug when used with range()", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none", context="static unrolling in a tf.function",
         note="A Python range loop is unrolled while tracing."),
    dict(case="077_tensor_array_tf_range.py", positive=False, family="tffunc-list-in-tf-loop",
         line="t = t.write(i, i)", src=[gh("tensorflow/tensorflow", 46518)],
         title="Very slow tf.TensorArray and a possible bug when used with range()", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none", context="TensorArray in a graph loop", note="The right tool for a tf.range loop."),
    dict(case="078_nmt_train_step_argmax_numpy.py", positive=True, family="tffunc-numpy-in-graph",
         line="print(tf.math.argmax(predictions, axis=1).numpy())", src=[gh("tensorflow/tensorflow", 31439)],
         title="TensorFlow 1.14 eager execution not working with tf.function", kind="github-issue",
         repo="tensorflow/tensorflow", expect="no attribute 'numpy'",
         tf_symptom="AttributeError: 'SymbolicTensor' object has no attribute 'numpy'", context="NMT-with-attention train step",
         note=".numpy() of a symbolic tensor inside a tf.function."),
    dict(case="079_return_numpy_from_tf_function.py", positive=True, family="tffunc-numpy-in-graph",
         line="return (x + y).numpy()", src=[gh("tensorflow/tensorflow", 57195)],
         title="AttributeError: 'Tensor' object has no attribute 'numpy'", kind="github-issue", repo="tensorflow/tensorflow",
         expect="no attribute 'numpy'", tf_symptom="AttributeError: 'SymbolicTensor' object has no attribute 'numpy'",
         context="toy tf.function", note=".numpy() inside the traced body."),
    dict(case="080_numpy_on_tf_function_output.py", positive=False, family="tffunc-numpy-in-graph",
         line="out = f(x, y).numpy()", src=[gh("tensorflow/tensorflow", 57195)],
         title="AttributeError: 'Tensor' object has no attribute 'numpy'", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="none", context="toy tf.function", note="The suggested fix: .numpy() on the eager result."),
    dict(case="081_np_arange_of_tensor_in_tf_function.py", positive=True, family="tffunc-numpy-in-graph",
         line="range_array = np.arange(range_lim)", src=[gh("tensorflow/tensorflow", 40537)],
         title="Tensorflow tf function with numpy hyper-parameters and numpy calls", kind="github-issue",
         repo="tensorflow/tensorflow", expect="symbolic",
         tf_symptom="NotImplementedError / TypeError: cannot convert a symbolic tf.Tensor to a NumPy array",
         context="tf.function with NumPy code", note="A NumPy call on a symbolic tensor."),
    # ---- NumPy-only methods on tensors -----------------------------------------------------
    dict(case="082_detection_classes_astype.py", positive=True, family="tensor-numpy-method",
         line="detections['detection_classes'] = detections['detection_classes'].astype(np.int64)",
         src=[gh("nicknochnack/RealTimeObjectDetection", 16)], title="detect in real time error", kind="github-issue",
         repo="nicknochnack/RealTimeObjectDetection", expect="has no attribute 'astype'",
         tf_symptom="AttributeError: 'EagerTensor' object has no attribute 'astype'", context="object-detection inference loop",
         note="The detector returns tensors; .astype is a NumPy method."),
    dict(case="083_detection_outputs_converted_first.py", positive=False, family="tensor-numpy-method",
         line="detections['detection_classes'] = detections['detection_classes'].astype(np.int64)",
         src=[gh("nicknochnack/RealTimeObjectDetection", 16)], title="detect in real time error", kind="github-issue",
         repo="nicknochnack/RealTimeObjectDetection", tf_symptom="none", context="object-detection inference loop",
         note="The tutorial converts the outputs with .numpy() first."),
    # ---- tf.map_fn over vectorizable work, and TF1 control flow under a tape ------------
    dict(case="084_map_fn_outer_products.py", positive=True, family="mapfn-vectorizable",
         line="return tf.map_fn(lambda x: (tf.tensordot(x[0], x[1], 0)),", src=[gh("tensorflow/tensorflow", 26907)],
         title="Specs", kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="map_fn much slower than the einsum",
         context="RBM-style outer products", note="tensordot(x, y, 0) per row is a broadcast product."),
    dict(case="085_map_fn_nearest_grid_value.py", positive=True, family="mapfn-vectorizable",
         line="vals = tf.map_fn(lambda x: xaxis[tf.argmin(", src=[gh("tensorflow/tensorflow", 28458)],
         title="map_fn() missing GPU implementation", kind="github-issue", repo="tensorflow/tensorflow",
         tf_symptom="map_fn much slower than one broadcast comparison", context="grid lookup over a volume",
         note="Per-element lookup that broadcasts over all elements."),
    dict(case="086_map_fn_per_row_unique_counts.py", positive=False, family="mapfn-vectorizable",
         line="out = tf.map_fn(my_func, input_tensor)", src=[gh("tensorflow/tensorflow", 42419)],
         title="parallel_for: No converter defined for UniqueWithCounts, SegmentSum, Range, Where, Tile in tf.vectorized_map()",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="none; vectorized_map cannot convert it",
         context="per-row aggregation by label", note="Data-dependent per-row work."),
    dict(case="087_map_fn_variable_length_features.py", positive=False, family="mapfn-vectorizable",
         line="out = tf.map_fn(row_intersection, features, fn_output_signature=tf.float32)", src=[gh("tensorflow/tensorflow", 24774)],
         title="why is tensorflow.map_fn slow, what is wrong with following code?", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="none; rows of different lengths", context="variable-length string features",
         note="Ragged per-row parsing."),
    dict(case="088_tf1_tape_over_map_fn.py", positive=True, family="tf1-control-flow-tape",
         line="f1 = tf.map_fn(lambda a: a**2, x)", alt=["d_fx1 = gg.gradient(f1, x)"],
         src=[SEED4], title="TensorFlow 1.13.1中GradientTape计算梯度触发TypeError求助", kind="qa", repo="-",
         expect="TypeError|None", tf_symptom="gradient None -> TypeError in sess.run", context="TF1 graph mode",
         note="A TF1 tape cannot follow v1 map_fn's control flow."),
    dict(case="089_tf1_tape_vectorized_square.py", positive=False, family="tf1-control-flow-tape",
         line="f1 = x ** 2", src=[SEED4], title="TensorFlow 1.13.1中GradientTape计算梯度触发TypeError求助", kind="qa",
         repo="-", tf_symptom="none", context="TF1 graph mode", note="The answer's vectorized form."),
    dict(case="090_tfp_noise_variable_tf_function_argument.py", positive=False, family="tffunc-variable-argument",
         line="nll_4 = loss_function_4(index_points, observations, kernel, noise)", src=[SEED3],
         title="为什么我不能对作为参数传递给 tf.function 的变量执行渐变？ (Why can't I take the gradient of a variable passed as an argument to tf.function?)",
         kind="qa", repo="-", tf_symptom="none on TF 2.21 / TFP 0.25: the gradient exists",
         context="TFP Gaussian process, tf.function(autograph=False) loss", note="Reported None; the symptom is gone."),
    dict(case="091_tfp_wishart_parameter_gradients.py", positive=False, family="grad-unconnected-target",
         line="grads = tape.gradient(log_prob, trainable_vars)", src=[gh("tensorflow/probability", 669)],
         title="gradients w.r.t. Wishart parameters are None", kind="github-issue", repo="tensorflow/probability",
         tf_symptom="none on TFP 0.25", context="TFP Wishart log-likelihood", note="Fixed in TFP; the symptom is gone."),
]

CATALOG += [
    dict(case="nb_092_keras_guide_train_step_counter.ipynb", positive=True, family="keras-train-step-side-effect",
         line="self.steps_seen += 1", src=[gh("tensorflow/tensorflow", 40740)],
         title="First example in keras guide \"customizing_what_happens_in_fit\" does not work", kind="github-issue",
         repo="tensorflow/tensorflow", tf_symptom="train_step's Python body runs once or twice for 30 batches",
         context="notebook: Keras guide, Model subclass overriding train_step",
         note="fit() traces train_step; Python state changes in it happen while tracing only."),
    dict(case="093_optimize_input_tensor_apply_gradients.py", positive=True, family="param-not-variable",
         line="opt.apply_gradients(zip(gradients, input))", alt=["input = tf.random.normal((1, 1))"],
         src=[gh("tensorflow/tensorflow", 31273)],
         title="[TF2.0] Use Adam and GradientTape() to optimize own function wrt to input (no keras model)",
         kind="github-issue", repo="tensorflow/tensorflow", expect="iterat|Variable|variable",
         tf_symptom="error: the optimizer is given a tensor (iterated over) instead of (gradient, variable) pairs",
         context="optimising an input with Adam in a tf.function", note="A tensor cannot be updated by an optimizer."),
    dict(case="094_optimize_input_variable_list.py", positive=False, family="param-not-variable",
         line="opt.apply_gradients(zip(gradients, [input]))", src=[gh("tensorflow/tensorflow", 31273)],
         title="[TF2.0] Use Adam and GradientTape() to optimize own function wrt to input (no keras model)",
         kind="github-issue", repo="tensorflow/tensorflow", tf_symptom="none; the variable decreases",
         context="optimising an input with Adam in a tf.function", note="The answer's version."),
    dict(case="095_tensor_sum_method_normalisation.py", positive=True, family="tensor-numpy-method",
         line="aiOutPossible = aiOutPossible / aiOutPossible.sum()",
         src=["https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1"],
         title="Custom Loss Function for Tensor Normalization (Q&A post by Rulerofzeworld, 2021-08-30)", kind="qa", repo="-",
         expect="has no attribute 'sum'", tf_symptom="AttributeError: 'EagerTensor' object has no attribute 'sum'",
         context="normalising a probability tensor for a custom loss", note=".sum() is a NumPy method."),
    dict(case="096_tensor_reduce_sum_normalisation.py", positive=False, family="tensor-numpy-method",
         line="c = tf.reduce_sum(aiOutPossible, axis=1)", src=["https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1"],
         title="Custom Loss Function for Tensor Normalization (Q&A post by Rulerofzeworld, 2021-08-30)", kind="qa", repo="-",
         tf_symptom="none", context="normalising a probability tensor for a custom loss", note="The post's corrected approach."),
    dict(case="097_cnn_tape_watch_accessed_variables_false.py", positive=True, family="tape-unwatched-constant",
         line="gradients, something = tape.gradient(loss, (model.trainable_variables, x_var))",
         alt=["with tf.GradientTape(watch_accessed_variables=False) as tape:"],
         src=["https://e-learn.cn/topic/4021299"],
         title="Out of memory OOM using tensorflow gradient tape but only happens when I append a list", kind="qa", repo="-",
         expect="No gradients provided", tf_symptom="ValueError: No gradients provided for any variable",
         context="CNN training loop with input gradients", note="watch_accessed_variables=False and no tape.watch: nothing is recorded."),
]


def _lines_of(case: str) -> list[tuple[str, int | None, list[str]]]:
    """(path relative to cases/, cell or None, code lines) for every file of a case."""
    path = os.path.join(CASES_DIR, case)
    if os.path.isdir(path):
        out = []
        for name in sorted(os.listdir(path)):
            if name.endswith(".py"):
                with open(os.path.join(path, name), encoding="utf-8") as fh:
                    out.append((f"{case}/{name}", None, _code_lines(fh.read())))
        return out
    if case.endswith(".ipynb"):
        with open(path, encoding="utf-8") as fh:
            nb = json.load(fh)
        out = []
        for index, cell in enumerate(nb["cells"], start=1):
            src = cell.get("source", "")
            src = "".join(src) if isinstance(src, list) else src
            lines = _code_lines(src) if cell.get("cell_type") == "code" else [""] * len(src.split("\n"))
            out.append((case, index, lines))
        return out
    with open(path, encoding="utf-8") as fh:
        return [(case, None, _code_lines(fh.read()))]


def locate(case: str, text: str) -> tuple[str, int | None, int]:
    """(path, cell, 1-based line) of the one line holding `text` (which may span lines)."""
    hits = []
    for path, cell, lines in _lines_of(case):
        joined = "\n".join(lines)
        start = 0
        while True:
            at = joined.find(text, start)
            if at < 0:
                break
            hits.append((path, cell, joined.count("\n", 0, at) + 1))
            start = at + 1
    if len(hits) != 1:
        raise SystemExit(f"catalog: {case}: {text!r} found {len(hits)} times (must be exactly once)")
    return hits[0]


def build() -> list[dict]:
    labels = []
    seen = set()
    for entry in CATALOG:
        case = entry["case"]
        if case in seen:
            raise SystemExit(f"catalog: {case} listed twice")
        seen.add(case)
        path, cell, line = locate(case, entry["line"])
        alt = []
        for text in entry.get("alt", []):
            alt_path, alt_cell, alt_line = locate(case, text)
            if (alt_path, alt_cell) != (path, cell):
                raise SystemExit(f"catalog: {case}: alternative {text!r} is not in the root-cause file/cell")
            alt.append(alt_line)
        label = {"case": case, "positive": entry["positive"], "family": entry["family"], "path": path}
        if cell is not None:
            label["cell"] = cell
        label.update({"line": line, "alt_lines": alt, "tf_symptom": entry["tf_symptom"], "note": entry["note"],
                      "context": entry["context"], "source_type": entry["kind"], "source_repo": entry["repo"],
                      "source_title": entry["title"], "sources": entry["src"]})
        if entry.get("expect"):
            label["expect"] = entry["expect"]
        labels.append(label)
    on_disk = sorted(n for n in os.listdir(CASES_DIR) if not n.startswith((".", "_")))
    missing = sorted(set(on_disk) - seen)
    if missing:
        raise SystemExit(f"catalog: cases without a label: {missing}")
    return labels


def tables(labels: list[dict]) -> str:
    """The README's family table and case table (Markdown)."""
    fams: dict[str, list[int]] = {}
    for lab in labels:
        fams.setdefault(lab["family"], [0, 0])[0 if lab["positive"] else 1] += 1
    unknown = sorted(set(fams) - set(FAMILIES))
    if unknown:
        raise SystemExit(f"catalog: families without a description: {unknown}")
    out = ["| family | what | pos | neg |", "|---|---|---:|---:|"]
    for name in FAMILIES:
        if name in fams:
            out.append(f"| `{name}` | {FAMILIES[name]} | {fams[name][0]} | {fams[name][1]} |")
    pos = sum(lab["positive"] for lab in labels)
    out.append(f"| **total** | | **{pos}** | **{len(labels) - pos}** |")
    out += ["", "| case | +/- | family | source | kind |", "|---|:-:|---|---|---|"]
    order = list(FAMILIES)
    for lab in sorted(labels, key=lambda l: (order.index(l["family"]), not l["positive"], l["case"])):
        src = lab["sources"][0]
        hit = re.match(r"https://github.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)$", src)
        if hit:
            where = f"[{hit.group(1)}#{hit.group(2)}]({src})"
        elif src.startswith("http"):
            where = f"[{src.split('/')[2]}]({src})"
        else:
            where = src.split(" (")[0].replace("shared/seeds/", "seed ")
        title = lab["source_title"].replace("|", "\\|")
        if len(title) > 70:
            title = title[:67] + "..."
        out.append(f"| `{lab['case']}` | {'+' if lab['positive'] else '−'} | {lab['family']} | {where}: {title} | {lab['source_type']} |")
    return "\n".join(out)


def main() -> int:
    labels = build()
    text = json.dumps(labels, indent=1, ensure_ascii=False) + "\n"
    if "--tables" in sys.argv[1:]:
        print(tables(labels))
        return 0
    if "--check" in sys.argv[1:]:
        with open(LABELS, encoding="utf-8") as fh:
            if fh.read() != text:
                print("labels.json is out of date: run python catalog.py")
                return 1
        print(f"labels.json up to date ({len(labels)} cases)")
        return 0
    with open(LABELS, "w", encoding="utf-8") as fh:
        fh.write(text)
    pos = sum(lab["positive"] for lab in labels)
    print(f"wrote labels.json: {len(labels)} cases, {pos} positive, {len(labels) - pos} negative")
    return 0


if __name__ == "__main__":
    sys.exit(main())
