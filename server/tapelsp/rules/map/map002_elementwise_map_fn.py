from __future__ import annotations

import ast
import copy

from ...analysis import library
from ...analysis.library import Api
from ...analysis.values import ValueModel, values_for
from ...facts.model import Facts
from ...facts.names import ImportTable
from ...model import Applicability, Edit, Fix, Severity
from ..base import Context, Proof, Rule, invalid, valid

_MATMUL = ("tensorflow.matmul", "tensorflow.linalg.matmul")
_TENSORDOT = ("tensorflow.tensordot", "tensorflow.linalg.tensordot")
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)

# What an expression is, per element of the mapped tensor: a value that does not depend
# on the element, something shaped like the element, or a reduction of the element.
CONST, ELEM, REDUCED = "const", "elem", "reduced"


class ElementwiseMapFn(Rule):
    """
    ## What it does
    Finds `tf.map_fn(fn, elems)` where `fn` can be applied to the whole tensor at once:
    plain arithmetic and TensorFlow elementwise ops on its argument (`lambda a: a ** 2`,
    `tf.map_fn(tf.nn.relu, x)`), a row times a fixed matrix (`r @ W`, `tf.tensordot(r, W,
    axes=1)`), reductions of the element (`tf.reduce_sum(r)`, a reduction along the
    mapped axis of the whole tensor), softmax along the last axis, and tuple elements
    combined elementwise (`tf.map_fn(lambda t: t[0] * t[1], (a, b))`).

    When no single op replaces the function but every op in it has a vectorized form
    whose shapes are fixed before the element is seen (outer products with
    `tf.tensordot(a, b, 0)`, `tf.einsum`, argmin/argmax, static slices, a fixed tensor
    indexed by a value computed from the element), it suggests `tf.vectorized_map`.

    It stays silent for work that cannot be vectorized: ragged or variable-length
    results, data-dependent slicing or shapes, Python control flow, string ops, and
    functions it cannot see.

    ## Why is this bad?
    `tf.map_fn` runs `fn` once per element in a `while_loop`: one small op per element
    instead of one large op for the whole tensor. The result is the same, and the
    vectorized op is commonly 100x faster or more (on 2,000 floats here, 1 s against
    under 1 ms eagerly; about 50x inside a tf.function). Under TensorFlow 1 graph mode a
    GradientTape over `map_fn` also returned `None` gradients (MAP001).

    ## Example
    ```python
    y = tf.map_fn(lambda a: a ** 2, x)
    h = tf.map_fn(lambda r: tf.nn.relu(r @ W + b), rows)
    norms = tf.map_fn(lambda r: tf.sqrt(tf.reduce_sum(r * r)), m)
    p = tf.map_fn(lambda t: t[0] * t[1], (a, b), fn_output_signature=tf.float32)
    ```

    ## Use instead
    ```python
    y = x ** 2
    h = tf.nn.relu(rows @ W + b)
    norms = tf.sqrt(tf.reduce_sum(m * m, axis=1))  # every axis but the first
    p = a * b
    ```
    When the function is not elementwise but has no data-dependent control flow or
    shapes, `tf.vectorized_map(fn, elems)` is the honest replacement: 2-10x faster than
    map_fn inside a tf.function here, and about 10x eagerly on 256 outer products (eagerly
    it traces its function on every call, so small work gains nothing there).
    """

    code = "MAP002"
    name = "elementwise-map-fn"
    summary = "tf.map_fn over an elementwise function instead of the vectorized op"
    severity = Severity.WARNING
    cheap_without_triggers = True
    triggers = ("map_fn",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.random.uniform([2000])
            y = tf.map_fn(lambda a: a ** 2, x)
        """, 4, "the seed report's map_fn",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(y.numpy(), (x ** 2).numpy())
                # One loop iteration per element (the slowdown itself is measured in bench/, not here).
                graph = tf.function(lambda t: tf.map_fn(lambda a: a ** 2, t)).get_concrete_function(x).graph
                assert {"While", "StatelessWhile"} & {op.type for op in graph.get_operations()}, \\
                    "map_fn should loop per element"
            """), fixed="""
            import tensorflow as tf

            x = tf.random.uniform([2000])
            y = x ** 2
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(y, tf.map_fn(lambda a: a ** 2, x), atol=1e-6)")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            elems = np.linspace(0.0, 1.0, 64, dtype=np.float32)
            output = tf.map_fn(lambda x: x ** 6, elems)
            top = output.numpy().max()
        """, 5, "NumPy elements: `elems ** 6` would be NumPy (and `.numpy()` raise), so the elements become a "
                "tensor first",
            proof=Proof(check="""
                import numpy as np
                assert isinstance(output, tf.Tensor) and np.allclose(output.numpy(), elems ** 6)
            """), fixed="""
            import numpy as np
            import tensorflow as tf

            elems = np.linspace(0.0, 1.0, 64, dtype=np.float32)
            output = tf.convert_to_tensor(elems) ** 6
            top = output.numpy().max()
        """,
            fixed_proof=Proof(check="""
                import numpy as np
                assert isinstance(output, tf.Tensor) and np.allclose(output, tf.map_fn(lambda x: x ** 6, elems))
            """)),
        invalid("""
            import tensorflow as tf

            W = tf.ones([3, 2])
            b = tf.zeros([2])
            rows = tf.ones([4, 1, 3])
            h = tf.map_fn(lambda r: tf.nn.relu(r @ W + b), rows)
        """, 6, "a row times a fixed matrix",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(h.numpy(), tf.nn.relu(rows @ W + b).numpy())
            """), fixed="""
            import tensorflow as tf

            W = tf.ones([3, 2])
            b = tf.zeros([2])
            rows = tf.ones([4, 1, 3])
            h = tf.nn.relu(rows @ W + b)
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(h, tf.map_fn(lambda r: tf.nn.relu(r @ W + b), rows), atol=1e-6)")),
        invalid("""
            import tensorflow as tf

            def activate(v):
                return tf.sigmoid(2.0 * v) - 0.5

            x = tf.linspace(-1.0, 1.0, 5)
            y = tf.map_fn(activate, x)
        """, 7, "a named function that is elementwise",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(y.numpy(), activate(x).numpy())
            """), fixed="""
            import tensorflow as tf

            def activate(v):
                return tf.sigmoid(2.0 * v) - 0.5

            x = tf.linspace(-1.0, 1.0, 5)
            y = activate(x)
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(y, tf.map_fn(activate, x), atol=1e-6)")),
        invalid("""
            import tensorflow as tf

            m = tf.reshape(tf.range(6.0), [2, 3])
            totals = tf.map_fn(lambda r: tf.reduce_sum(r), m)
            norms = tf.map_fn(lambda r: tf.sqrt(tf.reduce_sum(r * r)), m)
        """, (4, 5), "reductions of each row are reductions along axis 1",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(totals.numpy(), tf.reduce_sum(m, axis=1).numpy())
                assert np.allclose(norms.numpy(), tf.sqrt(tf.reduce_sum(m * m, axis=1)).numpy())
            """), fixed="""
            import tensorflow as tf

            m = tf.reshape(tf.range(6.0), [2, 3])
            totals = tf.reduce_sum(m, axis=1)
            norms = tf.sqrt(tf.reduce_sum(m * m, axis=1))
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(totals, tf.map_fn(lambda r: tf.reduce_sum(r), m), atol=1e-6)\nassert np.allclose(norms, tf.map_fn(lambda r: tf.sqrt(tf.reduce_sum(r * r)), m), atol=1e-6)")),
        invalid("""
            import tensorflow as tf

            a = tf.constant([1.0, 2.0, 3.0])
            b = tf.constant([4.0, 5.0, 6.0])
            p = tf.map_fn(lambda t: t[0] * t[1] + 1.0, (a, b), fn_output_signature=tf.float32)
        """, 5, "tuple elements combined elementwise",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(p.numpy(), (a * b + 1.0).numpy())
            """), fixed="""
            import tensorflow as tf

            a = tf.constant([1.0, 2.0, 3.0])
            b = tf.constant([4.0, 5.0, 6.0])
            p = a * b + 1.0
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(p, tf.map_fn(lambda t: t[0] * t[1] + 1.0, (a, b), fn_output_signature=tf.float32), atol=1e-6)")),
        invalid("""
            import tensorflow as tf

            x = tf.constant([[-1.0, 2.0], [3.0, -4.0]])
            r = tf.map_fn(tf.nn.relu, x)
            s = tf.map_fn(tf.nn.softmax, x)
        """, (4, 5), "a TensorFlow function object, not a lambda",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(r.numpy(), tf.nn.relu(x).numpy())
                assert np.allclose(s.numpy(), tf.nn.softmax(x).numpy())
            """), fixed="""
            import tensorflow as tf

            x = tf.constant([[-1.0, 2.0], [3.0, -4.0]])
            r = tf.nn.relu(x)
            s = tf.nn.softmax(x)
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(r, tf.map_fn(tf.nn.relu, x), atol=1e-6)\nassert np.allclose(s, tf.map_fn(tf.nn.softmax, x), atol=1e-6)")),
        invalid("""
            import tensorflow as tf

            W = tf.ones([3, 2])
            m = tf.reshape(tf.range(6.0), [2, 3])
            out = tf.map_fn(lambda r: tf.tensordot(r, W, axes=1), m)
        """, 5, "tensordot of each row with a fixed matrix",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(out.numpy(), tf.tensordot(m, W, axes=1).numpy())
            """), fixed="""
            import tensorflow as tf

            W = tf.ones([3, 2])
            m = tf.reshape(tf.range(6.0), [2, 3])
            out = tf.tensordot(m, W, axes=1)
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(out, tf.map_fn(lambda r: tf.tensordot(r, W, axes=1), m), atol=1e-6)")),
        valid("""
            import tensorflow as tf

            sentences = tf.constant(["a b a", "c c d e"])
            counts = tf.map_fn(lambda s: tf.size(tf.unique(tf.strings.split(s)).y), sentences,
                               fn_output_signature=tf.int32)
        """, "variable-length work per element cannot be vectorized",
            proof=Proof(check="assert counts.numpy().tolist() == [2, 3]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([[3.0, 1.0, 2.0], [1.0, 5.0, 9.0]])
            firsts = tf.map_fn(lambda r: tf.reduce_sum(r[: tf.cast(r[1], tf.int32)]), x)
        """, "data-dependent slicing per row",
            proof=Proof(check="assert firsts.numpy().tolist() == [3.0, 15.0]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0, 3.0])
            y = x ** 2
        """, "already vectorized"),
        invalid("""
            import tensorflow as tf

            m = tf.constant([[1.0, 2.0], [3.0, 5.0]])
            centred = tf.map_fn(lambda r: (r - tf.reduce_mean(r)) / tf.math.reduce_std(r), m)
        """, 4, "a row combined with its own reductions: they keep the reduced axis",
            proof=Proof(check="assert centred.numpy().tolist() == [[-1.0, 1.0], [-1.0, 1.0]]"), fixed="""
            import tensorflow as tf

            m = tf.constant([[1.0, 2.0], [3.0, 5.0]])
            centred = (m - tf.reduce_mean(m, axis=1, keepdims=True)) / tf.math.reduce_std(m, axis=1, keepdims=True)
        """,
            fixed_proof=Proof(check="assert centred.numpy().tolist() == [[-1.0, 1.0], [-1.0, 1.0]]")),
        invalid("""
            import tensorflow as tf

            images = tf.reshape(tf.range(48.0), [2, 4, 2, 3]) / 48.0
            augmented = tf.map_fn(lambda im: tf.image.flip_left_right(im) * 0.9 + 0.05, images)
        """, 4, "an image op that takes a batch of images as well as one image",
            proof=Proof(check="""
                import numpy as np
                assert np.allclose(augmented.numpy(), (tf.image.flip_left_right(images) * 0.9 + 0.05).numpy())
            """), fixed="""
            import tensorflow as tf

            images = tf.reshape(tf.range(48.0), [2, 4, 2, 3]) / 48.0
            augmented = tf.image.flip_left_right(images) * 0.9 + 0.05
        """,
            fixed_proof=Proof(check="import numpy as np\nassert np.allclose(augmented, tf.map_fn(lambda im: tf.image.flip_left_right(im) * 0.9 + 0.05, images))")),
        invalid("""
            import tensorflow as tf

            DELTA = 1.0

            def huber(pair):
                pred, target = pair
                err = tf.abs(pred - target)
                return tf.reduce_sum(tf.where(err < DELTA, 0.5 * err ** 2, DELTA * (err - 0.5 * DELTA)))

            pred = tf.constant([[0.5], [3.0], [-2.0]])
            y = tf.zeros([3, 1])
            losses = tf.map_fn(huber, (pred, y), fn_output_signature=tf.float32)
        """, 12, "a def whose local assignments are elementwise (per-sample Huber losses)",
            proof=Proof(check="assert losses.numpy().tolist() == [0.125, 2.5, 1.5]"), fixed="""
            import tensorflow as tf

            DELTA = 1.0

            def huber(pair):
                pred, target = pair
                err = tf.abs(pred - target)
                return tf.reduce_sum(tf.where(err < DELTA, 0.5 * err ** 2, DELTA * (err - 0.5 * DELTA)))

            pred = tf.constant([[0.5], [3.0], [-2.0]])
            y = tf.zeros([3, 1])
            losses = tf.reduce_sum(tf.where(tf.abs(pred - y) < DELTA, 0.5 * tf.abs(pred - y) ** 2, DELTA * (tf.abs(pred - y) - 0.5 * DELTA)), axis=1)
        """,
            fixed_proof=Proof(check="assert losses.numpy().tolist() == [0.125, 2.5, 1.5]")),
        valid("""
            import tensorflow as tf

            images = tf.reshape(tf.range(48.0), [2, 4, 2, 3]) / 48.0
            brighter = tf.map_fn(lambda im: tf.image.adjust_brightness(im, tf.reduce_max(im)), images)
        """, "an image op given a value computed from the image itself",
            proof=Proof(check="""
                import numpy as np
                assert not np.allclose(brighter.numpy(), tf.image.adjust_brightness(images, tf.reduce_max(images)).numpy())
            """)),
        valid("""
            import tensorflow as tf

            def total(pair):
                a, b = pair
                a = a * 2.0
                return a + b

            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            doubled = tf.map_fn(total, (x, x), fn_output_signature=tf.float32)
        """, "a def that binds a name twice: not inlined",
            proof=Proof(check="assert doubled.numpy().tolist() == [[3.0, 6.0], [9.0, 12.0]]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([[0.0, 1.0], [2.0, 0.0]])
            index_sums = tf.map_fn(lambda r: tf.reduce_sum(tf.where(r)), x, fn_output_signature=tf.int64)
        """, "one-argument tf.where returns indices: variable length per row",
            proof=Proof(check="assert index_sums.numpy().tolist() == [1, 0]")),
        valid("""
            import tensorflow as tf

            rows = tf.ragged.constant([[1.0, 2.0], [3.0]])
            sums = tf.map_fn(lambda r: tf.reduce_sum(r), rows, fn_output_signature=tf.float32)
        """, "ragged elements",
            proof=Proof(check="assert sums.numpy().tolist() == [3.0, 3.0]")),
        invalid("""
            import tensorflow as tf

            W = tf.ones([2, 2])
            m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            out = tf.map_fn(lambda r: tf.tensordot(W, r, axes=1), m)
        """, 5, "the fixed matrix first contracts with the mapped axis: not one tensordot of the whole "
                "tensor, but tf.vectorized_map converts it",
            proof=Proof(check="""
                assert out.numpy().tolist() == [[3.0, 3.0], [7.0, 7.0]]
                assert tf.tensordot(W, m, axes=1).numpy().tolist() != out.numpy().tolist()
            """), fixed="""
            import tensorflow as tf

            W = tf.ones([2, 2])
            m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            out = tf.vectorized_map(lambda r: tf.tensordot(W, r, axes=1), m)
        """,
            fixed_proof=Proof(check="assert out.numpy().tolist() == [[3.0, 3.0], [7.0, 7.0]]")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            v = tf.constant(np.random.default_rng(0).random((256, 78)))
            h = tf.constant(np.random.default_rng(1).random((256, 34)))
            outer = tf.map_fn(lambda x: tf.tensordot(x[0], x[1], 0), elems=(v, h), fn_output_signature=tf.float64)
        """, 6, "outer products of paired rows (tensorflow/tensorflow#26907)",
            proof=Proof(check="""
                import time
                import numpy as np
                assert np.allclose(outer.numpy(), np.einsum("ri,rj->rij", v.numpy(), h.numpy()))
                def best(f):
                    f()
                    times = []
                    for _ in range(3):
                        t0 = time.perf_counter(); f(); times.append(time.perf_counter() - t0)
                    return min(times)
                slow = best(lambda: tf.map_fn(lambda x: tf.tensordot(x[0], x[1], 0), elems=(v, h),
                                              fn_output_signature=tf.float64))
                fast = best(lambda: tf.vectorized_map(lambda x: tf.tensordot(x[0], x[1], 0), (v, h)))
                assert slow > 3 * fast, (slow, fast)
            """), fixed="""
            import numpy as np
            import tensorflow as tf

            v = tf.constant(np.random.default_rng(0).random((256, 78)))
            h = tf.constant(np.random.default_rng(1).random((256, 34)))
            outer = tf.vectorized_map(lambda x: tf.tensordot(x[0], x[1], 0), (v, h))
        """,
            fixed_proof=Proof(check="""
                import numpy as np
                assert outer.dtype == tf.float64
                assert np.allclose(outer.numpy(), np.einsum("ri,rj->rij", v.numpy(), h.numpy()))
            """)),
        invalid("""
            import tensorflow as tf

            grid = tf.constant([0.0, 0.25, 0.5, 0.75])
            query = tf.constant([[0.1, 0.6], [0.3, 0.9]])
            nearest = tf.map_fn(lambda q: grid[tf.argmin(tf.abs(q - grid))], tf.reshape(query, [-1]))
        """, 5, "a fixed tensor indexed by a value computed from each element (a gather per element)",
            proof=Proof(check="assert nearest.numpy().tolist() == [0.0, 0.5, 0.25, 0.75]"), fixed="""
            import tensorflow as tf

            grid = tf.constant([0.0, 0.25, 0.5, 0.75])
            query = tf.constant([[0.1, 0.6], [0.3, 0.9]])
            nearest = tf.vectorized_map(lambda q: grid[tf.argmin(tf.abs(q - grid))], tf.reshape(query, [-1]))
        """,
            fixed_proof=Proof(check="assert nearest.numpy().tolist() == [0.0, 0.5, 0.25, 0.75]")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for site in ctx.facts.calls_to("tensorflow.map_fn"):
            call = site.node
            fn = call.args[0] if call.args else _keyword(call, "fn")
            elems = call.args[1] if len(call.args) > 1 else _keyword(call, "elems")
            if fn is None or elems is None or _ragged(call) or _ragged_elems(elems, site.scope, values):
                continue
            defined = _defined(values, fn, site.scope)
            suggestion = _vectorized(fn, elems, ctx.facts, defined)
            if suggestion is None:
                if _pfor_vectorizable(fn, elems, ctx.facts, defined):
                    ctx.report(
                        call,
                        "tf.map_fn runs this function once per element in a while_loop, and every op in it "
                        "has a vectorized form whose shapes do not depend on the element (no Python control "
                        "flow, no data-dependent sizes): `tf.vectorized_map` computes the same result for all "
                        "elements at once, 2-10x faster inside a tf.function or tf.data (eagerly it traces its "
                        "function on every call, which pays off only for large work). "
                        f"Use `{_vectorized_map_text(ctx, call, fn, elems)}` instead.",
                        fix=_vectorized_map_fix(ctx, call, fn, elems),
                    )
                continue
            text, reduced, exact = suggestion
            note = " (it reduces every axis but the first: `axis=1` for rank-2 elems)" if reduced else ""
            ctx.report(
                call,
                "tf.map_fn runs this function once per element in a while_loop; applying it to the whole "
                "tensor gives the same result in one vectorized op, typically 100x faster. "
                f"Use `{text}` instead{note}.",
                fix=_replacement(ctx, call, fn, text, reduced or not exact, elems, site.scope),
            )


def _replacement(ctx: Context, call: ast.Call, fn: ast.expr, text: str, reduced: bool,
                 elems: ast.expr | None = None, scope=None) -> Fix | None:
    """Replace the whole `tf.map_fn(...)` call by the vectorized expression.

    Safe when the function uses nothing but its argument, numbers and TensorFlow's
    elementwise ops (then the result is the same, element for element). Unsafe when it
    captures other values (a matrix, a bias: their broadcasting against the whole tensor
    is the user's to check), reduces, uses an image op (right for a batch of images, not for
    more axes than that), or fixes the output dtype. None when a comment sits
    inside the call (a text replacement would drop it).

    `tf.map_fn` returns a tensor whatever its elements are; `elems ** 6` of NumPy elements is
    NumPy. Unless the expression is a TensorFlow op or the elements are certainly tensors,
    the elements are given as `tf.convert_to_tensor(elems)`.
    """
    if not ctx.fixes:
        return None
    if elems is not None:
        text = _keeping_a_tensor(ctx, fn, elems, scope, text)  # type: ignore[assignment]
        if text is None:
            return None
    source = ctx.facts.source
    rng = source.node_range(call)
    lines = [source.line(n) for n in range(rng.start.line, rng.end.line + 1)]
    lines[-1] = lines[-1][:rng.end.column]
    lines[0] = lines[0][rng.start.column:] if len(lines) > 1 else lines[0][rng.start.column:rng.end.column]
    if any("#" in line for line in lines):
        return None
    captured = _captured_names(fn, ctx.facts)
    dtype_fixed = any(k.arg in ("fn_output_signature", "dtype") for k in call.keywords)
    safe = not captured and not reduced and not dtype_fixed
    return Fix(f"Replace tf.map_fn with `{text}`", Applicability.SAFE if safe else Applicability.UNSAFE,
               (Edit(rng, text),))


def _keeping_a_tensor(ctx: Context, fn: ast.expr, elems: ast.expr, scope, text: str) -> str | None:
    """The vectorized expression `text`, with the elements converted to tensors when they may be
    NumPy data (or Python lists) and the expression is not a TensorFlow op; None when it cannot
    be written so."""
    from ...analysis.values import TF_VALUES
    from ..function._fixes import tf_alias

    result = ast.parse(text, mode="eval").body
    if isinstance(result, ast.Call) and (ctx.facts.imports.resolve(result.func) or "").startswith("tensorflow."):
        return text
    parts = list(elems.elts) if isinstance(elems, (ast.Tuple, ast.List)) else [elems]
    values = values_for(ctx)
    if all(values.value(part, scope).is_(*TF_VALUES) for part in parts):
        return text
    alias = tf_alias(ctx.facts)
    if alias is None:
        return None

    def converted(part: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(alias, ast.Load()), "convert_to_tensor", ast.Load()), [part], [])

    wrapped: ast.expr = type(elems)([converted(p) for p in parts], ast.Load()) \
        if isinstance(elems, (ast.Tuple, ast.List)) else converted(elems)
    found = _vectorized(fn, wrapped, ctx.facts, _defined(values, fn, scope))
    return found[0] if found is not None else None


def _captured_names(fn: ast.expr, facts: Facts) -> set[str]:
    """Names a lambda reads besides its parameters and imported modules ({'?'} for a local def)."""
    if isinstance(fn, ast.Lambda):
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args)}
        return {n.id for n in ast.walk(fn.body) if isinstance(n, ast.Name)
                and n.id not in params and facts.imports.resolve(n) is None}
    return set() if facts.imports.resolve(fn) is not None else {"?"}


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _ragged(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg in ("fn_output_signature", "dtype") and \
                any(word in ast.dump(keyword.value) for word in ("Ragged", "Sparse")):
            return True
    return False


def _ragged_elems(elems: ast.expr, scope, values: ValueModel) -> bool:
    """Is `elems` (or an element of a tuple of them) made by a function that returns a ragged or
    sparse tensor (the table's `composite`), or a name one of whose definitions is?"""
    facts = values.facts
    exprs = list(elems.elts) if isinstance(elems, (ast.Tuple, ast.List)) else [elems]
    for expr in exprs:
        made = [values.value(expr, scope).origin]
        if isinstance(expr, ast.Name):
            defs, owner = values.definitions(expr.id, scope, expr)
            made.extend(values.value(d.value, owner).origin for d in defs if d.value is not None)
        for origin in made:
            if isinstance(origin, ast.Call):
                api = library.api(facts.imports.resolve(origin.func))
                if api is not None and api.has("composite"):
                    return True
    return False


def _defined(values: ValueModel, fn: ast.expr, scope) -> ast.AST | None:
    """The def a function name refers to where map_fn is called (the value model follows scopes:
    two tests that each define their own `quadratic` are two functions)."""
    if not isinstance(fn, ast.Name):
        return None
    value = values.value(fn, scope)
    return value.ref if value.certain and isinstance(value.ref, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _vectorized(fn: ast.expr, elems: ast.expr, facts: Facts, defined: ast.AST | None = None
                ) -> tuple[str, bool, bool] | None:
    """The vectorized replacement for `tf.map_fn(fn, elems)`, whether it adds a reduction axis,
    and whether it is right whatever the rank of `elems` (no image op on the way)."""
    imports = facts.imports
    tuple_elems = list(elems.elts) if isinstance(elems, (ast.Tuple, ast.List)) else None
    # A TensorFlow function object: `tf.map_fn(tf.nn.relu, x)`.
    if isinstance(fn, (ast.Name, ast.Attribute)) and tuple_elems is None:
        qualname = imports.resolve(fn)
        if qualname is not None:
            op = library.api(qualname)
            if op is None:
                return None
            if op.has("elementwise") and not op.has("binary") or op.has("last_axis"):
                return f"{ast.unparse(fn)}({ast.unparse(elems)})", False, True
            if op.has("reduction"):
                return f"{ast.unparse(fn)}({ast.unparse(elems)}, axis=1)", True, True
            return None
    resolved = _function_expr(fn, facts, defined)
    if resolved is None:
        return None
    param, body = resolved
    analysis = _Analysis(param, len(tuple_elems) if tuple_elems is not None else None, imports)
    kind = analysis.kind(body)
    if kind not in (ELEM, REDUCED) or not analysis.uses_param:
        return None
    exact = not analysis.per_image
    if isinstance(fn, ast.Name) and tuple_elems is None and not analysis.reductions:
        return f"{fn.id}({ast.unparse(elems)})", False, exact
    return _substitute(body, param, elems, tuple_elems, analysis), bool(analysis.added_axis), exact


def _function_expr(fn: ast.expr, facts: Facts, defined: ast.AST | None = None) -> tuple[str, ast.expr] | None:
    """The single parameter and the returned expression of a lambda or of `defined`, the def the
    name `fn` refers to; a def's local assignments (`err = tf.abs(p - t)`, `p, t = pair`) are
    substituted into its return value."""
    if isinstance(fn, ast.Lambda):
        param = _single_param(fn.args)
        return (param, fn.body) if param else None
    node = defined
    if not (isinstance(fn, ast.Name) and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == fn.id and not node.decorator_list):
        return None
    param = _single_param(node.args)
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not param or not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    returned = _inlined(body[:-1], body[-1].value, param)
    return (param, returned) if returned is not None else None


def _inlined(assignments: list[ast.stmt], returned: ast.expr, param: str) -> ast.expr | None:
    """`returned` with the names bound by `assignments` replaced by their values, or None when
    a statement is anything but `name = expr` or `a, b = param`, or binds a name twice."""
    env: dict[str, ast.expr] = {}

    class Inline(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return copy.deepcopy(env[node.id]) if node.id in env else node

    for stmt in assignments:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return None
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name):
            names = {target.id: Inline().visit(copy.deepcopy(value))}
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Name) and value.id == param \
                and all(isinstance(e, ast.Name) for e in target.elts):
            names = {e.id: ast.Subscript(ast.Name(param, ast.Load()), ast.Constant(i), ast.Load())
                     for i, e in enumerate(target.elts)}  # type: ignore[union-attr]
        else:
            return None
        if any(name in env or name == param for name in names):
            return None
        env.update(names)
    return Inline().visit(copy.deepcopy(returned)) if env else returned


def _single_param(args: ast.arguments) -> str | None:
    if len(args.args) + len(args.posonlyargs) != 1 or args.vararg or args.kwarg or args.kwonlyargs:
        return None
    return (args.posonlyargs or args.args)[0].arg


class _Analysis:
    """Classifies the returned expression of `fn` per element: CONST, ELEM, REDUCED or None."""

    def __init__(self, param: str, tuple_size: int | None, imports: ImportTable) -> None:
        self.param = param
        self.tuple_size = tuple_size
        self.imports = imports
        self.uses_param = False
        self.reductions: list[ast.Call] = []
        self.added_axis: list[ast.Call] = []
        # Reductions combined with the element itself (`r - tf.reduce_mean(r)`): on the whole
        # tensor they keep the reduced axis (`keepdims=True`) so that they broadcast per row.
        self.kept: list[ast.Call] = []
        self.per_image: list[ast.Call] = []

    def kind(self, expr: ast.expr) -> str | None:
        if isinstance(expr, ast.Name):
            if expr.id == self.param:
                if self.tuple_size is not None:
                    return None  # the whole tuple: not an elementwise value
                self.uses_param = True
                return ELEM
            return CONST
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id == self.param:
            index = _int_literal(expr.slice)
            if self.tuple_size is not None and index is not None and -self.tuple_size <= index < self.tuple_size:
                self.uses_param = True
                return ELEM
            return None
        if isinstance(expr, ast.Attribute):
            return None if _mentions(expr, self.param) else CONST
        if isinstance(expr, ast.Constant):
            return CONST if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
        if isinstance(expr, ast.UnaryOp):
            if not isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)):
                return None
            return self.kind(expr.operand)
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.MatMult):
                return ELEM if self._row_times_fixed(expr.left, expr.right) else None
            if not isinstance(expr.op, _ARITHMETIC):
                return None
            return self._join([expr.left, expr.right])
        if isinstance(expr, ast.Compare):
            if not all(isinstance(op, _ORDER) for op in expr.ops):
                return None
            return self._join([expr.left, *expr.comparators])
        if isinstance(expr, ast.Call):
            return self._call(expr)
        return None

    def _call(self, call: ast.Call) -> str | None:
        qualname = self.imports.resolve(call.func)
        if qualname is None:
            return None
        if qualname in _MATMUL and len(call.args) == 2 and not call.keywords:
            return ELEM if self._row_times_fixed(call.args[0], call.args[1]) else None
        if qualname in _TENSORDOT:
            return ELEM if self._tensordot(call) else None
        op = library.api(qualname)
        if op is None:
            return None
        if op.has("reduction"):
            return self._reduction(call)
        if op.has("last_axis"):
            axis = _keyword(call, "axis")
            if len(call.args) != 1 or any(k.arg not in ("axis", "name") for k in call.keywords) \
                    or (axis is not None and not _negative_int(axis)):
                return None
            return ELEM if self.kind(call.args[0]) == ELEM else None
        if op.has("per_image"):
            # One image or a batch of them, each on its own: the op of the mapped image is the op
            # of the batch, when nothing else it is given depends on the image.
            rest = [*call.args[1:], *(k.value for k in call.keywords)]
            if not call.args or any(_mentions(a, self.param) for a in rest):
                return None
            if self.kind(call.args[0]) != ELEM:
                return None
            self.per_image.append(call)
            return ELEM
        if not op.has("elementwise"):
            return None
        if _last_part(op) == "where" and len(call.args) + len(call.keywords) != 3:
            return None  # tf.where(cond) returns indices
        parts = list(call.args)
        for keyword in call.keywords:
            if keyword.arg not in ("name", "dtype", "alpha", "approximate", "x", "y", "condition",
                                   "clip_value_min", "clip_value_max", "features", "t"):
                return None
            parts.append(keyword.value)
        return self._join(parts) if parts else None

    def _join(self, parts: list[ast.expr]) -> str | None:
        """The kind of an elementwise combination of `parts`. An element combined with a
        reduction of it is still per element, once those reductions keep their axis."""
        kinds = [self._argument(part) for part in parts]
        if None not in kinds and ELEM in kinds and REDUCED in kinds:
            for part, kind in zip(parts, kinds):
                if kind == REDUCED:
                    inner = {id(n) for n in ast.walk(part)}
                    self.kept.extend(c for c in self.reductions if id(c) in inner and c not in self.kept)
            return ELEM
        return _combine(*kinds)

    def _argument(self, arg: ast.expr) -> str | None:
        # dtypes and other non-tensor arguments (`tf.float32`) are constants.
        return self.kind(arg)

    def _reduction(self, call: ast.Call) -> str | None:
        if len(call.args) != 1:
            return None
        for keyword in call.keywords:
            if keyword.arg == "keepdims" and not (isinstance(keyword.value, ast.Constant)
                                                  and keyword.value.value is False):
                return None
            if keyword.arg not in ("axis", "keepdims", "name"):
                return None
        axis = _keyword(call, "axis")
        if axis is not None and _int_literal(axis) is None:
            return None
        if self.kind(call.args[0]) != ELEM:
            return None
        self.reductions.append(call)
        if axis is None:
            self.added_axis.append(call)
        return REDUCED

    def _row_times_fixed(self, left: ast.expr, right: ast.expr) -> bool:
        return self.kind(left) == ELEM and not _mentions(right, self.param) \
            and isinstance(right, (ast.Name, ast.Attribute))

    def _tensordot(self, call: ast.Call) -> bool:
        args = list(call.args)
        axes = _keyword(call, "axes") if len(args) < 3 else args[2]
        if len(args) < 2 or any(k.arg not in ("axes", "name") for k in call.keywords) or axes is None:
            return False
        if not (isinstance(axes, ast.Constant) and type(axes.value) is int and axes.value >= 1):
            return False
        return self._row_times_fixed(args[0], args[1])


def _last_part(api: Api) -> str:
    return api.name.rsplit(".", 1)[-1]


def _combine(*kinds: str | None) -> str | None:
    if any(k is None for k in kinds):
        return None
    found = set(kinds) - {CONST}
    if len(found) > 1:
        return None  # an element combined with a reduction of it: needs keepdims
    return found.pop() if found else CONST


def _int_literal(expr: ast.expr) -> int | None:
    """The value of an int literal (`2`, `-1`), else None."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _int_literal(expr.operand)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    return None


def _negative_int(expr: ast.expr) -> bool:
    value = _int_literal(expr)
    return value is not None and value < 0


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _substitute(body: ast.expr, param: str, elems: ast.expr, tuple_elems: list[ast.expr] | None,
                analysis: _Analysis) -> str:
    """The body with the element replaced by the whole tensor, reductions moved one axis out."""
    original = {id(call) for call in analysis.reductions}
    kept_original = {id(call) for call in analysis.kept}
    body_copy = copy.deepcopy(body)
    pairs = list(zip(ast.walk(body), ast.walk(body_copy), strict=True))
    reductions = {id(new) for old, new in pairs if id(old) in original}
    kept = {id(new) for old, new in pairs if id(old) in kept_original}
    body = body_copy

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return elems if node.id == param and tuple_elems is None else node

        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            if tuple_elems is not None and isinstance(node.value, ast.Name) and node.value.id == param:
                return tuple_elems[_int_literal(node.slice)]  # type: ignore[index]
            return self.generic_visit(node)

        def visit_Call(self, node: ast.Call) -> ast.AST:
            marked = id(node) in reductions
            keep = id(node) in kept
            node = self.generic_visit(node)  # type: ignore[assignment]
            if marked:
                axis = _keyword(node, "axis")
                keywords = [k for k in node.keywords if k.arg not in ("axis", "keepdims")]
                if axis is None:
                    shifted: ast.expr = ast.Constant(1)
                else:
                    value = _int_literal(axis)
                    shifted = ast.Constant(value + 1) if value is not None and value >= 0 else axis
                node.keywords = [*keywords, ast.keyword(arg="axis", value=shifted)]
                if keep:
                    node.keywords.append(ast.keyword(arg="keepdims", value=ast.Constant(True)))
            return node

    if isinstance(body, ast.Name) and body.id == param and tuple_elems is None:
        return ast.unparse(elems)
    return ast.unparse(Substitute().visit(body))


# --- functions tf.vectorized_map converts: not elementwise, still the same ops for every element ---

# Ops whose vectorized (pfor) form exists and whose output shape is fixed by their static arguments
# (axes, shapes, depth), beyond the elementwise ops, reductions and last-axis ops of the table.
_PFOR_OPS = frozenset({
    "tensorflow.tensordot", "tensorflow.linalg.tensordot", "tensorflow.matmul", "tensorflow.linalg.matmul",
    "tensorflow.einsum", "tensorflow.linalg.einsum",
    "tensorflow.argmin", "tensorflow.argmax", "tensorflow.math.argmin", "tensorflow.math.argmax",
    "tensorflow.gather", "tensorflow.reshape", "tensorflow.expand_dims", "tensorflow.squeeze",
    "tensorflow.transpose", "tensorflow.stack", "tensorflow.concat", "tensorflow.one_hot",
    "tensorflow.linalg.matvec", "tensorflow.linalg.diag_part", "tensorflow.linalg.trace",
})
# The arguments of those ops that fix the output's shape: they must not depend on the element.
_STATIC_ARGS = {
    "tensorflow.tensordot": (2, "axes"), "tensorflow.linalg.tensordot": (2, "axes"),
    "tensorflow.einsum": (0, "equation"), "tensorflow.linalg.einsum": (0, "equation"),
    "tensorflow.reshape": (1, "shape"), "tensorflow.expand_dims": (1, "axis"),
    "tensorflow.squeeze": (1, "axis"), "tensorflow.transpose": (1, "perm"), "tensorflow.one_hot": (1, "depth"),
    "tensorflow.stack": (1, "axis"), "tensorflow.concat": (1, "axis"),
    "tensorflow.argmin": (1, "axis"), "tensorflow.argmax": (1, "axis"),
    "tensorflow.math.argmin": (1, "axis"), "tensorflow.math.argmax": (1, "axis"),
}


def _pfor_vectorizable(fn: ast.expr, elems: ast.expr, facts: Facts, defined: ast.AST | None) -> bool:
    """Is `fn` (a lambda, or a def the name refers to, reduced to one returned expression) made only
    of ops `tf.vectorized_map` vectorizes with shapes that do not depend on the element: arithmetic
    and comparisons, the table's elementwise / reduction / last-axis ops, the ops of `_PFOR_OPS`
    with static shape arguments, static slices of values computed from the element, and a fixed
    tensor indexed by a value computed from it (a gather)? Python control flow, calls of other
    Python functions, data-dependent slices and anything else: no."""
    if isinstance(fn, (ast.Name, ast.Attribute)) and facts.imports.resolve(fn) is not None:
        return False
    resolved = _function_expr(fn, facts, defined)
    if resolved is None:
        return False
    param, body = resolved
    tuple_size = len(elems.elts) if isinstance(elems, (ast.Tuple, ast.List)) else None
    return _PforCheck(param, tuple_size, facts.imports).element(body)


class _PforCheck:
    def __init__(self, param: str, tuple_size: int | None, imports: ImportTable) -> None:
        self.param = param
        self.tuple_size = tuple_size
        self.imports = imports

    def fixed(self, expr: ast.expr) -> bool:
        """A value that does not depend on the element: a number, a string, a captured name or
        attribute (`W`, `tf.float32`), a literal list of them."""
        if _mentions(expr, self.param):
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, (int, float, str)) or expr.value is None
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return True
        if isinstance(expr, (ast.Tuple, ast.List)):
            return all(self.fixed(e) for e in expr.elts)
        if isinstance(expr, ast.UnaryOp):
            return self.fixed(expr.operand)
        return False

    def element(self, expr: ast.expr) -> bool:
        """A value computed from the element by vectorizable ops (and it uses the element)."""
        if not _mentions(expr, self.param):
            return False
        return self.value(expr)

    def value(self, expr: ast.expr) -> bool:
        if not _mentions(expr, self.param):
            return self.fixed(expr) or self.value_of_fixed_call(expr)
        if isinstance(expr, ast.Name):
            return expr.id == self.param and self.tuple_size is None
        if isinstance(expr, ast.Subscript):
            if isinstance(expr.value, ast.Name) and expr.value.id == self.param and self.tuple_size is not None:
                index = _int_literal(expr.slice)
                return index is not None and -self.tuple_size <= index < self.tuple_size
            if not _mentions(expr.value, self.param):
                # A fixed tensor indexed by a value computed from the element: a gather.
                return self.fixed(expr.value) and self.value(expr.slice)
            return self.value(expr.value) and self.static_index(expr.slice)
        if isinstance(expr, ast.UnaryOp):
            return isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)) and self.value(expr.operand)
        if isinstance(expr, ast.BinOp):
            return isinstance(expr.op, (*_ARITHMETIC, ast.MatMult)) and self.value(expr.left) \
                and self.value(expr.right)
        if isinstance(expr, ast.Compare):
            return all(isinstance(op, (*_ORDER, ast.Eq, ast.NotEq)) for op in expr.ops) \
                and all(self.value(e) for e in (expr.left, *expr.comparators))
        if isinstance(expr, ast.Call):
            return self.call(expr)
        return False

    def value_of_fixed_call(self, expr: ast.expr) -> bool:
        """A call that does not involve the element (`tf.range(10)`, `tf.constant(...)`): computed
        the same way for every element, whatever it is."""
        return isinstance(expr, ast.Call) and (self.imports.resolve(expr.func) or "").startswith("tensorflow.")

    def static_index(self, index: ast.expr) -> bool:
        """`[1:]`, `[:-1]`, `[0]`, `[..., 2]`, `[:, None]`: positions fixed before the element is seen."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice):
                if any(bound is not None and not self.fixed(bound) for bound in (part.lower, part.upper, part.step)):
                    return False
            elif not (isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis
                                                            or type(part.value) is int)) \
                    and _int_literal(part) is None:
                return False
        return True

    def call(self, call: ast.Call) -> bool:
        qualname = self.imports.resolve(call.func)
        if qualname is None:
            return False
        op = library.api(qualname)
        if qualname in _PFOR_OPS:
            position, keyword = _STATIC_ARGS.get(qualname, (None, None))
            static = [call.args[position]] if position is not None and position < len(call.args) else []
            static += [k.value for k in call.keywords if k.arg == keyword]
            if any(not self.fixed(s) for s in static):
                return False
            if qualname in ("tensorflow.stack", "tensorflow.concat"):
                items = call.args[0] if call.args else None
                if not isinstance(items, (ast.List, ast.Tuple)) or not items.elts:
                    return False
                rest = [a for a in call.args[1:]] + [k.value for k in call.keywords]
                return all(self.value(e) for e in items.elts) and all(self.fixed(r) for r in rest)
            others = [a for i, a in enumerate(call.args) if i != position] + \
                [k.value for k in call.keywords if k.arg != keyword]
            return all(self.value(a) for a in others)
        if op is None:
            return False
        if _last_part(op) == "where" and len(call.args) + len(call.keywords) != 3:
            return False  # tf.where(cond) returns indices: a length per element
        if op.has("reduction"):
            axis = _keyword(call, "axis") if len(call.args) < 2 else call.args[1]
            if axis is not None and not self.fixed(axis):
                return False
            return bool(call.args) and self.value(call.args[0]) and all(
                self.fixed(k.value) for k in call.keywords if k.arg != "input_tensor")
        if op.has("elementwise") or op.has("last_axis"):
            return all(self.value(a) for a in (*call.args, *(k.value for k in call.keywords)))
        return False


def _vectorized_map_text(ctx: Context, call: ast.Call, fn: ast.expr, elems: ast.expr) -> str:
    """`tf.vectorized_map(fn, elems)`, with the function's and the elements' own text when short."""
    from ..function._fixes import tf_alias

    def short(node: ast.expr, default: str) -> str:
        text = ast.unparse(node)
        return text if len(text) <= 30 and not isinstance(node, ast.Lambda) else default
    return f"{tf_alias(ctx.facts) or 'tf'}.vectorized_map({short(fn, 'fn')}, {short(elems, 'elems')})"


def _vectorized_map_fix(ctx: Context, call: ast.Call, fn: ast.expr, elems: ast.expr) -> Fix | None:
    """`tf.map_fn(fn, elems, fn_output_signature=...)` -> `tf.vectorized_map(fn, elems)`: the same
    function on the same elements (vectorized_map falls back to a loop for an op it cannot convert,
    so the program still runs). Unsafe: the output dtype is the function's own rather than the one
    `fn_output_signature` / `dtype` named, and gradients flow the same but through other ops. None
    when the call has keywords with other meanings (back_prop=False, swap_memory...) or a comment
    inside it."""
    from ..function._fixes import tf_alias

    if not ctx.fixes:
        return None
    alias = tf_alias(ctx.facts)
    if alias is None or any(k.arg not in ("fn", "elems", "fn_output_signature", "dtype", "name")
                            for k in call.keywords) or len(call.args) > 2:
        return None
    source = ctx.facts.source
    rng = source.node_range(call)
    lines = [source.line(n) for n in range(rng.start.line, rng.end.line + 1)]
    if any("#" in line for line in lines):
        return None
    fn_text = ast.get_source_segment(source.text, fn)
    elems_text = ast.get_source_segment(source.text, elems)
    if fn_text is None or elems_text is None:
        return None
    text = f"{alias}.vectorized_map({fn_text}, {elems_text})"
    return Fix("Replace tf.map_fn with tf.vectorized_map", Applicability.UNSAFE, (Edit(rng, text),))
