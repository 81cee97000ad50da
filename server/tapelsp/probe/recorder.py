"""What the instrumentation saw, aggregated per place, bounded in size (kernel side).

One `Recorder` per process (`RECORDER`). The instrumentation calls its `record_*`
methods; `snapshot()` returns plain JSON-ready data that attach mode and the script
runner hand to tapelsp. Standard library only; never imports TensorFlow.

Places are (file, line) pairs as Python reports them. A notebook cell's code has a
generated file name; `register_cell` remembers which cell it was, so the snapshot can
say "cell 3, line 4".
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import asdict, dataclass, field

MAX_SOURCES = 20
MAX_TRACES = 20
MAX_EVENTS = 200
MAX_SITES = 2000
MAX_FUNCTIONS = 500

Place = tuple  # (file, line)
# Counts and addresses vary between otherwise identical warnings ("5 out of the last 5 calls").
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")


@dataclass
class NoneSource:
    index: int
    description: str
    calls: int = 0


@dataclass
class GradientSite:
    """One `tape.gradient` / `jacobian` / `batch_jacobian` call site."""

    file: str
    line: int
    method: str
    calls: int = 0
    none_calls: int = 0
    errors: int = 0
    sources: int = 0
    # Called while a tf.function was being traced (the result is symbolic).
    traced: bool = False
    none_sources: dict = field(default_factory=dict)  # index -> NoneSource


@dataclass
class CallSite:
    file: str
    line: int
    calls: int = 0
    traces: int = 0


@dataclass
class Trace:
    """One trace of a tf.function: where it was called from and with what."""

    file: str | None
    line: int | None
    number: int
    arguments: list
    changed: list


@dataclass
class FunctionRecord:
    """Every tf.function object made from one Python function (by code location)."""

    name: str
    file: str | None
    line: int | None
    instances: int = 0
    calls: int = 0
    traces: int = 0
    call_sites: dict = field(default_factory=dict)  # (file, line) -> CallSite
    created_at: dict = field(default_factory=dict)  # (file, line) -> count
    trace_log: list = field(default_factory=list)


@dataclass
class Event:
    kind: str
    message: str
    file: str | None
    line: int | None
    count: int = 1


class Recorder:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        self.gradient_sites: dict[tuple, GradientSite] = {}
        self.functions: dict[tuple, FunctionRecord] = {}
        self.events: dict[tuple, Event] = {}
        self.cells: dict[str, dict] = {}
        self.internal_errors: list[str] = []
        self.dropped = 0
        self._instances: dict[tuple, weakref.WeakSet] = {}
        self._last_arguments: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # -- cells ------------------------------------------------------------------------
    def register_cell(self, filename: str, cell_id: str | None, execution_count: int | None) -> None:
        with self._lock:
            self.cells[filename] = {"cell_id": cell_id, "execution_count": execution_count}

    # -- gradients --------------------------------------------------------------------
    def record_gradient(self, place: Place, method: str, sources: int, none_indices: list[tuple[int, str]],
                        traced: bool) -> None:
        with self._lock:
            site = self._gradient_site(place, method)
            if site is None:
                return
            site.calls += 1
            site.sources = sources
            site.traced = site.traced or traced
            if none_indices:
                site.none_calls += 1
            for index, description in none_indices[:MAX_SOURCES]:
                entry = site.none_sources.get(index)
                if entry is None:
                    entry = site.none_sources[index] = NoneSource(index, description)
                entry.calls += 1

    def record_gradient_error(self, place: Place, method: str) -> None:
        with self._lock:
            site = self._gradient_site(place, method)
            if site is not None:
                site.calls += 1
                site.errors += 1

    def _gradient_site(self, place: Place, method: str) -> GradientSite | None:
        key = (place[0], place[1], method)
        site = self.gradient_sites.get(key)
        if site is None:
            if len(self.gradient_sites) >= MAX_SITES:
                self.dropped += 1
                return None
            site = self.gradient_sites[key] = GradientSite(place[0], place[1], method)
        return site

    # -- tf.function ------------------------------------------------------------------
    def _function(self, origin: tuple) -> FunctionRecord | None:
        record = self.functions.get(origin)
        if record is None:
            if len(self.functions) >= MAX_FUNCTIONS:
                self.dropped += 1
                return None
            record = self.functions[origin] = FunctionRecord(origin[0], origin[1], origin[2])
            self._instances[origin] = weakref.WeakSet()
        return record

    def record_function_created(self, origin: tuple, instance: object, place: Place | None) -> None:
        with self._lock:
            record = self._function(origin)
            if record is None:
                return
            self._count_instance(origin, record, instance)
            if place is not None:
                record.created_at[place] = record.created_at.get(place, 0) + 1

    def _count_instance(self, origin: tuple, record: FunctionRecord, instance: object) -> None:
        seen = self._instances[origin]
        try:
            if instance not in seen:
                seen.add(instance)
                record.instances += 1
        except TypeError:  # not weakly referenceable: count every call as the same object
            record.instances = max(record.instances, 1)

    def record_function_call(self, origin: tuple, instance: object, place: Place | None, new_traces: int,
                             arguments: list | None) -> None:
        with self._lock:
            record = self._function(origin)
            if record is None:
                return
            self._count_instance(origin, record, instance)
            record.calls += 1
            record.traces += max(0, new_traces)
            if place is not None:
                site = record.call_sites.get(place)
                if site is None:
                    site = record.call_sites[place] = CallSite(place[0], place[1])
                site.calls += 1
                site.traces += max(0, new_traces)
            if new_traces > 0 and arguments is not None:
                try:
                    previous = self._last_arguments.get(instance)
                    self._last_arguments[instance] = arguments
                except TypeError:
                    previous = None
                changed = _changed(previous, arguments) if previous is not None else []
                if len(record.trace_log) < MAX_TRACES:
                    record.trace_log.append(Trace(place[0] if place else None, place[1] if place else None,
                                                  record.traces, arguments, changed))

    # -- events -----------------------------------------------------------------------
    def record_event(self, kind: str, message: str, place: Place | None) -> None:
        with self._lock:
            file, line = place if place is not None else (None, None)
            key = (kind, file, line, _NUMBERS.sub("N", message[:200]))
            event = self.events.get(key)
            if event is not None:
                event.count += 1
            elif len(self.events) < MAX_EVENTS:
                self.events[key] = Event(kind, message, file, line)
            else:
                self.dropped += 1

    def record_internal_error(self, text: str) -> None:
        with self._lock:
            if len(self.internal_errors) < 20:
                self.internal_errors.append(text)

    # -- output -----------------------------------------------------------------------
    def snapshot(self) -> dict:
        with self._lock:
            sites = []
            for site in self.gradient_sites.values():
                data = asdict(site)
                data["none_sources"] = [asdict(s) for s in sorted(site.none_sources.values(), key=lambda s: s.index)]
                sites.append(data)
            functions = []
            for record in self.functions.values():
                data = asdict(record)
                data["call_sites"] = [asdict(s) for s in record.call_sites.values()]
                data["created_at"] = [{"file": f, "line": n, "count": c} for (f, n), c in record.created_at.items()]
                functions.append(data)
            return {
                "gradient_sites": sites,
                "functions": functions,
                "events": [asdict(e) for e in self.events.values()],
                "cells": dict(self.cells),
                "internal_errors": list(self.internal_errors),
                "dropped": self.dropped,
            }


def _changed(previous: list, current: list) -> list:
    """Which argument summaries differ between two traces ("lr: 0.1 -> 0.2")."""
    before = dict(previous)
    out = []
    for name, summary in current:
        if name in before and before[name] != summary:
            out.append(f"{name}: {before[name]} -> {summary}")
        elif name not in before:
            out.append(f"{name}: (new) {summary}")
    return out


RECORDER = Recorder()
