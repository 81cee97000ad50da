"""The live probe, driven by the language server: `tapelsp/probe`, the `tapelsp.probe` and
`tapelsp.attach` commands, and opt-in auto-attach for notebooks.

Run mode starts a Jupyter kernel in the chosen interpreter and runs the document's saved
file (or notebook) in it under the probe's instrumentation; attach mode asks a notebook's
running kernel what the instrumentation recorded, running none of the user's code. Either
way the work happens in a probe process of its own (`probe_process`), never in the server,
which keeps answering other requests meanwhile.

The merged findings (confirmed ones with the evidence, runtime-only RT findings, refuted
ones dropped) become the document's diagnostics through `Session.reports`, for as long as
the document keeps the text that was probed: the next edit brings back the static findings
alone (a runtime fact about a line says nothing about its new text). Auto-attach probes
again after each edit.

Nothing runs unless the probe is enabled (`probe.enabled`) and the workspace is trusted
(`workspaceTrusted`, see `editor_settings`); auto-attach also needs `probe.autoAttach`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from ..model import Violation
from .editor_settings import ProbeSettings, probe_settings
from .probe_jobs import ATTACH, RUN, ProbeFailed, ProbeJob, ProbeOutcome
from .probe_process import ProbeProcess
from .snapshots import Ident

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("tapelsp.lsp")

REQUEST = "tapelsp/probe"
PROBE_COMMAND = "tapelsp.probe"
ATTACH_COMMAND = "tapelsp.attach"
CAPABILITY = "tapelspProbe"  # in ServerCapabilities.experimental
START_ALLOWANCE = 90.0  # seconds on top of the time limit for the kernel's start and the report
ATTACH_TIMEOUT = 10.0
ATTACH_DEBOUNCE = 1.0  # seconds of quiet after a notebook edit before auto-attach asks the kernel
METADATA_KEY = "tapelsp"  # notebookDocument.metadata.tapelsp.connectionFile


class ProbeRefused(JsonRpcException):
    """The probe was not run (disabled, untrusted, nothing to probe...): LSP RequestFailed."""

    CODE = -32803


class ProbeCancelled(ProbeRefused):
    """The user cancelled the probe's progress (`window/workDoneProgress/cancel`): RequestCancelled."""

    CODE = -32800


@dataclass(frozen=True)
class Marks:
    """A probe's merged findings for one document, valid while it has the probed text."""

    ident: Ident
    violations: tuple[Violation, ...]
    mode: str


@dataclass
class Running:
    process: ProbeProcess
    mode: str
    task: Optional[asyncio.Task] = None


@dataclass
class Attachment:
    connection_file: str
    timer: Optional[asyncio.TimerHandle] = None
    task: Optional[asyncio.Task] = None
    attaches: int = 0  # how many times the kernel was asked (for the status request)


@dataclass
class Probes:
    session: "Session"
    marks: dict[str, Marks] = field(default_factory=dict)
    running: dict[str, Running] = field(default_factory=dict)
    attachments: dict[str, Attachment] = field(default_factory=dict)
    runs: int = 0
    _tokens: Any = field(default_factory=lambda: itertools.count(1))

    # -- what the session asks ----------------------------------------------------------
    def current_marks(self, key: str, ident: Ident) -> Optional[Marks]:
        marks = self.marks.get(key)
        if marks is not None and marks.ident != ident:
            del self.marks[key]  # the text changed since the probe: static findings again
            return None
        return marks

    def settings(self) -> ProbeSettings:
        return probe_settings(self.session.editor)

    def refusal(self) -> Optional[str]:
        settings = self.settings()
        if not settings.enabled:
            return ("the live probe is off: it runs your code under your TensorFlow, so it needs the setting "
                    "tapelsp.probe.enabled (VS Code: tapelsp.probe.enable) set to true")
        if not settings.trusted:
            return "tapelsp never runs code from an untrusted workspace: trust the workspace to probe it"
        return None

    def status(self) -> dict:
        # Lists, not objects keyed by URI: clients that turn objects into records need names.
        return {"runs": self.runs, "running": sorted(self.running),
                "marked": sorted(self.marks),
                "attachments": [{"uri": key, "connectionFile": a.connection_file, "attaches": a.attaches,
                                 "pending": a.timer is not None or (a.task is not None and not a.task.done())}
                                for key, a in self.attachments.items()],
                "processes": [{"uri": key, "pid": r.process.pid, "mode": r.mode} for key, r in self.running.items()]}

    # -- run mode ------------------------------------------------------------------------
    async def probe(self, uri: str, timeout: Any = None, token: Any = None) -> dict:
        """Run the document's file under the probe and publish the merged findings."""
        session = self.session
        problem = self.refusal()
        if problem is not None:
            self.refuse(problem)
        key = session.owner_of(uri) if isinstance(uri, str) else None
        if key is None:
            self.refuse(f"{uri} is not open in the editor: open it to probe it")
        path = to_fs_path(key)
        if not path or not os.path.isfile(path):
            self.refuse("the probe runs files: save the document first")
        stale = self.unsaved(key, path)
        if stale:
            self.refuse(stale)
        if key in self.running:
            self.refuse(f"a probe of {os.path.basename(path)} is already running")
        self.running[key] = Running(ProbeProcess(), RUN)  # taken now: the awaits below let others in
        settings = self.settings()
        seconds = settings.timeout
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            seconds = float(timeout)
        snapshot = session.snapshot_of(key)
        assert snapshot is not None
        job = ProbeJob(RUN, path, snapshot.settings, python=settings.python, timeout=seconds)
        name = os.path.basename(path)
        python = settings.python or "the server's Python"
        try:
            progress = await self.progress_start(token, f"tapelsp: probing {name}", f"starting a kernel ({python})")
        except BaseException:
            self.running.pop(key, None)
            raise
        ticker = asyncio.ensure_future(self._tick(progress, name, seconds))
        try:
            outcome = await self._run(key, job, seconds + START_ALLOWANCE, progress)
        except asyncio.CancelledError:
            self.progress_end(progress, "cancelled: the probe and its kernel were stopped")
            raise
        finally:
            ticker.cancel()
        return self.finish(key, snapshot.ident, outcome, progress, name)

    def unsaved(self, key: str, path: str) -> Optional[str]:
        """Why the editor's text is not what the probe would run (None when it is)."""
        from ..files import UnreadableFile, read_source
        from ..notebook import NotebookError, code_cells

        session = self.session
        try:
            disk = read_source(path).text
        except (UnreadableFile, OSError) as error:
            return f"cannot read {path}: {error}"
        if key in session.documents:
            same = disk == session.documents[key].text
        else:
            notebook = session.notebooks[key]
            try:
                saved = [text for _number, text in code_cells(disk)]
            except NotebookError as error:
                return f"cannot read {path}: {error}"
            # Every code cell, Python or not (a %%bash cell runs too), in the file's order.
            same = saved == [cell.document.text for cell in notebook.cells if cell.kind == types.NotebookCellKind.Code]
        return None if same else (f"{os.path.basename(path)} has unsaved changes: the probe runs the saved file, "
                                  "so save it first")

    async def _run(self, key: str, job: ProbeJob, limit: float,
                   progress: Optional[str] = None) -> ProbeOutcome | ProbeFailed:
        """The probe's outcome. Cancelling the request (`$/cancelRequest`) or the progress
        (`window/workDoneProgress/cancel`, the way a workspace/executeCommand is cancelled)
        stops the probe process and its kernel."""
        running = self.running.get(key)
        if running is None or running.mode != job.mode or running.process.process is not None:
            running = Running(ProbeProcess(), job.mode)
            self.running[key] = running
        process = running.process
        self.runs += 1
        cancelled = asyncio.Event()
        watched = self.session.server.work_done_progress.tokens.get(progress) if progress is not None else None
        if watched is not None:
            loop = asyncio.get_running_loop()
            watched.add_done_callback(lambda done: loop.call_soon_threadsafe(cancelled.set) if done.cancelled()
                                      else None)
        work = asyncio.ensure_future(process.run(job, limit))
        waiter = asyncio.ensure_future(cancelled.wait())
        try:
            await asyncio.shield(asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED))
            if not work.done():
                await process.stop()
                work.cancel()
                self.progress_end(progress, "cancelled: the probe and its kernel were stopped")
                raise ProbeCancelled("the probe was cancelled; it and its kernel were stopped")
            return work.result()
        except asyncio.CancelledError:
            process.stop_soon()
            work.cancel()
            raise
        finally:
            waiter.cancel()
            if self.running.get(key) is running:
                del self.running[key]

    async def _tick(self, progress: Optional[str], name: str, seconds: float) -> None:
        started = time.monotonic()
        while True:
            await asyncio.sleep(1.0)
            elapsed = time.monotonic() - started
            self.progress_report(progress, f"running {name}: {elapsed:.0f} s (time limit {seconds:g} s)",
                                 min(99, int(100 * elapsed / (seconds + 15))))

    def finish(self, key: str, ident: Ident, outcome: ProbeOutcome | ProbeFailed, progress: Optional[str],
               name: str) -> dict:
        session = self.session
        if isinstance(outcome, ProbeFailed):
            self.progress_end(progress, f"failed: {outcome.message}")
            session.server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"tapelsp: the probe of {name} failed: {outcome.message}"))
            raise ProbeRefused(f"the probe failed: {outcome.message}")
        counts = (f"{outcome.confirmed} confirmed, {len(outcome.refuted)} refuted, "
                  f"{outcome.runtime_only} runtime-only")
        current = session.ident_of(key) == ident
        if current:
            self.marks[key] = Marks(ident, outcome.violations, RUN)
            self.publish(key)
        self.progress_end(progress, f"{outcome.summary}; {counts}")
        message = f"tapelsp: probed {name}: {outcome.summary} in {outcome.seconds:.1f} s; {counts}"
        if not current:
            message += " (the document changed meanwhile: its findings stay static)"
        session.server.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=message))
        for dropped in outcome.refuted:
            where = f"cell {dropped.cell}, line" if dropped.cell is not None else "line"
            session.server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Info,
                message=f"tapelsp: probe dropped {dropped.code} at {where} {dropped.line + 1}: {dropped.reason}"))
        return {"uri": key, "summary": outcome.summary, "confirmed": outcome.confirmed,
                "refuted": [{"code": d.code, "cell": d.cell, "line": d.line, "reason": d.reason}
                            for d in outcome.refuted],
                "runtimeOnly": outcome.runtime_only, "seconds": round(outcome.seconds, 3), "published": current,
                "findings": len(outcome.violations)}

    def publish(self, key: str) -> None:
        """Send the document's diagnostics again (they now carry the runtime marks)."""
        session = self.session
        analysis = session.scheduler.latest(key)
        if session.features.pull_diagnostics:
            if session.features.diagnostic_refresh:
                session.server.workspace_diagnostic_refresh(None)
            return
        if analysis is not None and analysis.ident == session.ident_of(key) and analysis.error is None:
            session.publish(analysis)
        else:
            session.scheduler.touch(key, delay=0.0)

    def refuse(self, message: str) -> None:
        self.session.server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"tapelsp: {message}"))
        raise ProbeRefused(message)

    # -- attach mode ---------------------------------------------------------------------
    def set_connection_file(self, key: str, connection_file: Optional[str]) -> None:
        known = self.attachments.get(key)
        if not connection_file:
            if known is not None:
                self.forget(key)
            return
        if known is None:
            self.attachments[key] = Attachment(connection_file)
        else:
            known.connection_file = connection_file

    def notebook_metadata(self, key: str, metadata: Any) -> None:
        """`notebookDocument.metadata.tapelsp.connectionFile`, when the client sends one."""
        value = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
        connection = value.get("connectionFile") if isinstance(value, dict) else None
        if isinstance(connection, str) and connection.strip():
            self.set_connection_file(key, connection.strip())

    def changed(self, key: str) -> None:
        """A document changed (or opened): with auto-attach on, ask its kernel again soon."""
        attachment = self.attachments.get(key)
        if attachment is None:
            return
        settings = self.settings()
        if not (settings.auto_attach and settings.enabled and settings.trusted):
            return
        if attachment.timer is not None:
            attachment.timer.cancel()
        loop = asyncio.get_running_loop()
        attachment.timer = loop.call_later(ATTACH_DEBOUNCE, self._attach_soon, key)

    def _attach_soon(self, key: str) -> None:
        attachment = self.attachments.get(key)
        if attachment is None:
            return
        attachment.timer = None
        if attachment.task is not None and not attachment.task.done():
            self.changed(key)  # one at a time: try again after this one
            return
        attachment.task = asyncio.ensure_future(self._attach_logged(key))

    async def _attach_logged(self, key: str) -> None:
        try:
            await self.attach(key, quiet=True)
        except ProbeRefused as refused:
            log.info("auto-attach for %s: %s", key, refused.message)
        except Exception:
            log.exception("auto-attach for %s failed", key)

    async def attach(self, key: str, connection_file: Optional[str] = None, *, quiet: bool = False,
                     token: Any = None) -> dict:
        """Ask the document's kernel for its report (no user code runs) and merge it."""
        session = self.session
        problem = self.refusal()
        if problem is not None:
            if quiet:
                raise ProbeRefused(problem)
            self.refuse(problem)
        owner = session.owner_of(key)
        if owner is None:
            self.refuse(f"{key} is not open in the editor")
        key = owner  # type: ignore[assignment]
        if connection_file:
            self.set_connection_file(key, connection_file)
        attachment = self.attachments.get(key)
        if attachment is None:
            self.refuse("no kernel connection file is known for this document (pass one to tapelsp.attach, or "
                        f"set notebookDocument.metadata.{METADATA_KEY}.connectionFile)")
        assert attachment is not None
        if key in self.running:
            if quiet:
                raise ProbeRefused("a probe of this document is running")
            self.refuse("a probe of this document is already running")
        snapshot = session.snapshot_of(key)
        assert snapshot is not None
        source = snapshot.source
        path = to_fs_path(key) or key
        job = ProbeJob(ATTACH, path, snapshot.settings, timeout=ATTACH_TIMEOUT,
                       connection_file=attachment.connection_file, text=source.text, cells=source.cells,
                       notebook=snapshot.is_notebook)
        name = os.path.basename(path)
        progress = None if quiet else await self.progress_start(token, f"tapelsp: asking the kernel of {name}",
                                                                 attachment.connection_file)
        attachment.attaches += 1
        outcome = await self._run(key, job, ATTACH_TIMEOUT + 30.0, progress)
        if isinstance(outcome, ProbeFailed) and quiet:
            log.info("auto-attach for %s: %s", key, outcome.message)
            return {"uri": key, "failed": outcome.message}
        return self.finish(key, snapshot.ident, outcome, progress, name)

    def forget(self, key: str) -> None:
        """The document was closed: stop what runs for it and drop its marks."""
        self.marks.pop(key, None)
        attachment = self.attachments.pop(key, None)
        if attachment is not None:
            if attachment.timer is not None:
                attachment.timer.cancel()
            if attachment.task is not None:
                attachment.task.cancel()
        running = self.running.pop(key, None)
        if running is not None:
            running.process.stop_soon()

    async def close(self) -> None:
        for key in list(self.attachments):
            self.forget(key)
        stopping = [running.process.stop() for running in self.running.values()]
        self.running.clear()
        if stopping:
            await asyncio.gather(*stopping, return_exceptions=True)

    # -- progress ------------------------------------------------------------------------
    async def progress_start(self, token: Any, title: str, message: str) -> Optional[str]:
        """A work-done progress: the client's token, or one the server creates when it may."""
        server = self.session.server
        if token is None:
            if not self.session.features.work_done_progress:
                return None
            token = f"tapelsp-probe-{next(self._tokens)}"
            try:
                await asyncio.wait_for(server.work_done_progress.create_async(token), 10.0)
            except Exception as error:
                log.info("window/workDoneProgress/create failed: %s", error)
                return None
        try:
            server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title=title, message=message, cancellable=True, percentage=0))
        except Exception as error:
            log.info("$/progress begin failed: %s", error)
            return None
        return token

    def progress_report(self, token: Optional[str], message: str, percentage: int) -> None:
        if token is None:
            return
        try:
            self.session.server.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=message, percentage=percentage))
        except Exception:
            pass

    def progress_end(self, token: Optional[str], message: str) -> None:
        if token is None:
            return
        progress = self.session.server.work_done_progress
        try:
            progress.end(token, types.WorkDoneProgressEnd(message=message))
        except Exception:
            pass
        progress.tokens.pop(token, None)
