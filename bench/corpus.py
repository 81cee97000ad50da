"""The benchmark corpora: real TensorFlow code that nobody here wrote.

`ensure()` makes a throwaway virtualenv under `<repo>/.cache/bench/` (gitignored;
reused when present), installs the packages whose *sources* are the corpora with
`pip install --no-deps` (no TensorFlow: their code is only read, never imported),
and installs the comparison tools `ruff` and `fixit` (with their dependencies) into
the same venv. Nothing third-party is committed.

    python bench/corpus.py            # set up (if needed) and print the corpora
    python bench/corpus.py --tensorflow   # also the optional tensorflow/python corpus
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "bench"
VENV = CACHE / "venv"
STAMP = VENV / "tapelsp-bench.json"

# Sources only: installed without dependencies, never imported.
CORPUS_PACKAGES = ["tf_keras==2.21.*", "keras==3.15.*", "tensorflow-probability==0.25.*"]
# Tools to compare against, with their dependencies.
TOOL_PACKAGES = ["ruff", "fixit"]

# Corpus name -> import package directory inside site-packages.
CORPORA = {
    "tf_keras": "tf_keras",
    "keras": "keras",
    "tfp": "tensorflow_probability",
}
# Optional, only on request (`ensure_tensorflow()`): the .py files of `tensorflow/python`,
# extracted from the tensorflow-cpu wheel into the cache. Never installed, never imported.
TENSORFLOW_WHEEL = "tensorflow-cpu==2.21.*"
TENSORFLOW_SOURCES = CACHE / "sources" / "tensorflow"
ALL_CORPORA = (*CORPORA, "tensorflow")

SKIP_DIRS = {"__pycache__", ".git"}


@dataclass(frozen=True)
class Env:
    venv: Path
    python: Path
    site_packages: Path
    ruff: Path
    fixit: Path

    def corpus(self, name: str) -> Path:
        if name == "tensorflow":
            return ensure_tensorflow()
        try:
            return self.site_packages / CORPORA[name]
        except KeyError:
            raise SystemExit(f"unknown corpus {name!r}; choose from {', '.join(ALL_CORPORA)}") from None

    def base(self, name: str) -> Path:
        """The directory that finding paths are shown relative to."""
        return TENSORFLOW_SOURCES if name == "tensorflow" else self.site_packages


def _bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / (name + (".exe" if os.name == "nt" else ""))


def _log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _run(cmd: list[str]) -> None:
    _log(" ".join(str(c) for c in cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def ensure(quiet: bool = False) -> Env:
    """Create or reuse the venv with the corpora and the tools; return where they are."""
    wanted = {"python": sys.version.split()[0], "corpus": CORPUS_PACKAGES, "tools": TOOL_PACKAGES}
    python = _bin(VENV, "python")
    ready = python.exists() and STAMP.exists() and _read_stamp() == wanted
    if not ready:
        CACHE.mkdir(parents=True, exist_ok=True)
        if not python.exists():
            _run([sys.executable, "-m", "venv", str(VENV)])
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        _run(pip + ["--no-deps", *CORPUS_PACKAGES])
        _run(pip + TOOL_PACKAGES)
        STAMP.write_text(json.dumps(wanted, indent=2))
    elif not quiet:
        _log(f"reusing {VENV}")
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    env = Env(venv=VENV, python=python, site_packages=site,
              ruff=_bin(VENV, "ruff"), fixit=_bin(VENV, "fixit"))
    for name in CORPORA:
        if not env.corpus(name).is_dir():
            raise SystemExit(f"corpus {name} missing at {env.corpus(name)}; delete {VENV} and retry")
    return env


def ensure_tensorflow() -> Path:
    """`tensorflow/python` sources (~1,200+ files), read out of the wheel; returns their root."""
    root = TENSORFLOW_SOURCES / "tensorflow" / "python"
    stamp = TENSORFLOW_SOURCES / "stamp.txt"
    if root.is_dir() and stamp.exists() and stamp.read_text() == TENSORFLOW_WHEEL:
        return root
    import shutil
    import zipfile

    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    download = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "--no-deps",
                "--only-binary", ":all:", "-d", str(wheels)]
    try:
        _run(download + [TENSORFLOW_WHEEL])
    except subprocess.CalledProcessError:  # no tensorflow-cpu wheel for this platform
        _run(download + [TENSORFLOW_WHEEL.replace("tensorflow-cpu", "tensorflow")])
    found = sorted(wheels.glob("tensorflow_cpu-2.21.*.whl")) or sorted(wheels.glob("tensorflow-2.21.*.whl"))
    if not found:
        raise SystemExit(f"no tensorflow wheel in {wheels}")
    shutil.rmtree(TENSORFLOW_SOURCES, ignore_errors=True)
    with zipfile.ZipFile(found[-1]) as wheel:
        for member in wheel.namelist():
            if member.startswith("tensorflow/python/") and member.endswith(".py"):
                wheel.extract(member, TENSORFLOW_SOURCES)
    stamp.write_text(TENSORFLOW_WHEEL)
    for wheel_file in found:
        wheel_file.unlink()  # 270 MB; pip's own cache keeps it for a rebuild
    _log(f"extracted tensorflow/python sources from {found[-1].name}")
    return root


def _read_stamp() -> object:
    try:
        return json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return None


def python_files(root: Path) -> list[Path]:
    """Every .py file under root, sorted, skipping caches."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return found


def count_lines(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            total += handle.read().count(b"\n")
    return total


def installed_versions(env: Env) -> dict[str, str]:
    code = ("import importlib.metadata as m, json; print(json.dumps({n: m.version(n) for n in "
            "('tf_keras', 'keras', 'tensorflow-probability', 'ruff', 'fixit')}))")
    out = subprocess.run([str(env.python), "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    env = ensure()
    print(f"venv: {env.venv}")
    for package, version in installed_versions(env).items():
        print(f"  {package} {version}")
    names = ALL_CORPORA if "--tensorflow" in sys.argv[1:] else CORPORA
    for name in names:
        files = python_files(env.corpus(name))
        print(f"{name:9s} {len(files):5d} files {count_lines(files):8d} lines  {env.corpus(name)}")


if __name__ == "__main__":
    main()
