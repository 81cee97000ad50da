"""TF 1.x graph-mode GradientTape over tf.map_fn: the gradient comes back None.

Source: shared/seeds/004_*.txt "TensorFlow 1.13.1中GradientTape计算梯度触发TypeError求助"
(a Stack Exchange question, Chinese answer): `gg.gradient(f1, x)` through `tf.map_fn(lambda a:
a**2, x)` is None in graph mode, and `sess.run` then raises a TypeError. Run with TF2's v1
compatibility mode (disable_v2_behavior), which restores TF1 control flow.
"""
import tensorflow as tf

tf.compat.v1.disable_v2_behavior()


def main():
    tf.compat.v1.reset_default_graph()
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape(persistent=True) as gg:
        gg.watch(x)
        f1 = tf.map_fn(lambda a: a**2, x)
        f2 = x * x
    d_fx1 = gg.gradient(f1, x)
    d_fx2 = gg.gradient(f2, x)
    del gg
    with tf.compat.v1.Session() as sess:
        d1, d2 = sess.run((d_fx1, d_fx2))
    return d1, d2


if __name__ == "__main__":
    try:
        d1, d2 = main()
        print(d1, d2)
        print("ORACLE: bug=False error=none")
    except TypeError as exc:
        print("TypeError:", str(exc)[:300])
        print("ORACLE: bug=True error=TypeError")
