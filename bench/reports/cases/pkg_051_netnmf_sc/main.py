"""Command-line entry point: load (here: simulate) the expression matrix and the gene network."""
import numpy as np

from classes import netNMFGD


def main():
    rng = np.random.default_rng(1)
    X = rng.poisson(2.0, size=(30, 12)).astype(np.float64)
    X = np.log(1 + X / X.sum(axis=0, keepdims=True) * 1e3)
    N = (rng.random((30, 30)) > 0.9).astype(np.float64)
    N = np.maximum(N, N.T)
    operator = netNMFGD(d=4, alpha=1, max_iter=5)
    operator.X = X
    operator.N = N
    W, H = operator.fit_transform()
    return W, H


if __name__ == "__main__":
    try:
        W, H = main()
        print("W", W.shape, "H", H.shape)
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError")
