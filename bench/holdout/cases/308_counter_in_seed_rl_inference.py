"""A Python counter bumped inside the learner's tf.function `inference`: it counts traces, not calls.

Source: google-research/seed_rl#52 "Unable to update non-tensor variable in the tf.function"
(https://github.com/google-research/seed_rl/issues/52): "We try to initialize an non-tensor
variable outside a function which is tf.function (e.g. a=0). We try to update this variable inside
inference function which is a tf.function (e.g. a+=1) ... the value of this non-tensor variable
cannot be updated". The `+= 1` is Python code, run while TensorFlow traces `inference`.

Changed from the posted code: seed_rl's learner (gRPC server, actors) is reduced to a small agent
network and an `inference` tf.function that the "actors" loop calls with random observations.
"""
import tensorflow as tf

a = 0

agent = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)])


@tf.function
def inference(env_output):
    global a
    a += 1
    logits = agent(env_output)
    return tf.random.categorical(logits, 1)


def main():
    num_calls = 10
    for _ in range(num_calls):   # actors calling client.inference(...)
        inference(tf.random.normal((2, 8)))
    print("a =", a)
    print(f"ORACLE: bug={a != num_calls} a={a} calls={num_calls}")


if __name__ == "__main__":
    main()
