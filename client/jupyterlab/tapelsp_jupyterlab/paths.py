"""The notebook's path as the frontend names it (relative to the server's root) to a path on
disk, used to find its `[tool.tapelsp]` configuration; the file itself need not exist."""

from __future__ import annotations

import os
from typing import Any


class PathError(ValueError):
    """The request's path is not a string, or points outside the server's root."""


def notebook_os_path(contents_manager: Any, path: Any) -> str | None:
    """The OS path of `path` under the contents manager's root; None when no path was given or
    the contents are not files on disk."""
    if path is None or path == "":
        return None
    if not isinstance(path, str):
        raise PathError("`path` must be a string or null")
    root = getattr(contents_manager, "root_dir", None)
    if not isinstance(root, str) or not root:
        return None
    root = os.path.realpath(os.path.expanduser(root))
    full = os.path.realpath(os.path.join(root, path.lstrip("/")))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        raise PathError("`path` is outside the server's root directory")
    return full
