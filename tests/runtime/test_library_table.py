"""The library table (server/tapelsp/analysis/library.tsv), proven under real TensorFlow.

Every exact-name row of TensorFlow, Keras, NumPy and TensorFlow Probability has a sample call
below (SAMPLES) or a reason it has none (SKIP). One TensorFlow process (`PROBE`, started once
for the module) runs every sample and reports what it returned; this process, which never
imports TensorFlow, compares that with what the table says:

- kind: the kind of value the call returns (tensor, ndarray, variable, layer, ...);
- dtype: what the engine's own value model infers for `result = <sample>` (the table's dtype
  rule applied by analysis/values.py), where it infers one, equals the result's dtype;
- grad: for rows with grad yes / no / const / stop and a float input, the gradient of the
  result's sum with respect to that input (a watched tensor or a variable) is not None for
  `yes` and None for the others (GRAD_SKIP says where a gradient means nothing);
- `kw=NAME@POS` rules: positional argument POS of the function is the parameter NAME;
- `composite`: the result is a RaggedTensor or SparseTensor exactly when the row says so.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tapelsp.analysis import library
from tapelsp.analysis.values import values_of
from tapelsp.facts.build import build
from tapelsp.text import SourceText

pytestmark = pytest.mark.tensorflow

NAMESPACES = ("tensorflow.", "keras.", "numpy.", "tensorflow_probability.")

HEADER = """\
import os
import sys
import tempfile
import numpy as np
import tensorflow as tf
import keras
import tensorflow_probability as tfp
"""

# The named sample inputs: run once in the TensorFlow process, and read by the value model
# in front of every sample (`result = <sample>`).
INPUTS = """\
x_f32 = tf.constant([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])
y_f32 = tf.constant([[0.5, 1.0, 2.0], [1.5, -1.0, 0.25]])
s_f32 = tf.constant(0.5)
p_f32 = tf.constant([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]])
g_f32 = tf.constant([[1.5, 2.0, 3.0], [1.25, 4.0, 2.5]])
m_f32 = tf.constant([[2.0, 0.5], [0.5, 1.0]])
r_f32 = tf.constant([0.5, 1.5, 2.5])
img_f32 = tf.reshape(tf.linspace(0.0, 1.0, 96), [2, 4, 4, 3])
seq_f32 = tf.reshape(tf.linspace(-1.0, 1.0, 24), [2, 3, 4])
x_i32 = tf.constant([[1, 2, 3], [4, 5, 6]])
r_i32 = tf.constant([2, 0, 1])
labels_i32 = tf.constant([1, 0])
b_bool = tf.constant([[True, False, True], [False, True, True]])
img_u8 = tf.zeros([4, 4, 3], tf.uint8)
sp_f32 = tf.sparse.from_dense(x_f32)
v_f32 = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
a_f64 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
a_f32 = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
a_u8 = np.array([[0, 128, 255]], dtype=np.uint8)
a_i64 = np.array([3, 1, 2])
n_int = 3
n_float = 0.5
tmp_dir = tempfile.mkdtemp()
npy_path = os.path.join(tmp_dir, "saved.npy")
np.save(npy_path, a_f32)
r_sorted = np.array([0.5, 1.5, 2.5])
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
saved_model_path = os.path.join(tmp_dir, "model.keras")
model.save(saved_model_path)
functional = keras.Model(model_input := keras.Input((3,)), keras.layers.Dense(2)(model_input))
png_bytes = tf.io.encode_png(img_u8)
jpeg_bytes = tf.io.encode_jpeg(img_u8)
bmp_bytes = tf.constant(BMP)
gif_bytes = tf.constant(GIF)
normal = tfp.distributions.Normal(0.0, 1.0)
c_c64 = tf.complex(x_f32, y_f32)
str_t = tf.constant(["1.5", "2"])
filt_f32 = tf.ones([2, 2, 3, 2])
boxes_f32 = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1]])
scores_f32 = tf.constant([0.9, 0.8])
rg_f32 = tf.ragged.constant([[1.0, 2.0], [3.0]])
rng = np.random.default_rng(0)
legacy_rng = np.random.RandomState(0)
dense = keras.layers.Dense(2)
dense.build((None, 3))
embedding = keras.layers.Embedding(4, 2)
embedding.build((None,))
sgd = keras.optimizers.SGD(0.1)
mse = keras.losses.MeanSquaredError()
mean_metric = keras.metrics.Mean()
ds = tf.data.Dataset.range(4)
full_matrix = tf.linalg.LinearOperatorFullMatrix(m_f32)
doubled = tf.function(lambda t: t * 2.0)
positive = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())
module = tf.Module()
weights_path = os.path.join(tmp_dir, "model.weights.h5")
""".replace("BMP", repr(
    b"BM" + (58).to_bytes(4, "little") + bytes(4) + (54).to_bytes(4, "little")
    + (40).to_bytes(4, "little") + (1).to_bytes(4, "little") + (1).to_bytes(4, "little")
    + (1).to_bytes(2, "little") + (24).to_bytes(2, "little") + bytes(4) + (4).to_bytes(4, "little")
    + bytes(16) + b"\x10\x20\x30\x00")).replace("GIF", repr(
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
        b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))

# Inputs a gradient can be taken for (watched constants, and the variable).
FLOAT_INPUTS = ("x_f32", "y_f32", "s_f32", "p_f32", "g_f32", "m_f32", "r_f32", "img_f32", "seq_f32", "v_f32")

# row name -> one sample call, or several (the first float input named is the gradient's source).
SAMPLES: dict[str, str | tuple[str, ...]] = {
    # --- making tensors
    "tensorflow.constant": ("tf.constant([1, 2])", "tf.constant(a_f64)", "tf.constant([1.0], dtype=tf.float16)",
                            "tf.constant([1.5, 2.5])", "tf.constant(x_f32)"),
    "tensorflow.convert_to_tensor": ("tf.convert_to_tensor(x_f32)", "tf.convert_to_tensor(a_u8)",
                                     "tf.convert_to_tensor([1, 2], tf.int64)"),
    "tensorflow.identity": ("tf.identity(x_f32)", "tf.identity(x_i32)"),
    "tensorflow.zeros": ("tf.zeros([2, 3])", "tf.zeros([2], tf.int32)"),
    "tensorflow.ones": ("tf.ones([2, 3])", "tf.ones([2], dtype=tf.bool)"),
    "tensorflow.zeros_like": ("tf.zeros_like(x_f32)", "tf.zeros_like(x_f32, dtype=tf.int32)"),
    "tensorflow.ones_like": ("tf.ones_like(x_f32)", "tf.ones_like(x_i32)"),
    "tensorflow.fill": ("tf.fill([2, 2], s_f32)", "tf.fill([2, 2], 7)", "tf.fill([2], 1.5)"),
    "tensorflow.eye": ("tf.eye(2)", "tf.eye(2, dtype=tf.int32)"),
    "tensorflow.range": ("tf.range(5)", "tf.range(0.0, 1.0, 0.25)", "tf.range(5, dtype=tf.float32)",
                         "tf.range(1, 5, 2)"),
    "tensorflow.linspace": ("tf.linspace(0.0, 1.0, 5)", "tf.linspace(s_f32, 2.0, 3)"),
    "tensorflow.lin_space": ("tf.compat.v1.lin_space(0.0, 1.0, 5)",),
    "tensorflow.one_hot": ("tf.one_hot(labels_i32, 3)", "tf.one_hot(labels_i32, 3, dtype=tf.int32)"),
    "tensorflow.meshgrid": ("tf.meshgrid(r_f32, r_f32)",),
    "tensorflow.Variable": ("tf.Variable([1.0, 2.0])", "tf.Variable([1, 2])", "tf.Variable(1.0, dtype=tf.float64)",
                            "tf.Variable(a_f64)"),
    "tensorflow.cast": ("tf.cast(x_f32, tf.float16)", "tf.cast(x_i32, tf.float32)", "tf.cast(x_f32, tf.int32)"),
    "tensorflow.saturate_cast": ("tf.saturate_cast(x_f32, tf.float16)", "tf.saturate_cast(x_f32, tf.uint8)"),
    "tensorflow.dtypes.cast": ("tf.dtypes.cast(x_f32, tf.float64)",),
    "tensorflow.bitcast": ("tf.bitcast(x_f32, tf.int32)",),
    "tensorflow.TensorArray": ("tf.TensorArray(tf.float32, size=2)",),
    "tensorflow.SparseTensor": ("tf.SparseTensor([[0, 0], [1, 2]], r_f32[:2], [2, 3])",),
    "tensorflow.RaggedTensor.from_tensor": ("tf.RaggedTensor.from_tensor(x_f32)",),
    "tensorflow.ragged.constant": ("tf.ragged.constant([[1, 2], [3]])", "tf.ragged.constant([[1.0], [2.0, 3.0]])"),
    "tensorflow.sparse.to_dense": ("tf.sparse.to_dense(sp_f32)",),
    "tensorflow.io.decode_png": ("tf.io.decode_png(png_bytes)", "tf.io.decode_png(png_bytes, dtype=tf.uint16)"),
    "tensorflow.io.decode_jpeg": ("tf.io.decode_jpeg(jpeg_bytes)",),
    "tensorflow.io.decode_image": ("tf.io.decode_image(png_bytes)", "tf.io.decode_image(png_bytes, dtype=tf.float32)"),
    "tensorflow.io.decode_bmp": ("tf.io.decode_bmp(bmp_bytes)",),
    "tensorflow.io.decode_gif": ("tf.io.decode_gif(gif_bytes)",),
    "tensorflow.io.decode_raw": ("tf.io.decode_raw(png_bytes, tf.uint8)",),
    "tensorflow.io.read_file": ("tf.io.read_file(saved_model_path)",),
    "tensorflow.io.parse_tensor": ("tf.io.parse_tensor(tf.io.serialize_tensor(x_f32), tf.float32)",),
    "tensorflow.image.decode_png": ("tf.image.decode_png(png_bytes)",),
    "tensorflow.image.decode_jpeg": ("tf.image.decode_jpeg(jpeg_bytes)",),
    "tensorflow.image.decode_image": ("tf.image.decode_image(png_bytes)",),
    "tensorflow.image.convert_image_dtype": ("tf.image.convert_image_dtype(img_f32, tf.float16)",
                                             "tf.image.convert_image_dtype(img_u8, tf.float32)"),
    "tensorflow.image.resize": ("tf.image.resize(img_f32, [2, 2])", "tf.image.resize(img_u8, [2, 2])"),
    "tensorflow.image.random_flip_left_right": ("tf.image.random_flip_left_right(img_f32)",),
    "tensorflow.image.random_flip_up_down": ("tf.image.random_flip_up_down(img_f32)",),
    "tensorflow.image.random_brightness": ("tf.image.random_brightness(img_f32, 0.1)",),
    "tensorflow.image.random_contrast": ("tf.image.random_contrast(img_f32, 0.5, 1.5)",),
    "tensorflow.image.random_crop": ("tf.image.random_crop(img_f32, [1, 2, 2, 3])",),
    "tensorflow.image.random_saturation": ("tf.image.random_saturation(img_f32, 0.5, 1.5)",),
    "tensorflow.image.random_hue": ("tf.image.random_hue(img_f32, 0.1)",),
    "tensorflow.image.stateless_random_flip_left_right": (
        "tf.image.stateless_random_flip_left_right(img_f32, seed=(1, 2))",),
    # --- shapes and structure
    "tensorflow.shape": ("tf.shape(x_f32)", "tf.shape(x_f32, out_type=tf.int64)"),
    "tensorflow.shape_n": ("tf.shape_n([x_f32, y_f32])",),
    "tensorflow.size": ("tf.size(x_f32)", "tf.size(x_f32, out_type=tf.int64)"),
    "tensorflow.rank": ("tf.rank(x_f32)",),
    "tensorflow.reshape": ("tf.reshape(x_f32, [-1])", "tf.reshape(x_i32, [3, 2])"),
    "tensorflow.expand_dims": ("tf.expand_dims(x_f32, 0)",),
    "tensorflow.squeeze": ("tf.squeeze(seq_f32[:1])",),
    "tensorflow.transpose": ("tf.transpose(x_f32)", "tf.transpose(x_i32)"),
    "tensorflow.concat": ("tf.concat([x_f32, y_f32], 0)", "tf.concat([x_i32, x_i32], 1)"),
    "tensorflow.stack": ("tf.stack([x_f32, y_f32])",),
    "tensorflow.unstack": ("tf.unstack(x_f32)",),
    "tensorflow.split": ("tf.split(x_f32, 3, axis=1)",),
    "tensorflow.tile": ("tf.tile(x_f32, [2, 1])",),
    "tensorflow.gather": ("tf.gather(x_f32, r_i32, axis=1)", "tf.gather(x_i32, labels_i32)"),
    "tensorflow.gather_nd": ("tf.gather_nd(x_f32, [[0, 1], [1, 2]])",),
    "tensorflow.scatter_nd": ("tf.scatter_nd([[0], [1], [3]], r_f32, [4])",),
    "tensorflow.tensor_scatter_nd_update": ("tf.tensor_scatter_nd_update(x_f32, [[0, 0]], [9.0])",),
    "tensorflow.tensor_scatter_nd_add": ("tf.tensor_scatter_nd_add(x_f32, [[0, 0]], [9.0])",),
    "tensorflow.boolean_mask": ("tf.boolean_mask(x_f32, b_bool)",),
    "tensorflow.slice": ("tf.slice(x_f32, [0, 1], [2, 2])",),
    "tensorflow.strided_slice": ("tf.strided_slice(x_f32, [0, 0], [2, 2])",),
    "tensorflow.pad": ("tf.pad(x_f32, [[1, 1], [0, 0]])",),
    "tensorflow.reverse": ("tf.reverse(x_f32, [1])",),
    "tensorflow.roll": ("tf.roll(x_f32, 1, axis=1)",),
    "tensorflow.broadcast_to": ("tf.broadcast_to(r_f32, [2, 3])",),
    "tensorflow.where": ("tf.where(b_bool, x_f32, y_f32)", "tf.where(b_bool)"),
    "tensorflow.repeat": ("tf.repeat(x_f32, 2, axis=0)",),
    "tensorflow.einsum": ("tf.einsum('ij,kj->ik', x_f32, y_f32)",),
    "tensorflow.matmul": ("tf.matmul(x_f32, y_f32, transpose_b=True)", "tf.matmul(x_i32, x_i32, transpose_b=True)"),
    "tensorflow.tensordot": ("tf.tensordot(x_f32, y_f32, [[1], [1]])",),
    "tensorflow.norm": ("tf.norm(x_f32)",),
    "tensorflow.clip_by_value": ("tf.clip_by_value(x_f32, -1.0, 1.0)", "tf.clip_by_value(x_i32, 2, 4)"),
    "tensorflow.clip_by_norm": ("tf.clip_by_norm(x_f32, 1.0)",),
    "tensorflow.clip_by_global_norm": ("tf.clip_by_global_norm([x_f32, y_f32], 1.0)",),
    "tensorflow.add_n": ("tf.add_n([x_f32, y_f32])", "tf.add_n([x_i32, x_i32])"),
    "tensorflow.sequence_mask": ("tf.sequence_mask([1, 2], 3)", "tf.sequence_mask([1, 2], 3, dtype=tf.float32)"),
    "tensorflow.unique": ("tf.unique(r_f32)",),
    "tensorflow.sort": ("tf.sort(r_f32)",),
    "tensorflow.argsort": ("tf.argsort(r_f32)",),
    "tensorflow.searchsorted": ("tf.searchsorted(r_f32, [1.0, 2.0])",
                               "tf.searchsorted(r_f32, [1.0], out_type=tf.int64)"),
    "tensorflow.histogram_fixed_width": ("tf.histogram_fixed_width(r_f32, [0.0, 3.0], nbins=3)",),
    "tensorflow.nest.flatten": ("tf.nest.flatten({'a': x_f32, 'b': [y_f32]})",),
    # --- math
    "tensorflow.add": ("tf.add(x_f32, y_f32)", "tf.add(x_i32, x_i32)"),
    "tensorflow.subtract": ("tf.subtract(x_f32, y_f32)",),
    "tensorflow.multiply": ("tf.multiply(x_f32, y_f32)", "tf.multiply(x_i32, 2)"),
    "tensorflow.divide": ("tf.divide(x_f32, y_f32)",),
    "tensorflow.truediv": ("tf.truediv(x_f32, y_f32)",),
    "tensorflow.pow": ("tf.pow(x_f32, 2.0)",),
    "tensorflow.square": ("tf.square(x_f32)", "tf.square(x_i32)"),
    "tensorflow.sqrt": ("tf.sqrt(g_f32)",),
    "tensorflow.exp": ("tf.exp(x_f32)",),
    "tensorflow.abs": ("tf.abs(x_f32)", "tf.abs(x_i32)"),
    "tensorflow.maximum": ("tf.maximum(x_f32, y_f32)",),
    "tensorflow.minimum": ("tf.minimum(x_f32, y_f32)",),
    "tensorflow.reduce_sum": ("tf.reduce_sum(x_f32)", "tf.reduce_sum(x_i32, axis=0)"),
    "tensorflow.reduce_mean": ("tf.reduce_mean(x_f32)",),
    "tensorflow.reduce_max": ("tf.reduce_max(x_f32)",),
    "tensorflow.reduce_min": ("tf.reduce_min(x_f32)",),
    "tensorflow.reduce_prod": ("tf.reduce_prod(x_f32)",),
    "tensorflow.reduce_logsumexp": ("tf.reduce_logsumexp(x_f32)",),
    "tensorflow.reduce_any": ("tf.reduce_any(b_bool)",),
    "tensorflow.reduce_all": ("tf.reduce_all(b_bool)",),
    "tensorflow.cumsum": ("tf.cumsum(x_f32, axis=1)",),
    "tensorflow.math.reduce_std": ("tf.math.reduce_std(x_f32)",),
    "tensorflow.math.reduce_variance": ("tf.math.reduce_variance(x_f32)",),
    "tensorflow.math.log": ("tf.math.log(g_f32)",),
    "tensorflow.math.sigmoid": ("tf.math.sigmoid(x_f32)",),
    "tensorflow.math.softplus": ("tf.math.softplus(x_f32)",),
    "tensorflow.math.l2_normalize": ("tf.math.l2_normalize(x_f32, axis=1)",),
    "tensorflow.math.top_k": ("tf.math.top_k(r_f32, 2)",),
    "tensorflow.math.confusion_matrix": ("tf.math.confusion_matrix(labels_i32, [1, 1])",
                                         "tf.math.confusion_matrix(labels_i32, [1, 1], dtype=tf.float32)"),
    "tensorflow.math.count_nonzero": ("tf.math.count_nonzero(x_f32)", "tf.math.count_nonzero(x_f32, dtype=tf.int32)"),
    "tensorflow.math.bincount": ("tf.math.bincount(r_i32)",),
    "tensorflow.math.segment_sum": ("tf.math.segment_sum(x_f32, [0, 1])",),
    "tensorflow.math.unsorted_segment_sum": ("tf.math.unsorted_segment_sum(x_f32, [0, 0], 1)",),
    "tensorflow.math.in_top_k": ("tf.math.in_top_k(labels_i32, p_f32, 1)",),
    "tensorflow.math.is_nan": ("tf.math.is_nan(x_f32)",),
    "tensorflow.math.is_inf": ("tf.math.is_inf(x_f32)",),
    "tensorflow.math.is_finite": ("tf.math.is_finite(x_f32)",),
    "tensorflow.math.divide_no_nan": ("tf.math.divide_no_nan(x_f32, y_f32)",),
    "tensorflow.math.floormod": ("tf.math.floormod(x_f32, y_f32)", "tf.math.floormod(x_i32, 4)"),
    "tensorflow.floormod": ("tf.compat.v1.floormod(x_f32, y_f32)",),
    "tensorflow.math.floordiv": ("tf.math.floordiv(x_f32, y_f32)", "tf.math.floordiv(x_i32, 4)"),
    "tensorflow.floordiv": ("tf.compat.v1.floordiv(x_f32, y_f32)",),
    "tensorflow.floor_div": ("tf.compat.v1.floor_div(x_f32, y_f32)",),
    "tensorflow.math.argmax": ("tf.math.argmax(x_f32)",),
    "tensorflow.math.argmin": ("tf.math.argmin(x_f32)",),
    "tensorflow.argmax": ("tf.argmax(x_f32)", "tf.argmax(x_f32, output_type=tf.int32)"),
    "tensorflow.argmin": ("tf.argmin(x_f32, axis=1)",),
    "tensorflow.round": ("tf.round(x_f32)",),
    "tensorflow.math.round": ("tf.math.round(x_f32)",),
    "tensorflow.math.rint": ("tf.math.rint(x_f32)",),
    "tensorflow.floor": ("tf.floor(x_f32)",),
    "tensorflow.math.floor": ("tf.math.floor(x_f32)",),
    "tensorflow.math.ceil": ("tf.math.ceil(x_f32)",),
    "tensorflow.sign": ("tf.sign(x_f32)",),
    "tensorflow.math.sign": ("tf.math.sign(x_f32)",),
    "tensorflow.equal": ("tf.equal(x_f32, y_f32)",),
    "tensorflow.not_equal": ("tf.not_equal(x_f32, y_f32)",),
    "tensorflow.greater": ("tf.greater(x_f32, y_f32)",),
    "tensorflow.greater_equal": ("tf.greater_equal(x_f32, y_f32)",),
    "tensorflow.less": ("tf.less(x_f32, y_f32)",),
    "tensorflow.less_equal": ("tf.less_equal(x_f32, y_f32)",),
    "tensorflow.math.equal": ("tf.math.equal(x_f32, y_f32)",),
    "tensorflow.math.not_equal": ("tf.math.not_equal(x_f32, y_f32)",),
    "tensorflow.math.greater": ("tf.math.greater(x_f32, y_f32)",),
    "tensorflow.math.greater_equal": ("tf.math.greater_equal(x_f32, y_f32)",),
    "tensorflow.math.less": ("tf.math.less(x_f32, y_f32)",),
    "tensorflow.math.less_equal": ("tf.math.less_equal(x_f32, y_f32)",),
    "tensorflow.logical_and": ("tf.logical_and(b_bool, b_bool)",),
    "tensorflow.logical_or": ("tf.logical_or(b_bool, b_bool)",),
    "tensorflow.logical_not": ("tf.logical_not(b_bool)",),
    "tensorflow.math.logical_and": ("tf.math.logical_and(b_bool, b_bool)",),
    "tensorflow.math.logical_or": ("tf.math.logical_or(b_bool, b_bool)",),
    "tensorflow.math.logical_not": ("tf.math.logical_not(b_bool)",),
    "tensorflow.math.logical_xor": ("tf.math.logical_xor(b_bool, b_bool)",),
    "tensorflow.stop_gradient": ("tf.stop_gradient(x_f32)",),
    "tensorflow.nn.softmax": ("tf.nn.softmax(x_f32)",),
    "tensorflow.nn.log_softmax": ("tf.nn.log_softmax(x_f32)",),
    "tensorflow.nn.relu": ("tf.nn.relu(x_f32)",),
    "tensorflow.nn.sigmoid": ("tf.nn.sigmoid(x_f32)",),
    "tensorflow.nn.tanh": ("tf.nn.tanh(x_f32)",),
    "tensorflow.nn.l2_loss": ("tf.nn.l2_loss(x_f32)",),
    "tensorflow.nn.dropout": ("tf.nn.dropout(x_f32, 0.5)",),
    "tensorflow.nn.moments": ("tf.nn.moments(x_f32, axes=[0])",),
    "tensorflow.nn.top_k": ("tf.nn.top_k(r_f32, 2)",),
    "tensorflow.nn.in_top_k": ("tf.nn.in_top_k(labels_i32, p_f32, 1)",),
    "tensorflow.nn.embedding_lookup": ("tf.nn.embedding_lookup(x_f32, labels_i32)",),
    "tensorflow.nn.softmax_cross_entropy_with_logits": (
        "tf.nn.softmax_cross_entropy_with_logits(p_f32, x_f32)",
        "tf.nn.softmax_cross_entropy_with_logits(labels=p_f32, logits=x_f32)"),
    "tensorflow.nn.sparse_softmax_cross_entropy_with_logits": (
        "tf.nn.sparse_softmax_cross_entropy_with_logits(labels_i32, x_f32)",),
    "tensorflow.nn.sigmoid_cross_entropy_with_logits": (
        "tf.nn.sigmoid_cross_entropy_with_logits(p_f32, x_f32)",),
    "tensorflow.linalg.inv": ("tf.linalg.inv(m_f32)",),
    "tensorflow.linalg.det": ("tf.linalg.det(m_f32)",),
    "tensorflow.linalg.matmul": ("tf.linalg.matmul(m_f32, m_f32)",),
    "tensorflow.linalg.eigh": ("tf.linalg.eigh(m_f32)",),
    "tensorflow.linalg.svd": ("tf.linalg.svd(m_f32)",),
    "tensorflow.linalg.cholesky": ("tf.linalg.cholesky(m_f32)",),
    "tensorflow.linalg.band_part": ("tf.linalg.band_part(m_f32, 0, -1)",),
    "tensorflow.linalg.diag": ("tf.linalg.diag(r_f32)",),
    "tensorflow.linalg.diag_part": ("tf.linalg.diag_part(m_f32)",),
    "tensorflow.linalg.trace": ("tf.linalg.trace(m_f32)",),
    "tensorflow.linalg.norm": ("tf.linalg.norm(x_f32)",),
    "tensorflow.linalg.l2_normalize": ("tf.linalg.l2_normalize(x_f32)",),
    "tensorflow.signal.fft": ("tf.signal.fft(tf.complex(x_f32, y_f32))",),
    "tensorflow.signal.rfft": ("tf.signal.rfft(x_f32)",),
    "tensorflow.signal.stft": ("tf.signal.stft(tf.linspace(-1.0, 1.0, 64), 16, 8)",),
    "tensorflow.math.real": ("tf.math.real(tf.complex(x_f32, y_f32))",),
    "tensorflow.math.imag": ("tf.math.imag(tf.complex(x_f32, y_f32))",),
    "tensorflow.complex": ("tf.complex(x_f32, y_f32)",),
    # --- random
    "tensorflow.random.normal": ("tf.random.normal([2, 3])", "tf.random.normal([2], dtype=tf.float64)"),
    "tensorflow.random.uniform": ("tf.random.uniform([2])", "tf.random.uniform([2], maxval=10, dtype=tf.int32)"),
    "tensorflow.random.truncated_normal": ("tf.random.truncated_normal([2])",),
    "tensorflow.random.gamma": ("tf.random.gamma([2], 1.0)",),
    "tensorflow.random.poisson": ("tf.random.poisson([2], 1.0)", "tf.random.poisson([2], 1.0, tf.int32)"),
    "tensorflow.random.categorical": ("tf.random.categorical(x_f32, 2)",
                                      "tf.random.categorical(x_f32, 2, dtype=tf.int32)"),
    "tensorflow.random.shuffle": ("tf.random.shuffle(r_f32)",),
    "tensorflow.random.stateless_normal": ("tf.random.stateless_normal([2], seed=[1, 2])",),
    "tensorflow.random.stateless_uniform": ("tf.random.stateless_uniform([2], seed=[1, 2])",),
    "tensorflow.random.stateless_categorical": ("tf.random.stateless_categorical(x_f32, 2, seed=[1, 2])",),
    "tensorflow.random.set_seed": ("tf.random.set_seed(1)",),
    "tensorflow.random.Generator": ("tf.random.Generator(state=[0, 0, 1], alg='philox')",),
    "tensorflow.random.Generator.from_seed": ("tf.random.Generator.from_seed(1)",),
    "tensorflow.random.get_global_generator": ("tf.random.get_global_generator()",),
    "tensorflow.random_normal_initializer": ("tf.random_normal_initializer()",),
    "tensorflow.random_uniform_initializer": ("tf.random_uniform_initializer()",),
    "tensorflow.zeros_initializer": ("tf.zeros_initializer()",),
    "tensorflow.ones_initializer": ("tf.ones_initializer()",),
    "tensorflow.constant_initializer": ("tf.constant_initializer(1.0)",),
    "tensorflow.glorot_uniform_initializer": ("tf.compat.v1.glorot_uniform_initializer()",),
    # --- not tensor operations
    "tensorflow.function": ("tf.function(lambda t: t * 2.0)",),
    "tensorflow.GradientTape": ("tf.GradientTape()",),
    "tensorflow.print": ("tf.print(s_f32, output_stream=sys.stderr)",),
    "tensorflow.map_fn": ("tf.map_fn(lambda t: t * 2.0, x_f32)",),
    "tensorflow.vectorized_map": ("tf.vectorized_map(lambda t: t * 2.0, x_f32)",),
    "tensorflow.scan": ("tf.scan(lambda a, t: a + t, x_f32)",),
    "tensorflow.foldl": ("tf.foldl(lambda a, t: a + t, x_f32)",),
    "tensorflow.foldr": ("tf.foldr(lambda a, t: a + t, x_f32)",),
    "tensorflow.name_scope": ("tf.name_scope('block')",),
    "tensorflow.device": ("tf.device('/cpu:0')",),
    "tensorflow.control_dependencies": ("tf.control_dependencies([])",),
    "tensorflow.init_scope": ("tf.init_scope()",),
    "tensorflow.is_tensor": ("tf.is_tensor(x_f32)",),
    "tensorflow.executing_eagerly": ("tf.executing_eagerly()",),
    "tensorflow.get_logger": ("tf.get_logger()",),
    "tensorflow.TensorSpec": ("tf.TensorSpec([2], tf.float32)",),
    "tensorflow.TensorShape": ("tf.TensorShape([2, 3])",),
    "tensorflow.as_dtype": ("tf.as_dtype('float32')",),
    "tensorflow.dtypes.as_dtype": ("tf.dtypes.as_dtype(np.int32)",),
    "tensorflow.Module": ("tf.Module()",),
    "tensorflow.train.Checkpoint": ("tf.train.Checkpoint(v=v_f32)",),
    "tensorflow.train.CheckpointManager": ("tf.train.CheckpointManager(tf.train.Checkpoint(), tmp_dir, 1)",),
    "tensorflow.summary.create_file_writer": ("tf.summary.create_file_writer(tmp_dir)",),
    "tensorflow.config.run_functions_eagerly": ("tf.config.run_functions_eagerly(False)",),
    "tensorflow.config.experimental_run_functions_eagerly": ("tf.config.experimental_run_functions_eagerly(False)",),
    "tensorflow.debugging.assert_equal": ("tf.debugging.assert_equal(x_f32, x_f32)",),
    "tensorflow.debugging.check_numerics": ("tf.debugging.check_numerics(x_f32, 'x')",),
    "tensorflow.data.Dataset.from_tensor_slices": ("tf.data.Dataset.from_tensor_slices(x_f32)",),
    "tensorflow.data.Dataset.from_tensors": ("tf.data.Dataset.from_tensors(x_f32)",),
    "tensorflow.data.Dataset.from_generator": (
        "tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=tf.TensorSpec([], tf.int32))",),
    "tensorflow.data.Dataset.range": ("tf.data.Dataset.range(3)",),
    "tensorflow.data.Dataset.zip": ("tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(2)))",),
    "tensorflow.data.TFRecordDataset": ("tf.data.TFRecordDataset(os.path.join(tmp_dir, 'missing.tfrecord'))",),
    "tensorflow.data.TextLineDataset": ("tf.data.TextLineDataset(saved_model_path)",),
    "tensorflow.distribute.MirroredStrategy": ("tf.distribute.MirroredStrategy(['/cpu:0'])",),
    "tensorflow.train.AdamOptimizer": ("tf.compat.v1.train.AdamOptimizer(0.1)",),
    "tensorflow.train.GradientDescentOptimizer": ("tf.compat.v1.train.GradientDescentOptimizer(0.1)",),
    "tensorflow.train.MomentumOptimizer": ("tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)",),
    "tensorflow.train.RMSPropOptimizer": ("tf.compat.v1.train.RMSPropOptimizer(0.1)",),
    "tensorflow.train.AdagradOptimizer": ("tf.compat.v1.train.AdagradOptimizer(0.1)",),
    "tensorflow.train.get_or_create_global_step": ("tf.compat.v1.train.get_or_create_global_step()",),
    "tensorflow.get_variable": ("tf.compat.v1.get_variable('tapelsp_v', [2])",
                                "tf.compat.v1.get_variable('tapelsp_w', [2], tf.int32)"),
    "tensorflow.global_variables_initializer": ("graph: tf.compat.v1.global_variables_initializer()",),
    "tensorflow.is_symbolic_tensor": ("tf.is_symbolic_tensor(x_f32)",),
    "tensorflow.executing_eagerly_outside_functions": ("tf.compat.v1.executing_eagerly_outside_functions()",),
    "tensorflow.inside_function": ("tf.inside_function()",),
    "tensorflow.set_random_seed": ("tf.compat.v1.set_random_seed(1)",),
    # tf.no_op and tf.group return None under eager execution, an Operation in a graph (a tf.function)
    "tensorflow.no_op": ("graph: tf.no_op()",),
    "tensorflow.group": ("graph: tf.group(tf.constant(1.0))",),
    "tensorflow.placeholder": ("graph: tf.compat.v1.placeholder(tf.float32, [2])",
                               "graph: tf.compat.v1.placeholder(tf.int64)"),
    "tensorflow.gradients": ("graph: tf.gradients(tf.constant(1.0) * 2.0, tf.constant(1.0))",),
    "tensorflow.hessians": (
        "graph: tf.hessians(tf.reduce_sum((p := tf.compat.v1.placeholder(tf.float32, [2])) ** 2), p)",),
    "tensorflow.Session": ("graph: tf.compat.v1.Session()",),
    "tensorflow.make_ndarray": ("tf.make_ndarray(tf.make_tensor_proto(a_f32))",),
    "tensorflow.make_tensor_proto": ("tf.make_tensor_proto(a_f32)",),
    "tensorflow.variable_scope": ("tf.compat.v1.variable_scope('scope')",),
    "tensorflow.get_seed": ("tf.compat.v1.get_seed(None)",),
    "tensorflow.dimension_value": ("tf.compat.v1.dimension_value(tf.TensorShape([3])[0])",),
    "tensorflow.get_current_name_scope": ("tf.get_current_name_scope()",),
    "tensorflow.type_spec_from_value": ("tf.type_spec_from_value(x_f32)",),
    "tensorflow.no_gradient": ("tf.no_gradient('TapelspNoSuchOp')",),
    "tensorflow.get_collection": ("tf.compat.v1.get_collection('tapelsp')",),
    "tensorflow.trainable_variables": ("tf.compat.v1.trainable_variables()",),
    "tensorflow.global_variables": ("tf.compat.v1.global_variables()",),
    "tensorflow.reset_default_graph": ("tf.compat.v1.reset_default_graph()",),
    "tensorflow.get_default_graph": ("tf.compat.v1.get_default_graph()",),
    "tensorflow.Graph": ("tf.Graph()",),
    "tensorflow.enable_eager_execution": ("tf.compat.v1.enable_eager_execution()",),
    "tensorflow.enable_v2_behavior": ("tf.compat.v1.enable_v2_behavior()",),
    "tensorflow.enable_control_flow_v2": ("tf.compat.v1.enable_control_flow_v2()",),
    "tensorflow.ensure_shape": ("tf.ensure_shape(x_f32, [2, 3])",),
    # --- the other elementwise ops and reductions
    "tensorflow.acos": ("tf.acos(p_f32)",),
    "tensorflow.acosh": ("tf.acosh(g_f32)",),
    "tensorflow.asin": ("tf.asin(p_f32)",),
    "tensorflow.asinh": ("tf.asinh(x_f32)",),
    "tensorflow.atan": ("tf.atan(x_f32)",),
    "tensorflow.atan2": ("tf.atan2(x_f32, y_f32)",),
    "tensorflow.atanh": ("tf.atanh(p_f32)",),
    "tensorflow.cos": ("tf.cos(x_f32)",),
    "tensorflow.cosh": ("tf.cosh(x_f32)",),
    "tensorflow.math.abs": ("tf.math.abs(x_f32)",),
    "tensorflow.math.acos": ("tf.math.acos(p_f32)",),
    "tensorflow.math.acosh": ("tf.math.acosh(g_f32)",),
    "tensorflow.math.add": ("tf.math.add(x_f32, y_f32)",),
    "tensorflow.math.asin": ("tf.math.asin(p_f32)",),
    "tensorflow.math.asinh": ("tf.math.asinh(x_f32)",),
    "tensorflow.math.atan": ("tf.math.atan(x_f32)",),
    "tensorflow.math.atan2": ("tf.math.atan2(x_f32, y_f32)",),
    "tensorflow.math.atanh": ("tf.math.atanh(p_f32)",),
    "tensorflow.math.cos": ("tf.math.cos(x_f32)",),
    "tensorflow.math.cosh": ("tf.math.cosh(x_f32)",),
    "tensorflow.math.digamma": ("tf.math.digamma(g_f32)",),
    "tensorflow.math.divide": ("tf.math.divide(x_f32, y_f32)",),
    "tensorflow.math.erf": ("tf.math.erf(x_f32)",),
    "tensorflow.math.erfc": ("tf.math.erfc(x_f32)",),
    "tensorflow.math.exp": ("tf.math.exp(x_f32)",),
    "tensorflow.math.expm1": ("tf.math.expm1(x_f32)",),
    "tensorflow.math.lgamma": ("tf.math.lgamma(g_f32)",),
    "tensorflow.math.log1p": ("tf.math.log1p(g_f32)",),
    "tensorflow.math.log_sigmoid": ("tf.math.log_sigmoid(x_f32)",),
    "tensorflow.math.log_softmax": ("tf.math.log_softmax(x_f32)",),
    "tensorflow.math.maximum": ("tf.math.maximum(x_f32, y_f32)",),
    "tensorflow.math.minimum": ("tf.math.minimum(x_f32, y_f32)",),
    "tensorflow.math.mod": ("tf.math.mod(x_f32, y_f32)",),
    "tensorflow.math.multiply": ("tf.math.multiply(x_f32, y_f32)",),
    "tensorflow.math.negative": ("tf.math.negative(x_f32)",),
    "tensorflow.math.pow": ("tf.math.pow(g_f32, y_f32)",),
    "tensorflow.math.reciprocal": ("tf.math.reciprocal(g_f32)",),
    "tensorflow.math.reduce_all": ("tf.math.reduce_all(b_bool)",),
    "tensorflow.math.reduce_any": ("tf.math.reduce_any(b_bool)",),
    "tensorflow.math.reduce_euclidean_norm": ("tf.math.reduce_euclidean_norm(x_f32)",),
    "tensorflow.math.reduce_logsumexp": ("tf.math.reduce_logsumexp(x_f32)",),
    "tensorflow.math.reduce_max": ("tf.math.reduce_max(x_f32)",),
    "tensorflow.math.reduce_mean": ("tf.math.reduce_mean(x_f32)",),
    "tensorflow.math.reduce_min": ("tf.math.reduce_min(x_f32)",),
    "tensorflow.math.reduce_prod": ("tf.math.reduce_prod(x_f32)",),
    "tensorflow.math.reduce_sum": ("tf.math.reduce_sum(x_f32)",),
    "tensorflow.math.rsqrt": ("tf.math.rsqrt(g_f32)",),
    "tensorflow.math.sin": ("tf.math.sin(x_f32)",),
    "tensorflow.math.sinh": ("tf.math.sinh(x_f32)",),
    "tensorflow.math.softmax": ("tf.math.softmax(x_f32)",),
    "tensorflow.math.softsign": ("tf.math.softsign(x_f32)",),
    "tensorflow.math.sqrt": ("tf.math.sqrt(g_f32)",),
    "tensorflow.math.square": ("tf.math.square(x_f32)",),
    "tensorflow.math.squared_difference": ("tf.math.squared_difference(x_f32, y_f32)",),
    "tensorflow.math.subtract": ("tf.math.subtract(x_f32, y_f32)",),
    "tensorflow.math.tan": ("tf.math.tan(p_f32)",),
    "tensorflow.math.tanh": ("tf.math.tanh(x_f32)",),
    "tensorflow.math.truediv": ("tf.math.truediv(x_f32, y_f32)",),
    "tensorflow.negative": ("tf.negative(x_f32)",),
    "tensorflow.nn.elu": ("tf.nn.elu(x_f32)",),
    "tensorflow.nn.gelu": ("tf.nn.gelu(x_f32)",),
    "tensorflow.nn.leaky_relu": ("tf.nn.leaky_relu(x_f32)",),
    "tensorflow.nn.relu6": ("tf.nn.relu6(x_f32)",),
    "tensorflow.nn.selu": ("tf.nn.selu(x_f32)",),
    "tensorflow.nn.silu": ("tf.nn.silu(x_f32)",),
    "tensorflow.nn.softplus": ("tf.nn.softplus(x_f32)",),
    "tensorflow.nn.softsign": ("tf.nn.softsign(x_f32)",),
    "tensorflow.nn.swish": ("tf.nn.swish(x_f32)",),
    "tensorflow.sigmoid": ("tf.sigmoid(x_f32)",),
    "tensorflow.sin": ("tf.sin(x_f32)",),
    "tensorflow.sinh": ("tf.sinh(x_f32)",),
    "tensorflow.tan": ("tf.tan(p_f32)",),
    "tensorflow.tanh": ("tf.tanh(x_f32)",),
    # --- Keras functions
    **{f"keras.activations.{name}": (f"keras.activations.{name}(x_f32)",) for name in (
        "elu", "exponential", "gelu", "hard_sigmoid", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "relu",
        "relu6", "selu", "sigmoid", "silu", "softmax", "softplus", "softsign", "swish", "tanh")},
    **{f"keras.ops.{name}": (f"keras.ops.{name}(x_f32)",) for name in (
        "abs", "absolute", "ceil", "cos", "cosh", "elu", "erf", "erfc", "exp", "expm1", "gelu", "hard_sigmoid",
        "leaky_relu", "log_sigmoid", "log_softmax", "negative", "relu", "relu6", "selu", "sigmoid", "sign", "silu",
        "sin", "sinh", "softmax", "softplus", "softsign", "square", "swish", "tanh", "round", "floor",
        "stop_gradient", "zeros_like", "ones_like", "argmax", "argmin", "shape", "convert_to_numpy", "is_tensor")},
    **{f"keras.ops.{name}": (f"keras.ops.{name}(x_f32, y_f32)",) for name in (
        "add", "divide", "divide_no_nan", "maximum", "minimum", "mod", "multiply", "subtract", "equal")},
    **{f"keras.ops.{name}": (f"keras.ops.{name}(g_f32)",) for name in ("log", "log1p", "reciprocal", "rsqrt", "sqrt")},
    "keras.ops.tan": ("keras.ops.tan(p_f32)",),
    "keras.ops.logical_and": ("keras.ops.logical_and(b_bool, b_bool)",),
    "keras.ops.logical_or": ("keras.ops.logical_or(b_bool, b_bool)",),
    "keras.ops.logical_not": ("keras.ops.logical_not(b_bool)",),
    # (keras.ops.where(condition) alone returns a list of index tensors, like np.where's tuple)
    "keras.ops.where": ("keras.ops.where(b_bool, x_f32, y_f32)",),
    "keras.ops.convert_to_tensor": ("keras.ops.convert_to_tensor([1.0, 2.0])", "keras.ops.convert_to_tensor(a_u8)",
                                    "keras.ops.convert_to_tensor([1, 2], 'int64')"),
    "keras.ops.cast": ("keras.ops.cast(x_i32, 'float32')", "keras.ops.cast(x_f32, 'float16')"),
    # --- Keras objects
    "keras.layers.Layer": ("keras.layers.Layer()",),
    **{f"keras.layers.{name}": (f"keras.layers.{name}()",) for name in (
        "Flatten", "ReLU", "LeakyReLU", "ELU", "Softmax", "UpSampling1D", "UpSampling2D", "UpSampling3D",
        "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
        "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalAvgPool1D",
        "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
        "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "Add", "Subtract", "Multiply", "Average",
        "Maximum", "Minimum", "Concatenate", "Masking", "Identity", "ActivityRegularization", "UnitNormalization",
        "TextVectorization")},
    **{f"keras.layers.{name}": (f"keras.layers.{name}(1)",) for name in (
        "Cropping1D", "Cropping2D", "Cropping3D", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
        "RepeatVector")},
    **{f"keras.layers.{name}": (f"keras.layers.{name}(0.5)",) for name in (
        "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout", "GaussianNoise",
        "AlphaDropout")},
    **{f"keras.layers.{name}": (f"keras.layers.{name}(2)",) for name in (
        "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D", "AvgPool2D", "AvgPool3D")},
    "keras.layers.Activation": ("keras.layers.Activation('relu')",),
    "keras.layers.Reshape": ("keras.layers.Reshape((6,))",),
    "keras.layers.Permute": ("keras.layers.Permute((2, 1))",),
    "keras.layers.Dot": ("keras.layers.Dot(axes=1)",),
    "keras.layers.Lambda": ("keras.layers.Lambda(lambda t: t * 2.0)",),
    "keras.layers.InputLayer": ("keras.layers.InputLayer(shape=(3,))",),
    "keras.layers.Rescaling": ("keras.layers.Rescaling(1 / 255)",),
    "keras.layers.Resizing": ("keras.layers.Resizing(2, 2)",),
    "keras.layers.CenterCrop": ("keras.layers.CenterCrop(2, 2)",),
    "keras.layers.Hashing": ("keras.layers.Hashing(num_bins=3)",),
    "keras.layers.CategoryEncoding": ("keras.layers.CategoryEncoding(num_tokens=3)",),
    "keras.layers.StringLookup": ("keras.layers.StringLookup(vocabulary=['a', 'b'])",),
    "keras.layers.IntegerLookup": ("keras.layers.IntegerLookup(vocabulary=[1, 2])",),
    "keras.layers.Discretization": ("keras.layers.Discretization(bin_boundaries=[0.0, 1.0])",),
    "keras.layers.HashedCrossing": ("keras.layers.HashedCrossing(num_bins=3)",),
    "keras.layers.TimeDistributed": ("keras.layers.TimeDistributed(keras.layers.Dense(2))",),
    "keras.layers.Bidirectional": ("keras.layers.Bidirectional(keras.layers.LSTM(2))",),
    "keras.layers.Wrapper": ("keras.layers.Wrapper(keras.layers.Dense(2))",),
    "keras.Input": ("keras.Input(shape=(3,))", "keras.Input(shape=(3,), dtype='int32')"),
    "keras.layers.Input": ("keras.layers.Input(shape=(3,))",),
    "keras.Model": ("keras.Model()",),
    "keras.Sequential": ("keras.Sequential([keras.layers.Dense(2)])",),
    "keras.models.Model": ("keras.models.Model()",),
    "keras.models.Sequential": ("keras.models.Sequential()",),
    "keras.models.load_model": ("keras.models.load_model(saved_model_path)",),
    "keras.saving.load_model": ("keras.saving.load_model(saved_model_path)",),
    "keras.models.clone_model": ("keras.models.clone_model(model)",),
    "keras.models.model_from_json": ("keras.models.model_from_json(model.to_json())",),
    "keras.optimizers.get": ("keras.optimizers.get('adam')",),
    "keras.Variable": ("keras.Variable([1.0, 2.0])", "keras.Variable(a_f64)", "keras.Variable(1.0, dtype='float16')"),
    "keras.utils.to_categorical": ("keras.utils.to_categorical([0, 1], 3)",),
    "keras.utils.set_random_seed": ("keras.utils.set_random_seed(1)",),
    "keras.backend.clear_session": ("keras.backend.clear_session()",),
    # Keras 3 keeps these in tf.keras.backend (Keras 2's names), not in keras.backend.
    "keras.backend.get_value": ("tf.keras.backend.get_value(v_f32)",),
    "keras.backend.batch_get_value": ("tf.keras.backend.batch_get_value([v_f32])",),
    "keras.backend.eval": ("tf.keras.backend.eval(v_f32)",),
    "keras.backend.set_value": ("tf.keras.backend.set_value(tf.Variable([1.0]), [2.0])",),
    "keras.backend.int_shape": ("tf.keras.backend.int_shape(x_f32)",),
    "keras.backend.shape": ("tf.keras.backend.shape(x_f32)",),
    "keras.backend.cast": ("tf.keras.backend.cast(x_i32, 'float32')",),
    "keras.backend.stop_gradient": ("tf.keras.backend.stop_gradient(x_f32)",),
    "keras.backend.argmax": ("tf.keras.backend.argmax(x_f32)",),
    "keras.backend.round": ("tf.keras.backend.round(x_f32)",),
    "keras.backend.floatx": ("keras.backend.floatx()",),
    # --- TensorFlow Probability
    "tensorflow_probability.distributions.kl_divergence": (
        "tfp.distributions.kl_divergence(tfp.distributions.Normal(s_f32, 1.0), normal)",),
    "tensorflow_probability.util.TransformedVariable": (
        "tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())",),
    "tensorflow_probability.util.DeferredTensor": ("tfp.util.DeferredTensor(v_f32, tf.math.exp)",),
    "tensorflow_probability.experimental.util.DeferredModule": (
        "tfp.experimental.util.DeferredModule(tfp.distributions.Normal, loc=v_f32, scale=1.0)",),
    "tensorflow_probability.distributions.Beta.experimental_from_mean_concentration": (
        "tfp.distributions.Beta.experimental_from_mean_concentration(tf.constant(0.5), tf.constant(4.0))",),
    "tensorflow_probability.distributions.Beta.experimental_from_mean_variance": (
        "tfp.distributions.Beta.experimental_from_mean_variance(tf.constant(0.5), tf.constant(0.05))",),
    "tensorflow_probability.distributions.Gamma.experimental_from_mean_variance": (
        "tfp.distributions.Gamma.experimental_from_mean_variance(tf.constant(2.0), tf.constant(1.0))",),
    "tensorflow_probability.distributions.LogNormal.experimental_from_mean_variance": (
        "tfp.distributions.LogNormal.experimental_from_mean_variance(tf.constant(2.0), tf.constant(1.0))",),
    "tensorflow_probability.distributions.NegativeBinomial.experimental_from_mean_dispersion": (
        "tfp.distributions.NegativeBinomial.experimental_from_mean_dispersion(tf.constant(3.0), tf.constant(0.5))",),
    "tensorflow_probability.vi.monte_carlo_variational_loss": (
        "tfp.vi.monte_carlo_variational_loss(normal.log_prob, tfp.distributions.Normal(s_f32, 1.0), sample_size=2)",),
    "tensorflow_probability.optimizer.lbfgs_minimize": (
        "tfp.optimizer.lbfgs_minimize(lambda p: tfp.math.value_and_gradient(lambda q: tf.reduce_sum(q * q), p), "
        "r_f32, max_iterations=2)",),
    "tensorflow_probability.optimizer.bfgs_minimize": (
        "tfp.optimizer.bfgs_minimize(lambda p: tfp.math.value_and_gradient(lambda q: tf.reduce_sum(q * q), p), "
        "r_f32, max_iterations=2)",),
    "tensorflow_probability.math.value_and_gradient": (
        "tfp.math.value_and_gradient(lambda q: tf.reduce_sum(q * q), r_f32)",),
    "tensorflow_probability.vi.fit_surrogate_posterior": (
        "tfp.vi.fit_surrogate_posterior(normal.log_prob, tfp.distributions.Normal(tf.Variable(0.5), 1.0), "
        "keras.optimizers.SGD(0.1), num_steps=2, jit_compile=False)",),
    # --- NumPy
    "numpy.array": ("np.array([1, 2])", "np.array([1.0], dtype=np.float32)", "np.array(x_f32)", "np.array([1.5])"),
    "numpy.asarray": ("np.asarray(a_f32)", "np.asarray([1, 2], np.uint8)"),
    "numpy.asanyarray": ("np.asanyarray([1.0, 2.0])",),
    "numpy.ascontiguousarray": ("np.ascontiguousarray(a_u8)",),
    "numpy.copy": ("np.copy(a_f32)",),
    "numpy.zeros": ("np.zeros(3)", "np.zeros(3, np.int32)"),
    "numpy.ones": ("np.ones(3)", "np.ones(3, dtype=np.float32)"),
    "numpy.empty": ("np.empty(3)",),
    "numpy.full": ("np.full(3, 2)", "np.full(3, 2.5)", "np.full(3, 1, dtype=np.uint8)"),
    "numpy.zeros_like": ("np.zeros_like(a_f32)", "np.zeros_like(a_f32, dtype=np.int32)"),
    "numpy.ones_like": ("np.ones_like(a_u8)",),
    "numpy.full_like": ("np.full_like(a_f32, 2)",),
    "numpy.empty_like": ("np.empty_like(a_f64)",),
    "numpy.eye": ("np.eye(2)", "np.eye(2, dtype=np.float32)"),
    "numpy.identity": ("np.identity(2)",),
    "numpy.arange": ("np.arange(5)", "np.arange(0.5, 2)", "np.arange(3, dtype=np.float32)"),
    "numpy.linspace": ("np.linspace(0, 1, 5)", "np.linspace(0, 1, 5, dtype=np.float32)"),
    "numpy.logspace": ("np.logspace(0, 1, 3)",),
    "numpy.meshgrid": ("np.meshgrid(np.arange(2), np.arange(3))",),
    "numpy.stack": ("np.stack([a_f32, a_f32])",),
    "numpy.vstack": ("np.vstack([a_f32, a_f32])",),
    "numpy.hstack": ("np.hstack([a_f32, a_f32])",),
    "numpy.concatenate": ("np.concatenate([a_f64, a_f64])",),
    "numpy.reshape": ("np.reshape(a_f64, -1)",),
    "numpy.expand_dims": ("np.expand_dims(a_f32, 0)",),
    "numpy.squeeze": ("np.squeeze(a_u8)",),
    "numpy.transpose": ("np.transpose(a_f32)",),
    "numpy.where": ("np.where(a_f64 > 2, a_f64, 0.0)",),
    "numpy.argmax": ("np.argmax(a_f64)",),
    "numpy.argmin": ("np.argmin(a_f32)",),
    "numpy.argsort": ("np.argsort(a_i64)",),
    "numpy.sum": ("np.sum(a_f32)", "np.sum(a_i64)"),
    "numpy.mean": ("np.mean(a_f32)", "np.mean(a_i64)"),
    "numpy.std": ("np.std(a_f64)", "np.std(a_i64)"),
    "numpy.var": ("np.var(a_f32)",),
    "numpy.max": ("np.max(a_f32)",),
    "numpy.min": ("np.min(a_u8)",),
    "numpy.prod": ("np.prod(a_f64)",),
    "numpy.median": ("np.median(a_f64)",),
    "numpy.dot": ("np.dot(a_f32, a_f32)",),
    "numpy.matmul": ("np.matmul(a_f32, a_f32)",),
    "numpy.exp": ("np.exp(a_f32)", "np.exp(a_f64)"),
    "numpy.log": ("np.log(a_f64)",),
    "numpy.sqrt": ("np.sqrt(a_f32)",),
    "numpy.tanh": ("np.tanh(a_f64)",),
    "numpy.sin": ("np.sin(a_f32)",),
    "numpy.cos": ("np.cos(a_f64)",),
    "numpy.abs": ("np.abs(a_f32)",),
    "numpy.square": ("np.square(a_i64)",),
    "numpy.power": ("np.power(a_f32, 2)",),
    "numpy.clip": ("np.clip(a_f32, 0, 1)",),
    "numpy.maximum": ("np.maximum(a_f32, a_f32)",),
    "numpy.minimum": ("np.minimum(a_f64, a_f64)",),
    "numpy.round": ("np.round(a_f64, 1)",),
    "numpy.floor": ("np.floor(a_f32)",),
    "numpy.isnan": ("np.isnan(a_f32)",),
    "numpy.allclose": ("np.allclose(a_f32, a_f32)",),
    "numpy.array_equal": ("np.array_equal(a_f32, a_f32)",),
    **{f"numpy.{name}": (f"np.{name}(1)",) for name in (
        "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_")},
    "numpy.random.rand": ("np.random.rand(2)",),
    "numpy.random.randn": ("np.random.randn(2)",),
    "numpy.random.random": ("np.random.random(2)",),
    "numpy.random.uniform": ("np.random.uniform(size=2)",),
    "numpy.random.normal": ("np.random.normal(size=2)",),
    "numpy.random.randint": ("np.random.randint(0, 5, size=2)",),
    "numpy.random.choice": ("np.random.choice(5, 2)", "np.random.choice(a_i64, 2)"),
    "numpy.random.permutation": ("np.random.permutation(5)",),
    "numpy.random.shuffle": ("np.random.shuffle(np.arange(3))",),
    "numpy.random.seed": ("np.random.seed(0)",),
    "numpy.random.default_rng": ("np.random.default_rng(0)",),
    "numpy.random.RandomState": ("np.random.RandomState(0)",),
    "numpy.random.Generator": ("np.random.Generator(np.random.PCG64(0))",),
    # --- methods and attributes of values of each kind (`@KIND.name` rows)
    "@tensor.numpy": ("x_f32.numpy()", "x_i32.numpy()"),
    "@tensor.shape": ("x_f32.shape",),
    "@tensor.dtype": ("x_f32.dtype",),
    "@tensor.ndim": ("x_f32.ndim",),
    "@tensor.device": ("x_f32.device",),
    "@tensor.get_shape": ("x_f32.get_shape()",),
    "@tensor.set_shape": ("x_f32.set_shape([2, 3])",),
    "@tensor.ref": ("x_f32.ref()",),
    "@tensor.__array__": ("x_f32.__array__()",),
    "@variable.assign": ("v_f32.assign(m_f32)",),
    "@variable.assign_add": ("v_f32.assign_add(m_f32)",),
    "@variable.assign_sub": ("v_f32.assign_sub(m_f32)",),
    "@variable.scatter_nd_update": ("v_f32.scatter_nd_update([[0, 0]], [1.0])",),
    "@variable.read_value": ("v_f32.read_value()",),
    "@variable.value": ("v_f32.value()",),
    "@variable.numpy": ("v_f32.numpy()",),
    "@variable.trainable": ("v_f32.trainable",),
    "@variable.initial_value": ("graph: tf.Variable(1.0).initial_value",),
    "@model.predict": ("model.predict(x_f32, verbose=0)",),
    "@model.predict_on_batch": ("model.predict_on_batch(x_f32)",),
    "@model.compile": ("model.compile(loss='mse')",),
    "@model.save_weights": ("model.save_weights(weights_path)",),
    "@model.get_weights": ("model.get_weights()",),
    "@model.get_layer": ("model.get_layer(index=0)",),
    "@model.set_weights": ("model.set_weights(model.get_weights())",),
    "@model.trainable_variables": ("model.trainable_variables",),
    "@model.trainable_weights": ("model.trainable_weights",),
    "@model.variables": ("model.variables",),
    "@model.weights": ("model.weights",),
    "@model.non_trainable_variables": ("model.non_trainable_variables",),
    "@model.layers": ("model.layers",),
    "@model.inputs": ("model.inputs",),
    "@model.outputs": ("model.outputs",),
    "@model.input": ("functional.input",),
    "@model.output": ("functional.output",),
    "@model.losses": ("model.losses",),
    "@layer.trainable_variables": ("dense.trainable_variables",),
    "@layer.trainable_weights": ("dense.trainable_weights",),
    "@layer.variables": ("dense.variables",),
    "@layer.weights": ("dense.weights",),
    "@layer.kernel": ("dense.kernel",),
    "@layer.bias": ("dense.bias",),
    "@layer.embeddings": ("embedding.embeddings",),
    "@layer.add_weight": ("keras.layers.Layer().add_weight(shape=(2,))",
                          "keras.layers.Layer().add_weight(shape=(2,), dtype='float16')"),
    "@layer.build": ("keras.layers.Dense(2).build((None, 3))",),
    "@layer.get_weights": ("dense.get_weights()",),
    "@layer.set_weights": ("dense.set_weights(dense.get_weights())",),
    "@layer.add_loss": ("keras.layers.Layer().add_loss(s_f32)",),
    "@layer.losses": ("dense.losses",),
    "@module.trainable_variables": ("module.trainable_variables",),
    "@module.variables": ("module.variables",),
    "@optimizer.iterations": ("sgd.iterations",),
    "@optimizer.variables": ("sgd.variables",),
    "@optimizer.build": ("keras.optimizers.SGD(0.1).build([v_f32])",),
    "@loss.__call__": ("mse(p_f32, x_f32)",),
    "@metric.result": ("mean_metric.result()",),
    "@metric.reset_state": ("mean_metric.reset_state()",),
    "@metric.__call__": ("mean_metric(x_f32)",),
    "@tape.stop_recording": ("tf.GradientTape().stop_recording()",),
    "@tape.watched_variables": ("tf.GradientTape().watched_variables()",),
    "@tf_function.get_concrete_function": ("doubled.get_concrete_function(x_f32)",),
    "@tf_function.experimental_get_tracing_count": ("doubled.experimental_get_tracing_count()",),
    **{f"@dataset.{name}": (f"ds.{name}({argument})",) for name, argument in (
        ("map", "lambda t: t * 2"), ("filter", "lambda t: t > 1"), ("flat_map", "tf.data.Dataset.from_tensors"),
        ("interleave", "tf.data.Dataset.from_tensors"), ("batch", "2"), ("padded_batch", "2"), ("shuffle", "4"),
        ("repeat", "2"), ("prefetch", "1"), ("cache", ""), ("take", "2"), ("skip", "1"), ("concatenate", "ds"),
        ("enumerate", ""), ("apply", "lambda d: d"), ("with_options", "tf.data.Options()"))},
    "@dataset.unbatch": ("ds.batch(2).unbatch()",),
    "@dataset.zip": ("ds.zip(ds)",),
    "@dataset.as_numpy_iterator": ("ds.as_numpy_iterator()",),
    "@dataset.cardinality": ("ds.cardinality()",),
    "@dataset.element_spec": ("ds.element_spec",),
    "@distribution.sample": ("tfp.distributions.Normal(0.0, s_f32).sample(2)",),
    **{f"@distribution.{name}": (f"tfp.distributions.Normal(0.0, s_f32).{name}(r_f32)",) for name in (
        "log_prob", "prob", "cdf")},
    **{f"@distribution.{name}": (f"tfp.distributions.Normal(0.0, s_f32).{name}()",) for name in (
        "entropy", "stddev", "variance")},
    "@distribution.mean": ("tfp.distributions.Normal(s_f32, 1.0).mean()",),
    "@distribution.kl_divergence": ("tfp.distributions.Normal(0.0, s_f32).kl_divergence(normal)",),
    "@bijector.forward": ("tfp.bijectors.Exp().forward(x_f32)",),
    "@bijector.inverse": ("tfp.bijectors.Exp().inverse(g_f32)",),
    "@tfp_variable.numpy": ("positive.numpy()",),
    "@tfp_variable.trainable_variables": ("positive.trainable_variables",),
    "@linear_operator.matmul": ("full_matrix.matmul(m_f32)",),
    "@linear_operator.matvec": ("full_matrix.matvec(r_f32[:2])",),
    "@linear_operator.to_dense": ("full_matrix.to_dense()",),
    "@linear_operator.solve": ("full_matrix.solve(m_f32)",),
    "@linear_operator.log_abs_determinant": ("full_matrix.log_abs_determinant()",),
    "@generator.normal": ("rng.normal(size=2)",),
    "@generator.standard_normal": ("rng.standard_normal(2)", "rng.standard_normal(2, np.float32)"),
    "@generator.random": ("rng.random(2)", "rng.random(2, dtype=np.float32)"),
    "@generator.uniform": ("rng.uniform(size=2)",),
    "@generator.integers": ("rng.integers(0, 5, 2)", "rng.integers(0, 5, 2, np.int32)"),
    "@generator.choice": ("rng.choice(5, 2)", "rng.choice(a_f32.ravel(), 2)"),
    "@generator.permutation": ("rng.permutation(5)",),
    "@generator.shuffle": ("rng.shuffle(np.arange(3))",),
    "@generator.binomial": ("rng.binomial(5, 0.5, 2)",),
    "@generator.poisson": ("rng.poisson(1.0, 2)",),
    "@generator.exponential": ("rng.exponential(1.0, 2)",),
    "@generator.randn": ("legacy_rng.randn(2)",),
    "@generator.rand": ("legacy_rng.rand(2)",),
    "@generator.randint": ("legacy_rng.randint(0, 5, 2)",),
    "@ndarray.astype": ("a_f64.astype(np.float32)", "a_f64.astype('int32')"),
    **{f"@ndarray.{name}": (f"a_f32.{name}()",) for name in (
        "flatten", "ravel", "transpose", "copy", "sum", "max", "min", "argmax", "tolist")},
    "@ndarray.mean": ("a_f32.mean()", "a_i64.mean()", "(a_f64 > 2).mean()"),
    "@ndarray.std": ("a_f32.std()", "a_u8.std()"),
    "@ndarray.reshape": ("a_f32.reshape(-1)",),
    "@ndarray.squeeze": ("a_u8.squeeze()",),
    "@ndarray.clip": ("a_f32.clip(0, 1)",),
    "@ndarray.item": ("a_f32[0, 0].item()",),
    "@ndarray.T": ("a_f32.T",),
    "@ndarray.shape": ("a_f32.shape",),
    "@ndarray.dtype": ("a_f32.dtype",),
    "@ndarray.ndim": ("a_f32.ndim",),
    "@ndarray.size": ("a_f32.size",),
    "@np_scalar.item": ("np.float32(1.5).item()",),
    "@np_scalar.astype": ("np.float32(1.5).astype(np.float16)",),
    # --- common APIs without a row of their own: their namespace's default row answers
    "tensorflow.unique_with_counts": ("tf.unique_with_counts(r_i32)",),
    "tensorflow.dynamic_partition": ("tf.dynamic_partition(r_f32, [0, 1, 0], 2)",),
    "tensorflow.timestamp": ("tf.timestamp()",),
    "tensorflow.tensor_scatter_nd_sub": ("tf.tensor_scatter_nd_sub(x_f32, [[0, 0]], [9.0])",),
    "tensorflow.math.cumprod": ("tf.math.cumprod(x_f32, axis=1)",),
    "tensorflow.math.zero_fraction": ("tf.math.zero_fraction(x_f32)",),
    "tensorflow.math.angle": ("tf.math.angle(c_c64)",),
    "tensorflow.math.conj": ("tf.math.conj(c_c64)",),
    "tensorflow.math.xlogy": ("tf.math.xlogy(p_f32, g_f32)",),
    "tensorflow.math.multiply_no_nan": ("tf.math.multiply_no_nan(x_f32, y_f32)",),
    "tensorflow.math.segment_mean": ("tf.math.segment_mean(x_f32, [0, 0])",),
    "tensorflow.math.unsorted_segment_max": ("tf.math.unsorted_segment_max(x_f32, [0, 1], 2)",),
    "tensorflow.math.cumulative_logsumexp": ("tf.math.cumulative_logsumexp(x_f32, axis=1)",),
    "tensorflow.math.is_non_decreasing": ("tf.math.is_non_decreasing(r_f32)",),
    "tensorflow.math.is_strictly_increasing": ("tf.math.is_strictly_increasing(r_f32)",),
    "tensorflow.math.approx_max_k": ("tf.math.approx_max_k(x_f32, 1)",),
    "tensorflow.math.scalar_mul": ("tf.math.scalar_mul(2.0, x_f32)",),
    "tensorflow.math.erfinv": ("tf.math.erfinv(p_f32)",),
    "tensorflow.nn.conv2d": ("tf.nn.conv2d(img_f32, filt_f32, 1, 'SAME')",),
    "tensorflow.nn.conv1d": ("tf.nn.conv1d(seq_f32, tf.ones([2, 4, 2]), 1, 'SAME')",),
    "tensorflow.nn.conv2d_transpose": ("tf.nn.conv2d_transpose(img_f32, tf.ones([2, 2, 2, 3]), [2, 4, 4, 2], 1)",),
    "tensorflow.nn.depthwise_conv2d": ("tf.nn.depthwise_conv2d(img_f32, tf.ones([2, 2, 3, 1]), [1, 1, 1, 1], 'SAME')",),
    "tensorflow.nn.max_pool2d": ("tf.nn.max_pool2d(img_f32, 2, 2, 'VALID')",),
    "tensorflow.nn.avg_pool2d": ("tf.nn.avg_pool2d(img_f32, 2, 2, 'VALID')",),
    "tensorflow.nn.bias_add": ("tf.nn.bias_add(x_f32, r_f32)",),
    "tensorflow.nn.batch_normalization": ("tf.nn.batch_normalization(x_f32, 0.0, 1.0, 0.0, 1.0, 1e-3)",),
    "tensorflow.nn.l2_normalize": ("tf.nn.l2_normalize(x_f32, axis=1)",),
    "tensorflow.nn.weighted_cross_entropy_with_logits": (
        "tf.nn.weighted_cross_entropy_with_logits(p_f32, x_f32, 2.0)",),
    "tensorflow.nn.log_poisson_loss": ("tf.nn.log_poisson_loss(p_f32, x_f32)",),
    "tensorflow.nn.compute_average_loss": ("tf.nn.compute_average_loss(r_f32)",),
    "tensorflow.nn.max_pool_with_argmax": ("tf.nn.max_pool_with_argmax(img_f32, 2, 2, 'VALID')",),
    "tensorflow.nn.weighted_moments": ("tf.nn.weighted_moments(x_f32, [0], p_f32)",),
    "tensorflow.nn.space_to_depth": ("tf.nn.space_to_depth(img_f32, 2)",),
    "tensorflow.nn.local_response_normalization": ("tf.nn.local_response_normalization(img_f32)",),
    "tensorflow.nn.crelu": ("tf.nn.crelu(x_f32)",),
    "tensorflow.nn.ctc_greedy_decoder": ("tf.nn.ctc_greedy_decoder(tf.transpose(seq_f32, [1, 0, 2]), [3, 3])",),
    "tensorflow.linalg.qr": ("tf.linalg.qr(m_f32)",),
    "tensorflow.linalg.lu": ("tf.linalg.lu(m_f32)",),
    "tensorflow.linalg.eig": ("tf.linalg.eig(m_f32)",),
    "tensorflow.linalg.eigvals": ("tf.linalg.eigvals(m_f32)",),
    "tensorflow.linalg.eigvalsh": ("tf.linalg.eigvalsh(m_f32)",),
    "tensorflow.linalg.solve": ("tf.linalg.solve(m_f32, m_f32)",),
    "tensorflow.linalg.lstsq": ("tf.linalg.lstsq(m_f32, m_f32)",),
    "tensorflow.linalg.slogdet": ("tf.linalg.slogdet(m_f32)",),
    "tensorflow.linalg.logdet": ("tf.linalg.logdet(m_f32)",),
    "tensorflow.linalg.expm": ("tf.linalg.expm(m_f32)",),
    "tensorflow.linalg.pinv": ("tf.linalg.pinv(m_f32)",),
    "tensorflow.linalg.matvec": ("tf.linalg.matvec(m_f32, r_f32[:2])",),
    "tensorflow.linalg.triangular_solve": ("tf.linalg.triangular_solve(m_f32, m_f32)",),
    "tensorflow.linalg.global_norm": ("tf.linalg.global_norm([x_f32, y_f32])",),
    "tensorflow.linalg.normalize": ("tf.linalg.normalize(x_f32)",),
    "tensorflow.linalg.adjoint": ("tf.linalg.adjoint(m_f32)",),
    "tensorflow.linalg.matrix_transpose": ("tf.linalg.matrix_transpose(x_f32)",),
    "tensorflow.image.rgb_to_grayscale": ("tf.image.rgb_to_grayscale(img_f32)",),
    "tensorflow.image.flip_left_right": ("tf.image.flip_left_right(img_f32)",),
    "tensorflow.image.flip_up_down": ("tf.image.flip_up_down(img_f32)",),
    "tensorflow.image.per_image_standardization": ("tf.image.per_image_standardization(img_f32)",
                                                   "tf.image.per_image_standardization(img_u8)"),
    "tensorflow.image.crop_to_bounding_box": ("tf.image.crop_to_bounding_box(img_f32, 0, 0, 2, 2)",),
    "tensorflow.image.central_crop": ("tf.image.central_crop(img_f32, 0.5)",),
    "tensorflow.image.adjust_brightness": ("tf.image.adjust_brightness(img_f32, 0.1)",),
    "tensorflow.image.adjust_contrast": ("tf.image.adjust_contrast(img_f32, 2.0)",),
    "tensorflow.image.adjust_saturation": ("tf.image.adjust_saturation(img_f32, 2.0)",),
    "tensorflow.image.adjust_hue": ("tf.image.adjust_hue(img_f32, 0.1)",),
    "tensorflow.image.adjust_gamma": ("tf.image.adjust_gamma(img_f32, 2.0)",),
    "tensorflow.image.rot90": ("tf.image.rot90(img_f32)",),
    "tensorflow.image.resize_with_pad": ("tf.image.resize_with_pad(img_f32, 2, 2)",),
    "tensorflow.image.resize_with_crop_or_pad": ("tf.image.resize_with_crop_or_pad(img_f32, 2, 2)",),
    "tensorflow.image.ssim": ("tf.image.ssim(img_f32, img_f32, 1.0, filter_size=3)",),
    "tensorflow.image.psnr": ("tf.image.psnr(img_f32, img_f32 * 0.5, 1.0)",),
    "tensorflow.image.sobel_edges": ("tf.image.sobel_edges(img_f32)",),
    "tensorflow.image.image_gradients": ("tf.image.image_gradients(img_f32)",),
    "tensorflow.image.total_variation": ("tf.image.total_variation(img_f32)",),
    "tensorflow.image.extract_patches": ("tf.image.extract_patches(img_f32, [1, 2, 2, 1], [1, 2, 2, 1], "
                                         "[1, 1, 1, 1], 'VALID')",),
    "tensorflow.image.non_max_suppression": ("tf.image.non_max_suppression(boxes_f32, scores_f32, 1)",),
    "tensorflow.image.encode_png": ("tf.image.encode_png(img_u8)",),
    "tensorflow.image.encode_jpeg": ("tf.image.encode_jpeg(img_u8)",),
    "tensorflow.image.crop_and_resize": ("tf.image.crop_and_resize(img_f32, boxes_f32, [0, 1], [2, 2])",
                                         "tf.image.crop_and_resize(tf.zeros([1, 4, 4, 3], tf.uint8), "
                                         "[[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])"),
    "tensorflow.image.grayscale_to_rgb": ("tf.image.grayscale_to_rgb(img_f32[..., :1])",),
    "tensorflow.image.rgb_to_hsv": ("tf.image.rgb_to_hsv(img_f32)",),
    "tensorflow.image.transpose": ("tf.image.transpose(img_f32)",),
    "tensorflow.image.stateless_random_brightness": ("tf.image.stateless_random_brightness(img_f32, 0.1, (1, 2))",),
    "tensorflow.signal.irfft": ("tf.signal.irfft(tf.signal.rfft(x_f32))",),
    "tensorflow.signal.ifft": ("tf.signal.ifft(c_c64)",),
    "tensorflow.signal.inverse_stft": (
        "tf.signal.inverse_stft(tf.signal.stft(tf.linspace(-1.0, 1.0, 64), 16, 8), 16, 8)",),
    "tensorflow.signal.frame": ("tf.signal.frame(x_f32, 2, 1)",),
    "tensorflow.signal.hann_window": ("tf.signal.hann_window(8)",),
    "tensorflow.signal.hamming_window": ("tf.signal.hamming_window(8)",),
    "tensorflow.signal.dct": ("tf.signal.dct(x_f32)",),
    "tensorflow.signal.rfft2d": ("tf.signal.rfft2d(x_f32)",),
    "tensorflow.signal.linear_to_mel_weight_matrix": ("tf.signal.linear_to_mel_weight_matrix(8, 9, 16000)",),
    "tensorflow.sparse.from_dense": ("tf.sparse.from_dense(x_f32)",),
    "tensorflow.sparse.sparse_dense_matmul": ("tf.sparse.sparse_dense_matmul(sp_f32, y_f32, adjoint_b=True)",),
    "tensorflow.sparse.reduce_sum": ("tf.sparse.reduce_sum(sp_f32)",),
    "tensorflow.sparse.reduce_max": ("tf.sparse.reduce_max(sp_f32)",),
    "tensorflow.sparse.add": ("tf.sparse.add(sp_f32, sp_f32)",),
    "tensorflow.sparse.reshape": ("tf.sparse.reshape(sp_f32, [3, 2])",),
    "tensorflow.sparse.softmax": ("tf.sparse.softmax(sp_f32)",),
    "tensorflow.sparse.reorder": ("tf.sparse.reorder(sp_f32)",),
    "tensorflow.sparse.transpose": ("tf.sparse.transpose(sp_f32)",),
    "tensorflow.sparse.eye": ("tf.sparse.eye(3)",),
    "tensorflow.sparse.split": ("tf.sparse.split(sp_f32, 2, axis=0)",),
    "tensorflow.ragged.range": ("tf.ragged.range(r_i32)",),
    "tensorflow.ragged.stack": ("tf.ragged.stack([rg_f32, rg_f32])",),
    "tensorflow.ragged.boolean_mask": ("tf.ragged.boolean_mask(x_f32, b_bool)",),
    "tensorflow.ragged.row_splits_to_segment_ids": ("tf.ragged.row_splits_to_segment_ids([0, 1, 3])",),
    "tensorflow.strings.length": ("tf.strings.length(str_t)",),
    "tensorflow.strings.to_number": ("tf.strings.to_number(str_t)",),
    "tensorflow.strings.split": ("tf.strings.split(str_t, '.')",),
    "tensorflow.strings.unicode_decode": ("tf.strings.unicode_decode(str_t, 'UTF-8')",),
    "tensorflow.strings.to_hash_bucket_fast": ("tf.strings.to_hash_bucket_fast(str_t, 10)",),
    "tensorflow.strings.to_hash_bucket": ("tf.strings.to_hash_bucket(str_t, 10)",),
    "tensorflow.strings.unicode_split": ("tf.strings.unicode_split(str_t, 'UTF-8')",),
    "tensorflow.io.encode_png": ("tf.io.encode_png(img_u8)",),
    "tensorflow.io.encode_jpeg": ("tf.io.encode_jpeg(img_u8)",),
    "tensorflow.nn.zero_fraction": ("tf.nn.zero_fraction(x_f32)",),
    "tensorflow.strings.regex_full_match": ("tf.strings.regex_full_match(str_t, '1.*')",),
    "tensorflow.strings.format": ("tf.strings.format('{}', [x_f32])",),
    "tensorflow.strings.join": ("tf.strings.join([str_t, str_t])",),
    "tensorflow.strings.as_string": ("tf.strings.as_string(x_f32)",),
    "tensorflow.strings.lower": ("tf.strings.lower(str_t)",),
    "tensorflow.strings.bytes_split": ("tf.strings.bytes_split(str_t)",),
    "tensorflow.random.stateless_truncated_normal": ("tf.random.stateless_truncated_normal([2], seed=[1, 2])",),
    "tensorflow.random.stateless_gamma": ("tf.random.stateless_gamma([2], seed=[1, 2], alpha=1.0)",),
    "tensorflow.random.stateless_binomial": ("tf.random.stateless_binomial([2], seed=[1, 2], counts=5.0, probs=0.5)",),
    "tensorflow.bitwise.bitwise_and": ("tf.bitwise.bitwise_and(x_i32, x_i32)",),
    "tensorflow.bitwise.left_shift": ("tf.bitwise.left_shift(x_i32, 1)",),
    "tensorflow.dtypes.complex": ("tf.dtypes.complex(x_f32, y_f32)",),
    "tensorflow.dtypes.saturate_cast": ("tf.dtypes.saturate_cast(x_f32, tf.uint8)",),
    **{f"keras.ops.{name}": (f"keras.ops.{name}(x_f32, y_f32)",) for name in (
        "greater", "less", "not_equal", "greater_equal", "less_equal", "floor_divide", "isclose", "power")},
    "keras.ops.matmul": ("keras.ops.matmul(m_f32, m_f32)",),
    "keras.ops.expand_dims": ("keras.ops.expand_dims(x_f32, 0)",),
    **{f"keras.ops.{name}": (f"keras.ops.{name}(x_f32)",) for name in (
        "argsort", "isnan", "isfinite", "isinf", "any", "all", "count_nonzero", "nonzero", "unstack", "mean",
        "sum", "max", "sort", "norm", "cumsum", "transpose", "flip", "size", "ndim", "logsumexp",
        "var", "std", "nan_to_num", "tril")},
    **{f"keras.ops.{name}": (f"keras.ops.{name}(m_f32)",) for name in (
        "qr", "svd", "inv", "det", "cholesky", "trace", "diag", "eig")},
    "keras.ops.one_hot": ("keras.ops.one_hot(labels_i32, 3)",),
    "keras.ops.arange": ("keras.ops.arange(5)", "keras.ops.arange(0.0, 1.0, 0.25)"),
    "keras.ops.zeros": ("keras.ops.zeros(3)", "keras.ops.zeros([2, 2])", "keras.ops.zeros(3, dtype='int32')"),
    "keras.ops.ones": ("keras.ops.ones(3)", "keras.ops.ones([2, 2])"),
    "keras.ops.full": ("keras.ops.full([3], 1.0)", "keras.ops.full([2], 1)"),
    "keras.ops.eye": ("keras.ops.eye(2)",),
    "keras.ops.identity": ("keras.ops.identity(2)",),
    "keras.ops.linspace": ("keras.ops.linspace(0, 1, 5)", "keras.ops.linspace(0.0, 1.0, 5)",
                           "keras.ops.linspace(s_f32, 2.0, 3)"),
    "keras.ops.top_k": ("keras.ops.top_k(r_f32, 2)",),
    "keras.ops.logical_xor": ("keras.ops.logical_xor(b_bool, b_bool)",),
    "keras.ops.bincount": ("keras.ops.bincount(r_i32)",),
    "keras.ops.digitize": ("keras.ops.digitize(r_f32, [1.0, 2.0])",),
    "keras.ops.split": ("keras.ops.split(x_f32, 3, axis=1)",),
    "keras.ops.meshgrid": ("keras.ops.meshgrid(r_f32, r_f32)",),
    "keras.ops.moments": ("keras.ops.moments(x_f32, axes=[0])",),
    "keras.ops.clip": ("keras.ops.clip(x_f32, -1.0, 1.0)",),
    "keras.ops.reshape": ("keras.ops.reshape(x_f32, [-1])",),
    "keras.ops.concatenate": ("keras.ops.concatenate([x_f32, y_f32])",),
    "keras.ops.stack": ("keras.ops.stack([x_f32, y_f32])",),
    "keras.ops.take": ("keras.ops.take(x_f32, labels_i32, axis=0)",),
    "keras.ops.einsum": ("keras.ops.einsum('ij->i', x_f32)",),
    "keras.ops.in_top_k": ("keras.ops.in_top_k(labels_i32, p_f32, 1)",),
    "keras.ops.searchsorted": ("keras.ops.searchsorted(r_f32, [1.0])",),
    "keras.ops.sparse_categorical_crossentropy": ("keras.ops.sparse_categorical_crossentropy(labels_i32, p_f32)",),
    "keras.ops.binary_crossentropy": ("keras.ops.binary_crossentropy(p_f32, p_f32)",),
    "keras.ops.categorical_crossentropy": ("keras.ops.categorical_crossentropy(p_f32, p_f32)",),
    "keras.ops.fft": ("keras.ops.fft((x_f32, y_f32))",),
    "keras.ops.rfft": ("keras.ops.rfft(x_f32)",),
    "keras.backend.epsilon": ("keras.backend.epsilon()",),
    "keras.backend.image_data_format": ("keras.backend.image_data_format()",),
    "keras.backend.set_floatx": ("keras.backend.set_floatx('float32')",),
    "keras.backend.backend": ("keras.backend.backend()",),
    "keras.backend.is_keras_tensor": ("keras.backend.is_keras_tensor(x_f32)",),
    "keras.backend.standardize_dtype": ("keras.backend.standardize_dtype('float32')",),
    "keras.backend.variable": ("tf.keras.backend.variable(1.0)",),
    "keras.backend.constant": ("tf.keras.backend.constant([1.0])",),
    "keras.backend.ndim": ("tf.keras.backend.ndim(x_f32)",),
    "keras.backend.dtype": ("tf.keras.backend.dtype(x_f32)",),
    "keras.backend.zeros": ("tf.keras.backend.zeros((2,))",),
    "keras.backend.ones": ("tf.keras.backend.ones((2,))",),
    "keras.backend.count_params": ("tf.keras.backend.count_params(v_f32)",),
    "keras.backend.sum": ("tf.keras.backend.sum(x_f32)",),
    "keras.backend.mean": ("tf.keras.backend.mean(x_f32)",),
    "keras.backend.random_normal": ("tf.keras.backend.random_normal((2,))",),
    **{f"keras.losses.{name}": (f"keras.losses.{name}(p_f32, x_f32)",) for name in (
        "mean_squared_error", "binary_crossentropy", "categorical_crossentropy", "huber", "kl_divergence",
        "cosine_similarity", "mean_absolute_error")},
    "keras.losses.sparse_categorical_crossentropy": (
        "keras.losses.sparse_categorical_crossentropy(labels_i32, p_f32)",),
    **{f"keras.metrics.{name}": (f"keras.metrics.{name}(p_f32, x_f32)",) for name in (
        "binary_accuracy", "categorical_accuracy", "mean_squared_error", "mean_absolute_error",
        "binary_crossentropy")},
    "keras.metrics.sparse_categorical_accuracy": ("keras.metrics.sparse_categorical_accuracy(labels_i32, p_f32)",),
    "keras.metrics.top_k_categorical_accuracy": ("keras.metrics.top_k_categorical_accuracy(p_f32, x_f32, k=1)",),
    "keras.metrics.sparse_top_k_categorical_accuracy": (
        "keras.metrics.sparse_top_k_categorical_accuracy(labels_i32, p_f32, k=1)",),
    "keras.random.normal": ("keras.random.normal([2])",),
    "keras.random.uniform": ("keras.random.uniform([2])",),
    "keras.random.randint": ("keras.random.randint([2], 0, 5)",),
    "keras.random.categorical": ("keras.random.categorical(x_f32, 2)",),
    "keras.random.shuffle": ("keras.random.shuffle(r_f32)",),
    "keras.random.dropout": ("keras.random.dropout(x_f32, 0.5)",),
    "keras.random.truncated_normal": ("keras.random.truncated_normal([2])",),
    "keras.activations.mish": ("keras.activations.mish(x_f32)",),
    "keras.activations.hard_silu": ("keras.activations.hard_silu(x_f32)",),
    "numpy.argwhere": ("np.argwhere(a_f64)",),
    "numpy.nonzero": ("np.nonzero(a_f64)",),
    "numpy.unique": ("np.unique(a_i64)",),
    "numpy.cumsum": ("np.cumsum(a_f32)",),
    "numpy.diff": ("np.diff(a_f64)",),
    "numpy.log1p": ("np.log1p(a_f32)", "np.log1p(a_i64)"),
    "numpy.log2": ("np.log2(a_f32)",),
    "numpy.log10": ("np.log10(a_f64)",),
    "numpy.expm1": ("np.expm1(a_f32)",),
    "numpy.isclose": ("np.isclose(a_f32, a_f32)",),
    "numpy.isinf": ("np.isinf(a_f32)",),
    "numpy.isfinite": ("np.isfinite(a_f32)",),
    **{f"numpy.{name}": (f"np.{name}(a_f32, a_f32)",) for name in (
        "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "logical_and", "logical_or")},
    "numpy.logical_not": ("np.logical_not(a_f32)",),
    "numpy.any": ("np.any(a_f32)",),
    "numpy.all": ("np.all(a_f32)",),
    "numpy.count_nonzero": ("np.count_nonzero(a_f32)",),
    "numpy.outer": ("np.outer(a_f32, a_f32)",),
    "numpy.einsum": ("np.einsum('ij->i', a_f32)",),
    "numpy.tile": ("np.tile(a_f32, 2)",),
    "numpy.repeat": ("np.repeat(a_f32, 2)",),
    "numpy.pad": ("np.pad(a_f32, 1)",),
    "numpy.sort": ("np.sort(a_f32)",),
    "numpy.flip": ("np.flip(a_f32)",),
    "numpy.roll": ("np.roll(a_f32, 1)",),
    "numpy.percentile": ("np.percentile(a_f64, 50)",),
    "numpy.quantile": ("np.quantile(a_f64, 0.5)",),
    "numpy.average": ("np.average(a_f64)",),
    "numpy.nanmean": ("np.nanmean(a_f64)",),
    "numpy.array_split": ("np.array_split(a_f64, 2)",),
    "numpy.split": ("np.split(a_f64, 2)",),
    "numpy.searchsorted": ("np.searchsorted(r_sorted, [1.0, 2.0])",),
    "numpy.digitize": ("np.digitize(a_f64, [2.0, 4.0])",),
    "numpy.bincount": ("np.bincount(a_i64)",),
    "numpy.histogram": ("np.histogram(a_f64)",),
    "numpy.shape": ("np.shape(a_f64)",),
    "numpy.ndim": ("np.ndim(a_f64)",),
    "numpy.size": ("np.size(a_f64)",),
    "numpy.atleast_2d": ("np.atleast_2d(a_f32)",),
    "numpy.ravel": ("np.ravel(a_f32)",),
    "numpy.swapaxes": ("np.swapaxes(a_f32, 0, 1)",),
    "numpy.broadcast_to": ("np.broadcast_to(a_f32, (2, 2, 2))",),
    "numpy.tril": ("np.tril(a_f32)",),
    "numpy.trace": ("np.trace(a_f32)",),
    "numpy.absolute": ("np.absolute(a_f32)",),
    "numpy.negative": ("np.negative(a_f32)",),
    "numpy.ceil": ("np.ceil(a_f32)",),
    "numpy.sign": ("np.sign(a_f32)",),
    "numpy.arctan2": ("np.arctan2(a_f32, a_f32)",),
    "numpy.divide": ("np.divide(a_f32, 2)", "np.divide(a_i64, 2)"),
    "numpy.true_divide": ("np.true_divide(a_i64, 2)",),
    "numpy.floor_divide": ("np.floor_divide(a_i64, 2)",),
    "numpy.mod": ("np.mod(a_i64, 2)",),
    "numpy.add": ("np.add(a_f32, a_f32)",),
    "numpy.multiply": ("np.multiply(a_f32, a_f32)",),
    "numpy.subtract": ("np.subtract(a_i64, a_i64)",),
    "numpy.column_stack": ("np.column_stack([a_i64, a_i64])",),
    "numpy.diag": ("np.diag(a_f32)",),
    "numpy.nan_to_num": ("np.nan_to_num(a_f32)",),
    "numpy.save": ("np.save(os.path.join(tmp_dir, 'a.npy'), a_f32)",),
    "numpy.load": ("np.load(npy_path)",),
    "numpy.savez": ("np.savez(os.path.join(tmp_dir, 'a.npz'), a=a_f32)",),
    "numpy.set_printoptions": ("np.set_printoptions(precision=8)",),
    "numpy.frombuffer": ("np.frombuffer(b'ab', dtype=np.uint8)",),
    "numpy.isscalar": ("np.isscalar(a_f32)",),
}

# Rows with no sample, and why.
SKIP: dict[str, str] = {
    "tensorflow.nest.map_structure": "the table claims nothing (unknown: what the function returns)",
    "tensorflow_probability.mcmc.HamiltonianMonteCarlo": "the table claims nothing of the kernel (unknown); "
    "grad_fn is proven by TAPE007's examples",
    "tensorflow_probability.mcmc.NoUTurnSampler": "the table claims nothing of the kernel (unknown)",
    "tensorflow_probability.mcmc.MetropolisAdjustedLangevinAlgorithm": "the table claims nothing of the kernel (unknown)",
    "tensorflow_probability.mcmc.UncalibratedHamiltonianMonteCarlo": "the table claims nothing of the kernel (unknown)",
    "keras.activations.get": "a lookup row: test_lookup_rows_name_the_function_tensorflow_returns",
    "keras.activations.deserialize": "the table claims nothing (unknown: an activation function)",
    "keras.activations.serialize": "the table claims nothing (unknown: a name or a config)",
    "tensorflow.nest.pack_sequence_as": "the table claims nothing (unknown)",
    "tensorflow.py_function": "the table claims nothing (unknown: what the Python function returns)",
    "tensorflow.numpy_function": "the table claims nothing (unknown)",
    "tensorflow.py_func": "the table claims nothing (unknown)",
    "tensorflow.numpy_function_deprecated": "the table claims nothing (unknown)",
    "tensorflow.while_loop": "the table claims nothing (unknown: the loop variables' structure)",
    "tensorflow.cond": "the table claims nothing (unknown: what the branches return)",
    "tensorflow.switch_case": "the table claims nothing (unknown)",
    "tensorflow.custom_gradient": "the table claims nothing (unknown: a decorator)",
    "tensorflow.recompute_grad": "the table claims nothing (unknown: a decorator)",
    "tensorflow.get_static_value": "the table claims nothing (unknown: an ndarray or None)",
    "tensorflow_probability.mcmc.sample_chain": "the table claims nothing (unknown)",
    "keras.backend.gradients": "Keras 2's symbolic gradients: Keras 3's tf.keras.backend.gradients needs Keras 2 "
                               "graph tensors",
    "tensorflow.InteractiveSession": "installs itself as the process's default session (the other samples share "
                                     "the process)",
    "tensorflow.summary.scalar": "needs TensorBoard, which the test environment does not install",
    "keras.layers.ThresholdedReLU": "Keras 2 only (tf_keras): Keras 3 removed it",
    "tensorflow.disable_eager_execution": "switches the whole process into graph mode",
    "tensorflow.disable_v2_behavior": "switches the whole process into TensorFlow 1 behaviour",
    "tensorflow.disable_control_flow_v2": "switches the process's control flow to v1",
    "tensorflow.register_tensor_conversion_function": "changes TensorFlow's process-wide conversion registry",
}

# Rows whose gradient is not checked though they have a float input, and why.
GRAD_SKIP: dict[str, str] = {
    "tensorflow.constant": "of a tensor, TensorFlow hands the tensor back (values.py follows the tensor for "
                           "tf.constant); of data there is nothing to differentiate",
}


# Samples where TensorFlow disagrees with the table and the row waits for a rule's owner (strict:
# an XPASS fails, so the entry goes when the row is corrected).
KNOWN_WRONG: dict[str, str] = {}


def samples() -> list[tuple[str, int, str]]:
    return [(name, index, call) for name, calls in SAMPLES.items()
            for index, call in enumerate((calls,) if isinstance(calls, str) else calls)]


def table_rows() -> dict[str, library.Api]:
    return {row.name: row for row in library.rows()
            if row.name.startswith(NAMESPACES) and "{" not in row.name and "*" not in row.name}


# --- the TensorFlow side: one process for every sample ------------------------------------------

PROBE = r'''
import inspect, json, sys, time, warnings
warnings.filterwarnings("ignore")
started = time.perf_counter()
request = json.load(open(sys.argv[1]))
namespace = {"sys": sys}
exec(request["header"], namespace)
imported = time.perf_counter()
exec(request["inputs"], namespace)
ready = time.perf_counter()
tf, np, keras, tfp = namespace["tf"], namespace["np"], namespace["keras"], namespace["tfp"]
from keras.src.backend.common.keras_tensor import KerasTensor

def kind_of(r):
    name = type(r).__name__
    if r is None:
        return "none"
    if isinstance(r, (bool, int, float, complex)) and not isinstance(r, np.generic):
        return "number"
    if isinstance(r, (str, bytes)):
        return "str"
    if isinstance(r, np.ndarray):
        return "ndarray"
    if isinstance(r, np.dtype):
        return "dtype"
    if isinstance(r, np.generic):
        return "np_scalar"
    if name in ("TransformedVariable", "DeferredTensor") or "DeferredModule" in name:
        return "tfp_variable"
    if isinstance(r, (tf.Variable, keras.Variable)):
        return "variable"
    if isinstance(r, KerasTensor) or tf.is_tensor(r):
        return "tensor"
    for kind, types in (("list", list), ("tuple", tuple), ("dict", dict), ("model", keras.Model),
                        ("layer", keras.layers.Layer),
                        ("optimizer", (keras.optimizers.Optimizer, tf.compat.v1.train.Optimizer)),
                        ("loss", keras.losses.Loss), ("metric", keras.metrics.Metric),
                        ("schedule", keras.optimizers.schedules.LearningRateSchedule),
                        ("distribution", tfp.distributions.Distribution), ("bijector", tfp.bijectors.Bijector),
                        ("linear_operator", tf.linalg.LinearOperator), ("tape", tf.GradientTape),
                        ("dataset", tf.data.Dataset), ("shape", tf.TensorShape), ("dtype", tf.dtypes.DType),
                        ("generator", (np.random.Generator, np.random.RandomState))):
        if isinstance(r, types):
            return kind
    if any(c.__name__ == "Initializer" for c in type(r).__mro__):
        return "initializer"
    if hasattr(r, "get_concrete_function"):
        return "tf_function"
    if isinstance(r, tf.Module):
        return "module"
    if hasattr(r, "__next__"):
        return "iterator"
    return "object"

def dtype_of(r):
    if isinstance(r, (list, tuple)):
        return dtype_of(r[0]) if r else None
    if isinstance(r, bool):
        return "bool"
    if isinstance(r, (int, float, complex)) and not isinstance(r, np.generic):
        return type(r).__name__
    dtype = getattr(r, "dtype", None)
    if dtype is None or isinstance(dtype, str):
        return dtype
    return getattr(dtype, "name", None)

def total(r):
    parts = []
    for t in tf.nest.flatten(r):
        if isinstance(t, tf.SparseTensor):
            t = t.values
        elif isinstance(t, tf.RaggedTensor):
            t = t.flat_values
        if (isinstance(t, tf.Variable) or (tf.is_tensor(t) and not isinstance(t, KerasTensor))) and \
                t.dtype != tf.string:
            t = tf.math.real(t) if t.dtype.is_complex else t
            parts.append(tf.reduce_sum(tf.cast(t, tf.float32)))
    return tf.add_n(parts) if parts else None

def parameters(function):
    """The positional parameters of a Python function or class (C functions' signatures
    are not what they accept: np.arange takes dtype as its fourth argument)."""
    if isinstance(function, type):
        function, skip = getattr(function, "__init__", None), 1
    else:
        skip = 0
    function = inspect.unwrap(function) if function is not None else None
    if not inspect.isfunction(function):
        return None
    out = []
    for p in list(inspect.signature(function).parameters.values())[skip:]:
        if p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD):
            break
        out.append(p.name)
    return out

def describe(result, out):
    out["kind"] = kind_of(result)
    out["class"] = type(result).__module__ + "." + type(result).__qualname__
    out["dtype"] = dtype_of(result)
    out["composite"] = isinstance(result, (tf.SparseTensor, tf.RaggedTensor))

def run(sample, local, out):
    try:
        out["parameters"] = parameters(eval(sample["function"], local))
    except Exception:
        out["parameters"] = None
    if sample["graph"]:
        with tf.Graph().as_default():
            describe(eval(sample["call"], local), out)
        return
    source = local.get(sample["wrt"]) if sample["wrt"] else None
    with tf.GradientTape() as tape:
        if source is not None and not isinstance(source, tf.Variable):
            tape.watch(source)
        result = eval(sample["call"], local)
        target = total(result) if source is not None else None
    describe(result, out)
    if source is None:
        return
    out["float_result"] = target is not None and all(
        t.dtype.is_floating or t.dtype.is_complex for t in tf.nest.flatten(result)
        if tf.is_tensor(t) or isinstance(t, tf.Variable))
    try:
        gradient = tape.gradient(target, source) if target is not None else None
    except LookupError:  # "gradient registry has no entry for: AdjustHue"
        gradient = "lookup_error"
    out["gradient"] = gradient if gradient is None or isinstance(gradient, str) else (
        "zero" if not bool(tf.reduce_any(tf.not_equal(tf.convert_to_tensor(gradient), 0))) else "nonzero")

results = {}
for sample in request["samples"]:
    out = {}
    begun = time.perf_counter()
    try:
        run(sample, dict(namespace), out)
    except Exception as error:
        out["error"] = f"{type(error).__name__}: {error}"[:500]
    out["seconds"] = time.perf_counter() - begun
    results[sample["id"]] = out
import shutil
shutil.rmtree(namespace["tmp_dir"], ignore_errors=True)
json.dump({"results": results, "seconds": {"import": imported - started, "inputs": ready - imported,
                                           "samples": time.perf_counter() - ready}}, open(sys.argv[2], "w"))
'''


# Kinds whose values have a dtype the table can claim (a layer's `dtype` is its policy's).
DTYPE_KINDS = frozenset({"tensor", "variable", "ndarray", "np_scalar", "number", "list", "tuple"})
GRAPH = "graph: "  # a sample that runs in a tf.Graph (TensorFlow 1 APIs, and what returns an Operation there)


def _split(sample: str) -> tuple[str, bool]:
    """(the call, whether it runs in a graph)."""
    return (sample[len(GRAPH):], True) if sample.startswith(GRAPH) else (sample, False)


def _first_float_input(call: str) -> str | None:
    found = [(m.start(), name) for name in FLOAT_INPUTS for m in [re.search(rf"\b{name}\b", call)] if m]
    return min(found)[1] if found else None


def _function_text(call: str) -> str:
    node = ast.parse(call, mode="eval").body
    return ast.unparse(node.func) if isinstance(node, ast.Call) else call


PROBE_SECONDS: dict[str, float] = {}


@pytest.fixture(scope="module")
def measured(tensorflow_version: str) -> dict[str, dict]:
    """What TensorFlow returned for every sample (one process, TensorFlow imported once)."""
    request = {"header": HEADER, "inputs": INPUTS, "samples": [
        {"id": f"{name}#{index}", "call": _split(call)[0], "function": _function_text(_split(call)[0]),
         "graph": _split(call)[1], "wrt": None if name in GRAD_SKIP else _first_float_input(call)}
        for name, index, call in samples()]}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", KERAS_BACKEND="tensorflow",
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("TF_USE_LEGACY_KERAS", None)
    with tempfile.TemporaryDirectory() as tmp:
        request_path, result_path, log_path = (Path(tmp, name) for name in ("request.json", "results.json", "log"))
        request_path.write_text(json.dumps(request), encoding="utf-8")
        with open(log_path, "wb") as log:
            probe = subprocess.Popen([sys.executable, "-c", PROBE, str(request_path), str(result_path)], env=env,
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            try:
                for _name, _index, call in samples():  # the value model's side, while TensorFlow imports
                    modelled(call)
                returncode = probe.wait(timeout=600)
            finally:
                if probe.poll() is None:
                    probe.kill()
                    probe.wait()
        if returncode != 0 or not result_path.exists():
            output = log_path.read_text(encoding="utf-8", errors="replace")
            pytest.fail(f"the TensorFlow probe failed ({returncode}):\n{output[-4000:]}", pytrace=False)
        found = json.loads(result_path.read_text(encoding="utf-8"))
    PROBE_SECONDS.update(found["seconds"])
    return found["results"]


# --- this side: the table and the engine's value model -------------------------------------------

@functools.lru_cache(maxsize=None)
def modelled(call: str):
    """(the canonical name the engine resolves the call to, the value it infers for it)."""
    source = HEADER + INPUTS + f"result = {_split(call)[0]}\n"
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    value = values_of(facts).value(tree.body[-1].value)
    node = tree.body[-1].value
    name = facts.imports.resolve(node.func if isinstance(node, ast.Call) else node)
    return name, value


def _model_dtype(value) -> str | None:
    if value.kind in ("list", "tuple"):
        return value.item.dtype if value.item is not None else None
    return value.dtype


def check_sample(name: str, call: str, seen: dict) -> dict[str, bool | None]:
    """The problems of one sample, and which claims it proved (kind, dtype, grad: True / None)."""
    row = library.api(name)
    problems: list[str] = []
    proved = {"kind": None, "dtype": None, "grad": None}
    if "error" in seen:
        return {"problems": [f"TensorFlow raised {seen['error']}"], **proved}
    resolved, value = modelled(call)
    if not name.startswith("@") and resolved != name:
        problems.append(f"the engine resolves the sample to {resolved}, not {name}")
    if row.kind == "unknown":  # the table claims nothing
        return {"problems": problems, **proved}
    if value.kind != row.kind:
        problems.append(f"the value model says {value.kind}, the table {row.kind}")
    if seen["kind"] != row.kind:
        problems.append(f"kind: TensorFlow returned {seen['class']} ({seen['kind']}), the table says {row.kind}")
    else:
        proved["kind"] = True
    dtype = _model_dtype(value)
    if row.kind in DTYPE_KINDS and dtype is not None and seen["dtype"] is not None:
        if dtype != seen["dtype"]:
            problems.append(f"dtype: TensorFlow returned {seen['dtype']}, the value model (rule "
                            f"{'|'.join(row.dtype)}) says {dtype}")
        else:
            proved["dtype"] = True
    if row.kind == "tensor" and seen["kind"] == "tensor" and seen["composite"] != row.has("composite"):
        problems.append(f"composite: TensorFlow returned {seen['class']}, the row "
                        f"{'has' if row.has('composite') else 'lacks'} the composite flag")
    if "gradient" in seen and row.grad in ("yes", "no", "const", "stop"):
        if row.grad == "yes":
            if seen["float_result"]:
                if seen["gradient"] in (None, "lookup_error"):
                    problems.append("grad: the table says yes, the tape " + (
                        "returned None" if seen["gradient"] is None else "raised LookupError (no gradient registered)"))
                else:
                    proved["grad"] = True
        elif seen["gradient"] not in (None, "lookup_error"):
            problems.append(f"grad: the table says {row.grad}, the tape returned a {seen['gradient']} gradient")
        else:
            proved["grad"] = True
    parameters = seen.get("parameters")
    for rule in row.dtype:
        if rule.startswith("kw=") and parameters is not None:
            keyword, _, position = rule[3:].partition("@")
            index = int(position)
            if index < len(parameters) and parameters[index] != keyword or index >= len(parameters):
                problems.append(f"{rule}: positional argument {index} is "
                                f"{parameters[index] if index < len(parameters) else 'not there'}"
                                f" (parameters {parameters})")
    proved["problems"] = problems
    return proved


def _param(name: str, index: int, call: str):
    key = f"{name}#{index}"
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[key])] if key in KNOWN_WRONG else []
    return pytest.param(name, index, call, id=key, marks=marks)


@pytest.mark.parametrize(("name", "index", "call"), [_param(*sample) for sample in samples()])
def test_row_under_tensorflow(name: str, index: int, call: str, measured: dict) -> None:
    outcome = check_sample(name, call, measured[f"{name}#{index}"])
    assert not outcome["problems"], f"{call}:\n  " + "\n  ".join(outcome["problems"])


def test_every_row_has_a_sample_or_a_reason():
    rows = table_rows()
    assert not set(SAMPLES) & set(SKIP)
    missing = sorted(set(rows) - set(SAMPLES) - set(SKIP))
    assert not missing, f"rows with no sample in SAMPLES and no reason in SKIP: {missing}"
    stale = sorted(name for name in set(SAMPLES) | set(SKIP) | set(GRAD_SKIP) if library.api(name) is None)
    assert not stale, f"names that no row of library.tsv answers for: {stale}"
    ids = {f"{name}#{index}" for name, index, _call in samples()}
    assert set(KNOWN_WRONG) <= ids, sorted(set(KNOWN_WRONG) - ids)


def test_enough_rows_are_proven(measured: dict, capsys) -> None:
    """A name is proven for a claim when every sample of it passes and one proves that claim."""
    exact = {row.name for row in library.rows()}
    outcomes: dict[str, list[dict]] = {}
    for name, index, call in samples():
        outcomes.setdefault(name, []).append(check_sample(name, call, measured[f"{name}#{index}"]))
    proven = {claim: {name for name, found in outcomes.items()
                      if not any(o["problems"] for o in found) and any(o[claim] for o in found)}
              for claim in ("kind", "dtype", "grad")}
    unknown_dtype = sum(1 for name, index, _call in samples()
                        if library.api(name).kind in DTYPE_KINDS and measured[f"{name}#{index}"].get("dtype")
                        and not outcomes[name][index]["dtype"] and not outcomes[name][index]["problems"])

    def count(claim: str) -> str:
        rows = len(proven[claim] & exact)
        return f"{rows} rows + {len(proven[claim]) - rows} namespace defaults by {claim}"

    with capsys.disabled():
        print(f"\nlibrary table under TensorFlow: {count('kind')}, {count('dtype')}, {count('grad')}; "
              f"{len(samples())} samples ({unknown_dtype} with a dtype the value model leaves unknown, "
              f"{len(KNOWN_WRONG)} known wrong); {len(SKIP)} rows skipped; TensorFlow process: "
              + ", ".join(f"{k} {v:.1f} s" for k, v in PROBE_SECONDS.items()))
    assert len(proven["kind"] & exact) >= 250


# `per_image` rows: the op of a batch of images is tf.map_fn of the op over its images (MAP002
# replaces the one with the other). Each row's sample on `img_f32` (a batch of two images) is
# run both ways.
PER_IMAGE_PROBE = r'''
import json
import sys
import numpy as np
import tensorflow as tf

img_f32 = tf.reshape(tf.linspace(0.0, 1.0, 96), [2, 4, 4, 3])
out = {}
for call in json.loads(sys.argv[1]):
    batch = eval(call)
    each = tf.map_fn(lambda im: eval(call.replace("img_f32", "im"), {"tf": tf, "im": im}), img_f32,
                     fn_output_signature=batch.dtype)
    out[call] = bool(batch.shape == each.shape and np.allclose(batch.numpy(), each.numpy(), atol=1e-5))
print(json.dumps(out))
'''


def test_per_image_rows_give_on_a_batch_what_map_fn_gives(tensorflow_version: str) -> None:
    rows = [row.name for row in library.rows() if row.has("per_image")]
    assert len(rows) >= 10
    calls = {}
    for name in rows:
        call = next((c for c in SAMPLES.get(name, ()) if re.match(r"tf\.image\.\w+\(img_f32\b", c)), None)
        assert call is not None, f"{name}: no sample on img_f32"
        calls[name] = call
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", PER_IMAGE_PROBE, json.dumps(sorted(calls.values()))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    same = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(name for name, call in calls.items() if not same[call]) == []


LOOKUP_PROBE = """
import json, sys
import keras
import tensorflow as tf
names = json.loads(sys.argv[1])
out = {}
for call, expected in names:
    out[call] = eval(call) is eval(expected)
print(json.dumps(out))
"""


def test_lookup_rows_name_the_function_tensorflow_returns(tensorflow_version: str) -> None:
    """`lookup:NS|NAME` rows: the value model's function for a string, None and a function
    argument is the very object TensorFlow's call returns (Keras 3 and tf.keras)."""
    rows = [row for row in library.rows() if row.kind == "lookup"]
    assert rows
    pairs = []
    for row in rows:
        namespace = row.dtype[0]
        for prefix in ("keras.", "tf.keras."):
            call_name = prefix + row.name[len("keras."):]
            for argument in ('"relu"', '"sigmoid"', "None", "tf.nn.elu"):
                call = f"{call_name}({argument})"
                _name, value = modelled(call)
                assert value.kind == "library", (call, value)
                expected = value.ref.replace("tensorflow.", "tf.", 1)
                pairs.append((call, expected))
        assert namespace == "keras.activations"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", KERAS_BACKEND="tensorflow")
    env.pop("TF_USE_LEGACY_KERAS", None)
    done = subprocess.run([sys.executable, "-c", LOOKUP_PROBE, json.dumps(pairs)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    same = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(call for call, ok in same.items() if not ok) == []
