"""tapelsp: finds TensorFlow GradientTape, tf.function and map_fn mistakes.

The engine API is `check_source` for Python text and `check_notebook` for .ipynb.
Neither imports TensorFlow.
"""

import logging

from .model import Applicability, Edit, FileResult, Fix, Position, Range, Related, Severity, Violation
from .settings import Settings, Targets

__version__ = "0.1.0"

# A library logs; the application decides where it goes (the CLI reports dropped fixes itself).
logging.getLogger(__name__).addHandler(logging.NullHandler())



def __getattr__(name: str):
    # The engine loads on first use, so that a front end that may not need it (a command
    # line run answered from the results cache) starts faster.
    if name == "check_source":
        from .engine import check_source

        return check_source
    if name == "check_notebook":
        from .notebook import check_notebook

        return check_notebook
    raise AttributeError(f"module 'tapelsp' has no attribute {name!r}")


__all__ = [
    "check_source", "check_notebook", "Settings", "Targets", "Violation", "Fix", "Edit", "Range",
    "Position", "Related", "Severity", "Applicability", "FileResult", "__version__",
]
