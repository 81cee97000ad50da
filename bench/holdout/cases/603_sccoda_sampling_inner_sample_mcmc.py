"""Compositional model whose sampling() decorates a new @tf.function sample_mcmc on every call.

Source: theislab/scCODA#13 "Warning triggered tf.function retracing"
(https://github.com/theislab/scCODA/issues/13): running several chains with sample_hmc() gives
"5 out of the last 5 calls to <function CompositionalModel.sampling.<locals>.sample_mcmc>
triggered tf.function retracing": `sampling` defines `@tf.function def sample_mcmc(...)` in its
body, so every chain builds and traces the whole tfp.mcmc.sample_chain graph again.
Changed from the package: the scCODA Dirichlet-multinomial model with spike-and-slab priors is
replaced by a small Dirichlet-multinomial regression (alpha, beta) on random counts, chains are
short, the arviz result conversion and the burn-in bookkeeping are dropped.
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors

TRACES = []


class CompositionalModel:
    """Framework for MCMC inference of compositional models (reduced)."""

    def __init__(self, covariate_matrix, data_matrix):
        dtype = tf.float64
        self.x = tf.convert_to_tensor(covariate_matrix, dtype)
        self.y = tf.convert_to_tensor(data_matrix, dtype)
        self.n_total = tf.reduce_sum(self.y, axis=1)
        self.N, self.D = self.x.shape
        self.K = self.y.shape[1]

    def sampling(self, num_results, num_burnin, kernel, init_state, trace_fn):
        # HMC sampling function
        @tf.function
        def sample_mcmc(num_results_, num_burnin_, kernel_, current_state_, trace_fn):
            TRACES.append(1)
            return tfp.mcmc.sample_chain(
                num_results=num_results_,
                num_burnin_steps=num_burnin_,
                kernel=kernel_,
                current_state=current_state_,
                trace_fn=trace_fn,
                seed=(1, 2),
            )

        states, kernel_results = sample_mcmc(num_results, num_burnin, kernel, init_state, trace_fn)
        return states, kernel_results

    def sample_hmc(self, num_results=20, num_burnin=10, num_leapfrog_steps=3, step_size=0.01):
        constraining_bijectors = [tfb.Identity() for _ in range(len(self.init_params))]
        hmc_kernel = tfp.mcmc.HamiltonianMonteCarlo(
            target_log_prob_fn=self.target_log_prob_fn,
            step_size=step_size,
            num_leapfrog_steps=num_leapfrog_steps)
        hmc_kernel = tfp.mcmc.TransformedTransitionKernel(
            inner_kernel=hmc_kernel, bijector=constraining_bijectors)
        hmc_kernel = tfp.mcmc.SimpleStepSizeAdaptation(
            inner_kernel=hmc_kernel, num_adaptation_steps=int(0.8 * num_burnin), target_accept_prob=0.8)

        def trace_fn(_, pkr):
            return {"is_accepted": pkr.inner_results.inner_results.is_accepted}

        return self.sampling(num_results, num_burnin, hmc_kernel, self.init_params, trace_fn)


class DirichletModel(CompositionalModel):
    def __init__(self, covariate_matrix, data_matrix):
        super().__init__(covariate_matrix, data_matrix)
        dtype = tf.float64
        self.init_params = [tf.zeros([self.K], dtype), tf.zeros([self.D, self.K], dtype)]

        def target_log_prob_fn(alpha, beta):
            prior = tf.reduce_sum(tfd.Normal(tf.constant(0., dtype), 5.).log_prob(alpha))
            prior += tf.reduce_sum(tfd.Normal(tf.constant(0., dtype), 1.).log_prob(beta))
            concentration = tf.exp(alpha[tf.newaxis, :] + tf.matmul(self.x, beta))
            lik = tfd.DirichletMultinomial(self.n_total, concentration).log_prob(self.y)
            return prior + tf.reduce_sum(lik)

        self.target_log_prob_fn = target_log_prob_fn


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(6, 1)).astype("float64")
    Y = rng.integers(50, 300, size=(6, 4)).astype("float64")
    model = DirichletModel(X, Y)
    chains = 4
    for _ in range(chains):  # the user ran several chains on the same model
        model.sample_hmc()
    traces = len(TRACES)
    print(f"ORACLE: bug={traces >= chains} sample_mcmc_traces={traces} chains={chains}")
