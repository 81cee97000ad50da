"""Names from other modules: the project's (packages, re-exports in `__init__`, relative
imports) and installed packages found on the interpreter's sys.path (jedi), never imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tapelsp import check_source
from tapelsp.inspect_values import describe_lines
from tapelsp.project import Project
from tapelsp.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def values_of_line(root: Path, name: str, line: int) -> list[str]:
    path = root / name
    found = describe_lines(path.read_text(), {line}, path=str(path), project=Project(str(root)))
    return [d.text for d in found]


def test_a_name_re_exported_by_a_package_init(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "from .models import make_steps\n",
        "pkg/models.py": """
            import tensorflow as tf

            def make_steps(n=10):
                return tf.range(n)
        """,
        "train.py": """
            from pkg import make_steps
            steps = make_steps()
        """,
    })
    assert values_of_line(tmp_path, "train.py", 3) == ["`steps`: tf.Tensor int32, eager, made in models.py from plain data"]


def test_a_relative_import_inside_a_package(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/data.py": """
            import numpy as np

            GRID = np.linspace(0.0, 1.0, 5)
        """,
        "pkg/train.py": """
            from .data import GRID
            x = GRID
        """,
    })
    assert values_of_line(tmp_path, "pkg/train.py", 3) == ["`x`: a NumPy array float64, made in data.py",
                                                           "`GRID`: a NumPy array float64, made in data.py"]


def test_a_finding_through_an_imported_integer_source(tmp_path):
    write(tmp_path, {
        "params.py": """
            import tensorflow as tf

            start = tf.constant([1, 2, 3])
        """,
        "train.py": """
            import tensorflow as tf
            from params import start

            with tf.GradientTape() as tape:
                tape.watch(start)
                y = tf.reduce_sum(tf.cast(start, tf.float32) ** 2)
            g = tape.gradient(y, start)
        """,
    })
    found = check_source((tmp_path / "train.py").read_text(), str(tmp_path / "train.py"),
                         Settings(select=("TAPE012",)), project=Project(str(tmp_path)))
    assert [(v.code, v.range.start.line + 1) for v in found] == [("TAPE012", 8)]
    assert "made in params.py" in found[0].message


def test_an_installed_package_on_the_interpreters_path_is_read_not_imported(tmp_path):
    """A package outside the project, found through sys.path (PYTHONPATH here) by jedi. The
    package raises on import: reading it must not run it."""
    site = tmp_path / "site"
    write(site, {"tfhelpers.py": """
        import tensorflow as tf
        raise RuntimeError("imported!")

        def image_batch():
            return tf.zeros([2, 8, 8, 3], tf.uint8)
    """})
    project = tmp_path / "project"
    write(project, {"train.py": """
        from tfhelpers import image_batch
        images = image_batch()
    """})
    env = dict(os.environ, PYTHONPATH=str(site))
    result = subprocess.run([sys.executable, "-m", "tapelsp", "--values", "train.py:3"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "train.py:3:1: `images`: tf.Tensor uint8, eager, made in tfhelpers.py from plain data"
    without = subprocess.run([sys.executable, "-m", "tapelsp", "--values", "train.py:3"], cwd=project,
                             capture_output=True, text=True, timeout=120, env={k: v for k, v in os.environ.items()
                                                                               if k != "PYTHONPATH"})
    assert without.stdout.strip() == "train.py:3:1: `images`: unknown"


def test_a_parameter_left_to_its_default_in_a_function_of_another_module(tmp_path):
    # dev/pkg_189: `beta = linear_warmup(step, warmup_steps=8)`, with `max_beta=1.0` left to its
    # default, is a Python float for this call (it had been "maybe": the default's parameter was
    # evaluated through schedules.py's own callers, of which there are none).
    write(tmp_path, {
        "schedules.py": """
            def linear_warmup(step, warmup_steps, max_beta=1.0):
                return max_beta * min(1.0, step / float(warmup_steps))
        """,
        "main.py": """
            from schedules import linear_warmup
            for step in range(10):
                beta = linear_warmup(step, warmup_steps=8)
        """,
    })
    assert values_of_line(tmp_path, "main.py", 4)[0] == "`beta`: a Python float, made in schedules.py"
