"""FUNC015 (and the FUNC013/FUNC005/FUNC003/TAPE009 findings triaged with it): what TensorFlow 2.21
with Keras 3 does.

Each case is a few lines written for this benchmark after a construct met in the scanned trees
(never their code): the flagged line keeps its shape (the same kind of condition, the layer or
step called the same way: fit, a functional model, tf.data map, a direct eager call, a
tf.function). The first cases establish the facts the rule rests on (does Keras 3 convert
`call` with AutoGraph when it traces it?). Run:

    .venv/bin/python bench/precision/repro/func015_keras3_autograph.py

Prints one line per case: `<case>: raises <Error>: <message>` or `<case>: runs (<what came out>)`,
then `expected` / `UNEXPECTED` against what the verdicts in verdicts.jsonl rest on. Exit status 0
when every case behaves as expected.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.pop("TF_USE_LEGACY_KERAS", None)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case


# --- the facts: a plain Keras 3 layer with `if <tensor>:` / `for ... in tf.range` in call -----------

class IfOnTensor(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_max(x) > 5.0:
            return x / tf.reduce_max(x)
        return x


class ForOverTfRange(keras.layers.Layer):
    def call(self, x):
        total = tf.zeros_like(x)
        for _ in tf.range(tf.shape(x)[0]):
            total = total + x
        return total


def _fit(layer, x):
    model = keras.Sequential([layer])
    model.compile(loss="mse", optimizer="sgd")
    model.fit(x, x, epochs=1, verbose=0)
    return "fit done"


@case("raises")
def fact_keras3_if_functional_model():
    keras.Sequential([keras.Input((3,)), IfOnTensor()])


@case("raises")
def fact_keras3_if_fit():
    return _fit(IfOnTensor(), np.ones((4, 3), "float32"))


@case("raises")
def fact_keras3_if_in_user_tf_function():
    layer = IfOnTensor()
    tf.function(lambda x: layer(x))(tf.ones((2, 3)))


@case("runs")
def fact_keras3_if_direct_eager_call():
    return IfOnTensor()(tf.ones((2, 3)) * 6.0).numpy().max()


@case("raises")
def fact_keras3_for_tf_range_fit():
    return _fit(ForOverTfRange(), np.ones((4, 3), "float32"))


@case("runs")
def fact_tf_keras_converts_call_in_fit():
    import tf_keras

    class IfOnTensor(tf_keras.layers.Layer):
        def call(self, x):
            if tf.reduce_max(x) > 5.0:
                return x / tf.reduce_max(x)
            return x

    model = tf_keras.Sequential([tf_keras.Input((3,)), IfOnTensor()])
    model.compile(loss="mse", optimizer="sgd")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 3), "float32"), epochs=1, verbose=0)
    return "fit done"


@case("runs")
def fact_keras3_call_decorated_tf_function_functional_and_fit():
    class Clip(keras.layers.Layer):
        @tf.function
        def call(self, x):
            if tf.reduce_max(x) > 5.0:
                return x / tf.reduce_max(x)
            return x

    keras.Sequential([keras.Input((3,)), Clip()])
    return _fit(Clip(), np.ones((4, 3), "float32"))


# --- keras-io barlow_twins: `@tf.function def call`, `if self.random_execute(p):` (a tf.function
#     returning a scalar bool tensor); the augmentor model runs in tf.data map, eagerly, and in a
#     functional model ---------------------------------------------------------------------------

class Augmentation(keras.layers.Layer):
    @tf.function
    def random_execute(self, prob):
        return tf.random.uniform([], minval=0, maxval=1) < prob


class ToGray(Augmentation):
    @tf.function
    def call(self, x):
        if self.random_execute(0.2):
            x = tf.image.rgb_to_grayscale(x)
            x = tf.tile(x, [1, 1, 3])
        return x


class Jitter(Augmentation):
    @tf.function
    def call(self, x):
        if self.random_execute(0.8):
            x = tf.image.random_brightness(x, 0.8)
            x = tf.image.random_contrast(x, 0.4, 1.6)
        return x


class Blur(Augmentation):
    @tf.function
    def call(self, x):
        if self.random_execute(0.2):
            s = np.random.random()
            return tf.image.adjust_brightness(x, s)  # stands in for tfa's gaussian_filter2d
        return x


class Augmentor(keras.Model):
    def __init__(self):
        super().__init__()
        self.gray, self.jitter, self.blur = ToGray(), Jitter(), Blur()

    def call(self, x):
        return tf.clip_by_value(self.gray(self.jitter(self.blur(x))), 0, 1)


@case("runs")
def barlow_tf_function_call_in_dataset_map():
    images = np.random.rand(8, 16, 16, 3).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(images).map(Augmentor()).batch(4)
    return [tuple(b.shape) for b in ds]


@case("runs")
def barlow_tf_function_call_eager_and_functional():
    aug = Augmentor()
    out = aug(tf.random.uniform((16, 16, 3)))
    # (ToGray's tf.tile(x, [1, 1, 3]) wants one unbatched image, so it stays out of the batched
    # functional model: there its converted `if` shows up as a `cond/Tile` node of the trace.)
    inp = keras.Input((16, 16, 3))
    keras.Model(inp, Jitter()(Blur()(inp)))
    return tuple(out.shape)


# --- keras-io classification_with_tfdf: `if self.stats == None: raise` where adapt() stored an
#     eager tf.constant; the layer is called on a KerasTensor to build a functional model -----------

class TargetEncoding(keras.layers.Layer):
    def adapt(self, data):
        self.stats = tf.constant(tf.cast(tf.random.uniform((3, 3)), tf.float32))

    def call(self, inputs):
        if self.stats == None:  # noqa: E711 (the construct under test)
            raise ValueError("adapt first")
        inputs = tf.cast(inputs, tf.int64)
        return tf.gather_nd(self.stats, inputs)


@case("runs")
def tfdf_tensor_eq_none_functional_model_and_predict():
    enc = TargetEncoding()
    enc.adapt(None)
    assert (tf.constant([1.0]) == None) is False  # noqa: E711 Tensor.__eq__(None) is Python False
    inp = keras.Input((1,), dtype="int64")
    model = keras.Model(inp, enc(inp))
    return model.predict(np.array([[0], [2]]), verbose=0).shape


# --- dragen1860 RPNHead: `for feat in inputs:` where inputs is a Python list of feature maps -------

class RpnHead(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(6, 1)

    def call(self, inputs, training=True):
        outs = []
        for feat in inputs:
            outs.append(tf.reshape(self.conv(feat), [tf.shape(feat)[0], -1, 2]))
        return tf.concat(outs, axis=1)


@case("runs")
def dragen_rpn_for_over_list_input_eager_and_tf_function():
    head = RpnHead()
    maps = [tf.ones((1, 8, 8, 4)), tf.ones((1, 4, 4, 4)), tf.ones((1, 2, 2, 4))]
    eager = head(maps, training=False)
    traced = tf.function(lambda ms: head(ms, training=True))(maps)
    return tuple(eager.shape), tuple(traced.shape)


# --- dragen1860 GraphConvolution: `if self.bias:` where bias is the constructor's Python False (no
#     caller passes True); the model is called eagerly under a GradientTape ----------------------------

class GraphConv(keras.layers.Layer):
    def __init__(self, units, bias=False):
        super().__init__()
        self.bias = bias
        self.w = self.add_weight(shape=(3, units), name="weight0")
        if self.bias:
            self.bias = self.add_weight(shape=(units,), name="bias")

    def call(self, x):
        out = tf.matmul(x, self.w)
        if self.bias:
            out += self.bias
        return out


@case("runs")
def dragen_gcn_if_python_bias_eager_and_traced():
    layer = GraphConv(2)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(tf.ones((4, 3))))
    grads = tape.gradient(y, layer.trainable_variables)
    tf.function(lambda x: layer(x))(tf.ones((4, 3)))
    return [None if g is None else tuple(g.shape) for g in grads]


@case("raises")
def dragen_gcn_keras3_add_variable_positional_name():
    # The tree's `self.add_variable('weight0', [in, out])` (Keras 2's signature: name first) is
    # read by Keras 3 as shape='weight0': it fails when the layer is built, nothing to do with `if`.
    class Old(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.add_variable("weight0", [3, 2])

    Old()


# --- tensorflow/neural-structured-learning GraphConvLayer: `if self.bias:` on a bool argument (the
#     weight lives in self.b); a functional model trained with fit --------------------------------

class GraphConvLayer(keras.layers.Layer):
    def __init__(self, units, bias):
        super().__init__()
        self.units, self.bias = units, bias

    def build(self, input_shape):
        self.weight = self.add_weight(shape=(input_shape[-1], self.units))
        if self.bias:
            self.b = self.add_weight(shape=(self.units,))

    def call(self, x):
        out = tf.matmul(x, self.weight)
        if self.bias:
            return self.b + out
        else:
            return out


@case("runs")
def nsl_gcn_if_bool_argument_fit():
    return [_fit(GraphConvLayer(3, bias), np.ones((4, 3), "float32")) for bias in (True, False)]


# --- keiohta/tf2rl SNDense: `if K.is_sparse(inputs):` (tensorflow.python.keras.backend), a Python
#     bool -------------------------------------------------------------------------------------------

@case("runs")
def tf2rl_if_is_sparse_fit_and_functional():
    from tensorflow.python.keras import backend as K

    class SN(keras.layers.Dense):
        def call(self, inputs):
            inputs = tf.cast(inputs, self.compute_dtype)
            if K.is_sparse(inputs):
                out = tf.sparse.sparse_dense_matmul(inputs, self.kernel)
            else:
                out = tf.matmul(inputs, self.kernel)
            return out + self.bias

    keras.Sequential([keras.Input((3,)), SN(2)])
    return _fit(SN(3), np.ones((4, 3), "float32"))


# --- keras-team/keras-cv RPNHead: `for f_map in feature_map:` under
#     `elif isinstance(feature_map, (list, tuple)):`, in a functional model of several inputs -------

class CvRpnHead(keras.layers.Layer):
    def build(self, input_shape):
        self.conv = keras.layers.Conv2D(3, 1)

    def call(self, feature_map, training=None):
        def single(f_map):
            return tf.reshape(self.conv(f_map), [tf.shape(f_map)[0], -1, 1])

        if not isinstance(feature_map, (dict, list, tuple)):
            return single(feature_map)
        elif isinstance(feature_map, (list, tuple)):
            scores = []
            for f_map in feature_map:
                scores.append(single(f_map))
            return scores
        else:
            return {lvl: single(f) for lvl, f in feature_map.items()}


@case("runs")
def kerascv_for_over_list_under_isinstance_functional_predict():
    a, b = keras.Input((8, 8, 4)), keras.Input((4, 4, 4))
    model = keras.Model([a, b], CvRpnHead()([a, b]))
    out = model.predict([np.ones((2, 8, 8, 4)), np.ones((2, 4, 4, 4))], verbose=0)
    return [o.shape for o in out]


# --- tensorflow/addons CRF: `left_padding = not no_left_padding` / `if left_padding:` under
#     `if first_mask is not None and tf.executing_eagerly():` --------------------------------------

class Crf(keras.layers.Layer):
    def call(self, inputs, mask=None):
        if mask is not None:
            first_mask = mask[:, 0]
            if first_mask is not None and tf.executing_eagerly():
                no_left_padding = tf.math.reduce_all(first_mask)
                left_padding = not no_left_padding
                if left_padding:
                    raise NotImplementedError("left padding")
        return inputs * 2.0


@case("runs")
def addons_not_tensor_under_executing_eagerly_fit_and_eager():
    x = np.ones((4, 5, 3), "float32")
    inp = keras.Input((5, 3))
    masked = keras.layers.Masking(mask_value=-1.0)(inp)
    model = keras.Model(inp, Crf()(masked))
    model.compile(loss="mse", optimizer="sgd")
    model.fit(x, x, epochs=1, verbose=0)
    eager = Crf()(tf.constant(x), mask=tf.ones((4, 5), tf.bool))
    return "fit done", tuple(eager.shape)


# --- tensorflow/docs effective_tf2 DynamicRNN: `@tf.function(input_signature=...) def call` with
#     `for i in tf.range(timesteps):`, called eagerly as the guide does, and in a tf.function ---------

class DynamicRNN(keras.Model):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    @tf.function(input_signature=[tf.TensorSpec(dtype=tf.float32, shape=[None, None, 3])])
    def call(self, input_data):
        input_data = tf.transpose(input_data, [1, 0, 2])
        timesteps = tf.shape(input_data)[0]
        batch_size = tf.shape(input_data)[1]
        outputs = tf.TensorArray(tf.float32, timesteps)
        state = self.cell.get_initial_state(batch_size=batch_size)
        for i in tf.range(timesteps):
            output, state = self.cell(input_data[i], state)
            outputs = outputs.write(i, output)
        return tf.transpose(outputs.stack(), [1, 0, 2]), state


@case("runs")
def docs_dynamic_rnn_tf_function_call_eager_and_traced():
    rnn = DynamicRNN(keras.layers.LSTMCell(units=13))
    out, _ = rnn(tf.random.normal(shape=[10, 20, 3]))
    out2, _ = tf.function(lambda x: rnn(x))(tf.random.normal(shape=[4, 7, 3]))
    return tuple(out.shape), tuple(out2.shape)


# --- tensorflow/docs r1 autograph StochasticNetworkDepth: `Cls.call = tf.autograph.to_graph(Cls.call)`
#     after the class; `if not training:` and `if keeps[i]:` on tensors ----------------------------

class StochasticDepth(keras.layers.Layer):
    def __init__(self, n):
        super().__init__()
        self.inner = [keras.layers.Dense(4) for _ in range(n)]
        self.depth = n

    def call(self, inputs):
        training = tf.cast(tf.constant(1), dtype=bool)
        if not training:
            return inputs
        keeps = tf.random.uniform((self.depth,)) <= 0.5
        x = inputs
        for i in range(self.depth):
            if keeps[i]:
                x = self.inner[i](x)
        return x


StochasticDepth.call = tf.autograph.to_graph(StochasticDepth.call)


@case("runs")
def docs_r1_to_graph_call_functional_and_fit():
    inp = keras.Input((4,))
    keras.Model(inp, StochasticDepth(3)(inp))
    return _fit(StochasticDepth(3), np.ones((4, 4), "float32"))


@case("runs")
def docs_r1_guide_needs_tf1_apis():
    # The guide itself is TF1 code (tf.Graph().as_default(), tf.global_variables_initializer): under
    # TF 2.21 its first TF1 call fails long before any `if`.
    return {name: hasattr(tf, name) for name in ("random_uniform", "global_variables_initializer")} | {
        "keras.backend.learning_phase": hasattr(keras.backend, "learning_phase")}


# --- FUNC013, keras-io molecule_generation / wgan-graphs: train_step stores `self.batch_size =
#     tf.shape(x)[0]`; a helper method called from the same train_step reads it -------------------

class GanLike(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.tracker = keras.metrics.Mean(name="loss")

    def call(self, inputs):
        return self.dense(tf.concat(inputs, axis=1))

    def train_step(self, data):
        x, y = data[0]
        self.batch_size = tf.shape(y)[0]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(self([x, y])) + self._penalty(x)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.tracker.update_state(loss)
        return {"loss": self.tracker.result()}

    def _penalty(self, x):
        alpha = tf.random.uniform([self.batch_size])
        alpha = tf.reshape(alpha, (self.batch_size, 1))
        return tf.reduce_mean(alpha * x)


@case("runs")
def func013_self_batch_size_read_in_same_trace_fit():
    model = GanLike()
    model.compile(optimizer="adam")
    hist = model.fit([np.ones((32, 3), "float32"), np.ones((32, 1), "float32")], epochs=2, batch_size=8,
                     verbose=0)
    return [round(v, 3) for v in hist.history["loss"]]


# --- FUNC005, tensorflow/docs migration_debugging: train_step with `.numpy()`, called directly in
#     eager mode by the guide (never through fit) ------------------------------------------------------

class Logged(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)
        self.opt = keras.optimizers.SGD(0.1)
        self.loss_fn = keras.losses.MeanSquaredError()
        self.logs = {"step": [], "loss": []}

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self(x))
        grads = tape.gradient(loss, self.trainable_weights)
        self.logs["step"].append(self.opt.iterations.numpy())
        self.logs["loss"].append(loss.numpy())
        self.opt.apply_gradients(zip(grads, self.trainable_weights))


@case("runs")
def func005_numpy_in_train_step_called_directly():
    model = Logged()
    for _ in range(3):
        model.train_step([tf.ones((4, 3)), tf.zeros((4, 2))])
    return model.logs["step"]


@case("runs")
def func005_tf_keras_legacy_optimizer_exists_only_in_keras2():
    # The guide's `tf.keras.optimizers.legacy.SGD` does not exist in Keras 3 (another failure).
    try:
        keras.optimizers.legacy.SGD(0.1)
        return "keras.optimizers.legacy.SGD constructed"
    except Exception as e:  # noqa: BLE001
        return f"keras.optimizers.legacy.SGD: {type(e).__name__}"


# --- FUNC003, tensorflow/federated fed_recon: a metric constructed under tf.init_scope() inside a
#     tf.function; tensorflow/privacy dp_keras_model: built behind `if self._x is None:` -----------

def _client_update():
    """Like the tree's builder: a new tf.function each time, which builds a metric under init_scope."""
    @tf.function
    def client_update(x):
        with tf.init_scope():
            metric = keras.metrics.MeanMetricWrapper(keras.losses.mean_squared_error, name="loss")
        metric.update_state(x, x * 2.0)
        return metric.result()
    return client_update


@case("runs")
def func003_metric_under_init_scope_traced_once_in_a_graph():
    # What tff.tf_computation does with `client_update`: one call inside tf.Graph().as_default(),
    # with placeholders for the parameters: one trace, so the variables are created on the first
    # (only) trace, which tf.function allows.
    with tf.Graph().as_default():
        out = _client_update()(tf.compat.v1.placeholder(tf.float32, [None]))
    return out.dtype.name


@case("raises")
def func003_metric_under_init_scope_first_eager_call():
    # A fact for the rule: called eagerly, the same function fails on its first call already: when
    # the first trace creates variables, tf.function traces once more, and that trace creates them
    # again (tf.init_scope() does not hide them from the tf.function's variable creator).
    return float(_client_update()(tf.ones((3,))))


@case("runs")
def func003_metric_behind_first_call_guard_retraced():
    class Holder:
        clipping = None

        def make(self):
            self.clipping = keras.metrics.Mean(name="privatized")

        @tf.function
        def train_step(self, x):
            if self.clipping is None:
                self.make()
            self.clipping.update_state(x)
            return self.clipping.result()

    h = Holder()
    return [float(h.train_step(tf.ones((n,)))) for n in (2, 3, 4)]  # three traces


@case("raises")
def func003_control_metric_every_trace():
    @tf.function
    def step(x):
        metric = keras.metrics.Mean()
        metric.update_state(x)
        return metric.result()

    return [float(step(tf.ones((n,)))) for n in (2, 3)]


# --- TAPE009, tensorflow/docs autodiff: the guide's try/except around adjust_contrast's gradient ----

@case("raises")
def tape009_adjust_contrast_gradient():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    return tape.gradient(new_image, [image, delta])


def main() -> int:
    return CASES.main(f"tensorflow {tf.__version__}, keras {keras.__version__}")


if __name__ == "__main__":
    sys.exit(main())
