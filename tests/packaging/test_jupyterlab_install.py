"""`pip install ./client/jupyterlab` brings tapelsp with it, from this checkout (tapelsp is not
on PyPI): the JupyterLab package's metadata names the checkout as a direct reference. Built for
a package index (TAPELSP_JUPYTERLAB_PUBLISH=1) it asks for `tapelsp>=0.1.0` instead."""

from __future__ import annotations

import email
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client" / "jupyterlab"


def _requires(tmp_path: Path, publish: bool) -> list[str]:
    """Requires-Dist of the wheel pip builds from client/jupyterlab (outside the repository)."""
    env = {key: value for key, value in os.environ.items() if key != "TAPELSP_JUPYTERLAB_PUBLISH"}
    if publish:
        env["TAPELSP_JUPYTERLAB_PUBLISH"] = "1"
    out = tmp_path / ("publish" if publish else "checkout")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "--wheel-dir", str(out), str(CLIENT)], check=True, cwd=tmp_path, env=env)
    (wheel,) = out.glob("tapelsp_jupyterlab-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name)).get_all("Requires-Dist")


def test_built_from_the_checkout_it_requires_tapelsp_from_the_checkout(tmp_path: Path) -> None:
    """What `pip install ./client/jupyterlab` builds: pip installs its direct reference, tapelsp
    from this checkout, with tapelsp's own dependencies (libcst, pygls) from PyPI."""
    requires = _requires(tmp_path, publish=False)
    assert set(requires) == {f"tapelsp @ {ROOT.as_uri()}", "jupyter-server<3,>=2", "jupyter-client>=8"}, requires


def test_a_wheel_for_a_package_index_asks_for_tapelsp_by_version(tmp_path: Path) -> None:
    requires = _requires(tmp_path, publish=True)
    assert set(requires) == {"tapelsp>=0.1.0", "jupyter-server<3,>=2", "jupyter-client>=8"}, requires
