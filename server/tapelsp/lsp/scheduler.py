"""When to analyse: debounced per document, newest version wins, one result per version.

Each document (a text document, or a notebook as a whole) has a slot. A change moves the
slot's deadline; one driver task per slot waits until the document has been quiet for the
debounce delay, snapshots the newest version, and has a worker analyse it. Changes that
arrive during an analysis only move the deadline again: when the analysis ends, the driver
goes round once more for the newest version. So a burst of changes costs at most the
analysis that was already running plus one for the last version, never one per change.

A result is kept per (version, settings generation). Results for a version that is no
longer current are kept for nobody's use but are never published. Fixes are built by a
second, lower-priority pass over the same snapshot, on demand or prefetched.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional

from . import jobs
from .pool import DIAGNOSTICS, FIXES, WorkerError, WorkerPool
from .snapshots import Analysis, Ident, Snapshot

log = logging.getLogger("tapelsp.lsp")


@dataclass
class _Slot:
    deadline: float = 0.0
    driver: Optional[asyncio.Task] = None
    result: Optional[Analysis] = None
    fixes: Optional[Analysis] = None
    fix_task: Optional[asyncio.Task] = None
    fix_ident: Optional[Ident] = None
    waiters: list[asyncio.Future] = field(default_factory=list)
    analyses: int = 0  # how many analyses were started for this slot (for the status request)
    delivered: Optional[Ident] = None  # the newest result handed to on_analysis
    changed_at: float = 0.0  # monotonic time of the last change
    published_after: Optional[float] = None  # seconds from the last change to its diagnostics


class Scheduler:
    def __init__(self, pool: WorkerPool, *,
                 ident_of: Callable[[str], Optional[Ident]],
                 snapshot_of: Callable[[str], Optional[Snapshot]],
                 on_analysis: Callable[[Analysis], None],
                 on_fixes: Callable[[Analysis], None],
                 debounce: Callable[[], float],
                 ready: Optional[Callable[[], Awaitable[None]]] = None) -> None:
        self._pool = pool
        self._ident_of = ident_of
        self._snapshot_of = snapshot_of
        self._on_analysis = on_analysis
        self._on_fixes = on_fixes
        self._debounce = debounce
        self._ready = ready
        self._slots: dict[str, _Slot] = {}

    # -- notifications from the session -------------------------------------------------
    def touch(self, key: str, delay: float | None = None) -> None:
        """The document changed (or its settings did): analyse it after the debounce delay."""
        slot = self._slots.setdefault(key, _Slot())
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
        for task in (slot.driver, slot.fix_task):
            if task is not None and not task.done():
                task.cancel()
        self._wake(slot)

    def keys(self) -> list[str]:
        return list(self._slots)

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

    async def with_fixes(self, key: str) -> Optional[Analysis]:
        """The result for the current version with the rules' fixes built."""
        while True:
            current = await self.current(key)
            if current is None:
                return None
            if current.with_fixes:
                return current
            slot = self._slots.get(key)
            if slot is None:
                return None
            if slot.fixes is not None and slot.fixes.ident == current.ident:
                return slot.fixes
            task = self._start_fixes(slot, current)
            result = await asyncio.shield(task)
            if result is not None and result.ident == self._ident_of(key):
                return result
            if result is not None and result.error is not None and result.ident == current.ident:
                return result

    def fixes_for(self, analysis: Analysis) -> Optional[Analysis]:
        """The fixes pass of `analysis`'s snapshot, when it has already finished."""
        slot = self._slots.get(analysis.snapshot.key)
        if analysis.with_fixes:
            return analysis
        if slot is not None and slot.fixes is not None and slot.fixes.ident == analysis.ident:
            return slot.fixes
        return None

    def prefetch_fixes(self, analysis: Analysis) -> None:
        """Build the fixes of a fresh result in the background (code actions then answer at once)."""
        slot = self._slots.get(analysis.snapshot.key)
        if slot is not None and slot.result is analysis:
            self._start_fixes(slot, analysis)

    def status(self, key: str) -> dict:
        slot = self._slots.get(key)
        if slot is None:
            return {}
        return {"analyses": slot.analyses, "publishedAfter": slot.published_after,
                "settled": slot.delivered is not None and slot.delivered == self._ident_of(key),
                "version": slot.result.snapshot.version if slot.result else None,
                "engineSeconds": slot.result.seconds if slot.result else None}

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
            analysis = await self._analyse(snapshot, fixes=False, priority=DIAGNOSTICS)
            if self._slots.get(key) is not slot:
                return
            slot.result = analysis
            self._wake(slot)
            if analysis.ident == self._ident_of(key):
                slot.delivered = analysis.ident
                self._deliver(self._on_analysis, analysis)
                return
            # A newer version (or new settings) arrived meanwhile: go round for it.

    def _start_fixes(self, slot: _Slot, analysis: Analysis) -> asyncio.Task:
        if slot.fix_task is not None and slot.fix_ident == analysis.ident:
            return slot.fix_task
        if slot.fix_task is not None and not slot.fix_task.done():
            slot.fix_task.cancel()  # it is for an older version; its worker finishes in the background
        slot.fix_ident = analysis.ident
        slot.fix_task = asyncio.ensure_future(self._fix_pass(slot, analysis))
        return slot.fix_task

    async def _fix_pass(self, slot: _Slot, analysis: Analysis) -> Analysis:
        fixed = await self._analyse(analysis.snapshot, fixes=True, priority=FIXES)
        if fixed.error is None:
            slot.fixes = fixed
            self._deliver(self._on_fixes, fixed)
        return fixed

    async def _analyse(self, snapshot: Snapshot, *, fixes: bool, priority: int) -> Analysis:
        if snapshot.excluded:
            return Analysis(snapshot, (), with_fixes=True)
        job = jobs.Check(snapshot.source, snapshot.settings, fixes=fixes, project_root=snapshot.project_root,
                         project_generation=snapshot.project_generation)
        try:
            checked = await self._pool.run(job, priority=priority)
        except WorkerError as error:
            log.error("analysis of %s (version %d) failed: %s", snapshot.key, snapshot.version, error)
            return Analysis(snapshot, (), with_fixes=fixes, error=str(error))
        for message in checked.rule_errors:
            log.warning("%s: a rule failed and its findings were dropped: %s", snapshot.key, message)
        return Analysis(snapshot, checked.violations, with_fixes=fixes, seconds=checked.seconds,
                        rule_errors=checked.rule_errors)

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _deliver(callback: Callable[[Analysis], object], analysis: Analysis) -> None:
        try:
            result = callback(analysis)
            if isinstance(result, Awaitable):  # type: ignore[arg-type]
                asyncio.ensure_future(result)  # type: ignore[arg-type]
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
