"""`python -m tapelsp` behaves exactly like the `tapelsp` command."""

from tapelsp.cli.main import main

raise SystemExit(main())
