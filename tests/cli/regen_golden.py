"""Rewrite tests/cli/golden/* from the current code: `PYTHONPATH=server python3 tests/cli/regen_golden.py`.

Review `git diff tests/cli/golden` before committing: the goldens are the spec.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "server"))

from golden_cases import CASES, golden_path, produce  # noqa: E402


def main() -> int:
    for output_format in CASES:
        outcome = produce(output_format)
        if outcome.err:
            print(f"{output_format}: unexpected stderr:\n{outcome.err}", file=sys.stderr)
            return 1
        path = golden_path(output_format)
        path.write_text(outcome.out, encoding="utf-8", newline="")
        print(f"wrote {path.relative_to(HERE.parent.parent)} (exit code {outcome.code})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
