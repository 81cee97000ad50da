#!/usr/bin/env bash
# Started by Playwright's webServer (playwright.config.ts): JupyterLab from the venv, with a
# fresh copy of the test notebooks as its root folder and this checkout's labextension build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jupyter="${TAPELSP_JUPYTER:-$here/../../../.venv/bin/jupyter}"
work="$(mktemp -d -t tapelsp-galata-XXXXXX)"
mkdir -p "$work/root" "$work/labextensions"
cp "$here"/notebooks/*.ipynb "$work/root/"
ln -s "$here/../tapelsp_jupyterlab/labextension" "$work/labextensions/tapelsp-jupyterlab"
export TAPELSP_GALATA_ROOT="$work/root" TAPELSP_GALATA_LABEXTENSIONS="$work/labextensions"
export JUPYTER_CONFIG_DIR="$work/config" JUPYTER_RUNTIME_DIR="$work/runtime" IPYTHONDIR="$work/ipython"
exec "$jupyter" lab --config "$here/jupyter_server_test_config.py" --no-browser
