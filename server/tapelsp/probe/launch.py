"""The probe's kernel launcher: `python -m tapelsp.probe.launch -f CONNECTION_FILE ...`.

Forks the guardian (`containment.start_guardian`), then runs `ipykernel_launcher` with the
same arguments, as `python -m ipykernel_launcher` would.
"""

from __future__ import annotations

import runpy
import sys

from tapelsp.probe.containment import start_guardian

if __name__ == "__main__":
    start_guardian()
    sys.argv[0] = "ipykernel_launcher"
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
