"""Which TensorFlow / Keras / NumPy object a name or attribute chain refers to.

`ImportTable.resolve(expr)` turns `tf.GradientTape`, `GT` (from
`from tensorflow import GradientTape as GT`), `backprop.GradientTape` or
`tf.compat.v1.GradientTape` into one canonical qualified name,
"tensorflow.GradientTape"; rules compare against canonical names only.
"""

from __future__ import annotations

import ast
from functools import lru_cache

# Module prefixes that mean the same thing; the longest match is rewritten.
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow._api.v2.", "tensorflow."),
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.src.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.src.", "keras."),
    ("keras.api._v2.keras.", "keras."),
    ("keras.api.", "keras."),
    ("tensorflow.python.ops.numpy_ops.", "tensorflow.experimental.numpy."),
    # TF 2 aliases of Keras namespaces.
    ("tensorflow.optimizers.", "keras.optimizers."),
    ("tensorflow.losses.", "keras.losses."),
    ("tensorflow.metrics.", "keras.metrics."),
    ("tensorflow.initializers.", "keras.initializers."),
)

# Internal module paths used by TensorFlow's own code and by libraries built on it.
_INTERNAL = {
    "tensorflow.python.eager.backprop.GradientTape": "tensorflow.GradientTape",
    "tensorflow.autodiff.GradientTape": "tensorflow.GradientTape",
    "tensorflow.python.eager.def_function.function": "tensorflow.function",
    "tensorflow.python.eager.polymorphic_function.polymorphic_function.function": "tensorflow.function",
    "tensorflow.python.ops.variables.Variable": "tensorflow.Variable",
    "tensorflow.python.ops.map_fn.map_fn": "tensorflow.map_fn",
    "tensorflow.python.ops.map_fn.map_fn_v2": "tensorflow.map_fn",
    "tensorflow.python.ops.gradients_impl.gradients": "tensorflow.gradients",
    "tensorflow.python.ops.gradients_impl.gradients_v2": "tensorflow.gradients",
}

_TFP_INTERNAL = "tensorflow_probability.python."
_TFP_PUBLIC = frozenset({"distributions", "bijectors", "math", "optimizer", "mcmc", "layers", "vi", "sts",
                         "glm", "stats", "util", "monte_carlo", "random", "experimental"})
_TFP_SUBPACKAGES = frozenset({"psd_kernels", "linalg", "util", "marginalize", "mcmc", "distributions", "bijectors",
                              "vi", "nn", "sts", "optimizer", "math", "stats", "layers", "glm", "random"})

_TOP_LEVEL = {
    "tensorflow", "keras", "tf_keras", "numpy", "tensorflow_probability", "random", "time",
}


@lru_cache(maxsize=4096)  # a file resolves the same few dozen names over and over
def canonical(qualname: str) -> str:
    """Rewrite prefixes until none applies: `tf.compat.v2` + `.compat.v1.Variable`,
    `tensorflow.compat.v2.keras.layers` all reach their canonical names."""
    for _ in range(8):
        for prefix, replacement in _PREFIXES:
            if qualname.startswith(prefix):
                qualname = replacement + qualname[len(prefix):]
                break
        else:
            break
    if qualname in ("tensorflow.keras", "tf_keras", "tensorflow.python.keras"):
        return "keras"
    if qualname.startswith(_TFP_INTERNAL):
        # `from tensorflow_probability.python.distributions import normal`, `normal.Normal`: the
        # public `tfp.distributions.Normal` (TFP's own code and tests import it this way).
        parts = qualname[len(_TFP_INTERNAL):].split(".")
        if parts[0] in _TFP_PUBLIC and len(parts) >= 2:
            # Subpackages stay, the module after them goes (`distributions.beta.Beta.from_...`,
            # `experimental.util.deferred_module.DeferredModule`, `math.psd_kernels.matern.X`).
            at = 1
            while at < len(parts) - 1 and parts[at] in _TFP_SUBPACKAGES:
                at += 1
            module = parts[at] if at < len(parts) - 1 else ""
            kept = [*parts[:at], *parts[at + 1:]] if module.islower() and not module.startswith("_") else parts
            return "tensorflow_probability." + ".".join(kept)
    return _INTERNAL.get(qualname, qualname)


def dotted(expr: ast.AST) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


# Top-level modules that are libraries, never files of the user's project: imports of them are
# not looked up in the project (the library table covers TensorFlow, Keras and NumPy).
LIBRARIES = frozenset({
    "tensorflow", "keras", "tf_keras", "numpy", "tensorflow_probability", "jax", "torch", "scipy", "pandas",
    "sklearn", "os", "sys", "time", "random", "math", "json", "typing", "collections", "functools",
    "itertools", "abc", "dataclasses", "re", "pathlib", "logging", "absl", "six", "builtins", "__future__",
    "datetime", "copy", "pickle", "argparse", "warnings", "matplotlib", "gym", "gymnasium",
})


class ImportTable:
    """Local names bound by imports (and simple aliases) to qualified names."""

    __slots__ = ("names", "v1_imported", "assumed", "roots", "relative")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.v1_imported = False  # `import tensorflow.compat.v1 as tf` or similar
        self.assumed: set[str] = set()
        # The first part of every absolute import's module (`models` of `from models.gan
        # import G`), and whether any import is relative: which files the imports may read.
        self.roots: set[str] = set()
        self.relative = False

    def add_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.roots.add(alias.name.split(".")[0])
                if alias.asname:
                    self._bind(alias.asname, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    self._bind(top, top)
            return
        if node.level or not node.module:
            self.relative = True
            return
        self.roots.add(node.module.split(".")[0])
        for alias in node.names:
            if alias.name == "*":
                continue
            self._bind(alias.asname or alias.name, f"{node.module}.{alias.name}")

    def _bind(self, local: str, qualname: str) -> None:
        self.names[local] = qualname
        self.assumed.discard(local)
        if qualname.startswith("tensorflow.compat.v1"):
            self.v1_imported = True

    def add_alias(self, local: str, expr: ast.AST) -> None:
        """`GradientTape = tf.GradientTape`, `tfd = tfp.distributions`."""
        target = self.raw(expr)
        if target is not None:
            self.names[local] = target
            self.assumed.discard(local)

    def assume(self, local: str, module: str) -> None:
        """Guess a conventional alias (`tf`, `np`) that the file uses without importing."""
        if local not in self.names:
            self.names[local] = module
            self.assumed.add(local)

    def raw(self, expr: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self.names.get(expr.id)
        if base is None:
            return None
        parts.append(base)
        return ".".join(reversed(parts))

    def resolve(self, expr: ast.AST) -> str | None:
        raw = self.raw(expr)
        return canonical(raw) if raw is not None else None

    def is_tracked_module(self, qualname: str) -> bool:
        return qualname.split(".")[0] in _TOP_LEVEL
