"""Shared test setup: make the `tapelsp` package importable from a plain checkout.

Nothing here skips, filters or rewrites test outcomes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "server"

if importlib.util.find_spec("tapelsp") is None:
    sys.path.insert(0, str(SERVER))
