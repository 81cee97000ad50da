"""NEGATIVE (report no longer reproduces): a tf.function creates a tf.Variable into a module
global, guarded by `if foo is None`, with `global foo` declared at the top of the function. The
reporter got "tf.function-decorated function tried to create variables on non-first call";
under TF 2.21 the variable is created once on the first trace, later calls reuse it, no error.

Source: tensorflow/tensorflow#33689 "tf.function strange behavior with global variables"
(https://github.com/tensorflow/tensorflow/issues/33689). TF 1.x code `bar(value=None)` that
returned tf.constant(value) or a new tf.Variable(1) was migrated by caching the variable in the
global `foo`; the first attempt (global declared at the top) raised the ValueError in TF 2.0,
the second (global declared inside the else branch) worked.
Changed from the posted code: calls wrapped in main(), bar() called twice and with a value,
and the returned values/identity of `foo` checked.
"""
import tensorflow as tf

foo = None


@tf.function
def bar(value=None):
    global foo
    if value is not None:
        result = tf.constant(value)
        return result
    else:
        if foo is None:
            foo = tf.Variable(1)
        return foo


def main():
    try:
        first = bar()
        created = foo
        second = bar()
        third = bar(5)
        same = foo is created
        print("bar():", int(first), int(second), "bar(5):", int(third), "same variable:", same)
        print(f"ORACLE: bug={not same} error=None variables_created={1 if same else 2}")
    except ValueError as exc:
        print(f"ValueError: {str(exc)[:200]}")
        print("ORACLE: bug=True error=ValueError")


if __name__ == "__main__":
    main()
