"""A `tf.Variable` created inside a `@tf.function`: TF refuses it (not a singleton variable).

Source: blog post on AutoGraph rules (Chinese), https://ipadbbs.8miu.com/read-54326.html:
"avoid defining tf.Variable inside a function decorated with @tf.function" - `outer_var()`,
which updates a variable created outside, prints 2 then 3; `inner_var()`, which builds
`x = tf.Variable(1.0)` in its body, raises an error (eagerly it would create a new variable on
every call, traced only once).
Changes: none to the functions; both calls of `inner_var()` are wrapped in try/except so the
oracle can report the exception.
"""
import tensorflow as tf

# created outside the decorated function: fine
x = tf.Variable(1.0, dtype=tf.float32)


@tf.function
def outer_var():
    x.assign_add(1.0)
    tf.print(x)
    return x


@tf.function
def inner_var():
    x = tf.Variable(1.0, dtype=tf.float32)
    x.assign_add(1.0)
    tf.print(x)
    return x


def main():
    outer_var()
    outer_var()
    errors = []
    for _ in range(2):
        try:
            inner_var()
        except Exception as e:  # the reported symptom
            errors.append(type(e).__name__)
            print(type(e).__name__, str(e).strip().splitlines()[-1][:160])
    name = errors[0] if errors else "none"
    print(f"ORACLE: bug={bool(errors)} exception={name} outer_var_value={float(x.numpy())}")


if __name__ == "__main__":
    main()
