"""The answer's first fix: the elementwise op applied directly, which the TF1 tape can follow.

Source: shared/seeds/004_*.txt, answer option 1 ("替换tf.map_fn为向量化操作").
"""
import tensorflow as tf

tf.compat.v1.disable_v2_behavior()


def main():
    tf.compat.v1.reset_default_graph()
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape(persistent=True) as gg:
        gg.watch(x)
        f1 = x ** 2
        f2 = x * x
    d_fx1 = gg.gradient(f1, x)
    d_fx2 = gg.gradient(f2, x)
    del gg
    with tf.compat.v1.Session() as sess:
        d1, d2 = sess.run((d_fx1, d_fx2))
    return d1, d2


if __name__ == "__main__":
    d1, d2 = main()
    ok = d1.tolist() == [2.0, 4.0, 6.0] and d2.tolist() == [2.0, 4.0, 6.0]
    print(f"ORACLE: bug={not ok} d1={d1.tolist()} d2={d2.tolist()}")
