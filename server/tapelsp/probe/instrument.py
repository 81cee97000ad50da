"""Instrumentation installed into a Python process that runs TensorFlow (kernel side).

`install()` wraps, once TensorFlow is imported (at once if it already is, else by an
import hook that fires when `import tensorflow` finishes):

- `GradientTape.gradient`, `jacobian`, `batch_jacobian`: each call site's calls, which
  sources came back None, and the "non-persistent tape" RuntimeError;
- `tf.function` objects (`Function.__init__`, `Function.__call__`): instances, calls, trace
  counts (`experimental_get_tracing_count`) and, for every trace, the call site and a
  summary of the arguments (Python values by value, tensors by shape and dtype) with what
  changed since the previous trace; the variable-creation ValueError;
- TensorFlow's logger and `warnings.showwarning`: retracing, "Gradients do not exist for
  variables", persistent-tape-inside-context warnings.

Everything is recorded into `recorder.RECORDER`. The wrappers never change what the
wrapped call returns or raises; a failure inside the probe itself is recorded and
swallowed.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import logging
import re
import sys
import threading
import warnings

from . import locate
from .recorder import RECORDER, Recorder

TAPE_METHODS = ("gradient", "jacobian", "batch_jacobian")

# Exact TensorFlow/Keras wordings (docs: shared design RULES.md, "Exact runtime messages").
VARIABLE_CREATION = ("tf.function only supports singleton tf.Variables created on the first call",
                     "tf.function-decorated function tried to create variables on non-first call",
                     "Creating variables on a non-first call to a function decorated with tf.function")
TAPE_REUSED = ("A non-persistent GradientTape can only be used to compute one set of gradients",
               "A non-persistent GradientTape can only be used to",)
NO_GRADIENTS = ("No gradients provided for any variable",)
GRADIENTS_DO_NOT_EXIST = ("Gradients do not exist for variables",)
RETRACING = ("triggered tf.function retracing",)
INTEGER_WATCH = ("The dtype of the watched tensor must be floating",)
INSIDE_CONTEXT = ("Calling GradientTape.gradient on a persistent tape inside its context",)
EAGER_GRADIENTS = ("tf.gradients is not supported when eager execution is enabled",)

EXCEPTION_KINDS = (
    ("variable-creation", VARIABLE_CREATION),
    ("tape-reused", TAPE_REUSED),
    ("no-gradients", NO_GRADIENTS),
    ("integer-watch", INTEGER_WATCH),
    ("eager-tf-gradients", EAGER_GRADIENTS),
)
WARNING_KINDS = (
    ("retracing-warning", RETRACING),
    ("gradients-do-not-exist", GRADIENTS_DO_NOT_EXIST),
    ("gradient-inside-context", INSIDE_CONTEXT),
    ("no-gradients", NO_GRADIENTS),
)

# "ValueError: " before TensorFlow's sentence inside an "in user code:" message.
_EXCEPTION_PREFIX = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception): ")

_lock = threading.RLock()
_state: dict = {"installed": False, "patched": False, "hook": None, "handler": None, "showwarning": None,
                "originals": []}
_guard = threading.local()


def kind_of(message: str, kinds) -> str | None:
    for kind, fragments in kinds:
        if any(fragment in message for fragment in fragments):
            return kind
    return None


def install(recorder: Recorder = RECORDER) -> None:
    """Instrument this process (idempotent). TensorFlow is patched when it is imported."""
    with _lock:
        if _state["installed"]:
            return
        _state["installed"] = True
        _state["recorder"] = recorder
        _install_warning_hooks(recorder)
        if "tensorflow" in sys.modules and hasattr(sys.modules["tensorflow"], "GradientTape"):
            patch_tensorflow()
        else:
            hook = _TensorFlowImportHook()
            _state["hook"] = hook
            sys.meta_path.insert(0, hook)


def uninstall() -> None:
    """Undo `install` (tests; a user who unloads the extension)."""
    with _lock:
        hook = _state.get("hook")
        if hook is not None and hook in sys.meta_path:
            sys.meta_path.remove(hook)
        for owner, name, original in reversed(_state["originals"]):
            setattr(owner, name, original)
        _state["originals"] = []
        handler = _state.get("handler")
        if handler is not None:
            logging.getLogger("tensorflow").removeHandler(handler)
        if _state.get("showwarning") is not None and warnings.showwarning is _showwarning:
            warnings.showwarning = _state["showwarning"]
        _state.update(installed=False, patched=False, hook=None, handler=None, showwarning=None)


def installed() -> bool:
    return bool(_state["installed"])


def _recorder() -> Recorder:
    return _state.get("recorder") or RECORDER


def _safely(action, *args) -> None:
    """Run a recording step; a failure in the probe must never reach the user's program."""
    if getattr(_guard, "busy", False):
        return
    _guard.busy = True
    try:
        action(*args)
    except Exception as error:  # pragma: no cover - defensive
        try:
            _recorder().record_internal_error(f"{type(error).__name__}: {error}")
        except Exception:
            pass
    finally:
        _guard.busy = False


# --- import hook ----------------------------------------------------------------------

class _TensorFlowImportHook(importlib.abc.MetaPathFinder):
    """Patches TensorFlow right after `import tensorflow` has executed the package."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            patch_tensorflow()
        except Exception as error:  # pragma: no cover - defensive
            _recorder().record_internal_error(f"patching TensorFlow failed: {type(error).__name__}: {error}")


# --- TensorFlow -------------------------------------------------------------------------

def patch_tensorflow() -> None:
    with _lock:
        if _state["patched"]:
            return
        from tensorflow.python.eager import backprop
        from tensorflow.python.eager.polymorphic_function import polymorphic_function

        for method in TAPE_METHODS:
            original = getattr(backprop.GradientTape, method, None)
            if original is not None:
                _replace(backprop.GradientTape, method, _wrap_tape_method(method, original))
        function_class = polymorphic_function.Function
        _replace(function_class, "__init__", _wrap_function_init(function_class.__init__))
        _replace(function_class, "__call__", _wrap_function_call(function_class.__call__))
        hook = _state.get("hook")
        if hook is not None and hook in sys.meta_path:
            sys.meta_path.remove(hook)
        _state["hook"] = None
        _state["patched"] = True


def _replace(owner, name, replacement) -> None:
    _state["originals"].append((owner, name, owner.__dict__[name]))
    setattr(owner, name, replacement)


def _wrap_tape_method(method: str, original):
    @functools.wraps(original)
    def wrapper(self, target, sources, *args, **kwargs):
        if not locate.caller_is_user(1):
            return original(self, target, sources, *args, **kwargs)
        place = locate.user_place()
        try:
            result = original(self, target, sources, *args, **kwargs)
        except Exception as error:
            _safely(_record_tape_error, place, method, error)
            raise
        _safely(_record_gradient, place, method, sources, result)
        return result

    return wrapper


def _record_gradient(place, method, sources, result) -> None:
    if place is None:
        return
    from tensorflow.python.util import nest

    flat_sources = nest.flatten(sources)
    flat_result = nest.flatten(result) if result is not None else [None] * len(flat_sources)
    nones = []
    for index, value in enumerate(flat_result):
        if value is None:
            source = flat_sources[index] if index < len(flat_sources) else None
            nones.append((index, describe_source(source)))
    _recorder().record_gradient(place, method, len(flat_sources), nones, locate.inside_autograph(1))


def _record_tape_error(place, method, error) -> None:
    message = str(error)
    kind = kind_of(message, EXCEPTION_KINDS)
    if place is not None:
        _recorder().record_gradient_error(place, method)
    if kind is not None:
        _recorder().record_event(kind, _first_line(message), place)
        _mark(error)


def describe_source(source) -> str:
    """How a gradient source is named in messages ("tf.Variable 'dense/kernel:0'", "tensor ...")."""
    if source is None:
        return "None"
    kind = _class_kind(source)
    if kind == "variable":
        name = getattr(source, "path", None) or getattr(source, "name", None)
        return f"tf.Variable {name!r}" if name else "a tf.Variable"
    shape = getattr(source, "shape", None)
    dtype = getattr(getattr(source, "dtype", None), "name", None)
    if shape is not None and dtype is not None:
        return f"a tensor (shape {_shape(shape)}, {dtype})"
    return type(source).__qualname__


def _class_kind(obj) -> str | None:
    for klass in type(obj).__mro__:
        module = klass.__module__ or ""
        if klass.__name__ == "Variable" and module.startswith(("tensorflow.", "keras.", "tf_keras.")):
            return "variable"
    return None


def _shape(shape) -> str:
    try:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
        return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
    except Exception:
        return "unknown"


def _wrap_function_init(original):
    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        original(self, *args, **kwargs)
        _safely(_record_created, self)

    return wrapper


def _record_created(function) -> None:
    origin = _origin(function)
    if origin is None:
        return
    _recorder().record_function_created(origin, function, locate.user_place())


def _origin(function) -> tuple | None:
    """(qualname, file, line) of the user's Python function behind a tf.function, or None
    when that function is library code (Keras's own train functions)."""
    python_function = function.__dict__.get("_python_function") or getattr(function, "python_function", None)
    target = getattr(python_function, "__func__", python_function)
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    if locate.is_library(code.co_filename):
        return None
    return (getattr(target, "__qualname__", code.co_name), code.co_filename, code.co_firstlineno)


def _wrap_function_call(original):
    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        try:
            before = self.experimental_get_tracing_count()
        except Exception:
            before = None
        failed = None
        try:
            return original(self, *args, **kwargs)
        except Exception as error:
            failed = error
            raise
        finally:
            _safely(_record_call, self, before, args, kwargs, failed)

    return wrapper


def _record_call(function, before, args, kwargs, failed) -> None:
    if failed is not None:
        message = str(failed)
        kind = kind_of(message, EXCEPTION_KINDS)
        if kind is not None and not getattr(failed, "_tapelsp_recorded", False):
            _recorder().record_event(kind, _tensorflow_message(message), locate.exception_place(failed))
            _mark(failed)
    origin = _origin(function)
    if origin is None:
        return
    try:
        after = function.experimental_get_tracing_count()
    except Exception:
        after = before
    new_traces = (after - before) if (before is not None and after is not None) else 0
    arguments = summarize_arguments(function, args, kwargs) if new_traces > 0 else None
    _recorder().record_function_call(origin, function, locate.user_place(), new_traces, arguments)


def summarize_arguments(function, args, kwargs) -> list:
    """[(parameter name, summary)] for a call: what tf.function keys its traces on."""
    names = []
    try:
        import inspect

        python_function = getattr(function, "python_function", None)
        parameters = list(inspect.signature(python_function).parameters) if python_function else []
    except Exception:
        parameters = []
    for index, value in enumerate(args):
        name = parameters[index] if index < len(parameters) else f"argument {index + 1}"
        names.append((name, summarize(value)))
    for key, value in kwargs.items():
        names.append((key, summarize(value)))
    return names


def summarize(value, depth: int = 0) -> str:
    """A short account of a value as tf.function sees it; never calls user code."""
    if value is None or type(value) in (bool, int, float, complex):
        return repr(value)
    if type(value) is str:
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "...'"
    if type(value) in (list, tuple) and depth < 2:
        inner = ", ".join(summarize(v, depth + 1) for v in value[:6])
        more = ", ..." if len(value) > 6 else ""
        return ("[" + inner + more + "]") if type(value) is list else ("(" + inner + more + ")")
    if type(value) is dict and depth < 2:
        items = list(value.items())[:6]
        return "{" + ", ".join(f"{k!r}: {summarize(v, depth + 1)}" for k, v in items
                               if type(k) in (str, int)) + "}"
    if _class_kind(value) == "variable":
        return describe_source(value)
    module = type(value).__module__ or ""
    if module.startswith(("tensorflow", "numpy", "keras", "tf_keras")):
        shape = getattr(value, "shape", None)
        dtype = getattr(value, "dtype", None)
        dtype_name = getattr(dtype, "name", None) or (str(dtype) if dtype is not None else None)
        if shape is not None and dtype_name is not None:
            kind = "ndarray" if module.startswith("numpy") else "tensor"
            return f"{kind} {_shape(shape)} {dtype_name}"
    return f"{type(value).__qualname__} object"


def _mark(error: BaseException) -> None:
    try:
        error._tapelsp_recorded = True  # type: ignore[attr-defined]
    except Exception:
        pass


_OP_PREFIX = re.compile(r"\{\{function_node [^}]*\}\}\s*")


def _first_line(message: str) -> str:
    return _OP_PREFIX.sub("", message.strip().splitlines()[0])[:300] if message.strip() else message


def _tensorflow_message(message: str) -> str:
    """TensorFlow's own sentence from an error that may carry an "in user code:" preface."""
    for line in message.splitlines():
        stripped = _EXCEPTION_PREFIX.sub("", line.strip())
        if any(fragment in stripped for _kind, fragments in EXCEPTION_KINDS for fragment in fragments):
            return stripped[:300]
    return _first_line(message)


# --- exceptions the program did not catch -------------------------------------------

def record_exception(error: BaseException) -> None:
    """An exception that ended a cell or the script (called by the extension/runner)."""
    if getattr(error, "_tapelsp_recorded", False):
        return

    def record() -> None:
        message = str(error)
        kind = kind_of(message, EXCEPTION_KINDS) or "exception"
        text = _tensorflow_message(message) if kind != "exception" else _first_line(message)
        _recorder().record_event(kind, f"{type(error).__name__}: {text}" if kind == "exception" else text,
                                 locate.exception_place(error))
        _mark(error)

    _safely(record)


# --- warnings -------------------------------------------------------------------------

class _TensorFlowLogHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            return
        kind = kind_of(message, WARNING_KINDS)
        if kind is not None:
            _safely(lambda: _recorder().record_event(kind, _first_line(message), locate.user_place()))


def _showwarning(message, category, filename, lineno, file=None, line=None):
    text = str(message)
    kind = kind_of(text, WARNING_KINDS)
    if kind is not None:
        _safely(lambda: _recorder().record_event(kind, _first_line(text), locate.user_place()))
    original = _state.get("showwarning")
    if original is not None:
        return original(message, category, filename, lineno, file, line)
    return None


def _install_warning_hooks(recorder: Recorder) -> None:
    handler = _TensorFlowLogHandler(level=logging.WARNING)
    logging.getLogger("tensorflow").addHandler(handler)
    _state["handler"] = handler
    _state["showwarning"] = warnings.showwarning
    warnings.showwarning = _showwarning


__all__ = ["install", "uninstall", "installed", "patch_tensorflow", "record_exception", "summarize",
           "describe_source", "kind_of"]
