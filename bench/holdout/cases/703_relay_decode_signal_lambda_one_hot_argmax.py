"""A `Lambda` layer in the middle of a model decodes the relay's output with
`K.one_hot(K.argmax(softmax(x)))`: argmax cuts the gradient path, so `fit` finds no gradient for
the Dense layers before it.

Source: keras-team/keras#9169 "Lambda Layer : None values not supported"
(https://github.com/keras-team/keras/issues/9169). The reporter's autoencoder-style relay model
(M one-hot symbols -> Dense -> Dense -> Lambda(decodeSignal)) compiles, then `model.fit` raises a
ValueError; in Keras 2.1 it was "None values not supported", tf_keras 2.21 reports
"No gradients provided for any variable". Changed: M=8, 64 random one-hot symbols, 2 epochs;
the user's code is Keras 2 (`K.one_hot`, `K.argmax` on the backend), so tf_keras is used.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
from tensorflow.keras import backend as K
from tensorflow.keras.activations import softmax
from tensorflow.keras.layers import Input, Dense, Lambda
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import Adam

M = 8


def decodeSignal(x):
    x = softmax(x)
    Y = K.one_hot(K.argmax(x), num_classes=M)
    return Y


def main():
    onehot_symbols = np.eye(M)[np.random.randint(0, M, size=64)]

    input_layer = Input(shape=(M,))
    relay = Dense(M, activation="relu")(input_layer)
    relay = Dense(M,)(relay)
    relay_softmax = Lambda(decodeSignal, output_shape=(M,))(relay)

    model = Model(input_layer, relay_softmax)
    model.compile(optimizer=Adam(learning_rate=.001), loss="categorical_crossentropy")
    err = None
    try:
        model.fit(onehot_symbols, onehot_symbols, epochs=2, shuffle=True, verbose=False)
    except ValueError as e:
        err = e
    print("error:", str(err)[:120] if err else None)
    bug = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} no_gradients={bug}")


if __name__ == "__main__":
    main()
