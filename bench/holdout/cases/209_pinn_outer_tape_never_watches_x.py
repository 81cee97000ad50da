"""Schrodinger PINN: nested tapes for d2psi/dx2, but only the inner tape watches the input x.

Source: Stack Overflow question "TensorFlow second derivative calculation always returns zero
in Quantum PINN solver" (mirrored at https://coderapp.vercel.app/answer/78712449). The
reporter's `schrodinger_loss` method (a tf.function) nests `tape1` in `tape2`, takes
`tape1.gradient` inside `tape2`'s block, then `tape2.gradient(dpsi_dx, x)`: None (the body
says None, the title says zero). `x` is a plain tensor and only `tape1.watch(x)` is called;
the outer tape never watches it, so the outer gradient has no recorded path to x. (Once x is
watched, the ReLU layers make the second derivative zero: the title's symptom.) Changes: 3
hidden layers of 16 units instead of 50, 32 collocation points, the prints replaced by a
returned flag.
"""
import tensorflow as tf


class QuantumPINNSolver:
    def __init__(self, potential_func):
        self.potential_func = potential_func
        self.model = self.build_model()

    def build_model(self):
        return tf.keras.Sequential([
            tf.keras.layers.Input(shape=(1,), dtype=tf.float64),
            tf.keras.layers.Dense(16, activation='relu', dtype=tf.float64),
            tf.keras.layers.Dense(16, activation='relu', dtype=tf.float64),
            tf.keras.layers.Dense(16, activation='relu', dtype=tf.float64),
            tf.keras.layers.Dense(1, activation=None, dtype=tf.float64)
        ])

    @tf.function
    def schrodinger_loss(self, x, E):
        with tf.GradientTape(persistent=True) as tape2:
            with tf.GradientTape(persistent=True) as tape1:
                tape1.watch(x)
                psi = self.model(x)
            dpsi_dx = tape1.gradient(psi, x)
        d2psi_dx2 = tape2.gradient(dpsi_dx, x)
        if d2psi_dx2 is None:
            return tf.constant(-1.0, tf.float64), tf.constant(False)
        V_x = self.potential_func(x)
        schrodinger_eq = -d2psi_dx2 + (V_x - E) * psi
        return tf.reduce_mean(tf.square(schrodinger_eq)), tf.reduce_all(d2psi_dx2 == 0)


def harmonic_oscillator_potential(x):
    return 0.5 * tf.square(x)


def main():
    solver = QuantumPINNSolver(potential_func=harmonic_oscillator_potential)
    x = tf.random.uniform((32, 1), minval=-5, maxval=5, dtype=tf.float64)
    E = tf.constant(0.5, dtype=tf.float64)
    loss, all_zero = solver.schrodinger_loss(x, E)
    d2_none = float(loss) == -1.0
    print("loss", float(loss), "second derivative all zero:", bool(all_zero))
    print(f"ORACLE: bug={d2_none} second_grad_is_none={d2_none} second_grad_all_zero={bool(all_zero)}")


if __name__ == "__main__":
    main()
