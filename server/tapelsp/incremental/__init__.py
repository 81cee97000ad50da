"""Analysis of an edited text that redoes only what the edit can change (the language server's
worker uses it; `tapelsp --check` analyses whole files). See `checker.IncrementalChecker`."""

from .checker import IncrementalChecker, RunStats

__all__ = ["IncrementalChecker", "RunStats"]
