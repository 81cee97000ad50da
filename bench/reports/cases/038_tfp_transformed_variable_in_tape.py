"""Joint distribution whose scales are TransformedVariables created from existing variables.

Source: tensorflow/probability#1167 "No gradients when using bijector and TransformedVariable"
(https://github.com/tensorflow/probability/issues/1167): the gradients w.r.t. scale_1 and
scale_2 are None. `TransformedVariable(scale_1, Exp())` makes a new variable initialised from
the value of scale_1; the distribution never reads scale_1 itself.
"""
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions

loc_1 = tf.Variable(5., name='loc_1')
loc_2 = tf.Variable(11., name='loc_2')
scale_1 = tf.Variable(2., name='logscale_1')
scale_2 = tf.Variable(3., name='logscale_2')


def main():
    tf.random.set_seed(0)
    with tf.GradientTape() as tape:
        joint = tfd.JointDistributionSequential([
            tfd.Normal(loc=loc_1,
                       scale=tfp.util.TransformedVariable(scale_1, tfp.bijectors.Exp(), name='scale_1')),
            tfd.Normal(loc=loc_2,
                       scale=tfp.util.TransformedVariable(scale_2, tfp.bijectors.Exp(), name='scale_2')),
            lambda a, b: tfd.Poisson(rate=tf.abs(a + b) + 1.0),
        ])
        nll = -joint.log_prob(joint.sample())

    grads = tape.gradient(nll, [loc_1, loc_2, scale_1, scale_2])
    for i, j in zip(grads, ['loc_1', 'loc_2', 'scale_1', 'scale_2']):
        print(j, i)
    print(f"ORACLE: bug={grads[2] is None and grads[3] is None} scale_grads_none={grads[2] is None and grads[3] is None}")


if __name__ == "__main__":
    main()
