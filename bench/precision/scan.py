"""Precision of tapelsp on real TensorFlow 2 training code, against committed verdicts.

    python bench/precision/scan.py                     # extract what is missing, scan, compare
    python bench/precision/scan.py --repo keiohta/tf2rl --untriaged
    python bench/precision/scan.py --tapelsp OTHER/bin/tapelsp --json out.json

Runs `tapelsp --check TREE --output-format json --no-cache --exit-zero` over every present tree
of repos.toml (trees.py extracts them), matches each finding with verdicts.jsonl by repository,
path, cell, code and a fingerprint of the finding's line (so a verdict survives lines moving),
and prints: which trees are present; per rule and per repository the findings, how many are
true, false, demo (a guide demonstrating the pitfall on purpose) and untriaged, precision
(true / (true + false), demonstrations left out) and false findings per 20,000 lines; the
findings nobody triaged; the verdicts that no finding matches any more. Ends with one summary
line.

Exit status 1 when a finding triaged false comes back (unless its verdict says `"open": true`,
a known false positive not removed yet), or when a finding triaged true or demo is gone from a
present tree (recall lost); 0 otherwise. `--strict` also fails on untriaged findings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import trees  # noqa: E402

PER = 20_000
VERDICTS = trees.HERE / "verdicts.jsonl"
KINDS = ("true", "false", "demo")
INTERNAL = ("TL004",)  # the engine's own failures: listed, not findings about the code
DEFAULT_TAPELSP = trees.REPO / ".venv" / "bin" / "tapelsp"


def fingerprint(text: str) -> str:
    """A short hash of a line's text without its whitespace: the same after re-indentation."""
    return hashlib.sha1(re.sub(r"\s+", "", text).encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _notebook_cells(text: str) -> list[list[str]] | None:
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return None
    out = []
    for cell in cells:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        if isinstance(source, list):
            source = "".join(source)
        out.append((cell.get("cell_type"), source.splitlines()))
    return out


class Tree:
    """The files of one tree: line counts, and the text of a finding's line."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.lines = 0
        self._cache: dict[str, object] = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__", "node_modules")]
            for name in filenames:
                if name.endswith(trees.SUFFIXES):
                    self.files += 1
                    self.lines += self._count(Path(dirpath) / name)

    def _count(self, path: Path) -> int:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            cells = _notebook_cells(text) or []
            return sum(len(lines) for kind, lines in cells if kind == "code")
        return len(text.splitlines())

    def line(self, rel: str, cell: int | None, row: int) -> str:
        if rel not in self._cache:
            text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            self._cache[rel] = _notebook_cells(text) if rel.endswith(".ipynb") else text.splitlines()
        content = self._cache[rel]
        if content is None:
            return ""
        if cell is not None:
            if not 1 <= cell <= len(content):
                return ""
            content = content[cell - 1][1]
        return content[row - 1] if 1 <= row <= len(content) else ""


def run_engine(tapelsp: str, root: Path) -> list[dict]:
    proc = subprocess.run([tapelsp, "--check", str(root), "--output-format", "json", "--no-cache", "--exit-zero"],
                          capture_output=True, text=True)
    try:
        # Exit 2 with findings on stdout: an internal error on some files (TL004), the rest checked.
        return json.loads(proc.stdout or "[]")
    except ValueError:
        raise SystemExit(f"tapelsp failed on {root} ({proc.returncode}): {proc.stderr[-2000:]}") from None


def load_verdicts(path: Path = VERDICTS) -> list[dict]:
    verdicts = []
    if not path.exists():
        return verdicts
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        entry = json.loads(line)
        missing = {"repo", "path", "line", "code", "fp", "verdict", "reason"} - entry.keys()
        if missing or entry["verdict"] not in KINDS:
            raise SystemExit(f"{path.name}:{number}: bad verdict (missing {sorted(missing)} or verdict "
                             f"{entry.get('verdict')!r} not one of {KINDS})")
        entry.setdefault("cell", None)
        verdicts.append(entry)
    return verdicts


def _key(entry: dict) -> tuple:
    return entry["repo"], entry["path"], entry.get("cell"), entry["code"], entry["fp"]


def match(findings: list[dict], verdicts: list[dict]) -> tuple[list[tuple[dict, dict | None]], list[dict]]:
    """Pair each finding with the verdict of the same key nearest in line; the rest are unmatched."""
    pool: dict[tuple, list[dict]] = defaultdict(list)
    for verdict in verdicts:
        pool[_key(verdict)].append(verdict)
    pairs = []
    for finding in sorted(findings, key=lambda f: (f["repo"], f["path"], f.get("cell") or 0, f["line"])):
        candidates = pool.get(_key(finding))
        if candidates:
            best = min(candidates, key=lambda v: abs(v["line"] - finding["line"]))
            candidates.remove(best)
            pairs.append((finding, best))
        else:
            pairs.append((finding, None))
    left = [v for vs in pool.values() for v in vs]
    return pairs, left


def precision(counts: Counter) -> str:
    judged = counts["true"] + counts["false"]
    return f"{100 * counts['true'] / judged:5.1f}%" if judged else "    -"


def table(title: str, rows: dict[str, Counter], lines: dict[str, int] | None = None) -> None:
    print(f"\n{title}")
    head = f"{'':58s} {'found':>5s} {'true':>5s} {'false':>5s} {'demo':>5s} {'new':>5s} {'prec':>6s}"
    if lines is not None:
        head += f" {'lines':>8s} {'false/20k':>9s}"
    print(head)
    total = Counter()
    for name in sorted(rows):
        c = rows[name]
        total.update(c)
        row = (f"{name[:58]:58s} {c['found']:5d} {c['true']:5d} {c['false']:5d} {c['demo']:5d} {c['new']:5d} "
               f"{precision(c):>6s}")
        if lines is not None:
            row += f" {lines[name]:8d} {c['false'] * PER / max(lines[name], 1):9.2f}"
        print(row)
    row = (f"{'total':58s} {total['found']:5d} {total['true']:5d} {total['false']:5d} {total['demo']:5d} "
           f"{total['new']:5d} {precision(total):>6s}")
    if lines is not None:
        all_lines = sum(lines.values())
        row += f" {all_lines:8d} {total['false'] * PER / max(all_lines, 1):9.2f}"
    print(row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tapelsp", default=str(DEFAULT_TAPELSP), help="the tapelsp to run (default: .venv/bin/tapelsp)")
    parser.add_argument("--repo", action="append", help="scan only these repositories (repeatable)")
    parser.add_argument("--untriaged", action="store_true", help="print the untriaged findings with their messages")
    parser.add_argument("--template", metavar="OUT", help="write the untriaged findings as verdict lines to fill in")
    parser.add_argument("--json", metavar="OUT", help="write every finding with its verdict to this JSON file")
    parser.add_argument("--no-extract", action="store_true", help="scan what is present; extract nothing")
    parser.add_argument("--strict", action="store_true", help="also exit 1 when a finding is untriaged")
    args = parser.parse_args()

    repos = trees.load()
    if args.repo:
        unknown = set(args.repo) - {r.name for r in repos}
        if unknown:
            raise SystemExit(f"not in repos.toml: {sorted(unknown)}")
        repos = [r for r in repos if r.name in args.repo]
    verdicts = load_verdicts()
    present, absent = [], []
    for repo in repos:
        status = "present" if repo.present() or args.no_extract else trees.ensure(repo)
        (present if repo.present() else absent).append((repo, status))
    version = subprocess.run([args.tapelsp, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", str(trees.REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"tapelsp: {args.tapelsp} ({version or '?'}), repository at {commit}")
    print(f"trees: {len(present)} present, {len(absent)} absent")
    for repo, status in absent:
        print(f"  ABSENT {repo.name} @ {repo.commit[:12]}: {status}")

    findings = []
    internal: list[tuple[str, dict]] = []
    lines: dict[str, int] = {}
    files = 0
    start = time.perf_counter()
    for repo, _status in present:
        tree = Tree(repo.root)
        lines[repo.name] = tree.lines
        files += tree.files
        for item in run_engine(args.tapelsp, repo.root):
            if item["code"] in INTERNAL:
                internal.append((repo.name, item))
                continue
            rel = os.path.relpath(item["filename"], repo.root) if os.path.isabs(item["filename"]) else \
                os.path.relpath(os.path.abspath(item["filename"]), repo.root)
            row = item["location"]["row"]
            cell = item.get("cell")
            findings.append({
                "repo": repo.name, "path": rel, "cell": cell, "line": row, "code": item["code"],
                "fp": fingerprint(tree.line(rel, cell, row)), "severity": item.get("severity"),
                "message": item["message"],
            })
    seconds = time.perf_counter() - start
    names = {r.name for r, _ in present}
    pairs, left = match(findings, [v for v in verdicts if v["repo"] in names])

    by_rule: dict[str, Counter] = defaultdict(Counter)
    by_repo: dict[str, Counter] = {name: Counter() for name in lines}
    untriaged, came_back = [], []
    for finding, verdict in pairs:
        kind = verdict["verdict"] if verdict else "new"
        for counter in (by_rule[finding["code"]], by_repo[finding["repo"]]):
            counter["found"] += 1
            counter[kind] += 1
        if verdict is None:
            untriaged.append(finding)
        elif kind == "false" and not verdict.get("open"):
            came_back.append((finding, verdict))
    lost = [v for v in left if v["verdict"] in ("true", "demo")]
    gone_false = [v for v in left if v["verdict"] == "false"]

    total_lines = sum(lines.values())
    print(f"{files} files, {total_lines} lines (.py lines and notebook code-cell lines), scanned in {seconds:.0f} s")
    table("per rule (prec = true / (true + false); demo = a guide's deliberate demonstration; new = untriaged)",
          by_rule)
    table("per repository", by_repo, lines)

    if untriaged:
        print(f"\nuntriaged ({len(untriaged)}):")
        for f in untriaged:
            where = f"{f['path']}" + (f" cell {f['cell']}" if f["cell"] else "") + f":{f['line']}"
            text = f" {f['message'][:160]}" if args.untriaged else ""
            print(f"  {f['repo']} {where} {f['code']} [{f['fp']}]{text}")
    if internal:
        print(f"\ninternal errors of the engine ({len(internal)}, not counted as findings):")
        for name, item in internal:
            print(f"  {name} {os.path.relpath(item['filename'], trees.TREES / name.replace('/', '+'))}: "
                  f"{item['message'][:140]}")
    if came_back:
        print(f"\nFALSE FINDINGS THAT CAME BACK ({len(came_back)}):")
        for f, v in came_back:
            print(f"  {f['repo']} {f['path']}:{f['line']} {f['code']}: {v['reason']}")
    if lost:
        print(f"\nTRUE OR DEMO FINDINGS GONE ({len(lost)}): recall lost")
        for v in lost:
            print(f"  {v['repo']} {v['path']}:{v['line']} {v['code']} ({v['verdict']}): {v['reason']}")
    if gone_false:
        print(f"\nfalse findings no longer reported: {len(gone_false)} "
              f"({', '.join(f'{c} {n}' for c, n in sorted(Counter(v['code'] for v in gone_false).items()))})")

    if args.template:
        with open(args.template, "w") as out:
            for f in untriaged:
                out.write(json.dumps({k: f[k] for k in ("repo", "path", "cell", "line", "code", "fp")}
                                     | {"verdict": "", "reason": "", "message": f["message"]}) + "\n")
        print(f"wrote {len(untriaged)} untriaged findings to {args.template}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [f | {"verdict": v["verdict"] if v else None, "reason": v["reason"] if v else None} for f, v in pairs],
            indent=1))

    total = Counter()
    for c in by_repo.values():
        total.update(c)
    judged = total["true"] + total["false"]
    prec = f"{100 * total['true'] / judged:.1f}%" if judged else "-"
    failed = bool(came_back or lost or (args.strict and untriaged))
    print(f"\nprecision: {len(present)} trees ({len(absent)} absent), {total_lines} lines, {total['found']} findings "
          f"({total['demo']} demo): {total['true']} true, {total['false']} false, precision {prec} outside demos, "
          f"{total['false'] * PER / max(total_lines, 1):.2f} false per {PER:,} lines, {total['new']} untriaged, "
          f"{len(came_back)} false came back, {len(lost)} true/demo lost, {len(internal)} internal errors: {'FAIL' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
