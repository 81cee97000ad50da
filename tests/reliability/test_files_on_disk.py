"""`--fix` on files on disk (issue 11, point 4).

Already covered in tests/cli/test_fix.py, not repeated here: BOM, CRLF/CR, tabs and permission
bits on one example; a PEP 263 encoding; symlinks; a file changed on disk while being fixed
(and at the very last moment); notebooks; -j1 and -j2 fixing the same. tests/cli/test_jobs.py:
-j1 and -j2 printing the same report.

Added here:
- the same keeping properties, property-based, over mixes of the rules' examples with every
  combination of encoding (UTF-8, UTF-8 with BOM, latin-1 declared), line endings (\\n,
  \\r\\n, \\r, mixed), tabs and permission bits;
- what `--fix` does with a file it cannot fully check: a syntax error elsewhere in the file
  (nothing is written: every fix is refused because the result would not parse, and the user
  is told), a file that is not text or not in its encoding (TL002, nothing written), and a rule
  that raises on the file (TL004: the other rules' fixes are still applied, each one checked to
  parse; see the test's docstring for why that is safe);
- a fix run over a tree of many files killed with SIGKILL at random moments: every file is
  byte-for-byte either its old content or its fully fixed content, and a second run finishes
  the job;
- -j1 and -j2 agree on the JSON report of generated programs.
"""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapelsp import Settings
from tapelsp.cli.fixing import FixJob, fix_job
from tapelsp.fixes import apply_fixes

from .programs import example_mixes

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "server"), os.environ.get("PYTHONPATH")]))}
ENV.pop("PYTHONWARNINGS", None)

# A FUNC001 whose fix is safe (hoisted to module level) and a TAPE003 (safe: moved after the block).
FIXABLE = (
    "import tensorflow as tf\n"
    "\n"
    "\n"
    "@tf.function\n"
    "def scale(x):\n"
    "    v = tf.Variable(2.0)\n"
    "    return v * x\n"
)


def _newlines(data: bytes) -> set[bytes]:
    found = set()
    rest = data.replace(b"\r\n", b"")
    if b"\r\n" in data:
        found.add(b"\r\n")
    if b"\r" in rest:
        found.add(b"\r")
    if b"\n" in rest:
        found.add(b"\n")
    return found


def _fix_in_place(path: Path, unsafe: bool = True):
    settings = Settings()
    return fix_job(FixJob(str(path), path.name, settings, settings.targets(), unsafe=unsafe))


@settings(max_examples=20)
@given(example_mixes(), st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]),
       st.sampled_from(["\n", "\r\n", "\r", "mixed"]), st.booleans(), st.sampled_from([0o600, 0o640, 0o755, 0o444]),
       st.booleans())
def test_fix_keeps_encoding_bom_line_endings_tabs_and_permissions(tmp_path_factory, text, encoding, newline,
                                                                   tabs, mode, unsafe):
    directory = tmp_path_factory.mktemp("keep")
    text = text.replace("\r\n", "\n")
    if tabs:
        text = "\n".join(line.replace("    ", "\t") if not line.lstrip().startswith(("'", '"')) else line
                         for line in text.split("\n"))
    if encoding == "latin-1":
        text = "# -*- coding: latin-1 -*-\n# d\u00e9j\u00e0 vu\n" + text
    else:
        text = "# caf\u00e9 \u2615\n" + text
    if newline == "mixed":
        lines = text.split("\n")
        text = "".join(line + ("\r\n" if n % 3 == 0 else "\n") for n, line in enumerate(lines[:-1])) + lines[-1]
    else:
        text = text.replace("\n", newline)
    data = text.encode(encoding)
    path = directory / "m.py"
    path.write_bytes(data)
    os.chmod(path, mode | stat.S_IWUSR)  # we must be able to read it back; the write needs the directory only
    os.chmod(path, mode)
    outcome = _fix_in_place(path, unsafe)
    new = path.read_bytes()
    assert stat.S_IMODE(os.stat(path).st_mode) == mode
    assert not [p for p in directory.iterdir() if p.name != "m.py"], "a temporary file was left behind"
    if not outcome.written:
        assert new == data
        return
    assert outcome.error is None
    assert new.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    decoded = new.decode(encoding)  # still in the file's encoding
    expected = apply_fixes(text, str(path), Settings(), unsafe=unsafe).text
    assert decoded == expected
    assert _newlines(new) <= _newlines(data) or not _newlines(data), "a line ending the file does not use appeared"
    if tabs:
        indented_with_spaces = [line for line in decoded.splitlines()
                                if line.startswith(" ") and not line.strip().startswith(("#", "'", '"', ")", "]"))]
        original_spaces = [line for line in text.splitlines() if line.startswith(" ")]
        assert len(indented_with_spaces) <= len(original_spaces), decoded


def test_mixed_line_endings_outside_the_fix_are_kept_byte_for_byte(tmp_path):
    head = b"import tensorflow as tf\r\nimport numpy as np\n\r\nA = 1\r\n"
    tail = b"\r\nB = 2\n# end\r\n"
    path = tmp_path / "m.py"
    path.write_bytes(head + FIXABLE.split("\n", 1)[1].encode().replace(b"\n", b"\r\n") + tail)
    assert _fix_in_place(path).written
    new = path.read_bytes()
    assert new.startswith(head) and new.endswith(tail), new


def test_a_syntax_error_elsewhere_means_nothing_is_written(tmp_path):
    """The engine still reports the finding in the part that parses, but offers no fix for any
    finding while the file does not parse (fixes/validate.py), and `--fix` applies a fix only
    when the whole result parses: the file is left exactly as it was and the user is told."""
    from tapelsp import check_source

    source = FIXABLE + "\n\ndef broken(:\n    pass\n"
    found = check_source(source, "m.py", fixes=True)
    assert {"FUNC001", "TL001"} <= {v.code for v in found}
    [finding] = [v for v in found if v.code == "FUNC001"]
    assert finding.fix is None and "does not parse" in (finding.fix_error or "")
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    before = os.stat(path)
    outcome = _fix_in_place(path)
    assert not outcome.written and not outcome.changed and path.read_text(encoding="utf-8") == source
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns and os.stat(path).st_ino == before.st_ino
    assert any("does not parse" in w for w in outcome.warnings), outcome.warnings
    cli = subprocess.run([sys.executable, "-m", "tapelsp", "--check", "--fix", "--unsafe-fixes", "m.py"],
                         cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1, cli
    assert "TL001" in cli.stdout and "FUNC001" in cli.stdout
    assert path.read_text(encoding="utf-8") == source


@pytest.mark.parametrize("data", [
    FIXABLE.encode("utf-8").replace(b"return", b"\xff\xfereturn"),
    FIXABLE.encode("utf-8").replace(b"return", b"\x00return"),
    b"# -*- coding: ascii -*-\n" + FIXABLE.encode("utf-8") + "# caf\u00e9\n".encode("utf-8"),
], ids=["not-utf8", "nul", "not-its-declared-encoding"])
def test_an_unreadable_file_is_not_written(tmp_path, data):
    path = tmp_path / "m.py"
    path.write_bytes(data)
    outcome = _fix_in_place(path)
    assert not outcome.written and path.read_bytes() == data
    assert [v.code for v in outcome.result.violations] == ["TL002"]


def test_a_rule_that_raises_still_lets_the_other_fixes_apply(tmp_path, monkeypatch):
    """Decision: a rule failing on a file (TL004) does not stop the other rules' fixes. Every fix
    is applied only if the whole result parses, the fixes of one rule never need another
    rule's findings, and the failing rule's own findings are simply missing (as they are in
    `--check`). Refusing would make one tapelsp bug block every fix in that file."""
    from tapelsp.rules.function.func007_python_side_effect import PythonSideEffect as Broken  # its trigger is in FIXABLE

    def boom(self, ctx):
        raise RuntimeError("planted")

    monkeypatch.setattr(Broken, "check", boom)
    path = tmp_path / "m.py"
    path.write_text(FIXABLE, encoding="utf-8")
    outcome = _fix_in_place(path, unsafe=False)
    assert outcome.written
    assert "tf.Variable(2.0)" in path.read_text(encoding="utf-8")
    assert [v.code for v in outcome.result.violations] == ["TL004"]


# --- killed in the middle of a fix run ----------------------------------------------------------

TREE_FILES = 32  # two workers with -j2 (MIN_FILES_PER_WORKER = 16)


def _tree(root: Path) -> dict[Path, bytes]:
    files = {}
    for n in range(TREE_FILES):
        sub = root / f"pkg{n % 4}"
        sub.mkdir(exist_ok=True)
        # Bigger files make the write window wider; padding after the function keeps them valid.
        padding = "".join(f"CONSTANT_{k} = {k}  # padding {'x' * 60}\n" for k in range(150))
        text = FIXABLE.replace("scale", f"scale_{n}") + "\n" + padding
        if n % 5 == 0:
            text = text.replace("\n", "\r\n")
        path = sub / f"m{n}.py"
        path.write_bytes(text.encode("utf-8"))
        files[path] = path.read_bytes()
    return files


def _run(root: Path, jobs: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tapelsp", "--check", "--fix", jobs, "-q", "."], cwd=root,
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


@pytest.mark.parametrize("jobs", ["-j1", "-j2"])
def test_a_fix_run_killed_at_random_moments_leaves_every_file_old_or_new(tmp_path, jobs):
    reference = tmp_path / "reference"
    reference.mkdir()
    originals = _tree(reference)
    # The first run of a session can be several times slower than the next ones (modules read
    # and compiled, disk caches cold): time a second run on a fresh tree, as the killed runs are.
    assert _run(reference, jobs).wait(timeout=300) == 0
    timed = tmp_path / "timed"
    timed.mkdir()
    _tree(timed)
    started = time.monotonic()
    assert _run(timed, jobs).wait(timeout=300) == 0
    full_run = time.monotonic() - started
    print(f"full run {full_run:.1f} s")
    fixed = {path.relative_to(reference): path.read_bytes() for path in originals}
    assert all(fixed[p.relative_to(reference)] != data for p, data in originals.items())
    rng = random.Random(f"kill{jobs}")
    states = []
    for attempt in range(3):
        root = tmp_path / f"killed{attempt}"
        root.mkdir()
        before = {path.relative_to(root): data for path, data in _tree(root).items()}
        process = _run(root, jobs)
        # Interpreter start-up and imports take much of a run: kill in its second half mostly.
        time.sleep(rng.uniform(0.3, 1.0) * full_run)
        os.killpg(process.pid, signal.SIGKILL)  # the CLI and its workers, all at once
        process.wait(timeout=30)
        new = 0
        for name, old in before.items():
            data = (root / name).read_bytes()
            assert data in (old, fixed[name]), f"{name} is neither old nor fixed after SIGKILL"
            new += data == fixed[name]
        states.append(new)
        # Left behind by a kill between writing the temporary file and renaming it: hidden,
        # not a .py file, so never checked or fixed; the next run is unaffected.
        stray = [p for p in root.rglob("*") if p.is_file() and p.relative_to(root) not in before]
        assert all(p.name.startswith(".") and p.name.endswith(".tapelsp-fix") for p in stray), stray
        if attempt == 0:  # a second run finishes the job
            assert _run(root, jobs).wait(timeout=300) == 0
            assert all((root / name).read_bytes() == fixed[name] for name in before)
    print(f"files fixed when killed: {states} of {TREE_FILES}")
    assert any(0 < n < TREE_FILES for n in states) or len(set(states)) > 1, (
        f"every kill landed before or after the writes ({states}); the test did not interrupt a run")


def test_one_and_two_workers_report_the_same_on_generated_programs(tmp_path):
    @settings(max_examples=40, database=None)
    @given(example_mixes())
    def write(text):
        (tmp_path / f"g{len(list(tmp_path.iterdir())):03}.py").write_text(text, encoding="utf-8")

    write()
    assert len(list(tmp_path.glob("*.py"))) >= 32  # enough files for two workers (MIN_FILES_PER_WORKER = 16)
    outputs = []
    for jobs in ("-j1", "-j2"):
        run = subprocess.run([sys.executable, "-m", "tapelsp", "--check", jobs, "--output-format", "json", "."],
                             cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
        assert run.returncode in (0, 1), run.stderr
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0], "the generated programs had no findings"
