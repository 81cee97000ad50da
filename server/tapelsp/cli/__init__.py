"""The `tapelsp` command line: `tapelsp --check PATHS`, `--list-rules`, `--explain CODE`.

It reads files, asks the engine, and prints; it has no analysis of its own.
"""
