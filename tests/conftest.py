"""Shared test setup: make the `tapelsp` package importable from a plain checkout.

Nothing here skips, filters or rewrites test outcomes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SERVER = TESTS.parent / "server"

if importlib.util.find_spec("tapelsp") is None:
    sys.path.insert(0, str(SERVER))
# Shared test data (tests/known_bugs.py) is imported by tests/engine and tests/runtime.
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
