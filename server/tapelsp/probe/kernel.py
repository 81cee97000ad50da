"""Jupyter kernels for the probe: start one in the user's interpreter, or connect to one.

tapelsp side: imports jupyter_client (the `probe` extra) when used, never TensorFlow.

`KernelProcess` starts an ipykernel with `python -m ipykernel_launcher` of a given
interpreter (a private kernelspec in a temporary directory), with this tapelsp package
importable (a temporary directory holding a link to it goes first on PYTHONPATH, so
nothing else of this interpreter's site-packages leaks in), a private IPYTHONDIR (no
profile startup files run), and its own stdout/stderr in a log file. It is a context
manager: leaving it always kills the kernel's process group and every process the program
started (`containment`: marked by their environment, watched by a guardian that outlives
even a SIGKILLed probe) and removes the temporary files. SIGINT and SIGTERM while a kernel
runs kill it at once and end the probe. While it waits for a reply it watches the kernel:
dead (crash, `os._exit`, killed by the system), over its memory limit, or past the
deadline. The kernel's output is read through a socket of the probe's own that holds a
few small messages at most (`_Output`): the probe keeps its last lines and counts the rest.

`ask` sends the probe's own query code as a silent execute (no history, no output, no
execution count) and reads the answer from `user_expressions`: the user's code is not run.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import containment, kernel_query

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # .../tapelsp
KERNEL_NAME = "tapelsp-probe"
POLL_SECONDS = 0.1
INTERRUPT_GRACE_SECONDS = 5.0
QUERY_SECONDS = 15.0
OUTPUT_TAIL_CHARACTERS = 4000  # of the program's output, kept for the report
OUTPUT_QUEUE = 32  # messages of output waiting to be read, at most; the kernel drops the rest
OUTPUT_FRAME_BYTES = 256 * 1024  # a bigger message of output is dropped (its connection is reset)
OUTPUT_SETTLE_SECONDS = 1.0


class ProbeError(Exception):
    """The probe could not do its work; `str(error)` says why in words for the user."""


class KernelDied(ProbeError):
    def __init__(self, message: str, returncode: int | None) -> None:
        super().__init__(message)
        self.returncode = returncode


class Deadline(ProbeError):
    """The time limit passed while the kernel was busy."""


class MemoryLimit(ProbeError):
    """The kernel used more memory than allowed and was stopped."""


@dataclass(frozen=True)
class Reply:
    status: str  # "ok", "error", "aborted"
    ename: str | None = None
    evalue: str | None = None
    user_expressions: dict | None = None


def require_jupyter_client():
    try:
        import jupyter_client  # noqa: F401
    except ImportError:
        raise ProbeError("the probe needs jupyter_client in the interpreter running tapelsp: "
                         "pip install 'tapelsp[probe]' (or jupyter_client and ipykernel)") from None
    return jupyter_client


def query_expression() -> str:
    """A user expression that evaluates `kernel_query`'s source in a private namespace."""
    source = kernel_query.source_text()
    return ("(lambda ns: (__import__('builtins').exec(" + repr(source) + ", ns), ns['__tapelsp_result__'])[1])"
            "({'__name__': '__tapelsp_query__'})")


def parse_query_answer(expressions: dict | None) -> dict:
    answer = (expressions or {}).get("tapelsp")
    if not isinstance(answer, dict):
        raise ProbeError("the kernel sent no answer to the probe's query")
    if answer.get("status") != "ok":
        raise ProbeError(f"the probe's query failed in the kernel: {answer.get('ename')}: {answer.get('evalue')}")
    text = (answer.get("data") or {}).get("text/plain")
    try:
        return json.loads(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError) as error:
        raise ProbeError(f"the kernel's answer could not be read ({error})") from None


def rss_megabytes(pid: int) -> float | None:
    """Resident memory of a process from /proc (None where that is not available)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        return None
    return None


def default_memory_limit_mb() -> float | None:
    """80% of physical memory: a runaway program is stopped before the machine swaps."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        return pages * size / (1024 * 1024) * 0.8
    except (ValueError, OSError, AttributeError):
        return None


class _Channel:
    """Sends requests on the shell channel and waits for their replies under a deadline."""

    def __init__(self, client, watch=None, drain=None) -> None:
        self.client = client
        self.watch = watch  # called every poll; raises to stop waiting
        self.drain = drain  # called every poll: reads the kernel's output so it cannot pile up

    def send_execute(self, code: str, *, silent: bool, user_expressions: dict | None = None,
                     cell_id: str | None = None) -> str:
        content = {"code": code, "silent": silent, "store_history": not silent,
                   "user_expressions": user_expressions or {}, "allow_stdin": False,
                   # The probe sends one request at a time; with stop_on_error the kernel would
                   # abort the report query that follows a failed cell.
                   "stop_on_error": False}
        metadata = {"cellId": cell_id} if cell_id else {}
        message = self.client.session.msg("execute_request", content, metadata=metadata)
        self.client.shell_channel.send(message)
        return message["header"]["msg_id"]

    def wait_reply(self, msg_id: str, deadline: float) -> Reply:
        while True:
            if self.watch is not None:
                self.watch()
            if self.drain is not None:
                self.drain()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline("time limit reached")
            try:
                message = self.client.get_shell_msg(timeout=min(POLL_SECONDS, remaining))
            except queue.Empty:
                continue
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            content = message.get("content", {})
            return Reply(content.get("status", "error"), content.get("ename"), content.get("evalue"),
                         content.get("user_expressions"))

    def ask(self, deadline: float) -> dict:
        for _attempt in range(3):
            msg_id = self.send_execute("", silent=True, user_expressions={"tapelsp": query_expression()})
            reply = self.wait_reply(msg_id, deadline)
            if reply.status != "aborted":
                break
            time.sleep(POLL_SECONDS)  # a failed cell of someone else's made the kernel abort its queue
        if reply.status != "ok":
            raise ProbeError(f"the kernel refused the probe's query ({reply.ename}: {reply.evalue})")
        return parse_query_answer(reply.user_expressions)


def connect(connection_file: str):
    """A blocking client on an existing kernel's shell channel only (attach mode)."""
    require_jupyter_client()
    from jupyter_client import BlockingKernelClient

    path = Path(connection_file)
    if not path.is_file():
        # A bare name like kernel-1234.json: look in Jupyter's runtime directory.
        from jupyter_client.connect import find_connection_file

        try:
            path = Path(find_connection_file(connection_file))
        except OSError:
            raise ProbeError(f"no kernel connection file {connection_file!r}") from None
    client = BlockingKernelClient()
    try:
        client.load_connection_file(str(path))
    except (OSError, ValueError, KeyError) as error:
        raise ProbeError(f"cannot read the kernel connection file {str(path)!r}: {error}") from None
    client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
    return client


def ask_kernel(client, timeout: float) -> dict:
    """The probe's report from a kernel, by a silent execute of the probe's own query code."""
    return _Channel(client).ask(time.monotonic() + timeout)


class _Output:
    """The kernel's output (its iopub channel) through a SUB socket of the probe's own: at
    most `OUTPUT_QUEUE` messages wait in it (the kernel drops what does not fit) and none
    bigger than `OUTPUT_FRAME_BYTES`, so a program that prints gigabytes costs the probe a
    few megabytes. The last `OUTPUT_TAIL_CHARACTERS` of stdout/stderr text are kept."""

    def __init__(self, client) -> None:
        import zmq

        self._zmq = zmq
        self._connected = False
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.RCVHWM, OUTPUT_QUEUE)
        self.socket.setsockopt(zmq.MAXMSGSIZE, OUTPUT_FRAME_BYTES)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.SUBSCRIBE, b"")
        # A message over the size limit resets the connection: that is how drops show.
        self.monitor = self.socket.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED)
        self.socket.connect(client._make_url("iopub"))
        self.tail = ""
        self.characters = 0  # of output text read (what was dropped is not counted)
        self.dropped = False
        self.idle: list = []  # the last requests the kernel said it finished (all their output sent)

    def settle(self, msg_id: str, seconds: float = OUTPUT_SETTLE_SECONDS) -> None:
        """Read the output of request `msg_id` to its end (its idle status), for a moment at most:
        the reply comes on another socket and may overtake the last of the output."""
        end = time.monotonic() + seconds
        while True:
            self.drain()
            if msg_id in self.idle or time.monotonic() >= end:
                return
            time.sleep(0.01)

    def drain(self) -> None:
        from zmq.utils.monitor import parse_monitor_message

        zmq = self._zmq
        try:
            while self.monitor.poll(0):
                event = parse_monitor_message(self.monitor.recv_multipart(zmq.NOBLOCK))["event"]
                if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                    self._connected = True
                elif self._connected and event in (zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED):
                    self.dropped = True  # a message too big: the connection was reset
        except (zmq.ZMQError, KeyError, ValueError):
            pass
        for _ in range(OUTPUT_QUEUE * 4):  # bounded work per poll
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            except zmq.ZMQError:
                return
            self._keep(frames)

    def _keep(self, frames: list) -> None:
        try:
            start = frames.index(b"<IDS|MSG>")
            kind = json.loads(frames[start + 2]).get("msg_type")
            if kind == "status":
                if json.loads(frames[start + 5]).get("execution_state") == "idle":
                    self.idle = (self.idle + [json.loads(frames[start + 3]).get("msg_id")])[-16:]
                return
            if kind != "stream":
                return
            text = json.loads(frames[start + 5]).get("text", "")
        except (ValueError, IndexError, AttributeError, TypeError):
            return
        if isinstance(text, str):
            self.characters += len(text)
            self.tail = (self.tail + text[-OUTPUT_TAIL_CHARACTERS:])[-OUTPUT_TAIL_CHARACTERS:]

    def close(self) -> None:
        try:
            self.socket.disable_monitor()
            self.monitor.close(linger=0)
            self.socket.close(linger=0)
            self.context.term()
        except Exception:
            pass


def _signals_end_the_probe(kernel: "KernelProcess"):
    """While a kernel runs, SIGINT (Ctrl-C) and SIGTERM (`kill`, a CI job cancelled) kill
    the kernel and everything it started on the spot, then raise KeyboardInterrupt /
    SystemExit in the main thread; the probe's next poll raises it again should the first
    one be swallowed on the way. Only where the application left Python's default
    handlers. Returns {signal: handler to restore}."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        try:
            if signal.getsignal(signum) is not default:
                continue

            def stop(number, frame):
                kernel.stop_now(KeyboardInterrupt() if number == signal.SIGINT else SystemExit(128 + number))

            signal.signal(signum, stop)
            previous[signum] = default
        except (ValueError, OSError):
            continue
    return previous


class KernelProcess:
    """An ipykernel of `python`, started for the probe and always ended with it."""

    def __init__(self, python: str | None = None, cwd: str | None = None,
                 memory_limit_mb: float | None = None) -> None:
        self.python = python or sys.executable
        self.cwd = cwd
        self.memory_limit_mb = memory_limit_mb if memory_limit_mb is not None else default_memory_limit_mb()
        self.manager = None
        self.client = None
        self.pid: int | None = None
        self.peak_rss_mb = 0.0
        self._tmp: str | None = None
        self._channel: _Channel | None = None
        self._output: _Output | None = None
        self._token = containment.new_token()
        self._stop: BaseException | None = None  # set by SIGINT/SIGTERM: raised at every poll
        self._signals: dict = {}

    # -- lifecycle --------------------------------------------------------------------
    def __enter__(self) -> "KernelProcess":
        self._signals = _signals_end_the_probe(self)
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self, timeout: float = 60.0) -> None:
        require_jupyter_client()
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        if not (os.path.isfile(self.python) and os.access(self.python, os.X_OK)):
            raise ProbeError(f"--python {self.python!r} is not an executable Python interpreter")
        self._tmp = tempfile.mkdtemp(prefix="tapelsp-probe-")
        tmp = Path(self._tmp)
        spec_dir = tmp / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        spec = {"argv": [self.python, "-m", "tapelsp.probe.launch", "-f", "{connection_file}",
                         "--HistoryManager.enabled=False"],
                "display_name": "tapelsp probe", "language": "python"}
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        (tmp / "path").mkdir()
        os.symlink(PACKAGE_DIR, tmp / "path" / "tapelsp")
        (tmp / "ipython").mkdir()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp / "path"), env.get("PYTHONPATH")]))
        env["IPYTHONDIR"] = str(tmp / "ipython")
        env["JUPYTER_RUNTIME_DIR"] = str(tmp / "runtime")
        env.pop("PYDEVD_USE_FRAME_EVAL", None)
        env[containment.RUN_VARIABLE] = self._token
        env[containment.PARENT_VARIABLE] = str(os.getpid())
        specs = KernelSpecManager(kernel_dirs=[str(tmp / "kernels")], ensure_native_kernel=False)
        self.manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs,
                                     connection_file=str(tmp / "runtime" / "kernel.json"))
        (tmp / "runtime").mkdir()
        self._log = open(tmp / "kernel.log", "wb")
        try:
            self.manager.start_kernel(cwd=self.cwd or os.getcwd(), env=env, stdout=self._log, stderr=self._log)
        except Exception as error:
            raise ProbeError(f"could not start a kernel with {self.python}: {error}") from None
        self.pid = getattr(self.manager.provisioner, "pid", None)
        client = self.manager.client()
        client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
        self.client = client
        self._output = _Output(client)
        self._channel = _Channel(client, self._watch, drain=self._output.drain)
        # The kernel is ready when it answers; a kernel that dies at start says why in its log.
        deadline = time.monotonic() + timeout
        try:
            reply = self._channel.wait_reply(self._channel.send_execute("", silent=True), deadline)
        except KernelDied as died:
            raise ProbeError(f"the kernel did not start with {self.python} ({died}){self._log_hint()}") from None
        except Deadline:
            raise ProbeError(f"the kernel did not start within {timeout:.0f} s{self._log_hint()}") from None
        if reply.status != "ok":
            raise ProbeError(f"the kernel did not start: {reply.ename}: {reply.evalue}")
        self._wait_for_output_subscription(deadline)

    def _wait_for_output_subscription(self, deadline: float) -> None:
        """Until the kernel's output reaches our SUB socket: a subscription takes effect some
        time after connecting, and what the kernel publishes before is lost (the first lines a
        short program prints). A silent execute is answered on iopub with its idle status;
        once one arrives, the output of everything sent later does too."""
        while time.monotonic() < deadline:
            msg_id = self._channel.send_execute("", silent=True)
            try:
                self._channel.wait_reply(msg_id, deadline)
            except (KernelDied, Deadline):
                return  # the run will report the kernel's state
            self._output.settle(msg_id, 0.5)
            if msg_id in self._output.idle:
                return

    def close(self) -> None:
        """Kill the kernel (its whole process group) and remove the temporary files; idempotent."""
        if self.client is not None:
            try:
                self.client.stop_channels()
            except Exception:
                pass
            self.client = None
        if self._output is not None:
            self._output.close()
        if self.manager is not None:
            try:
                if self.manager.has_kernel:
                    self.manager.shutdown_kernel(now=True)
            except Exception:
                pass
            self._kill_group()
            containment.kill_marked(self._token)
            try:
                self.manager.cleanup_resources()
            except Exception:
                pass
            self.manager = None
        log = getattr(self, "_log", None)
        if log is not None:
            log.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        previous, self._signals = self._signals, {}
        for signum, handler in previous.items():
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError):
                pass

    def stop_now(self, reason: BaseException) -> None:
        """From a signal handler: kill the kernel and what it started, then raise `reason`."""
        self._stop = reason
        if self.pid is not None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
        containment.kill_marked(self._token, rounds=1)
        raise reason

    @property
    def output_tail(self) -> str:
        return self._output.tail if self._output is not None else ""

    @property
    def output_characters(self) -> int:
        return self._output.characters if self._output is not None else 0

    @property
    def output_dropped(self) -> bool:
        return self._output.dropped if self._output is not None else False

    def _kill_group(self) -> None:
        if self.pid is None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        process = getattr(getattr(self.manager, "provisioner", None), "process", None)
        if process is not None:
            try:
                process.wait(timeout=5)
            except Exception:
                pass

    # -- watching ---------------------------------------------------------------------
    def alive(self) -> bool:
        return self.manager is not None and self.manager.is_alive()

    def returncode(self) -> int | None:
        process = getattr(getattr(self.manager, "provisioner", None), "process", None)
        return process.poll() if process is not None else None

    def _watch(self) -> None:
        if self._stop is not None:
            raise self._stop
        if not self.alive():
            code = self.returncode()
            raise KernelDied(describe_exit(code), code)
        if self.pid is not None:
            rss = rss_megabytes(self.pid)
            if rss is not None:
                self.peak_rss_mb = max(self.peak_rss_mb, rss)
                if self.memory_limit_mb is not None and rss > self.memory_limit_mb:
                    raise MemoryLimit(f"the program used {rss:.0f} MB of memory, over the probe's limit of "
                                      f"{self.memory_limit_mb:.0f} MB")

    def _log_hint(self) -> str:
        if self._tmp is None:
            return ""
        try:
            self._log.flush()
            text = (Path(self._tmp) / "kernel.log").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""
        lines = [line for line in text.splitlines() if line.strip()][-3:]
        return (": " + " | ".join(lines)) if lines else ""

    # -- work -------------------------------------------------------------------------
    def run(self, code: str, deadline: float, *, cell_id: str | None = None) -> Reply:
        assert self._channel is not None
        msg_id = self._channel.send_execute(code, silent=False, cell_id=cell_id)
        reply = self._channel.wait_reply(msg_id, deadline)
        if self._output is not None:
            self._output.settle(msg_id)
        return reply

    def run_silent(self, code: str, deadline: float) -> Reply:
        assert self._channel is not None
        return self._channel.wait_reply(self._channel.send_execute(code, silent=True), deadline)

    def ask(self, timeout: float = QUERY_SECONDS) -> dict:
        assert self._channel is not None
        return self._channel.ask(time.monotonic() + timeout)

    def interrupt(self, grace: float = INTERRUPT_GRACE_SECONDS, msg_id: str | None = None) -> bool:
        """SIGINT the kernel and wait for it to become idle; False when it did not."""
        try:
            self.manager.interrupt_kernel()
        except Exception:
            return False
        deadline = time.monotonic() + grace
        try:
            reply = self.run_silent("", deadline)
        except ProbeError:
            return False
        return reply.status in ("ok", "error", "aborted")


def describe_exit(code: int | None) -> str:
    if code is None:
        return "the kernel process ended"
    if code < 0:
        number = -code
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hint = " (the system may have run out of memory)" if number == signal.SIGKILL else ""
        return f"the kernel was killed by {name}{hint}"
    return f"the kernel process exited with status {code}"


def reply_error(reply: Reply) -> str:
    """"ValueError: <TensorFlow's sentence>" from an error reply, in one line."""
    if not reply.ename:
        return reply.status
    return f"{reply.ename}: {short_message(reply.evalue or '')}"


_OP_PREFIX = re.compile(r"\{\{function_node [^}]*\}\}\s*")
_NAMED_ERROR = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception): ")


def short_message(text: str, limit: int = 240) -> str:
    """One line of an exception's text: TensorFlow's own sentence when it prefaces it with
    "in user code:" frames, without its `{{function_node ...}}` op prefix."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0]
    if line.startswith("in user code:"):
        named = [l for l in lines if _NAMED_ERROR.match(l)]
        line = _NAMED_ERROR.sub("", named[-1]) if named else lines[-1]
    line = _OP_PREFIX.sub("", line)
    return line if len(line) <= limit else line[: limit - 3] + "..."


__all__ = ["KernelProcess", "ProbeError", "KernelDied", "Deadline", "MemoryLimit", "Reply", "connect",
           "ask_kernel", "query_expression", "parse_query_answer", "describe_exit", "reply_error", "short_message"]
