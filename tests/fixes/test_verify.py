"""The check of every fix on its fixed text (fixes/verify.py): a fix that adds a finding, leaves a
NumPy-only method on a tensor or turns a tensor into NumPy is not offered; one that changes a
value's kind or dtype where the code may depend on it is offered as unsafe only; the reason is
the finding's fix_error, the log's and `--diff`'s."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

from tapelsp import Settings, check_source
from tapelsp.engine import build_fix, deferred_fixes
from tapelsp.fixes import apply_fixes
from tapelsp.fixes.verify import NOT_OFFERED, UNSAFE, verify
from tapelsp.model import Applicability, Edit, Fix, Position, Range


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# The inner tape's rename alone leaves `x` unwatched by the outer tape: TAPE010 on the outer call.
RENAME_UNWATCHED = _source("""
    import tensorflow as tf

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        dy = tape.gradient(y, x)
    d2y = tape.gradient(dy, x)
""")

# Removing `.numpy()` leaves `z.tolist()` on a tensor.
NUMPY_METHOD_LATER = _source("""
    import tensorflow as tf

    w = tf.Variable([3.0, 1.0, 2.0])
    with tf.GradientTape() as tape:
        y = w * 2.0
        z = y.numpy()
        loss = tf.reduce_sum(z * 2.0)
        print(z.tolist())
    g = tape.gradient(loss, w)
""")


def _offers(text: str, settings: Settings | None = None):
    with deferred_fixes() as offers:
        found = check_source(text, "t.py", settings, fixes=True)
    return found, offers


def _one(text: str, code: str):
    _found, offers = _offers(text)
    [offer] = [o for o in offers if o.violation.code == code]
    return offer


def _replace(text: str, old: str, new: str, occurrence: int = 0) -> Edit:
    """An edit replacing the `occurrence`-th `old` of `text` by `new`."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(old, index + 1)
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return Edit(Range(Position(line, column), Position(line, column + len(old))), new)


def test_a_fix_that_adds_a_finding_is_not_offered_and_says_which():
    [finding] = [v for v in check_source(RENAME_UNWATCHED, "t.py", fixes=True) if v.code == "TAPE001"]
    assert finding.fix is None
    assert finding.fix_error.startswith(NOT_OFFERED)
    assert "TAPE010 on line 9" in finding.fix_error, finding.fix_error


def test_the_same_fix_alone_is_offered_when_the_rule_it_would_trip_is_off():
    settings = Settings(select=("TAPE001",))
    [finding] = check_source(RENAME_UNWATCHED, "t.py", settings, fixes=True)
    assert finding.fix is not None and finding.fix_error is None


def test_a_numpy_only_method_left_on_a_tensor_drops_the_fix():
    [finding] = [v for v in check_source(NUMPY_METHOD_LATER, "t.py", fixes=True) if v.code == "TAPE007"]
    assert finding.fix is None
    assert finding.fix_error == NOT_OFFERED + ("`z.tolist()` on line 8 would call `.tolist()` on a tf.Tensor, "
                                               "which has no such method (NumPy arrays do)")


def test_a_tensor_turned_into_numpy_drops_the_fix():
    # The fixes checked here are written by hand, on a text with a finding whose offer carries
    # the analysis a fix is checked against.
    text = RENAME_UNWATCHED + _source("""

        import numpy as np

        g = tf.ones([2])
        total = tf.reduce_sum(g)
        scaled = total * 2.0
        print(scaled.numpy())
    """)
    offer = _one(text, "TAPE001")
    bad = Fix("sum with NumPy", Applicability.SAFE, (_replace(offer.text, "tf.reduce_sum(g)", "np.sum(g)"),))
    fix, why = verify(offer.violation, bad, offer.text, offer.analysis)
    assert fix is None and why.startswith(NOT_OFFERED)
    assert "would be a NumPy" in why and "where the code had a tf.Tensor" in why, why


def test_a_kind_change_where_the_code_may_depend_on_it_makes_the_fix_unsafe():
    text = RENAME_UNWATCHED + _source("""

        import numpy as np

        weights = np.zeros(3)
        weights[0] = 1.0
        total = weights.sum()
    """)
    offer = _one(text, "TAPE001")
    change = Fix("zeros from TensorFlow", Applicability.SAFE, (_replace(offer.text, "np.zeros(3)", "tf.zeros(3)"),))
    fix, why = verify(offer.violation, change, offer.text, offer.analysis)
    # `weights.sum()` on a tensor: a NumPy-only method (TNS001 reports it in the fixed text), so the fix goes
    assert fix is None and ("`weights.sum()`" in why or ("TNS001" in why and "`.sum()`" in why and "`weights`" in why)), why
    text = text.replace("total = weights.sum()", "total = float(weights[0])")
    offer = _one(text, "TAPE001")
    change = Fix("zeros from TensorFlow", Applicability.SAFE, (_replace(offer.text, "np.zeros(3)", "tf.zeros(3)"),))
    fix, why = verify(offer.violation, change, offer.text, offer.analysis)
    assert fix is not None and fix.applicability == Applicability.UNSAFE
    assert why.startswith(UNSAFE) and "`weights` on line" in why and "a NumPy array to a tf.Tensor" in why, why


def test_a_change_that_only_feeds_tensorflow_ops_keeps_the_fix_as_it_is():
    text = RENAME_UNWATCHED + _source("""

        import numpy as np

        noise = np.zeros(3, np.float32)
        out = tf.reduce_sum(noise * 2.0) + tf.nn.relu(noise)
    """)
    offer = _one(text, "TAPE001")
    change = Fix("zeros from TensorFlow", Applicability.SAFE,
                 (_replace(offer.text, "np.zeros(3, np.float32)", "tf.zeros(3, tf.float32)"),))
    fix, why = verify(offer.violation, change, offer.text, offer.analysis)
    assert fix is change and why is None


def test_a_dtype_clash_with_another_tensor_drops_the_fix():
    text = RENAME_UNWATCHED + _source("""

        scale = tf.constant(2.0, tf.float64)
        noise = tf.zeros(3, tf.float64)
        out = noise * scale
    """)
    offer = _one(text, "TAPE001")
    change = Fix("float32 noise", Applicability.SAFE, (_replace(offer.text, "tf.zeros(3, tf.float64)", "tf.zeros(3)"),))
    fix, why = verify(offer.violation, change, offer.text, offer.analysis)
    assert fix is None and "a float32 tensor" in why and "`scale`, a float64 one" in why, why


def test_only_the_statements_the_fix_concerns_are_analysed_again():
    """A file of many unrelated functions: the fixed text analysed is the edited function with
    the imports (the same verdict as on the whole text, and a text of a few lines)."""
    import tapelsp.engine as engine

    helpers = "".join(f"\n\ndef helper_{i}(v):\n    return tf.reduce_sum(v * {i}.0)\n" for i in range(30))
    text = RENAME_UNWATCHED.replace("import tensorflow as tf\n", "import tensorflow as tf\n" + helpers + "\n")
    seen = []
    real = engine.check_source

    def spy(source, *args, **kwargs):
        seen.append(source)
        return real(source, *args, **kwargs)

    engine.check_source = spy
    try:
        [finding] = [v for v in real(text, "t.py", fixes=True) if v.code == "TAPE001"]
    finally:
        engine.check_source = real
    assert finding.fix is None and "TAPE010 on line " in finding.fix_error
    line = int(finding.fix_error.split("TAPE010 on line ")[1].split()[0])
    assert text.splitlines()[line - 1].startswith("d2y = tape.gradient"), (line, finding.fix_error)
    assert seen and all("helper_" not in source for source in seen)
    assert all(source.count("\n") < 15 for source in seen), [source.count("\n") for source in seen]


def test_the_reason_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="tapelsp.fixes"):
        check_source(NUMPY_METHOD_LATER, "t.py", fixes=True)
    assert "t.py:6: TAPE007 fix not offered: `z.tolist()` on line 8" in caplog.text


def test_a_deferred_offer_is_checked_when_it_is_built():
    offer = _one(NUMPY_METHOD_LATER, "TAPE007")
    built = build_fix(offer)
    assert built.fix is None and built.fix_error.startswith(NOT_OFFERED)


def test_fixing_reports_why_a_fix_was_not_applied():
    result = apply_fixes(NUMPY_METHOD_LATER, "t.py", unsafe=True)
    assert not result.fixed and result.text == NUMPY_METHOD_LATER
    assert any(p.startswith("TAPE007 at line 6: fix not offered: ") for p in result.problems), result.problems


def test_check_diff_prints_why_a_fix_is_not_offered(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(NUMPY_METHOD_LATER)
    run = subprocess.run([sys.executable, "-m", "tapelsp", "--check", "--diff", "--unsafe-fixes", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert "TAPE007 at line 6: fix not offered: `z.tolist()` on line 8" in run.stderr, run.stderr
    assert path.read_text() == NUMPY_METHOD_LATER


def test_an_unsafe_only_fix_says_why_when_safe_fixes_are_applied():
    text = _source("""
        import tensorflow as tf

        @tf.function
        def train_step(x, epsilon):
            return tf.reduce_sum(x) * (1.0 - epsilon)

        x = tf.ones([4])
        epsilon = 1.0
        for episode in range(8):
            loss = train_step(x, epsilon)
            epsilon = max(0.05, epsilon * 0.9)
    """)
    [finding] = [v for v in check_source(text, "t.py", fixes=True) if v.code == "FUNC009"]
    assert finding.fix is not None and finding.fix_error is None  # a float: safe, and the check agrees


def test_the_language_server_logs_why_a_fix_is_not_offered(tmp_path):
    """A quick fix asked for in the editor: the worker that builds it checks it, and the reason
    it is not offered is in the server's log (its standard error)."""
    import json

    from lsp.conftest import server_env
    from lsp.test_quiet_logs import frame, read

    uri = (tmp_path / "t.py").as_uri()
    server = subprocess.Popen([sys.executable, "-m", "tapelsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=server_env())
    try:
        assert server.stdin is not None and server.stdout is not None

        def send(message: dict) -> None:
            server.stdin.write(frame(message))  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]

        def answer(wanted: int) -> dict:
            while True:
                message = read(server.stdout)
                if message.get("id") == wanted and "method" not in message:
                    return message

        send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(),
                                                          "capabilities": {}}})
        answer(1)
        send({"method": "initialized", "params": {}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": NUMPY_METHOD_LATER}}})
        while True:
            message = read(server.stdout)
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["diagnostics"]:
                diagnostics = message["params"]["diagnostics"]
                break
        [finding] = [d for d in diagnostics if d["code"] == "TAPE007"]
        send({"id": 2, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": uri}, "range": finding["range"], "context": {"diagnostics": [finding]}}})
        actions = answer(2)["result"] or []
        send({"id": 3, "method": "shutdown"})
        answer(3)
        send({"method": "exit"})
        server.stdin.close()
        server.stdout.read()
        log = server.stderr.read().decode()  # type: ignore[union-attr]
        server.wait(60)
    finally:
        if server.poll() is None:
            server.kill()
    assert not [a for a in actions if a["title"].startswith("Remove")], json.dumps(actions)[:400]
    assert "TAPE007 fix not offered: `z.tolist()` on line 8" in log, log
