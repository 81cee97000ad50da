"""bench/holdout (real reports collected after the rules were written): labels and scorer.

No TensorFlow here (`score.py --oracle` runs the cases). Checks that every case has a label,
its file, a named source and an ORACLE line; that the scorer scores fabricated findings as the
report corpus does; and that tapelsp, run on a fixed sample, finds what it found when the
batch was scored (README).
"""
from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

HOLDOUT = Path(__file__).resolve().parents[2] / "bench" / "holdout"
CASES = HOLDOUT / "cases"
SAMPLE = {"303_epsilon_decay_policy_step_counter.py": {37}, "401_actor_critic_tape_moved_after_episode.py": {102},
          "407_rl_agent_numpy_function_rollout_in_tape.py": {81}, "402_actor_critic_tape_around_episode.py": set()}

spec = importlib.util.spec_from_file_location("holdout_score", HOLDOUT / "score.py")
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)


def test_every_case_has_a_label_a_source_and_an_oracle_line():
    labels = score.labels()
    assert sorted(lab["path"] for lab in labels) == sorted(p.name for p in CASES.glob("*.py"))
    for lab in labels:
        text = (CASES / lab["path"]).read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        assert lab["sources"] and lab["sources"][0].startswith(("https://", "http://")), lab["case"]
        assert "Source" in doc or lab["sources"][0] in doc, lab["case"]
        assert "ORACLE: bug=" in text, lab["case"]
        assert 1 <= lab["line"] <= len(text.splitlines()), lab["case"]


def test_the_scorer_counts_strict_lenient_and_flagged():
    cases = [{"case": "a", "path": "a.py", "positive": True, "line": 5, "alt_lines": [7], "family": "f"},
             {"case": "b", "path": "b.py", "positive": True, "line": 3, "alt_lines": [9], "family": "f"},
             {"case": "c", "path": "c.py", "positive": False, "line": 2, "family": "f"},
             {"case": "d", "path": "d.py", "positive": False, "line": 2, "family": "f"}]
    found = {"a.py": [(5, "X")], "b.py": [(9, "Y")], "c.py": [(1, "Z")]}
    verdicts = [v for _, v, _ in score.score(cases, found)]
    assert verdicts == ["found", "lenient", "flagged", "clean"]
    assert score.summary(score.score(cases, found)) == "holdout: strict 1/2 lenient 2/2 negatives flagged 1/2"


def test_tapelsp_on_a_sample(tmp_path):
    for name in SAMPLE:
        shutil.copy(CASES / name, tmp_path / name)
    run = subprocess.run([sys.executable, "-m", "tapelsp", "--check", ".", "--output-format", "json",
                          "--exit-zero", "--no-cache"], cwd=tmp_path, capture_output=True, text=True, check=True)
    found = score.findings_by_file(run.stdout)
    for name, lines in SAMPLE.items():
        assert {row for row, _ in found.get(name, [])} & lines == lines if lines else not found.get(name), \
            (name, found.get(name))
