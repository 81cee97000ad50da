"""The runner the reproductions share: each case is a function registered with what TensorFlow
is expected to do with it (`raises`: the program misbehaves as the finding says; `runs`)."""

from __future__ import annotations

import os
import traceback
from typing import Callable


class Cases:
    def __init__(self, last_line: bool = False) -> None:
        self.items: list[tuple[str, str, Callable]] = []
        self.last_line = last_line  # show only the last line of an error (TensorFlow's "in user code:")

    def case(self, expect: str):
        def register(fn):
            self.items.append((fn.__name__, expect, fn))
            return fn
        return register

    def main(self, header: str) -> int:
        """Prints `<case>: runs (<what came out>)` or `<case>: raises (<error>)`, then `expected` /
        `UNEXPECTED`; 1 when a case does not behave as expected."""
        print(header)
        bad = 0
        for name, expect, fn in self.items:
            try:
                got = "runs"
                detail = repr(fn())
            except Exception as e:  # noqa: BLE001
                got = "raises"
                text = str(e)
                if self.last_line:
                    text = (text.strip().splitlines() or [""])[-1].strip().removeprefix(f"{type(e).__name__}: ")
                detail = f"{type(e).__name__}: {' '.join(text.split())[:160]}"
                if os.environ.get("REPRO_TRACE"):
                    traceback.print_exc()
            ok = got == expect
            bad += not ok
            print(f"{name}: {got} ({detail}) -> {'expected' if ok else 'UNEXPECTED'}", flush=True)
        return 1 if bad else 0
