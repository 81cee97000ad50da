"""Which line of the user's code is running (kernel side).

The innermost frame that is not library code (TensorFlow, Keras, the standard library,
site-packages, IPython, this probe) is the user's. Code that AutoGraph converted runs
from a generated file; TensorFlow's own stack extraction maps it back to the user's
source, so it is used when such a frame is on the way.
"""

from __future__ import annotations

import os
import re
import site
import sys
import sysconfig
from functools import lru_cache

_PROBE_DIR = os.path.dirname(os.path.abspath(__file__))
_AUTOGRAPH = "__autograph_generated_file"
# TensorFlow's error text names the user's frames: `File "x.py", line 5, in scale  *`.
_USER_CODE_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in \S+\s+\*')


@lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    roots = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            roots.add(os.path.abspath(paths[key]))
    try:
        roots.update(os.path.abspath(p) for p in site.getsitepackages())
    except Exception:
        pass
    try:
        roots.add(os.path.abspath(site.getusersitepackages()))
    except Exception:
        pass
    roots.add(_PROBE_DIR)
    return tuple(sorted(roots))


@lru_cache(maxsize=4096)
def is_library(filename: str) -> bool:
    """True for frames that are not the user's own code."""
    if not filename:
        return True
    if filename.startswith("<"):
        # IPython's `<ipython-input-N-hash>` cells are user code; `<frozen ...>`, `<string>` are not.
        return not filename.startswith("<ipython-input-")
    if _AUTOGRAPH in filename:
        return True
    if "site-packages" in filename or "dist-packages" in filename:
        return True
    full = os.path.abspath(filename)
    return any(full == root or full.startswith(root + os.sep) for root in _library_roots())


def user_place(skip: int = 1) -> tuple[str, int] | None:
    """(file, line) of the innermost user frame calling the current code."""
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if _AUTOGRAPH in filename:
            return autograph_place()
        if not is_library(filename):
            return (filename, frame.f_lineno)
        frame = frame.f_back
    return None


def caller_is_user(skip: int = 1) -> bool:
    """Is the frame `skip` levels up user code (or AutoGraph-converted user code)?"""
    try:
        frame = sys._getframe(skip + 1)
    except ValueError:
        return False
    filename = frame.f_code.co_filename
    return _AUTOGRAPH in filename or not is_library(filename)


def inside_autograph(skip: int = 1) -> bool:
    frame = sys._getframe(skip)
    while frame is not None:
        if _AUTOGRAPH in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def autograph_place() -> tuple[str, int] | None:
    """The innermost user frame as TensorFlow maps converted code back to its source."""
    try:
        from tensorflow.python.util import tf_stack

        frames = list(tf_stack.extract_stack())
    except Exception:
        return None
    for frame in reversed(frames):
        if not is_library(frame.filename):
            return (frame.filename, frame.lineno)
    return None


def traceback_place(tb) -> tuple[str, int] | None:
    """The innermost user frame of a traceback."""
    place = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not is_library(filename):
            place = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return place


def message_place(message: str) -> tuple[str, int] | None:
    """The innermost `in user code` frame TensorFlow wrote into an error message."""
    found = None
    for match in _USER_CODE_FRAME.finditer(message):
        if not is_library(match.group("file")):
            found = (match.group("file"), int(match.group("line")))
    return found


def exception_place(error: BaseException) -> tuple[str, int] | None:
    """Where an exception comes from in the user's code: TensorFlow's own account first."""
    return message_place(str(error)) or traceback_place(error.__traceback__)
