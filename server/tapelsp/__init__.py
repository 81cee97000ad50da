"""tapelsp: finds TensorFlow GradientTape, tf.function and map_fn mistakes.

The engine API is `check_source` for Python text and `check_notebook` for .ipynb.
Neither imports TensorFlow.
"""

import logging

from .engine import check_source
from .model import Applicability, Edit, FileResult, Fix, Position, Range, Related, Severity, Violation
from .notebook import check_notebook
from .settings import Settings, Targets

__version__ = "0.1.0"

# A library logs; the application decides where it goes (the CLI reports dropped fixes itself).
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "check_source", "check_notebook", "Settings", "Targets", "Violation", "Fix", "Edit", "Range",
    "Position", "Related", "Severity", "Applicability", "FileResult", "__version__",
]
