"""When to analyse: debounced per document, newest version wins, one result per version.

Each document (a text document, or a notebook as a whole) has a slot. A change moves the
slot's deadline; one driver task per slot waits until the document has been quiet for the
debounce delay, snapshots the newest version, and has a worker analyse it. Changes that
arrive during an analysis only move the deadline again: when the analysis ends, the driver
goes round once more for the newest version. So a burst of changes costs at most the
analysis that was already running plus one for the last version, never one per change.

A result is kept per (revision, settings generation). Results for a version that is no
longer current are never published. Fixes are built per finding, on request, by the
worker that holds the analysis's fix offers (see `fix_offers`), and cached with the result.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional, Sequence

from ..model import Fix, Violation
from . import jobs
from .convert import identity
from .pool import BACKGROUND, DIAGNOSTICS, FIXES, WorkerError, WorkerPool
from .snapshots import Analysis, Ident, Snapshot

log = logging.getLogger("tapelsp.lsp")

Built = tuple[Optional[Fix], Optional[str]]  # a finding's fix, or why it has none

# Documents longer than this are kept but not analysed: a 2 MB module takes a worker about
# 9 s and 400 MB, and both grow with the size (a 20 MB one went past 1.9 GB).
MAX_ANALYSED_CHARACTERS = 2_000_000
# Seconds a document stays unchanged before the fixes of its findings are built ahead of time.
FIX_AHEAD_DELAY = 0.3
# Seconds an analysis waits for the busy worker that analysed the document's previous version
# (it analyses only what changed; another worker may have to analyse the whole text), and a
# fix waits for the worker that holds its analysis (another would analyse the text again).
PREFERRED_PATIENCE = 0.5
FIX_PATIENCE = 30.0


def source_size(source: jobs.Source) -> int:
    return len(source.text or "") + sum(len(text) for _kind, text in (source.cells or ()))


@dataclass
class _Slot:
    deadline: float = 0.0
    driver: Optional[asyncio.Task] = None
    result: Optional[Analysis] = None
    delivered: Optional[Ident] = None  # the newest result handed to on_analysis
    # Fixes built for findings of `result` (identity -> fix), and the ones being built.
    built: dict[tuple, Built] = field(default_factory=dict)
    building: dict[tuple, asyncio.Future] = field(default_factory=dict)
    # Other values computed from `result` on request (the ignore-comment edits...).
    memo: dict = field(default_factory=dict)
    waiters: list[asyncio.Future] = field(default_factory=list)
    analyses: int = 0  # how many analyses were started for this slot (for the status request)
    ahead: Optional[asyncio.Task] = None  # building fixes ahead of time (see _build_ahead)
    changed_at: float = 0.0  # monotonic time of the last change
    published_after: Optional[float] = None  # seconds from the last change to its diagnostics


class Scheduler:
    def __init__(self, pool: WorkerPool, *,
                 ident_of: Callable[[str], Optional[Ident]],
                 snapshot_of: Callable[[str], Optional[Snapshot]],
                 on_analysis: Callable[[Analysis], None],
                 debounce: Callable[[], float],
                 ready: Optional[Callable[[], Awaitable[None]]] = None,
                 fix_ahead: bool = True) -> None:
        self._pool = pool
        self._ident_of = ident_of
        self._snapshot_of = snapshot_of
        self._on_analysis = on_analysis
        self._debounce = debounce
        self._ready = ready
        self._fix_ahead = fix_ahead
        self._slots: dict[str, _Slot] = {}

    # -- notifications from the session -------------------------------------------------
    def touch(self, key: str, delay: float | None = None) -> None:
        """The document changed (or its settings did): analyse it after the debounce delay."""
        slot = self._slots.setdefault(key, _Slot())
        if slot.ahead is not None:
            slot.ahead.cancel()  # no new fix is built ahead for a version that is gone
            slot.ahead = None
        now = asyncio.get_running_loop().time()
        slot.deadline = now + (self._debounce() if delay is None else delay)
        slot.changed_at = time.monotonic()
        if slot.driver is None or slot.driver.done():
            slot.driver = asyncio.ensure_future(self._drive(key, slot))

    def forget(self, key: str) -> None:
        """The document was closed: stop its work and drop its results."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return
        if slot.driver is not None and not slot.driver.done():
            slot.driver.cancel()
        for future in slot.building.values():
            future.cancel()
        if slot.ahead is not None:
            slot.ahead.cancel()
        self._wake(slot)

    # -- results ---------------------------------------------------------------------------
    def latest(self, key: str) -> Optional[Analysis]:
        """The newest result for the document, current or not."""
        slot = self._slots.get(key)
        return slot.result if slot is not None else None

    async def current(self, key: str) -> Optional[Analysis]:
        """The result for the document's current version (waiting for it); None once closed."""
        while True:
            ident = self._ident_of(key)
            slot = self._slots.get(key)
            if ident is None or slot is None:
                return None
            if slot.result is not None and slot.result.ident == ident:
                return slot.result
            if slot.driver is None or slot.driver.done():
                self.touch(key, delay=0.0)
            await self._wait(slot)

    def built(self, analysis: Analysis) -> dict[tuple, Built]:
        """The fixes built so far for findings of `analysis`."""
        slot = self._slots.get(analysis.snapshot.key)
        if slot is None or slot.result is not analysis:
            return {}
        return dict(slot.built)

    def memo(self, analysis: Analysis) -> dict:
        """A scratch dict that lives as long as `analysis` is the document's result."""
        slot = self._slots.get(analysis.snapshot.key)
        return slot.memo if slot is not None and slot.result is analysis else {}

    async def fixes(self, analysis: Analysis, findings: Sequence[Violation]) -> dict[tuple, Built]:
        """The fixes of `findings` (of `analysis`), building the ones not built yet."""
        slot = self._slots.get(analysis.snapshot.key)
        if slot is None or slot.result is not analysis:
            return {}
        wanted = [identity(v) for v in findings if identity(v) in analysis.offered]
        missing = [key for key in wanted if key not in slot.built and key not in slot.building]
        if missing:
            loop = asyncio.get_running_loop()
            futures = {key: loop.create_future() for key in missing}
            slot.building.update(futures)
            task = asyncio.ensure_future(self._build(slot, analysis, tuple(missing)))
            task.add_done_callback(lambda done: self._settle_builds(slot, futures, done))
        pending = [slot.building[key] for key in wanted if key in slot.building]
        if pending:
            await asyncio.gather(*(asyncio.shield(future) for future in pending), return_exceptions=True)
        return {key: slot.built.get(key, (None, None)) for key in wanted}

    async def _build_ahead(self, slot: _Slot, analysis: Analysis) -> None:
        """Once the document has been quiet for FIX_AHEAD_DELAY seconds, build the fixes of its
        findings one by one, in the background, in the worker that holds the analysis (which
        keeps them for the next versions): a quick fix asked for later is there at once.
        Pauses while that worker is busy; stops when a newer version is analysed."""
        await asyncio.sleep(FIX_AHEAD_DELAY)
        order = sorted(analysis.offered, key=lambda key: (key[1] or 0, key[2]))
        for key in order:
            while analysis.worker not in self._pool.idle_pids():
                if analysis.worker not in self._pool.pids():
                    return  # that worker is gone, and the analysis with it
                await asyncio.sleep(FIX_AHEAD_DELAY)  # busy: the user's jobs go first
            if slot.result is not analysis or self._slots.get(analysis.snapshot.key) is not slot:
                return
            if key in slot.built or key in slot.building:
                continue
            future = asyncio.get_running_loop().create_future()
            slot.building[key] = future
            try:
                done = await self._build(slot, analysis, (key,), priority=BACKGROUND, ahead=True)
            finally:
                if slot.building.get(key) is future:
                    del slot.building[key]
                if not future.done():
                    future.set_result(None)
            if not done:
                return

    async def _build(self, slot: _Slot, analysis: Analysis, wanted: tuple[tuple, ...], *,
                     priority: int = FIXES, ahead: bool = False) -> bool:
        """Build the fixes in the worker that holds the analysis; False when that did not happen."""
        job = jobs.BuildFixes(self._check_job(analysis.snapshot), wanted, reanalyse=not ahead)
        try:
            result = await self._pool.run(job, priority=priority, prefer=analysis.worker,
                                          patience=0.0 if ahead else FIX_PATIENCE)
        except WorkerError as error:
            log.error("building fixes for %s failed: %s", analysis.snapshot.key, error)
            return False
        if slot.result is analysis:
            for key, fix, problem in result.fixes:
                slot.built[key] = (fix, problem)
        return bool(result.fixes)

    @staticmethod
    def _settle_builds(slot: _Slot, futures: dict[tuple, asyncio.Future], done: asyncio.Future) -> None:
        for key, future in futures.items():
            if slot.building.get(key) is future:
                del slot.building[key]
            if not future.done():
                future.set_result(None)

    def status(self, key: str) -> dict:
        slot = self._slots.get(key)
        if slot is None:
            return {}
        return {"analyses": slot.analyses, "publishedAfter": slot.published_after,
                "settled": slot.delivered is not None and slot.delivered == self._ident_of(key),
                "version": slot.result.snapshot.version if slot.result else None,
                "engineSeconds": slot.result.seconds if slot.result else None,
                "fixesBuilt": len(slot.built)}

    def mark_published(self, analysis: Analysis) -> None:
        slot = self._slots.get(analysis.snapshot.key)
        if slot is not None and slot.result is analysis:
            slot.published_after = time.monotonic() - slot.changed_at

    # -- the work --------------------------------------------------------------------------
    async def _drive(self, key: str, slot: _Slot) -> None:
        loop = asyncio.get_running_loop()
        while True:
            delay = slot.deadline - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            if self._ready is not None:
                await self._ready()  # the client's settings are known (no analysis with stale ones)
            if self._slots.get(key) is not slot:
                return
            ident = self._ident_of(key)
            if ident is None:
                return
            if slot.result is not None and slot.result.ident == ident:
                self._wake(slot)
                return
            snapshot = self._snapshot_of(key)
            if snapshot is None:
                return
            slot.analyses += 1
            # The worker that analysed the previous version keeps what an incremental analysis
            # of this one reuses (tapelsp.incremental): it is preferred when free.
            analysis = await self._analyse(snapshot, slot.result.worker if slot.result is not None else None)
            if self._slots.get(key) is not slot:
                return
            slot.result = analysis
            slot.built = {key: (fix, problem) for key, fix, problem in analysis.built}
            slot.memo = {}
            self._wake(slot)
            if analysis.ident == self._ident_of(key):
                slot.delivered = analysis.ident
                self._deliver(analysis)
                if self._fix_ahead:
                    slot.ahead = asyncio.ensure_future(self._build_ahead(slot, analysis))
                return
            # A newer version (or new settings) arrived meanwhile: go round for it.

    @staticmethod
    def _check_job(snapshot: Snapshot) -> jobs.Check:
        return jobs.Check(snapshot.source, snapshot.settings, key=snapshot.key, ident=snapshot.ident,
                          project_root=snapshot.project_root, project_generation=snapshot.project_generation)

    async def _analyse(self, snapshot: Snapshot, prefer: Optional[int] = None) -> Analysis:
        if snapshot.excluded:
            return Analysis(snapshot)
        size = source_size(snapshot.source)
        if size > MAX_ANALYSED_CHARACTERS:
            log.warning("%s is not analysed: its %d characters are over the language server's limit of %d "
                        "(`tapelsp --check` checks it)", snapshot.key, size, MAX_ANALYSED_CHARACTERS)
            return Analysis(snapshot)
        try:
            checked = await self._pool.run(self._check_job(snapshot), priority=DIAGNOSTICS, prefer=prefer or None,
                                           patience=PREFERRED_PATIENCE)
        except WorkerError as error:
            log.error("analysis of %s (revision %d) failed: %s", snapshot.key, snapshot.version, error)
            return Analysis(snapshot, error=str(error))
        for message in checked.rule_errors:
            log.warning("%s: a rule failed and its findings were dropped: %s", snapshot.key, message)
        return Analysis(snapshot, checked.violations, seconds=checked.seconds, rule_errors=checked.rule_errors,
                        offered=checked.offered, worker=checked.worker, statements=checked.statements,
                        built=checked.built)

    async def describe(self, snapshot: Snapshot, line: int, column: int) -> jobs.Described | None:
        """What the value model says the name at (line, column) of the analysed program holds."""
        if snapshot.excluded or source_size(snapshot.source) > MAX_ANALYSED_CHARACTERS:
            return None
        try:
            return await self._pool.run(jobs.Describe(self._check_job(snapshot), line, column), priority=FIXES)
        except WorkerError as error:
            log.error("describing a value in %s failed: %s", snapshot.key, error)
            return None

    # -- helpers ---------------------------------------------------------------------------
    def _deliver(self, analysis: Analysis) -> None:
        try:
            self._on_analysis(analysis)
        except Exception:  # publishing must not stop the scheduler
            log.exception("delivering the result for %s failed", analysis.snapshot.key)

    @staticmethod
    async def _wait(slot: _Slot) -> None:
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        slot.waiters.append(future)
        try:
            await future
        finally:
            if future in slot.waiters:
                slot.waiters.remove(future)

    @staticmethod
    def _wake(slot: _Slot) -> None:
        waiters, slot.waiters = slot.waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(None)
