"""The server's state: open documents and notebooks, settings, and the analysis machinery.

Handlers (one module per LSP area under `handlers/`) call into the session; the session
calls the engine only through worker processes (`pool`), on the schedule of `scheduler`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any, Optional

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from . import jobs
from .client_features import ClientFeatures
from .convert import digest, identity, to_diagnostic
from .documents import TextDocument
from .editor_settings import EditorSettings, SettingsResolver, parse_editor_settings
from .notebooks import NotebookDocument, python_cells
from .pool import WorkerPool
from .probing import Probes
from .scheduler import Scheduler
from .snapshots import Analysis, CellSnapshot, Ident, Snapshot

if TYPE_CHECKING:
    from .server import TapeLanguageServer

log = logging.getLogger("tapelsp.lsp")

DEFAULT_DEBOUNCE = 0.15  # seconds of quiet after a change before analysing
# How long analysis waits for the client's settings (`workspace/configuration`) at start-up.
SETTINGS_WAIT = 10.0
VIRTUAL_DOCUMENTS = "/.virtual_documents/"


class Session:
    def __init__(self, server: "TapeLanguageServer", *, workers: int = 2) -> None:
        self.server = server
        self.features = ClientFeatures()
        self.documents: dict[str, TextDocument] = {}
        self.notebooks: dict[str, NotebookDocument] = {}
        self.cell_owner: dict[str, str] = {}
        # Bumped on every change of a document or notebook: (revision, generation) is the
        # identity of what gets analysed, whatever versions the client sends.
        self.revisions: dict[str, int] = {}
        self.editor = EditorSettings()
        self.root: Optional[str] = None
        self.folders: list[str] = []
        self.resolver = SettingsResolver(self.editor, None)
        self.generation = 0
        self.project_generation = 0
        self.pool = WorkerPool(size=workers)
        self.scheduler = Scheduler(self.pool, ident_of=self.ident_of, snapshot_of=self.snapshot_of,
                                   on_analysis=self.on_analysis, debounce=self.debounce,
                                   ready=self.settings_known)
        self._settings_known: Optional[asyncio.Event] = None
        # The fingerprint of what each URI was last sent (pushed, or pulled for notebook cells).
        self.pushed: dict[str, str] = {}
        self._shown_problems: set[str] = set()
        self.probes = Probes(self)

    # -- set-up ---------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams, encoding: Any) -> None:
        self.features = ClientFeatures.of(params.capabilities, encoding)
        root = params.root_uri or (from_fs_path(params.root_path) if params.root_path else None)
        folders = [to_fs_path(folder.uri) for folder in params.workspace_folders or ()]
        self.folders = [folder for folder in folders if folder]
        self.root = (to_fs_path(root) if root else None) or (self.folders[0] if self.folders else None)
        self.apply_settings(params.initialization_options, reanalyse=False)

    def settings_arrived(self) -> None:
        """The client's settings are in (or it has none to give): analysis may start."""
        self._known().set()

    async def settings_known(self) -> None:
        event = self._known()
        if not event.is_set():
            try:
                await asyncio.wait_for(event.wait(), SETTINGS_WAIT)
            except asyncio.TimeoutError:
                event.set()  # a client that never sends `initialized`: go on with what we have

    def _known(self) -> asyncio.Event:
        if self._settings_known is None:
            self._settings_known = asyncio.Event()
        return self._settings_known

    def debounce(self) -> float:
        return self.editor.debounce if self.editor.debounce is not None else DEFAULT_DEBOUNCE

    # -- settings ---------------------------------------------------------------------------
    def apply_settings(self, raw: Any, *, reanalyse: bool = True) -> None:
        parsed = parse_editor_settings(raw)
        for problem in parsed.problems:
            self.show_problem(problem)
        self.editor = parsed.settings
        self.reload_configuration(reanalyse=reanalyse)

    def reload_configuration(self, *, reanalyse: bool = True) -> None:
        """Settings or a pyproject.toml changed: resolve again and re-check every open document."""
        self.resolver = SettingsResolver(self.editor, self.root)
        if self.resolver.problem:
            self.show_problem(self.resolver.problem)
        self.generation += 1
        self.project_generation += 1
        if reanalyse:
            for key in self.open_keys():
                self.scheduler.touch(key, delay=0.0)
            if self.features.pull_diagnostics and self.features.diagnostic_refresh:
                self.server.workspace_diagnostic_refresh(None)

    def show_problem(self, message: str) -> None:
        """Tell the user once about a configuration problem (and log it every time)."""
        log.warning("%s", message)
        if message not in self._shown_problems:
            self._shown_problems.add(message)
            self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                                    message=f"tapelsp: {message}"))

    # -- documents --------------------------------------------------------------------------
    def open_keys(self) -> list[str]:
        return [*self.documents, *self.notebooks]

    def bump(self, key: str) -> None:
        self.revisions[key] = self.revisions.get(key, 0) + 1

    def owner_of(self, uri: str) -> Optional[str]:
        """The key whose analysis covers `uri`: the document itself, or a cell's notebook."""
        if uri in self.documents or uri in self.notebooks:
            return uri
        return self.cell_owner.get(uri)

    def text_lines(self, uri: str) -> Optional[list[str]]:
        """The current lines of a text document or a notebook cell."""
        if uri in self.documents:
            return self.documents[uri].lines
        owner = self.cell_owner.get(uri)
        if owner is not None:
            cell = self.notebooks[owner].cell(uri)
            if cell is not None:
                return cell.document.lines
        return None

    def version_of(self, uri: str) -> Optional[int]:
        if uri in self.documents:
            return self.documents[uri].version
        owner = self.cell_owner.get(uri)
        if owner is not None:
            cell = self.notebooks[owner].cell(uri)
            return cell.document.version if cell is not None else None
        return None

    def ident_of(self, key: str) -> Optional[Ident]:
        if key not in self.documents and key not in self.notebooks:
            return None
        return (self.revisions.get(key, 0), self.generation)

    def snapshot_of(self, key: str) -> Optional[Snapshot]:
        if self.resolver.stale():  # a pyproject.toml changed and nobody told us
            self.reload_configuration()
        ident = self.ident_of(key)
        if ident is None:
            return None
        if key in self.documents:
            document = self.documents[key]
            path = settings_path(key)
            source = jobs.Source(jobs.TEXT, path, text=document.text, magics=is_virtual_notebook(key))
            lines = tuple(document.lines)
            client_version: Optional[int] = document.version
            cells: tuple[CellSnapshot, ...] = ()
        else:
            notebook = self.notebooks[key]
            path = settings_path(key)
            python = {number for number, _cell in python_cells(notebook)}
            source = jobs.Source(jobs.NOTEBOOK, path, cells=tuple(
                ("code" if number in python else "raw", cell.document.text)
                for number, cell in enumerate(notebook.cells, start=1)))
            lines = ()
            client_version = None
            cells = tuple(CellSnapshot(cell.uri, cell.document.version, number, number in python,
                                       tuple(cell.document.lines))
                          for number, cell in enumerate(notebook.cells, start=1))
        settings = self.resolver.settings_for(path)
        if self.resolver.problem:
            self.show_problem(self.resolver.problem)
        return Snapshot(key=key, version=ident[0], generation=ident[1], source=source, settings=settings,
                        lines=lines, client_version=client_version, cells=cells, excluded=self.resolver.excluded(path),
                        project_root=self.project_root(path), project_generation=self.project_generation)

    def project_root(self, path: Optional[str]) -> Optional[str]:
        if path is not None:
            for folder in sorted(self.folders, key=len, reverse=True):
                if os.path.abspath(path).startswith(os.path.abspath(folder) + os.sep):
                    return folder
        return self.root

    # -- results ------------------------------------------------------------------------------
    def reports(self, analysis: Analysis) -> dict[str, tuple[Optional[int], list[types.Diagnostic], str]]:
        """uri -> (version, diagnostics, fingerprint) for every document the analysis covers."""
        encoding = self.features.encoding
        built = self.scheduler.built(analysis)
        snapshot = analysis.snapshot
        # After a probe of this very text: its merged findings instead of the static ones.
        marks = self.probes.current_marks(snapshot.key, analysis.ident)
        found_all = marks.violations if marks is not None else analysis.violations
        # A probed finding's fix is the static finding's (the same code, cell and range).
        static_key = {(v.code, v.cell, v.range): identity(v) for v in analysis.violations}
        targets = ([(snapshot.key, snapshot.client_version, snapshot.lines, found_all)]
                   if not snapshot.is_notebook else
                   [(cell.uri, cell.version, cell.lines, tuple(v for v in found_all if v.cell == cell.number))
                    for cell in snapshot.cells if cell.python])
        out: dict[str, tuple[Optional[int], list[types.Diagnostic], str]] = {}
        for uri, version, lines, found in targets:
            diagnostics = []
            fixes = []
            for violation in found:
                key = static_key.get((violation.code, violation.cell, violation.range), identity(violation))
                fix = built.get(key, (None, None))[0]
                fixes.append(fix)
                diagnostics.append(to_diagnostic(violation, uri, lines, encoding, version,
                                                 fixable=key in analysis.offered, fix=fix))
            out[uri] = (version, diagnostics, digest(found, fixes))
        return out

    def on_analysis(self, analysis: Analysis) -> None:
        if analysis.error is not None:
            return  # keep what the client has; the failure is logged
        self.publish(analysis)
        self.scheduler.mark_published(analysis)

    def publish(self, analysis: Analysis) -> None:
        """Push mode: send what changed. Pull mode: ask for a re-pull when a notebook's other
        cells changed (the client only re-pulls the cell that was edited)."""
        reports = self.reports(analysis)
        if self.features.pull_diagnostics:
            if analysis.snapshot.is_notebook and self.features.diagnostic_refresh:
                fingerprints = {uri: report[2] for uri, report in reports.items()}
                if any(self.pushed.get(uri) != value for uri, value in fingerprints.items()):
                    self.pushed.update(fingerprints)
                    self.server.workspace_diagnostic_refresh(None)
            return
        for uri, (version, diagnostics, fingerprint) in reports.items():
            key = f"{version}:{fingerprint}"
            if self.pushed.get(uri) == key:
                continue
            self.pushed[uri] = key
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def clear(self, uris: list[str]) -> None:
        """Closed documents and removed cells: their diagnostics go away (push mode)."""
        for uri in uris:
            self.pushed.pop(uri, None)
            if not self.features.pull_diagnostics:
                self.server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def close(self) -> None:
        await self.probes.close()
        for key in self.open_keys():
            self.scheduler.forget(key)
        await self.pool.close()


def is_virtual_notebook(uri: str) -> bool:
    """jupyterlab-lsp's virtual document: a notebook's cells joined as one Python text."""
    path = to_fs_path(uri) or uri
    return path.endswith(".ipynb") or VIRTUAL_DOCUMENTS in path.replace(os.sep, "/")


def settings_path(uri: str) -> Optional[str]:
    """The file path that settings and per-file-ignores are matched against (None: no file)."""
    path = to_fs_path(uri)
    if path is None:
        return None
    posix = path.replace(os.sep, "/")
    if VIRTUAL_DOCUMENTS in posix:  # jupyterlab-lsp mirrors the notebook's path under it
        path = posix.replace(VIRTUAL_DOCUMENTS, "/", 1)
    return path
