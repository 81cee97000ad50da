"""JupyterLab for the galata UI tests (started by Playwright's webServer, see playwright.config.ts).

Galata's own settings (no token, no XSRF check, galata's helper extension), then: the port
and root folder the test runner chose, and the labextension exactly as built in this checkout
(tapelsp_jupyterlab/labextension) ahead of any installed copy. Never use this config for
anything but tests: it turns every protection off.
"""

import os
import sys
from pathlib import Path

from jupyter_core.paths import jupyter_path
from jupyterlab.galata import configure_jupyter_server

c = get_config()  # noqa: F821 (provided by the config loader)
configure_jupyter_server(c)

c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = int(os.environ["TAPELSP_GALATA_PORT"])
c.ServerApp.root_dir = os.environ["TAPELSP_GALATA_ROOT"]
c.ServerApp.allow_root = True
c.ServerApp.open_browser = False
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
# Ahead of share/jupyter/labextensions: the first copy of an extension found wins.
c.LabApp.labextensions_path = [os.environ["TAPELSP_GALATA_LABEXTENSIONS"], *jupyter_path("labextensions")]
# The notebook's kernel runs this Python (the venv with TensorFlow and tapelsp).
c.KernelSpecManager.ensure_native_kernel = True
print(f"tapelsp galata server: python {sys.executable}, root {Path(c.ServerApp.root_dir)}", flush=True)
