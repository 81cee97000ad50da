"""Resident memory of the tapelsp language server over a long editing session.

    python bench/editor_memory.py                              # 10,000 lines, 1,000 edits
    python bench/editor_memory.py --edits 200 --lines 3000     # a quick try

It starts the real server (`python -m tapelsp`, stdio) with `bench/editor_latency.py`'s
client, opens that script's generated TensorFlow file and edits it `--edits` times, the
way someone working in it would: type a character into a name inside a function body,
insert a statement line, delete a statement line, add or rewrite a comment, each at a
random place in the file (seeded: `--seed`). The edits keep the file valid Python. They
are sent as incremental changes when the server advertises incremental sync, else as the
whole text. After each edit the script waits for that version's diagnostics (debounce 0)
and reads the server's own didChange -> diagnostics time from `tapelsp/status`; every
`--actions-every` edits it asks for the code actions at the finding nearest the edit
(which has the worker build that finding's fix). Every `--sample-every` edits it reads
VmRSS from /proc for the server process and each analysis worker.

It prints the commit server/ is at (and whether other work has changed it since), a table
(edits, server MiB, workers MiB, total MiB, each worker, the median didChange -> diagnostics
time of the edits since the previous row; a row a sample, as it is taken), the growth from
the first sample after editing started (edit 100) to the last (edit 1,000) and over the
second half alone, absolute and in percent, and the median didChange -> diagnostics time
over all edits. A worker the pool replaced shows as "(new worker)": its memory starts over,
so read the growth with the "each worker" column. At the end it opens
the client's copy of the edited text as a second document and compares its diagnostics
with the edited document's: the same set means the server's copy of the text followed
every edit.

A script, not a test: it asserts nothing about time or memory. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import io
import keyword
import os
import random
import statistics
import subprocess
import sys
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from editor_latency import Client, document_status, generate, rss_kib  # noqa: E402

COMMENT = -1  # `Document.kinds` entry of a line that is only a comment
KINDS = ("type", "insert", "delete", "comment")
WEIGHTS = (4, 2, 2, 2)
SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Pass)
INSERTED = (
    "debug_{n} = tf.reduce_sum(tf.ones([{m}]))",
    "print(\"checkpoint {n}\")",
    "scale_{n} = {m} * 0.5",
    "tf.debugging.assert_all_finite(tf.constant({m}.0), \"step {n}\")",
)
WORDS = ("todo", "check", "shapes", "why", "slow", "here", "batch", "grad", "fixme", "note")


# -- the client's copy of the document and the edits ---------------------------------------

@dataclass
class Change:
    kind: str
    line: int  # 0-based, where the edit starts
    start: tuple[int, int]
    end: tuple[int, int]
    text: str


@dataclass
class Document:
    """The text as lines, and per line what an edit may do there: a block id for a one-line
    simple statement inside a function body (the statement may be edited, have a line
    inserted before it, or be deleted while its block keeps another statement), COMMENT for
    a comment line, None for anything else."""
    lines: list[str]
    kinds: list[Optional[int]]
    statements: dict[int, int] = field(default_factory=dict)  # block id -> statements in it

    @classmethod
    def of(cls, text: str) -> "Document":
        lines = text.split("\n")
        kinds: list[Optional[int]] = [None] * len(lines)
        statements: dict[int, int] = {}
        seen: set[int] = set()
        tree = ast.parse(text)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                for name in ("body", "orelse", "finalbody"):
                    block = getattr(node, name, None)
                    if not isinstance(block, list) or not block or id(block) in seen:
                        continue
                    seen.add(id(block))
                    block_id = len(statements)
                    statements[block_id] = len(block)
                    for statement in block:
                        row = statement.lineno - 1
                        line = lines[row]
                        if (isinstance(statement, SIMPLE) and statement.end_lineno == statement.lineno
                                and not line[:statement.col_offset].strip()
                                and not line[statement.end_col_offset:].strip()):
                            kinds[row] = block_id
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            row = token.start[0] - 1
            if token.type == tokenize.COMMENT and not lines[row][:token.start[1]].strip() and kinds[row] is None:
                kinds[row] = COMMENT
        return cls(lines, kinds, statements)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def pick(self, rng: random.Random, wanted: Any) -> Optional[int]:
        """A random line whose kind satisfies `wanted` (None when none is found)."""
        for _ in range(20 * len(self.lines)):
            row = rng.randrange(len(self.lines))
            if wanted(self.kinds[row]):
                return row
        return None

    # Each edit changes the copy and says what to send.

    def type_character(self, rng: random.Random) -> Optional[Change]:
        row = self.pick(rng, lambda kind: kind is not None and kind >= 0)
        if row is None:
            return None
        line = self.lines[row]
        names = [token for token in _tokens(line) if token.type == tokenize.NAME
                 and not keyword.iskeyword(token.string)]
        if not names:
            return None
        token = rng.choice(names)
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz_")
        if keyword.iskeyword(token.string + letter):
            letter = "_"
        column = len(line) - len(line.lstrip()) + token.end[1]
        self.lines[row] = line[:column] + letter + line[column:]
        return Change("type", row, (row, column), (row, column), letter)

    def insert_line(self, rng: random.Random, number: int) -> Optional[Change]:
        row = self.pick(rng, lambda kind: kind is not None and kind >= 0)
        if row is None:
            return None
        block = self.kinds[row]
        assert block is not None
        indent = self.lines[row][:len(self.lines[row]) - len(self.lines[row].lstrip())]
        new = indent + rng.choice(INSERTED).format(n=number, m=rng.randrange(1, 64))
        self.lines.insert(row, new)
        self.kinds.insert(row, block)
        self.statements[block] += 1
        return Change("insert", row, (row, 0), (row, 0), new + "\n")

    def delete_line(self, rng: random.Random) -> Optional[Change]:
        row = self.pick(rng, lambda kind: kind is not None and kind >= 0 and self.statements[kind] > 1)
        if row is None:
            return None
        block = self.kinds[row]
        assert block is not None
        del self.lines[row]
        del self.kinds[row]
        self.statements[block] -= 1
        return Change("delete", row, (row, 0), (row + 1, 0), "")

    def edit_comment(self, rng: random.Random) -> Optional[Change]:
        row = self.pick(rng, lambda kind: kind is not None)
        if row is None:
            return None
        line = self.lines[row]
        words = " ".join(rng.sample(WORDS, rng.randrange(1, 4)))
        comments = [token for token in _tokens(line) if token.type == tokenize.COMMENT]
        if comments:  # rewrite the comment's words
            start = len(line) - len(line.lstrip()) + comments[-1].start[1] + 1
            new = " " + words
            self.lines[row] = line[:start] + new
            return Change("comment", row, (row, start), (row, len(line)), new)
        new = "  # " + words  # add a trailing comment
        self.lines[row] = line + new
        return Change("comment", row, (row, len(line)), (row, len(line)), new)

    def edit(self, rng: random.Random, number: int) -> Change:
        kind = rng.choices(KINDS, WEIGHTS)[0]
        order = [kind] + [other for other in KINDS if other != kind]
        for choice in order:  # the chosen kind, or another when it has no place left
            change = {"type": lambda: self.type_character(rng),
                      "insert": lambda: self.insert_line(rng, number),
                      "delete": lambda: self.delete_line(rng),
                      "comment": lambda: self.edit_comment(rng)}[choice]()
            if change is not None:
                return change
        raise RuntimeError("no line left to edit")


def _tokens(line: str) -> list[tokenize.TokenInfo]:
    """The tokens of one line, tokenized on its own without its indentation."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(line.lstrip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def incremental_sync(capabilities: dict) -> bool:
    sync = capabilities.get("textDocumentSync")
    kind = sync.get("change") if isinstance(sync, dict) else sync
    return kind == 2  # TextDocumentSyncKind.Incremental


class RecordingClient(Client):
    """editor_latency's client, keeping the answer to `initialize`."""
    capabilities: dict = {}

    async def request(self, method: str, params: Any) -> Any:
        answer = await asyncio.wait_for(super().request(method, params), REQUEST_TIMEOUT)
        if method == "initialize":
            self.capabilities = (answer or {}).get("capabilities", {})
        return answer


REQUEST_TIMEOUT = 300.0
POLL_SECONDS = 1.0


# -- the session ---------------------------------------------------------------------------

async def settle(client: Client, uri: str, version: int, mark: int) -> Optional[list]:
    """Wait until `version` is analysed: its diagnostics (published after index `mark`), or
    None when the server reports the version settled without publishing it."""
    started = time.perf_counter()
    while True:
        try:
            _at, found = await asyncio.wait_for(client.diagnostics(uri, version, mark), POLL_SECONDS)
            return found
        except asyncio.TimeoutError:
            pass
        status = document_status(await client.request("tapelsp/status", {}), uri)
        if status.get("settled") and status.get("version") == version:
            for _at, params in client.published[mark:]:  # published while the status was asked
                if params["uri"] == uri and params.get("version") == version:
                    return params["diagnostics"]
            return None
        if time.perf_counter() - started > REQUEST_TIMEOUT:
            raise RuntimeError(f"version {version}: no diagnostics after {REQUEST_TIMEOUT:.0f} s")


def nearest(diagnostics: list, line: int) -> Optional[dict]:
    """The diagnostic nearest `line`, one with a fix to build if there is any."""
    if not diagnostics:
        return None
    return min(diagnostics, key=lambda d: (not fixable(d),
                                           abs(d["range"]["start"]["line"] - line)))


def fixable(diagnostic: dict) -> bool:
    data = diagnostic.get("data")
    return isinstance(data, dict) and data.get("fixable") is True


def memory(status: dict) -> dict:
    workers = {pid: rss_kib(pid) for pid in status["workerPids"]}
    return {"server": rss_kib(status["pid"]), "workers": workers}


async def session(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    text = generate(args.lines)
    document = Document.of(text)
    uri = Path(f"/tmp/tapelsp-memory-{args.lines}.py").as_uri()
    client = await RecordingClient.start()
    result: dict[str, Any] = {"samples": [], "server_ms": [], "trip_ms": [], "engine_ms": [],
                              "kinds": dict.fromkeys(KINDS, 0), "unpublished": 0, "actions": []}
    try:
        await client.initialize(debounce_ms=0)
        incremental = incremental_sync(client.capabilities)
        result["incremental"] = incremental
        mark = len(client.published)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                "version": 1, "text": text}})
        latest = await settle(client, uri, 1, mark) or []
        result["opened"] = {"lines": text.count("\n"), "findings": len(latest)}
        print(f"{result['opened']['lines']:,}-line file, {result['opened']['findings']} findings at open; "
              f"{args.edits} edits sent one at a time as {'incremental' if incremental else 'full'} changes")
        print()
        table = Table()
        result["samples"].append(table.row(0, memory(await client.request("tapelsp/status", {})), None))
        window: list[float] = []
        for number in range(1, args.edits + 1):
            version = number + 1
            change = document.edit(rng, number)
            result["kinds"][change.kind] += 1
            if incremental:
                content = {"range": {"start": {"line": change.start[0], "character": change.start[1]},
                                     "end": {"line": change.end[0], "character": change.end[1]}},
                           "text": change.text}
            else:
                content = {"text": document.text}
            mark = len(client.published)
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [content]})
            found = await settle(client, uri, version, mark)
            if found is None:
                result["unpublished"] += 1
            else:
                latest = found
                result["trip_ms"].append((time.perf_counter() - sent) * 1000)
            status = document_status(await client.request("tapelsp/status", {}), uri)
            if found is not None and status.get("version") == version and status.get("publishedAfter") is not None:
                result["server_ms"].append(status["publishedAfter"] * 1000)
                window.append(status["publishedAfter"] * 1000)
                if status.get("engineSeconds") is not None:
                    result["engine_ms"].append(status["engineSeconds"] * 1000)
            if number % args.actions_every == 0:
                target = nearest(latest, change.line)
                position = {"line": change.line, "character": 0}
                params = {"textDocument": {"uri": uri},
                          "range": target["range"] if target else {"start": position, "end": position},
                          "context": {"diagnostics": [target] if target else []}}
                asked = time.perf_counter()
                actions = await client.request("textDocument/codeAction", params) or []
                result["actions"].append(((time.perf_counter() - asked) * 1000, len(actions),
                                          target is not None and fixable(target)))
            if number % args.sample_every == 0 or number == args.edits:
                sample = memory(await client.request("tapelsp/status", {}))
                result["samples"].append(table.row(number, sample, statistics.median(window) if window else None))
                window = []
        result["final"] = {"lines": document.text.count("\n"), "findings": len(latest),
                           "parses": _parses(document.text)}
        result["same"] = await compare(client, document.text, latest, args.lines)
    finally:
        await client.close()
    return result


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


async def compare(client: Client, text: str, edited: list, size: int) -> tuple[bool, int, int]:
    """Open the client's copy of the edited text as a new document: does the server find the
    same (range, code) set as in the edited document's last diagnostics?"""
    uri = Path(f"/tmp/tapelsp-memory-{size}-copy.py").as_uri()
    mark = len(client.published)
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": 1, "text": text}})
    fresh = await settle(client, uri, 1, mark) or []
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def keys(diagnostics: list) -> set:
        return {(d["range"]["start"]["line"], d["range"]["start"]["character"], d["range"]["end"]["line"],
                 d["range"]["end"]["character"], str(d.get("code"))) for d in diagnostics}
    return keys(fresh) == keys(edited), len(fresh), len(edited)


# -- the report ----------------------------------------------------------------------------

def mib(kib: Optional[int]) -> float:
    return kib / 1024 if kib is not None else float("nan")


def total(sample: dict) -> float:
    return mib(sample["server"]) + sum(mib(kib) for kib in sample["workers"].values())


class Table:
    """The memory table, printed a row at a time as the samples are taken."""

    def __init__(self) -> None:
        self.pids: Optional[list] = None
        print(f"{'edits':>6} {'server MiB':>11} {'workers MiB':>12} {'total MiB':>10}   {'each worker MiB':<22}"
              f"{'median ms':>10}", flush=True)

    def row(self, number: int, sample: dict, median: Optional[float]) -> tuple[int, dict, Optional[float]]:
        workers = sum(mib(kib) for kib in sample["workers"].values())
        each = " + ".join(f"{mib(kib):.1f}" for kib in sample["workers"].values())
        pids = sorted(sample["workers"])
        if self.pids is not None and pids != self.pids:
            each += "  (new worker)"
        self.pids = pids
        latency = f"{median:>10.0f}" if median is not None else f"{'':>10}"
        print(f"{number:>6} {mib(sample['server']):>11.1f} {workers:>12.1f} {total(sample):>10.1f}   {each:<22}"
              f"{latency}", flush=True)
        return number, sample, median


def growth(samples: list, start_number: int) -> None:
    start = next((s for n, s, _m in samples if n >= start_number), None)
    first_number = next((n for n, _s, _m in samples if n >= start_number), None)
    last_number, last, _m = samples[-1]
    if start is None or first_number is None or first_number >= last_number:
        return
    print(f"growth from edit {first_number} to edit {last_number}:")
    pairs = (("server", mib(start["server"]), mib(last["server"])),
             ("workers", sum(mib(k) for k in start["workers"].values()),
              sum(mib(k) for k in last["workers"].values())),
             ("total", total(start), total(last)))
    for name, before, after in pairs:
        print(f"  {name:<8} {before:8.1f} -> {after:8.1f} MiB: {after - before:+7.1f} MiB "
              f"({(after - before) / before * 100:+.1f}%)")


def report(args: argparse.Namespace, result: dict, seconds: float) -> None:
    print("  median ms: the server's didChange -> diagnostics time (tapelsp/status) of the edits since the row above")
    print()
    print("edits: " + ", ".join(f"{kind} {count}" for kind, count in result["kinds"].items()))
    growth(result["samples"], args.sample_every)
    growth(result["samples"], args.edits // 2)  # the second half alone: still growing, or levelled off?
    server_ms = result["server_ms"]
    if server_ms:
        print(f"didChange -> diagnostics (the server's tapelsp/status, debounce 0): median {statistics.median(server_ms):.0f} ms "
              f"over {len(server_ms)} edits (min {min(server_ms):.0f}, max {max(server_ms):.0f}); client round trip median "
              f"{statistics.median(result['trip_ms']):.0f} ms; engine in the worker median "
              f"{statistics.median(result['engine_ms']) if result['engine_ms'] else float('nan'):.0f} ms")
    if result["unpublished"]:
        print(f"  {result['unpublished']} versions settled without a publication of their own")
    actions = result["actions"]
    if actions:
        times = [ms for ms, _count, _fixable in actions]
        print(f"code actions: {len(actions)} requests (every {args.actions_every} edits, at the finding nearest the "
              f"edit; {sum(fixable for *_r, fixable in actions)} at a fixable one), median {statistics.median(times):.0f} ms, "
              f"max {max(times):.0f} ms, {statistics.median(count for _ms, count, _f in actions):.0f} actions each (median)")
    final = result["final"]
    same, fresh, edited = result["same"]
    print(f"after the edits: {final['lines']:,} lines, {final['findings']} findings, the text "
          f"{'parses' if final['parses'] else 'does NOT parse'}; the same text opened fresh: "
          f"{fresh} findings, {'the same' if same else 'NOT the same'} ranges and codes")
    print(f"wall time {seconds:.0f} s")


def server_version() -> str:
    """The commit the server's code is at, and whether server/ differs from it (other work in the tree)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "server"], cwd=root, capture_output=True,
                               text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "server/ at an unknown commit"
    if not commit:
        return "server/ at an unknown commit"
    return f"server/ at {commit}" + (f" with uncommitted changes in {len(dirty.splitlines())} files" if dirty else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=10_000, help="size of the generated file")
    parser.add_argument("--edits", type=int, default=1_000, help="didChange notifications, one at a time")
    parser.add_argument("--sample-every", type=int, default=100, help="edits between memory samples")
    parser.add_argument("--actions-every", type=int, default=50, help="edits between code-action requests")
    parser.add_argument("--seed", type=int, default=10, help="seed of the edits' kinds and places")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        print("needs Linux's /proc to read resident memory", file=sys.stderr)
        return 2
    load = os.getloadavg()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; {server_version()}", flush=True)
    started = time.perf_counter()
    result = asyncio.run(session(args))
    report(args, result, time.perf_counter() - started)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
