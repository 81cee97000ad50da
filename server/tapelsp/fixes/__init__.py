"""Fixes: applying edits, fixing a file to a fixpoint, and the "ignore on this line" edit.

Rules build their fixes with libcst (modules `cst`, `hoist`, `tape`), imported only when a
fix is actually built; nothing imported here loads libcst.

- `apply_edits(text, edits)`: edits in code-point ranges, which must not overlap.
- `apply_fixes(text, ...)`: check, apply the non-overlapping applicable fixes, re-check, ...
  until nothing is left to fix (bounded rounds); safe fixes only unless `unsafe=True`;
  every intermediate result must parse.
- `apply_notebook_fixes(notebook, ...)`: the same on a notebook's cell sources.
- `ignore_fix(violation, source)`: the `# tapelsp: ignore[CODE]` edit for a finding.
"""

from __future__ import annotations

from .apply import (FixResult, NotebookFixResult, apply_fixes, apply_notebook_fixes, applicable, fix_text,
                    notebook_json)
from .edits import EditError, apply_edits, newline_of, parse_problem, text_edits
from .ignore import ignore_fix

__all__ = [
    "EditError", "FixResult", "NotebookFixResult", "applicable", "apply_edits", "apply_fixes",
    "apply_notebook_fixes", "fix_text", "ignore_fix", "newline_of", "notebook_json", "parse_problem",
    "text_edits",
]
