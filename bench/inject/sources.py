"""The correct programs the injector mutates, and the engine snapshot it measures.

Three origins:
* `dev`: the negatives of the dev corpus, read at run time from `$TAPELSP_DEV_CORPUS`
  (default /work/shared/corpus/dev), never copied into the repository;
* `example`: the valid examples of tapelsp's rules (`tapelsp.rules.all_rules()`, read from the
  engine snapshot) that import TensorFlow and have no `tensorflow_version` (or "2.21");
* `own`: the tutorial-style programs in `programs/` (scripts, notebooks, packages with main.py).

A notebook is mutated and run as one joined module: its code cells in order, each preceded by a
`# <cell N>` comment (N counts every cell, markdown included, from 1) so that a mutated module
can be split back into cells and a line mapped to (cell, line).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

from tfrun import CACHE, PYTHON, REPO

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
DEV = Path(os.environ.get("TAPELSP_DEV_CORPUS", "/work/shared/corpus/dev"))
CELL = re.compile(r"^# <cell (\d+)>$")
# The TensorFlow the mutants run under: a rule example written for another version
# (`tensorflow_version="2.6"`, "1.15") may be that rule's pitfall here, so it is no original.
TENSORFLOW_VERSION = "2.21"


@dataclass(frozen=True)
class Program:
    name: str
    origin: str  # dev | example | own
    kind: str  # script | notebook | package
    files: dict = field(hash=False)  # rel path -> text (a notebook: its JSON)
    entry: str = ""

    # -- modules as the operators see them ------------------------------------------------
    def modules(self) -> list[str]:
        if self.kind == "notebook":
            return [self.entry]
        return sorted(rel for rel in self.files if rel.endswith(".py"))

    def module_text(self, rel: str) -> str:
        if self.kind == "notebook":
            return join_cells(self.files[rel])
        return self.files[rel]

    def with_module(self, rel: str, text: str) -> "Program":
        files = dict(self.files)
        files[rel] = split_cells(self.files[rel], text) if self.kind == "notebook" else text
        return replace(self, files=files)

    # -- running -----------------------------------------------------------------------------
    def run_rel(self, rel: str) -> str:
        return rel + ".py" if self.kind == "notebook" else rel

    def job(self, mode: str = "graph", **extra) -> dict:
        if self.kind == "notebook":
            files = {self.run_rel(self.entry): join_cells(self.files[self.entry])}
            entry = self.run_rel(self.entry)
        else:
            files, entry = dict(self.files), self.entry
        job = {"files": files, "entry": entry, "mode": mode}
        job.update(extra)
        return job

    def cell_line(self, rel: str, line: int) -> tuple[int | None, int]:
        """(cell, line in cell) of a line of the module; (None, line) outside notebooks."""
        if self.kind != "notebook":
            return None, line
        lines = self.module_text(rel).splitlines()
        cell, start = None, 0
        for i, text in enumerate(lines[:line], 1):
            m = CELL.match(text)
            if m:
                cell, start = int(m.group(1)), i
        return cell, line - start


def _cells(nb_text: str) -> tuple[dict, list]:
    nb = json.loads(nb_text)
    return nb, nb.get("cells", [])


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def join_cells(nb_text: str) -> str:
    _, cells = _cells(nb_text)
    parts = []
    for index, cell in enumerate(cells, 1):
        if cell.get("cell_type") != "code":
            continue
        src = _source(cell)
        parts.append(f"# <cell {index}>\n" + src.rstrip("\n") + "\n")
    return "".join(parts)


def split_cells(nb_text: str, joined: str) -> str:
    nb, cells = _cells(nb_text)
    chunks: dict[int, list[str]] = {}
    current = None
    for line in joined.splitlines(keepends=True):
        m = CELL.match(line.rstrip("\n"))
        if m:
            current = int(m.group(1))
            chunks[current] = []
        elif current is not None:
            chunks[current].append(line)
    for index, cell in enumerate(cells, 1):
        if index in chunks:
            text = "".join(chunks[index]).rstrip("\n")
            lines = text.splitlines(keepends=True)
            cell["source"] = lines
    return json.dumps(nb, indent=1) + "\n"


def has_magic(nb_text: str) -> bool:
    _, cells = _cells(nb_text)
    return any(ln.lstrip().startswith(("%", "!")) for c in cells if c.get("cell_type") == "code"
               for ln in _source(c).split("\n"))


# -- loading ---------------------------------------------------------------------------------
def _load_dir_program(path: Path, origin: str, name: str) -> Program | None:
    if path.is_dir():
        if not (path / "main.py").exists():
            return None
        files = {p.relative_to(path).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted(path.rglob("*.py")) if "__pycache__" not in p.parts}
        return Program(name, origin, "package", files, "main.py")
    if path.suffix == ".ipynb":
        text = path.read_text(encoding="utf-8")
        if has_magic(text):
            return None
        return Program(name, origin, "notebook", {path.name: text}, path.name)
    if path.suffix == ".py":
        return Program(name, origin, "script", {path.name: path.read_text(encoding="utf-8")}, path.name)
    return None


def dev_negatives(dev: Path = DEV) -> list[Program]:
    labels = json.loads((dev / "labels.json").read_text())
    out = []
    for label in labels:
        if label["positive"]:
            continue
        prog = _load_dir_program(dev / "cases" / label["case"], "dev", "dev/" + label["case"])
        if prog is not None:
            out.append(prog)
    return out


def own_programs(root: Path = PROGRAMS) -> list[Program]:
    out = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(("_", ".")):
            continue
        prog = _load_dir_program(path, "own", "own/" + path.name)
        if prog is not None:
            out.append(prog)
    return out


_EXAMPLES_SCRIPT = r"""
import json, sys
from tapelsp.rules import all_rules
out = []
for rule in all_rules():
    k = 0
    for ex in rule.examples:
        if not ex.valid:
            continue
        k += 1
        out.append({"code": rule.code, "k": k, "source": ex.source,
                    "tensorflow_version": ex.tensorflow_version})
json.dump(out, sys.stdout)
"""


def rule_examples(server: Path) -> list[Program]:
    """The valid examples of the engine at `server` (one script each), for TensorFlow 2.21."""
    done = subprocess.run([str(PYTHON), "-c", _EXAMPLES_SCRIPT], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(server)}, check=True)
    out = []
    for ex in json.loads(done.stdout):
        if ex["tensorflow_version"] not in (None, TENSORFLOW_VERSION):
            continue  # an example about another TensorFlow (1.15, 2.6, ...) is no 2.21 correct program
        if "import tensorflow" not in ex["source"]:
            continue
        name = f"example_{ex['code'].lower()}_{ex['k']}.py"
        out.append(Program("example/" + name, "example", "script", {name: ex["source"]}, name))
    return out


# -- the engine measured -----------------------------------------------------------------------
def engine_snapshot(commit: str = "HEAD") -> tuple[str, Path]:
    """`server/` of `commit`, unpacked once under .cache/bench/inject/engine/<sha>/."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", commit], capture_output=True, text=True,
                         check=True).stdout.strip()
    dest = CACHE / "engine" / sha
    server = dest / "server"
    if not (server / "tapelsp" / "__init__.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "server"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return sha, server


def all_programs(server: Path, origins=("dev", "example", "own")) -> list[Program]:
    out: list[Program] = []
    if "dev" in origins and (DEV / "labels.json").exists():
        out += dev_negatives()
    if "example" in origins:
        out += rule_examples(server)
    if "own" in origins:
        out += own_programs()
    return out
