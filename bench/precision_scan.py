"""Run the engine over real TensorFlow code and list every finding, for review.

    python bench/precision_scan.py                    # tf_keras, keras, tfp
    python bench/precision_scan.py --corpus tfp --json out.json

For each corpus: files, lines, findings per rule and per 20,000 lines, then every
finding as `path:row:col CODE message` (path relative to site-packages, 1-based
row and column). Nobody here wrote these corpora, so each finding is either a real
mistake in them or a false positive to fix in the rule: review them all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

# `--server DIR` scans with the tapelsp in DIR (e.g. a frozen copy of server/) instead.
_server_arg = sys.argv[sys.argv.index("--server") + 1] if "--server" in sys.argv[:-1] else None
sys.path.insert(0, str(Path(_server_arg).resolve() if _server_arg else corpus.REPO / "server"))
import tapelsp  # noqa: E402
from tapelsp.rules import all_rules  # noqa: E402

PER = 20_000


def scan(name: str, root: Path, base: Path) -> dict:
    paths = corpus.python_files(root)
    lines = 0
    findings = []
    start = time.perf_counter()
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        lines += text.count("\n")
        rel = str(path.relative_to(base))
        for v in tapelsp.check_source(text, rel):
            findings.append({
                "path": rel, "row": v.range.start.line + 1, "column": v.range.start.column + 1,
                "end_row": v.range.end.line + 1, "end_column": v.range.end.column + 1,
                "code": v.code, "name": v.name, "message": v.message,
            })
    elapsed = time.perf_counter() - start
    return {"corpus": name, "root": str(root), "files": len(paths), "lines": lines,
            "seconds": round(elapsed, 3), "by_code": dict(Counter(f["code"] for f in findings)),
            "findings": findings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", choices=corpus.ALL_CORPORA,
                        help="corpus to scan (repeatable; default: tf_keras, keras, tfp; "
                             "`tensorflow` adds tensorflow/python read from the wheel)")
    parser.add_argument("--json", metavar="OUT", help="also write every finding to this JSON file")
    parser.add_argument("--server", metavar="DIR", help="scan with the tapelsp imported from DIR instead of server/")
    args = parser.parse_args()
    env = corpus.ensure()
    names = args.corpus or list(corpus.CORPORA)
    codes = sorted(r.code for r in all_rules())
    versions = corpus.installed_versions(env)
    reports = []
    for name in names:
        report = scan(name, env.corpus(name), env.base(name))
        reports.append(report)

    print(f"tapelsp {tapelsp.__version__} from {Path(tapelsp.__file__).parent}")
    print(f"rules ({len(codes)}): {', '.join(codes)}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if k not in ("ruff", "fixit")))
    print()
    print(f"{'corpus':10s} {'files':>6s} {'lines':>8s} {'secs':>7s} {'findings':>8s} {'per20k':>7s}")
    for r in reports:
        total = sum(r["by_code"].values())
        print(f"{r['corpus']:10s} {r['files']:6d} {r['lines']:8d} {r['seconds']:7.2f} {total:8d} "
              f"{total * PER / max(r['lines'], 1):7.2f}")
    print(f"\nfindings by rule (count, and per {PER:,} lines in brackets):")
    print(f"{'rule':8s} " + " ".join(f"{r['corpus']:>18s}" for r in reports))
    for code in codes:
        cells = []
        for r in reports:
            n = r["by_code"].get(code, 0)
            cells.append(f"{n:>8d} [{n * PER / max(r['lines'], 1):6.2f}]" if n else f"{'0':>8s} {'':8s}")
        print(f"{code:8s} " + " ".join(f"{c:>18s}" for c in cells))
    for r in reports:
        print(f"\n== {r['corpus']} ({len(r['findings'])} findings) ==")
        for f in r["findings"]:
            print(f"{f['path']}:{f['row']}:{f['column']} {f['code']} {f['message']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"versions": versions, "corpora": reports}, indent=1))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
