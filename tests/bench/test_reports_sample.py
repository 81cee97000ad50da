"""bench/reports (the corpus of real user reports): labels, sources and the scorer.

No TensorFlow runs here (bench/reports/oracle.py does that, outside the test suite). These
tests check that labels.json is what catalog.py generates from the cases (so every label
points at the line it names), that every case names its public source, that score.py
scores fabricated findings correctly, and that it parses a real `tapelsp --check
--output-format json` run on a fixed sample of five cases.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[2] / "bench" / "reports"
CASES = REPORTS / "cases"
SAMPLE = ["004_gradient_of_call_outside_tape.py", "005_gradient_of_call_inside_tape.py",
          "052_variable_in_tf_function_body.py", "pkg_051_netnmf_sc",
          "nb_092_keras_guide_train_step_counter.ipynb"]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"reports_{name}", REPORTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


catalog = _load("catalog")
score = _load("score")


def _labels() -> list[dict]:
    return json.loads((REPORTS / "labels.json").read_text(encoding="utf-8"))


def test_labels_json_is_generated_from_the_catalog():
    assert catalog.build() == _labels()


def test_every_case_has_a_label_and_its_file():
    labels = _labels()
    assert sorted(l["case"] for l in labels) == sorted(p.name for p in CASES.iterdir() if not p.name.startswith((".", "_")))
    for lab in labels:
        assert (CASES / lab["path"]).is_file(), lab["case"]


def _docstrings(case: str) -> list[str]:
    path = CASES / case
    if path.is_dir():
        return [ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "" for p in sorted(path.glob("*.py"))]
    if case.endswith(".ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return [ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""]


def _named(src: str, text: str) -> bool:
    if src.startswith("http"):
        return src in text
    return src[:len("shared/seeds/000_")] in text      # a seed report: shared/seeds/NNN_*.txt


def test_every_case_names_its_source():
    for lab in _labels():
        text = "\n".join(_docstrings(lab["case"]))
        assert "Source" in text, lab["case"]
        assert lab["sources"] and lab["source_title"], lab["case"]
        assert any(_named(src, text) for src in lab["sources"]), lab["case"]


def test_every_positive_and_negative_prints_its_oracle_line():
    for lab in _labels():
        path = CASES / lab["case"]
        text = "".join(p.read_text(encoding="utf-8") for p in ([path] if path.is_file() else sorted(path.glob("*.py"))))
        assert "ORACLE: bug=" in text, lab["case"]


def _finding(path, row, cell=None, code="X001"):
    return {"filename": path, "location": {"row": row, "column": 1}, "cell": cell, "code": code, "message": "m"}


def test_score_counts_strict_lenient_negatives_and_extras():
    labels = [
        {"case": "a.py", "positive": True, "family": "f1", "path": "a.py", "line": 10, "alt_lines": [12], "source_type": "qa"},
        {"case": "b.py", "positive": True, "family": "f1", "path": "b.py", "line": 5, "alt_lines": [7], "source_type": "qa"},
        {"case": "c.py", "positive": True, "family": "f2", "path": "c.py", "line": 3, "alt_lines": [], "source_type": "github-issue"},
        {"case": "n.py", "positive": False, "family": "f2", "path": "n.py", "line": 3, "alt_lines": [], "source_type": "qa"},
        {"case": "m.py", "positive": False, "family": "f1", "path": "m.py", "line": 3, "alt_lines": [], "source_type": "qa"},
        {"case": "nb.ipynb", "positive": True, "family": "f2", "path": "nb.ipynb", "cell": 2, "line": 4, "alt_lines": [],
         "source_type": "github-issue"},
    ]
    findings = [_finding("a.py", 10), _finding("a.py", 30),        # strict hit and one extra
                _finding("./b.py", 7),                            # lenient only
                _finding("n.py", 1),                              # a flagged negative
                _finding("nb.ipynb", 4, cell=3),                  # right row, wrong cell: a miss and an extra
                _finding("other.py", 2)]                          # outside any case: an extra
    result = score.score(labels, score.normalise(findings, "/cases"))
    assert result["families"]["f1"] == {"pos": 2, "strict": 1, "lenient": 2, "neg": 1, "flagged": 0}
    assert result["families"]["f2"] == {"pos": 2, "strict": 0, "lenient": 0, "neg": 1, "flagged": 1}
    assert [m[0]["case"] for m in result["misses"]] == ["b.py", "c.py", "nb.ipynb"]
    assert len(result["extras"]) == 3
    last = score.report(result, verbose=True).splitlines()[-1]
    assert last == "recall=0.250 (1/4) lenient=0.500 clean_negatives=0.500 (1/2) extras=3"


def _tapelsp() -> list[str] | None:
    exe = shutil.which("tapelsp") or str(Path(sys.executable).with_name("tapelsp"))
    return [exe] if os.path.exists(exe) else None


def test_score_runs_tapelsp_on_a_fixed_sample(tmp_path):
    cmd = _tapelsp()
    if cmd is None:
        pytest.fail("the tapelsp command is not installed next to this interpreter")
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in SAMPLE:
        src = CASES / name
        if src.is_dir():
            shutil.copytree(src, cases / name)
        else:
            shutil.copy(src, cases / name)
    labels = [lab for lab in _labels() if lab["case"] in SAMPLE]
    assert len(labels) == len(SAMPLE)
    (tmp_path / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(REPORTS / "score.py"), "-v", "--tapelsp", cmd[0],
                           "--cases", str(cases), "--labels", str(tmp_path / "labels.json")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("recall=") and "(" in last and "/4)" in last and "(" in last.split("clean_negatives=")[1]
    assert "/1)" in last.split("clean_negatives=")[1]
    assert "MISSES" in proc.stdout and "FALSE POSITIVES" in proc.stdout
