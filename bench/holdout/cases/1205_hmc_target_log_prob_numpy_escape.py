"""HMC target log-probability that takes the state out to NumPy with .numpy().

Source: tensorflow/probability#1390 "Accessing values of `current_state` inside target
`log_prob` function" (https://github.com/tensorflow/probability/issues/1390). The reporter
writes a `target_log_prob_fn` for `tfp.mcmc.HamiltonianMonteCarlo` that needs "non-tf
functions", so it reads the current state with `.numpy()`. The maintainer answers that with
`tensor.numpy()` autodiff is lost, and autodiff is necessary for HMC. Under the reporter's
TFP the loop body was traced, so `.numpy()` itself failed; under TF 2.21 / TFP 0.25 eager
`sample_chain` runs it, and HMC then fails on the missing gradient ("Encountered `None`
gradient").
Changes: the user's non-TF physics function is a small NumPy log-density (a correlated
Gaussian); 20 results, 10 burn-in steps, 3 leapfrog steps.
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

COV_INV = np.array([[2.0, -0.8], [-0.8, 1.0]])


def external_log_density(theta):
    """Non-TensorFlow model code (stands in for the user's library call)."""
    return -0.5 * theta @ COV_INV @ theta


def target_log_prob(current_state):
    theta = current_state.numpy()
    return tf.constant(external_log_density(theta), dtype=tf.float32)


def main():
    kernel = tfp.mcmc.HamiltonianMonteCarlo(
        target_log_prob_fn=target_log_prob,
        step_size=0.1,
        num_leapfrog_steps=3)
    try:
        samples = tfp.mcmc.sample_chain(
            num_results=20,
            num_burnin_steps=10,
            current_state=tf.zeros([2]),
            kernel=kernel,
            trace_fn=None,
            seed=(0, 1))
        print("sample mean", samples.numpy().mean(axis=0))
        print("ORACLE: bug=False sampled=True")
    except (ValueError, AttributeError) as exc:
        print(type(exc).__name__ + ":", str(exc).splitlines()[0])
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
