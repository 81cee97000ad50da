"""What a Python process with TensorFlow knows about itself, without running user code.

This module runs inside the user's process (a Jupyter kernel, or a script under the
probe's runner). It is self-contained (standard library only, no relative imports):
attach mode sends its source text to a kernel that may not have tapelsp installed and
evaluates it there in a private namespace.

It never imports TensorFlow, Keras or anything else: versions of packages that are not
imported yet come from package metadata, and everything else is read from modules that
are already in `sys.modules`. It never calls code the user wrote: objects are classified
by the classes in `type(obj).__mro__` (no `isinstance`, which can be overridden), and an
attribute is read only when the class that defines it belongs to a trusted library.
"""

import json
import os
import sys
import types

SCHEMA = 1

# Package (import name) -> distributions that provide it, first match wins.
PACKAGES = (
    ("tensorflow", ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos",
                    "tensorflow-intel", "tf-nightly", "tf-nightly-cpu")),
    ("keras", ("keras",)),
    ("tf_keras", ("tf-keras", "tf_keras")),
    ("tensorflow_probability", ("tensorflow-probability", "tfp-nightly")),
    ("numpy", ("numpy",)),
)

# Library code the probe may call (properties of variables, trace counts).
TRUSTED_MODULES = ("tensorflow", "keras", "tf_keras", "tensorflow_probability", "numpy", "builtins")

RECORDER_MODULE = "tapelsp.probe.recorder"
HIDDEN_NAMES = {"In", "Out", "get_ipython", "exit", "quit", "open"}
MAX_NAMES = 500
MAX_NESTED = 50


def _trusted(module):
    module = module or ""
    return any(module == name or module.startswith(name + ".") for name in TRUSTED_MODULES)


def library_attr(obj, name, default=None):
    """`obj.name` when a trusted library defines it (else `default`); never runs user code."""
    try:
        cls_attr = None
        owner = None
        for klass in type(obj).__mro__:
            if name in klass.__dict__:
                cls_attr, owner = klass.__dict__[name], klass
                break
        data_descriptor = owner is not None and (hasattr(type(cls_attr), "__set__")
                                                 or hasattr(type(cls_attr), "__delete__"))
        if data_descriptor:
            return getattr(obj, name) if _trusted(owner.__module__) else default
        try:
            instance_dict = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            instance_dict = None
        if type(instance_dict) is dict and name in instance_dict:
            return instance_dict[name]
        if owner is not None and _trusted(owner.__module__):
            return getattr(obj, name)
    except Exception:
        return default
    return default


def _mro_names(obj):
    try:
        return [(klass.__module__ or "", klass.__qualname__) for klass in type(obj).__mro__]
    except Exception:
        return []


def classify(obj):
    """What kind of TensorFlow object `obj` is ("variable", "tf_function", ...), or None."""
    if isinstance(obj, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    for module, name in _mro_names(obj):
        if module.startswith("tensorflow_probability") and name in ("TransformedVariable", "DeferredTensor"):
            return "transformed_variable"
        if module.startswith("tensorflow.") and name == "Variable":
            return "variable"
        if module.startswith(("keras.", "tf_keras.")) and name == "Variable":
            return "keras_variable"
        if module.startswith("tensorflow.") and name == "Function" and "polymorphic_function" in module:
            return "tf_function"
        if module.startswith(("keras.", "tf_keras.", "tensorflow.python.keras")) and name in ("Model", "Functional",
                                                                                               "Sequential"):
            return "keras_model"
        if module.startswith("tensorflow.") and name == "GradientTape":
            return "gradient_tape"
    for module, name in _mro_names(obj):
        if module.startswith(("keras.", "tf_keras.")) and name == "Optimizer":
            return "keras_optimizer"
        if module.startswith(("keras.", "tf_keras.")) and name == "Layer":
            return "keras_layer"
        if module.startswith("tensorflow.") and name == "Module":
            return "tf_module"
    return None


def _text(value, limit=120):
    try:
        if value is None or type(value) in (str, int, float, bool):
            text = str(value)
        else:
            text = str(value) if _trusted(type(value).__module__) else type(value).__qualname__
    except Exception:
        text = type(value).__qualname__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def function_origin(fn):
    """(qualname, file, first line) of the Python function a tf.function traces."""
    python_function = library_attr(fn, "python_function")
    target = getattr(python_function, "__func__", python_function) if python_function is not None else None
    code = getattr(target, "__code__", None) if isinstance(target, types.FunctionType) else None
    if code is None:
        return (type(python_function).__qualname__ if python_function is not None else "?", None, None)
    return (target.__qualname__, code.co_filename, code.co_firstlineno)


def describe(kind, obj):
    facts = {"kind": kind, "type": type(obj).__module__ + "." + type(obj).__qualname__}
    if kind in ("variable", "keras_variable", "transformed_variable"):
        for attr in ("name", "shape", "dtype", "trainable"):
            value = library_attr(obj, attr)
            if value is not None:
                facts[attr] = value if type(value) is bool else _text(getattr(value, "name", value)
                                                                     if attr == "dtype" else value)
    elif kind == "tf_function":
        name, filename, line = function_origin(obj)
        facts.update(function=name, file=filename, line=line)
        counter = library_attr(obj, "experimental_get_tracing_count")
        try:
            facts["traces"] = int(counter()) if counter is not None else None
        except Exception:
            facts["traces"] = None
        signature = library_attr(obj, "input_signature")
        facts["input_signature"] = signature is not None
    elif kind in ("keras_model", "keras_layer", "keras_optimizer", "tf_module"):
        name = library_attr(obj, "name")
        if type(name) is str:
            facts["name"] = name
        built = library_attr(obj, "built")
        if type(built) is bool:
            facts["built"] = built
    return facts


def namespace_facts(namespace, hidden=()):
    """TensorFlow objects among the names of `namespace` (one level into user objects too)."""
    found = []
    hidden = set(hidden) | HIDDEN_NAMES
    names = [name for name in list(namespace) if not name.startswith("_") and name not in hidden]
    for name in names[:MAX_NAMES]:
        try:
            value = namespace[name]
        except Exception:
            continue
        kind = classify(value)
        if kind is not None:
            entry = describe(kind, value)
            entry["name_in_namespace"] = name
            found.append(entry)
            continue
        if isinstance(value, (types.ModuleType, type, types.FunctionType)):
            continue
        try:
            attributes = object.__getattribute__(value, "__dict__")
        except Exception:
            continue
        if type(attributes) is not dict:
            continue
        for attr, inner in list(attributes.items())[:MAX_NESTED]:
            if attr.startswith("__"):
                continue
            inner_kind = classify(inner)
            if inner_kind in ("tf_function", "variable", "keras_model"):
                entry = describe(inner_kind, inner)
                entry["name_in_namespace"] = f"{name}.{attr}"
                found.append(entry)
    return found


def versions():
    """Version of each package: from the imported module when it is imported, else metadata."""
    out = {}
    for module_name, distributions in PACKAGES:
        module = sys.modules.get(module_name)
        version = None
        if module is not None:
            candidate = getattr(module, "__dict__", {}).get("__version__")
            version = candidate if type(candidate) is str else None
        if version is None:
            version = _metadata_version(distributions)
        out[module_name] = {"version": version, "imported": module is not None}
    return out


def _metadata_version(distributions):
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        return None
    for dist in distributions:
        try:
            return metadata.version(dist)
        except Exception:
            continue
    return None


def mode():
    """Eager or graph, TF2 behaviour and control flow v2 (None while TensorFlow is not imported)."""
    facts = {"tensorflow_imported": "tensorflow" in sys.modules, "executing_eagerly": None,
             "tf2_behavior": None, "control_flow_v2": None}
    if not facts["tensorflow_imported"]:
        return facts
    try:
        context = sys.modules.get("tensorflow.python.eager.context")
        if context is not None:
            facts["executing_eagerly"] = bool(context.executing_eagerly())
    except Exception:
        pass
    try:
        tf2 = sys.modules.get("tensorflow.python.tf2")
        if tf2 is not None:
            facts["tf2_behavior"] = bool(tf2.enabled())
    except Exception:
        pass
    try:
        util = sys.modules.get("tensorflow.python.ops.control_flow_util")
        if util is not None:
            facts["control_flow_v2"] = bool(util.ENABLE_CONTROL_FLOW_V2)
    except Exception:
        pass
    return facts


def recorded():
    """The instrumentation's snapshot when it is installed in this process, else None."""
    module = sys.modules.get(RECORDER_MODULE)
    recorder = getattr(module, "RECORDER", None) if module is not None else None
    if recorder is None:
        return None
    try:
        return recorder.snapshot()
    except Exception as error:  # the report must still come back
        return {"error": f"{type(error).__name__}: {error}"}


def _user_namespace():
    shell = None
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        try:
            shell = ipython.get_ipython()
        except Exception:
            shell = None
    if shell is not None:
        hidden = getattr(shell, "user_ns_hidden", {}) or {}
        return shell.user_ns, set(hidden)
    main = sys.modules.get("__main__")
    return (getattr(main, "__dict__", {}), set())


def collect(namespace=None, hidden=()):
    """Everything the probe reports, as JSON-ready data."""
    if namespace is None:
        namespace, hidden = _user_namespace()
    return {
        "schema": SCHEMA,
        "process": {"pid": os.getpid(), "python": sys.version.split()[0], "executable": sys.executable},
        "versions": versions(),
        "mode": mode(),
        "namespace": namespace_facts(namespace, hidden),
        "recorded": recorded(),
    }


def collect_json(namespace=None, hidden=()):
    """`collect()` as one line of JSON (no raw newlines, so its repr is one line too)."""
    return json.dumps(collect(namespace, hidden), default=str, separators=(",", ":"))


def source_text():
    """This module's own source, for attach mode to send to a kernel."""
    with open(__file__, encoding="utf-8") as handle:
        return handle.read()


# When a kernel evaluates this source in a private namespace, the answer is left here.
if __name__ == "__tapelsp_query__":
    __tapelsp_result__ = collect_json()
