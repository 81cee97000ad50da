"""Editor latency of the tapelsp language server, side by side with `ast.parse` in the same run.

    python bench/editor_latency.py                 # 3,000 and 10,000 lines, 3 edits each
    python bench/editor_latency.py --sizes 3000 --rounds 5

For a generated TensorFlow file of each size it starts the real server (`python -m
tapelsp`, stdio, the client's side written here in a few lines), opens the file and then:

- edits it `--rounds` times in each of three ways (a comment line appended at the end; a
  character typed into a function in the middle; a line added to that function, which moves
  every later finding) and times didChange -> publishDiagnostics. The server's own measure
  (`tapelsp/status`: from the didChange it received to the diagnostics it sent, debounce 0) is the
  number compared with `ast.parse` of the same text in this process; the client's round
  trip and the engine's own time in the worker are printed beside it;
- asks for the code actions at a fixable finding right after the diagnostics arrive
  (the fixes pass may still be running) and again once it has finished;
- reads the resident memory of the server process and of its analysis workers
  (/proc, Linux) after the 10,000-line file is open;
- with the default debounce, sends 200 didChange in a row and reports how many analyses
  ran and how long the last version took to reach its diagnostics;
- asks the server and its workers whether `tensorflow` was imported (it must not be).

A script, not a test: it asserts nothing about time. See shared/design/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "server"

BLOCK = '''

class Learner{i}(tf.Module):
    """Block {i}: a DQN learner with a train step."""

    def __init__(self, model, target_model, gamma=0.99):
        self.model = model
        self.target_model = target_model
        self.gamma = gamma
        self.optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train(self, states, actions, rewards, next_states, dones):
        step = tf.Variable(0, dtype=tf.int64)
        step.assign_add(1)
        next_q = tf.reduce_max(self.target_model(next_states), axis=1)
        targets = rewards + self.gamma * next_q * (1.0 - dones)
        with tf.GradientTape() as tape:
            q = tf.reduce_sum(self.model(states) * tf.one_hot(actions, 2), axis=1)
            loss = tf.reduce_mean(tf.square(targets - q))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss


def second_derivative_{i}(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            u = tf.sin(3.0 * x)
        du_dx = tape.gradient(u, x)
    return tape.gradient(du_dx, x)


def squares_{i}(x):
    return tf.map_fn(lambda a: a ** 2, x)


@tf.function
def clean_step_{i}(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
'''

# A second kind of block, alternating with the first: a Keras subclassed model, an eager
# training loop (Python loops, a tape per batch, .numpy()), a tf.range loop with map_fn
# in a tf.function, a tf.data pipeline and plain Python helpers.
BLOCK_KERAS = '''

class Classifier{i}(tf.keras.Model):
    """Block {i}: a small classifier and its training loop."""

    def __init__(self, units=32, classes=10):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(units, activation="relu")
        self.dropout = tf.keras.layers.Dropout(0.1)
        self.logits = tf.keras.layers.Dense(classes)

    def call(self, inputs, training=False):
        h = self.hidden(inputs)
        h = self.dropout(h, training=training)
        return self.logits(h)


def make_dataset_{i}(features, labels, batch_size=32):
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    ds = ds.shuffle(1024).batch(batch_size)
    return ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))


def fit_{i}(model, dataset, epochs=2, learning_rate=0.01):
    optimizer = tf.keras.optimizers.SGD(learning_rate)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    history = {{"loss": [], "accuracy": []}}
    for epoch in range(epochs):
        total, batches, correct = 0.0, 0, 0
        for x, y in dataset:
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += float(loss.numpy())
            batches += 1
            predicted = tf.argmax(logits, axis=1, output_type=tf.int32)
            correct += int(tf.reduce_sum(tf.cast(predicted == tf.cast(y, tf.int32), tf.int32)))
        history["loss"].append(total / max(batches, 1))
        history["accuracy"].append(correct)
        if epoch % 10 == 0:
            print(f"epoch {{epoch}}: loss {{total / max(batches, 1):.4f}}")
    return history


@tf.function
def weighted_rows_{i}(xs, n):
    acc = tf.zeros_like(xs)
    for k in tf.range(n):
        weight = tf.cast(k, xs.dtype)
        acc += tf.map_fn(lambda row: row * weight, xs)
    return acc


def summarize_{i}(history):
    best = min(history["loss"]) if history["loss"] else None
    rows = [f"{{name}}: {{values[-1]}}" for name, values in sorted(history.items()) if values]
    return {{"best": best, "rows": rows, "epochs": len(history["loss"])}}
'''


def generate(lines: int) -> str:
    """A TensorFlow file of about `lines` lines: learners, nested tapes, map_fn, clean steps,
    Keras subclassed models, eager training loops, tf.range loops, tf.data pipelines."""
    out = ['"""Generated TensorFlow training code (bench/editor_latency.py)."""', "import tensorflow as tf", ""]
    for index in itertools.count():
        if len(out) >= lines:
            break
        out.extend((BLOCK if index % 2 == 0 else BLOCK_KERAS).format(i=index).split("\n"))
    text = "\n".join(out[:lines])
    return text.rsplit("\n\n\n", 1)[0] + "\n# edits go below\n"


# -- a minimal LSP client ------------------------------------------------------------------

class Client:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future] = {}
        self.published: list[tuple[float, dict]] = []
        self.event = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> "Client":
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SERVER), env.get("PYTHONPATH")]))
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "tapelsp", env=env,
                                                       stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE, limit=1 << 24)
        return cls(process)

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)  # type: ignore[union-attr]

    async def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = await stream.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                name, value = line.decode().split(":", 1)
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(await stream.readexactly(length))
            if "id" in message and "method" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                future = self.pending.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message)
            elif message.get("method") == "textDocument/publishDiagnostics":
                self.published.append((time.perf_counter(), message["params"]))
                self.event.set()

    async def request(self, method: str, params: Any) -> Any:
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        answer = await future
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def diagnostics(self, uri: str, version: int, after: int = 0) -> tuple[float, list]:
        """(arrival time, diagnostics) of the first publication of `version` after index `after`."""
        while True:
            for arrived, params in self.published[after:]:
                if params["uri"] == uri and params.get("version") == version:
                    return arrived, params["diagnostics"]
            self.event.clear()
            await self.event.wait()

    async def initialize(self, debounce_ms: Optional[int]) -> None:
        options = {"debounce": debounce_ms} if debounce_ms is not None else {}
        await self.request("initialize", {
            "processId": os.getpid(), "rootUri": None, "initializationOptions": options,
            "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True},
                                              "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {
                                                  "valueSet": ["quickfix", "source"]}}}},
                             "general": {"positionEncodings": ["utf-16"]}}})
        self.notify("initialized", {})

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.request("shutdown", None), 30)
            self.notify("exit", None)
            await asyncio.wait_for(self.process.wait(), 30)
        except (asyncio.TimeoutError, ConnectionError):
            self.process.kill()
        self.reader.cancel()


# -- measurements --------------------------------------------------------------------------

def parse_seconds(text: str, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        ast.parse(text)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def rss_kib(pid: int) -> Optional[int]:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def document_status(status: dict, uri: str) -> dict:
    return next(d for d in status["documents"] if d["uri"] == uri)


# Edits timed per file. "comment": a comment line appended at the end (no statement changes);
# "body": a character typed into, then deleted from, a line of a function in the middle of the
# file; "line": a line added to, then removed from, that function (every later line moves).
EDIT_KINDS = ("comment", "body", "line")


def _middle_line(lines: list[str]) -> int:
    middle = len(lines) // 2
    return next(i for i in range(middle, len(lines)) if "tf.square(" in lines[i])


async def edit_rounds(client: Client, uri: str, text: str, rounds: int, version: int, kind: str) -> dict:
    lines = text.split("\n")
    server, trip, engine, parse = [], [], [], []
    target = _middle_line(lines)
    column = lines[target].index("tf.square(") + len("tf.square")
    for round_number in range(rounds):
        version += 1
        undo = round_number % 2 == 1
        if kind == "comment":
            at = len(lines) - 1
            change = {"range": {"start": {"line": at, "character": 0}, "end": {"line": at, "character": 0}},
                      "text": f"# edit {round_number}\n"}
            lines[at:at] = [f"# edit {round_number}"]
        elif kind == "body":
            if undo:
                change = {"range": {"start": {"line": target, "character": column},
                                    "end": {"line": target, "character": column + 1}}, "text": ""}
                lines[target] = lines[target][:column] + lines[target][column + 1:]
            else:
                change = {"range": {"start": {"line": target, "character": column},
                                    "end": {"line": target, "character": column}}, "text": " "}
                lines[target] = lines[target][:column] + " " + lines[target][column:]
        else:
            if undo:
                change = {"range": {"start": {"line": target, "character": 0},
                                    "end": {"line": target + 1, "character": 0}}, "text": ""}
                del lines[target]
            else:
                indent = lines[target][:len(lines[target]) - len(lines[target].lstrip())]
                change = {"range": {"start": {"line": target, "character": 0},
                                    "end": {"line": target, "character": 0}}, "text": f"{indent}scale = 1.0\n"}
                lines.insert(target, f"{indent}scale = 1.0")
        text = "\n".join(lines)
        parse.append(parse_seconds(text, 3))
        mark = len(client.published)
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
        arrived, _found = await client.diagnostics(uri, version, mark)
        trip.append(arrived - sent)
        status = document_status(await client.request("tapelsp/status", {}), uri)
        server.append(status["publishedAfter"])
        engine.append(status["engineSeconds"])
    return {"server": statistics.median(server), "trip": statistics.median(trip),
            "engine": statistics.median(engine), "parse": statistics.median(parse), "version": version,
            "text": text, "kind": kind}


async def code_action_latency(client: Client, uri: str, diagnostics: list) -> dict:
    fixable = next((d for d in diagnostics if d.get("data", {}).get("fixable")), None)
    if fixable is None:
        return {}
    params = {"textDocument": {"uri": uri}, "range": fixable["range"],
              "context": {"diagnostics": [fixable], "only": ["quickfix"]}}
    started = time.perf_counter()
    first = await client.request("textDocument/codeAction", params)
    cold = time.perf_counter() - started
    warm_times = []
    for _ in range(5):
        started = time.perf_counter()
        await client.request("textDocument/codeAction", params)
        warm_times.append(time.perf_counter() - started)
    return {"cold": cold, "warm": statistics.median(warm_times), "actions": len(first or [])}


async def fixes_ahead(client: Client, uri: str, diagnostics: list, version: int) -> dict:
    """Wait for the fixes the server builds ahead of time (the document quiet), then ask for the
    code actions at the last fixable finding; then add a line at the top of the file (every
    finding moves) and ask at once, after its diagnostics, for those of the first one."""
    fixable = [d for d in diagnostics if d.get("data", {}).get("fixable")]
    if not fixable:
        return {}
    started = time.perf_counter()
    while time.perf_counter() - started < 300:
        built = document_status(await client.request("tapelsp/status", {}), uri)["fixesBuilt"]
        if built >= len(fixable):
            break
        await asyncio.sleep(0.2)
    ahead = time.perf_counter() - started

    async def ask(diagnostic: dict) -> float:
        params = {"textDocument": {"uri": uri}, "range": diagnostic["range"],
                  "context": {"diagnostics": [diagnostic], "only": ["quickfix"]}}
        began = time.perf_counter()
        await client.request("textDocument/codeAction", params)
        return time.perf_counter() - began

    last = await ask(fixable[-1])
    mark = len(client.published)
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version + 1},
        "contentChanges": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                            "text": "# a line added at the top\n"}]})
    _arrived, moved = await client.diagnostics(uri, version + 1, mark)
    moved_fixable = [d for d in moved if d.get("data", {}).get("fixable")]
    after_edit = await ask(moved_fixable[0]) if moved_fixable else float("nan")
    return {"fixable": len(fixable), "built": built, "ahead": ahead, "last": last, "after_edit": after_edit}


async def burst(client: Client, uri: str, text: str, version: int, changes: int) -> dict:
    lines = text.count("\n")
    mark = len(client.published)
    before = document_status(await client.request("tapelsp/status", {}), uri)["analyses"]
    started = time.perf_counter()
    for index in range(changes):
        version += 1
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": lines + index, "character": 0},
                                          "end": {"line": lines + index, "character": 0}}, "text": "#\n"}]})
    sent = time.perf_counter()
    arrived, _found = await client.diagnostics(uri, version, mark)
    status = document_status(await client.request("tapelsp/status", {}), uri)
    versions = sorted({params.get("version") for _at, params in client.published[mark:] if params["uri"] == uri})
    return {"analyses": status["analyses"] - before, "send": sent - started, "last": arrived - sent,
            "published_versions": versions, "final_version": version}


async def run(sizes: list[int], rounds: int, burst_changes: int) -> None:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}" + ("  (busy machine: even the ratios are soft)" if load[0] > (os.cpu_count() or 1) else ""))
    results = []
    memory: dict[str, Any] = {}
    client = await Client.start()
    try:
        await client.initialize(debounce_ms=0)
        for size in sizes:
            text = generate(size)
            uri = Path(f"/tmp/tapelsp-bench-{size}.py").as_uri()
            mark = len(client.published)
            opened = time.perf_counter()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                    "version": 1, "text": text}})
            first_arrival, found = await client.diagnostics(uri, 1, mark)
            first = first_arrival - opened
            version, kinds = 1, []
            for kind in EDIT_KINDS:
                edits = await edit_rounds(client, uri, text, rounds, version, kind)
                version, text = edits["version"], edits["text"]
                kinds.append({k: v for k, v in edits.items() if k != "text"})
            _at, current = client.published[-1]
            actions = await code_action_latency(client, uri, current["diagnostics"])
            actions.update(await fixes_ahead(client, uri, current["diagnostics"], version))
            version += 1
            status = await client.request("tapelsp/status", {"workers": True})
            if size == max(sizes):
                memory = {"server": rss_kib(status["pid"]),
                          "workers": [rss_kib(pid) for pid in status["workerPids"]]}
            for edits in kinds:
                results.append({"size": size, "lines": text.count("\n"), "findings": len(found), "first": first,
                                **edits, "actions": actions if edits is kinds[-1] else {}})
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        status = await client.request("tapelsp/status", {"workers": True})
    finally:
        await client.close()

    # The burst, with the server's default debounce (what an editor gets).
    burst_client = await Client.start()
    try:
        await burst_client.initialize(debounce_ms=None)
        size = min(sizes)
        text = generate(size)
        uri = Path(f"/tmp/tapelsp-burst-{size}.py").as_uri()
        burst_client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                      "version": 1, "text": text}})
        await burst_client.diagnostics(uri, 1)
        burst_result = await burst(burst_client, uri, text, 1, burst_changes)
        burst_status = await burst_client.request("tapelsp/status", {"workers": True})
    finally:
        await burst_client.close()

    print()
    print("didChange -> publishDiagnostics (debounce 0; medians of the edit rounds)")
    header = (f"{'lines':>7} {'edit':>7} {'findings':>8} {'ast.parse':>10} {'server':>10} {'ratio':>6} {'engine':>10} "
              f"{'ratio':>6} {'overhead':>9} {'ratio':>6} {'round trip':>10} {'first open':>10}")
    print(header)
    for r in results:
        overhead = r["server"] - r["engine"]
        print(f"{r['lines']:>7} {r['kind']:>7} {r['findings']:>8} {r['parse'] * 1000:>8.1f}ms {r['server'] * 1000:>8.1f}ms "
              f"{r['server'] / r['parse']:>5.1f}x {r['engine'] * 1000:>8.1f}ms {r['engine'] / r['parse']:>5.1f}x "
              f"{overhead * 1000:>7.1f}ms {overhead / r['parse']:>5.2f}x {r['trip'] * 1000:>8.1f}ms "
              f"{r['first']:>9.2f}s")
    print("  server = the server's own time from the didChange it received to the diagnostics it sent;")
    print("  engine = check_source in the worker; overhead = server - engine (sync, snapshot, the pipe")
    print("  both ways, conversion to LSP, JSON); ratio = / ast.parse of the same text in this process.")
    print("  edit: comment = a comment line appended at the end; body = a character typed into (then")
    print("  deleted from) a function in the middle; line = a line added to (then removed from) it, which")
    print("  moves every later finding. The worker analyses again only the statements an edit can change")
    print("  (tapelsp.incremental); first open = the whole file, once.")
    print("  Goal (BENCHMARKS.md): server within 2x of ast.parse.")
    print()
    print("code actions at a fixable finding (quick fixes + ignore)")
    for r in results:
        a = r["actions"]
        if a:
            print(f"{r['lines']:>7} lines: first request {a['cold'] * 1000:.1f} ms "
                  f"({a['cold'] / r['server'] * 100:.1f}% of the diagnostics time; the worker builds that one "
                  f"fix with libcst), again {a['warm'] * 1000:.1f} ms ({a['warm'] / r['server'] * 100:.2f}%), "
                  f"{a['actions']} actions")
            if "ahead" in a:
                print(f"{'':>13}fixes built ahead of time: {a['built']} of {a['fixable']} in {a['ahead']:.1f} s "
                      f"(document quiet); then at the last fixable finding {a['last'] * 1000:.1f} ms "
                      f"({a['last'] / r['server'] * 100:.1f}%); after a line added at the top (every finding "
                      f"moves), at once: {a['after_edit'] * 1000:.1f} ms ({a['after_edit'] / r['server'] * 100:.1f}%)")
    print("  Goal: under 5% of the diagnostics time.")
    print()
    if memory:
        workers = ", ".join(f"{kib / 1024:.1f} MiB" for kib in memory["workers"] if kib)
        server_rss = memory["server"]
        print(f"resident memory with the {max(sizes):,}-line file open: server "
              f"{server_rss / 1024 if server_rss else float('nan'):.1f} MiB, workers {workers}")
    print()
    b = burst_result
    print(f"burst: {burst_changes} didChange sent in {b['send'] * 1000:.0f} ms on the {min(sizes):,}-line file "
          f"(default debounce); {b['analyses']} analyses ran; the last version ({b['final_version']}) reached "
          f"its diagnostics {b['last']:.2f} s after the last change; versions published: {b['published_versions']}")
    print()
    imported = [status["tensorflowImported"], *[w["tensorflowImported"] for w in status["workers"]],
                burst_status["tensorflowImported"], *[w["tensorflowImported"] for w in burst_status["workers"]]]
    print(f"tensorflow imported by the server or a worker: {'YES' if any(imported) else 'no'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000], help="file sizes in lines")
    parser.add_argument("--rounds", type=int, default=4, help="edits timed per size and kind of edit")
    parser.add_argument("--burst", type=int, default=200, help="didChange notifications in the burst")
    args = parser.parse_args()
    asyncio.run(run(sorted(args.sizes), args.rounds, args.burst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
