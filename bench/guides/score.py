"""Score tapelsp on TensorFlow's own guides (autodiff.ipynb and function.ipynb of tensorflow/docs).

labels.json (next to this file) lists, per notebook, the code cells the guide presents as a pitfall
(gradient None, an error, a retrace, a side effect that runs once...) with the line of the root cause,
and the cells (or line ranges) it shows as the right way. This script runs `tapelsp --check` on each
notebook and reports:

  pitfall found   a finding (any rule) starts on the labelled line of that cell (or on one of its
                  `alt_lines`, as the dev corpus's lenient recall allows: the line that makes the
                  value and the line that asks for its gradient; Z counts the labelled line only); when the label names a `subject`, the message
                  must also name it in backticks (two pitfalls share one line)
  correct silent  no finding starts in that cell (or in its labelled line range)

Cells are numbered as tapelsp numbers them (1-based, markdown cells included); lines are 1-based in the
cell. The last line printed is the summary:
  guides: pitfalls found X/Y (Z on the labelled line), correct cells silent A/B
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_TREE = REPO / ".cache" / "bench" / "precision" / "trees" / "tensorflow+docs"
LABELS = HERE / "labels.json"


def fail(message: str) -> None:
    print(f"guides: {message}", file=sys.stderr)
    sys.exit(2)


def default_tapelsp() -> str:
    venv = REPO / ".venv" / "bin" / "tapelsp"
    if venv.exists():
        return str(venv)
    return shutil.which("tapelsp") or str(venv)


def cell_lines(notebook: dict, cell: int) -> list[str]:
    source = notebook["cells"][cell - 1]["source"]
    text = "".join(source) if isinstance(source, list) else source
    return text.split("\n")


def check_labels(path: Path, notebook: dict, labels: list[dict]) -> None:
    """Each label quotes its line: stop if the notebook is not the one the labels were made on."""
    for label in labels:
        cell = label["cell"]
        if not 1 <= cell <= len(notebook["cells"]) or notebook["cells"][cell - 1]["cell_type"] != "code":
            fail(f"{path}: cell {cell} is not a code cell; labels.json was made at another commit")
        lines = cell_lines(notebook, cell)
        if label["kind"] == "pitfall":
            line, quoted = label["line"], label["text"]
        elif "lines" in label:
            line, quoted = label["lines"][0], label["first_text"]
        else:
            continue
        if line > len(lines) or lines[line - 1].strip() != quoted:
            fail(f"{path}: cell {cell} line {line} is not {quoted!r}; labels.json was made at another commit")


def run_tapelsp(tapelsp: str, path: Path) -> list[dict]:
    try:
        proc = subprocess.run(
            [tapelsp, "--check", str(path), "--output-format", "json"],
            capture_output=True, text=True, timeout=900,
        )
    except FileNotFoundError:
        fail(f"tapelsp not found at {tapelsp} (give --tapelsp PATH)")
    except subprocess.TimeoutExpired:
        fail(f"tapelsp took more than 900 s on {path}")
    if proc.returncode not in (0, 1):
        fail(f"tapelsp exited {proc.returncode} on {path}:\n{proc.stderr.strip()}")
    try:
        return json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        fail(f"tapelsp printed no JSON for {path}:\n{proc.stdout[:500]}{proc.stderr[:500]}")
    return []


def in_label(finding: dict, label: dict) -> bool:
    if finding.get("cell") != label["cell"]:
        return False
    row = finding["location"]["row"]
    if label["kind"] == "pitfall":
        return (row == label["line"] or row in label.get("alt_lines", ())) and (
            "subject" not in label or f"`{label['subject']}`" in finding["message"])
    if "lines" in label:
        return label["lines"][0] <= row <= label["lines"][1]
    return True


def where(label: dict) -> str:
    if label["kind"] == "pitfall":
        return f"cell {label['cell']} line {label['line']}"
    if "lines" in label:
        return f"cell {label['cell']} lines {label['lines'][0]}-{label['lines'][1]}"
    return f"cell {label['cell']}"


def brief(finding: dict) -> str:
    return f"{finding['code']}@{finding['location']['row']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE,
                        help=f"the extracted tensorflow/docs tree (default {DEFAULT_TREE})")
    parser.add_argument("--tapelsp", default=default_tapelsp(), help="the tapelsp executable")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the messages of the findings that decide each label, and the findings on no label")
    args = parser.parse_args()

    spec = json.loads(LABELS.read_text())
    if not args.tree.is_dir():
        fail(f"{args.tree} is absent: extract tensorflow/docs at {spec['commit']} there "
             "(bench/precision/trees.py does it for the precision trees) or give --tree")

    found = pitfalls = silent = corrects = on_line = 0
    for rel, labels in spec["notebooks"].items():
        path = args.tree / rel
        if not path.is_file():
            fail(f"{path} is absent (is --tree the root of a tensorflow/docs checkout?)")
        try:
            notebook = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            fail(f"{path} cannot be read as a notebook: {err}")
        check_labels(path, notebook, labels)
        findings = run_tapelsp(args.tapelsp, path)
        print(f"== {rel}: {len(findings)} findings")
        used: set[int] = set()
        for label in labels:
            hits = [f for f in findings if in_label(f, label)]
            used.update(id(f) for f in hits)
            subject = f" `{label['subject']}`" if "subject" in label else ""
            if label["kind"] == "pitfall":
                pitfalls += 1
                if hits:
                    found += 1
                    exact = any(f["location"]["row"] == label["line"] for f in hits)
                    on_line += exact
                    status = ("found   " if exact else "found on an alt line   ") \
                        + ",".join(sorted({f["code"] for f in hits}))
                else:
                    near = [brief(f) for f in findings if f.get("cell") == label["cell"]]
                    status = "MISSED" + (f"   (cell has {', '.join(near)})" if near else "")
                print(f"  pitfall {where(label):<20} {label['family']}{subject}: {status}")
            else:
                corrects += 1
                if hits:
                    status = "FLAGGED " + ", ".join(brief(f) for f in hits)
                else:
                    silent += 1
                    status = "silent"
                print(f"  correct {where(label):<20} {label['family']}: {status}")
            if args.verbose:
                for f in hits:
                    print(f"      {brief(f)}: {f['message']}")
        rest = [f for f in findings if id(f) not in used]
        if rest:
            print(f"  {len(rest)} findings on no label: "
                  + ", ".join(f"cell {f.get('cell')} {brief(f)}" for f in rest))
            if args.verbose:
                for f in rest:
                    print(f"      cell {f.get('cell')} {brief(f)}: {f['message']}")
    print(f"guides: pitfalls found {found}/{pitfalls} ({on_line} on the labelled line), "
          f"correct cells silent {silent}/{corrects}")


if __name__ == "__main__":
    main()
