"""The probe's report as plain values (tapelsp side; never imports TensorFlow).

`ProbeReport.from_json` reads what `kernel_query.collect` produced in the user's
process. Places are resolved here: a notebook cell's generated file name becomes the
cell it ran (run mode tags cells with `CELL_ID_PREFIX`; a frontend's own cell ids are
kept as they are).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

# Run mode sends each notebook cell with the cell id "tapelsp-cell-<1-based cell number>".
CELL_ID_PREFIX = "tapelsp-cell-"


@dataclass(frozen=True)
class Place:
    """A line of the user's program: a file, or a notebook cell (then `line` is in the cell)."""

    file: str | None
    line: int  # 1-based
    cell: int | None = None  # 1-based cell number, when the cell is known
    cell_id: str | None = None
    execution_count: int | None = None

    def label(self) -> str:
        if self.cell is not None:
            return f"line {self.line} of cell {self.cell}"
        if self.execution_count is not None:
            return f"line {self.line} of In[{self.execution_count}]"
        return f"line {self.line}"

    def same_file(self, path: str | None) -> bool:
        if self.file is None or path is None:
            return False
        return os.path.realpath(self.file) == os.path.realpath(path)


@dataclass(frozen=True)
class NoneSource:
    index: int  # 0-based position in the flattened sources
    description: str
    calls: int


@dataclass(frozen=True)
class GradientSite:
    place: Place
    method: str
    calls: int
    none_calls: int
    errors: int
    sources: int
    traced: bool
    none_sources: tuple[NoneSource, ...] = ()


@dataclass(frozen=True)
class CallSite:
    place: Place
    calls: int
    traces: int


@dataclass(frozen=True)
class Trace:
    place: Place | None
    number: int
    arguments: tuple[tuple[str, str], ...]
    changed: tuple[str, ...]


@dataclass(frozen=True)
class FunctionReport:
    """All tf.function objects made from one Python function."""

    name: str
    place: Place | None  # the def
    instances: int
    calls: int
    traces: int
    call_sites: tuple[CallSite, ...] = ()
    created_at: tuple[tuple[Place, int], ...] = ()
    trace_log: tuple[Trace, ...] = ()

    @property
    def retraces(self) -> int:
        return max(0, self.traces - self.instances)


@dataclass(frozen=True)
class Event:
    kind: str  # "variable-creation", "tape-reused", "retracing-warning", "exception", ...
    message: str
    place: Place | None
    count: int = 1


@dataclass(frozen=True)
class NamespaceEntry:
    name: str
    kind: str
    facts: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.facts).get(key, default)


@dataclass(frozen=True)
class Mode:
    tensorflow_imported: bool = False
    executing_eagerly: bool | None = None
    tf2_behavior: bool | None = None
    control_flow_v2: bool | None = None


@dataclass(frozen=True)
class ProbeReport:
    versions: tuple[tuple[str, str | None], ...] = ()
    imported: tuple[str, ...] = ()
    mode: Mode = field(default_factory=Mode)
    namespace: tuple[NamespaceEntry, ...] = ()
    instrumented: bool = False
    gradient_sites: tuple[GradientSite, ...] = ()
    functions: tuple[FunctionReport, ...] = ()
    events: tuple[Event, ...] = ()
    python: str | None = None
    pid: int | None = None
    internal_errors: tuple[str, ...] = ()

    def version(self, package: str) -> str | None:
        return dict(self.versions).get(package)

    @classmethod
    def from_json(cls, data: dict, cell_numbers: dict[str, int] | None = None) -> "ProbeReport":
        """`cell_numbers` maps a frontend's own cell ids (JupyterLab's) to 1-based cell numbers."""
        versions = data.get("versions") or {}
        recorded = data.get("recorded")
        cells = (recorded or {}).get("cells") or {}

        def place(file: str | None, line: Any) -> Place | None:
            if not isinstance(line, int):
                return None
            cell = cells.get(file) if file is not None else None
            if cell is None:
                return Place(file, line)
            cell_id = cell.get("cell_id")
            number = None
            if isinstance(cell_id, str) and cell_id.startswith(CELL_ID_PREFIX):
                try:
                    number = int(cell_id[len(CELL_ID_PREFIX):])
                except ValueError:
                    number = None
            elif isinstance(cell_id, str) and cell_numbers:
                number = cell_numbers.get(cell_id)
            return Place(None, line, number, cell_id, cell.get("execution_count"))

        sites = []
        functions = []
        events = []
        if isinstance(recorded, dict):
            for site in recorded.get("gradient_sites", ()):
                where = place(site.get("file"), site.get("line"))
                if where is None:
                    continue
                nones = tuple(NoneSource(int(s["index"]), str(s["description"]), int(s["calls"]))
                              for s in site.get("none_sources", ()))
                sites.append(GradientSite(where, site.get("method", "gradient"), int(site.get("calls", 0)),
                                          int(site.get("none_calls", 0)), int(site.get("errors", 0)),
                                          int(site.get("sources", 0)), bool(site.get("traced")), nones))
            for record in recorded.get("functions", ()):
                call_sites = tuple(CallSite(p, int(s["calls"]), int(s["traces"]))
                                   for s in record.get("call_sites", ())
                                   if (p := place(s.get("file"), s.get("line"))) is not None)
                created = tuple((p, int(c["count"])) for c in record.get("created_at", ())
                                if (p := place(c.get("file"), c.get("line"))) is not None)
                traces = tuple(Trace(place(t.get("file"), t.get("line")), int(t.get("number", 0)),
                                     tuple((str(a[0]), str(a[1])) for a in t.get("arguments") or ()),
                                     tuple(str(c) for c in t.get("changed") or ()))
                               for t in record.get("trace_log", ()))
                functions.append(FunctionReport(str(record.get("name")), place(record.get("file"), record.get("line")),
                                                int(record.get("instances", 0)), int(record.get("calls", 0)),
                                                int(record.get("traces", 0)), call_sites, created, traces))
            for event in recorded.get("events", ()):
                events.append(Event(str(event.get("kind")), str(event.get("message")),
                                    place(event.get("file"), event.get("line")), int(event.get("count", 1))))
        namespace = []
        for entry in data.get("namespace") or ():
            facts = tuple((k, v) for k, v in entry.items() if k not in ("name_in_namespace", "kind"))
            namespace.append(NamespaceEntry(str(entry.get("name_in_namespace")), str(entry.get("kind")), facts))
        mode = data.get("mode") or {}
        process = data.get("process") or {}
        return cls(
            versions=tuple((name, info.get("version")) for name, info in versions.items()),
            imported=tuple(name for name, info in versions.items() if info.get("imported")),
            mode=Mode(bool(mode.get("tensorflow_imported")), mode.get("executing_eagerly"),
                      mode.get("tf2_behavior"), mode.get("control_flow_v2")),
            namespace=tuple(namespace),
            instrumented=isinstance(recorded, dict) and "gradient_sites" in recorded,
            gradient_sites=tuple(sites),
            functions=tuple(functions),
            events=tuple(events),
            python=process.get("python"),
            pid=process.get("pid"),
            internal_errors=tuple((recorded or {}).get("internal_errors", ()) if isinstance(recorded, dict) else ()),
        )

    def describe_mode(self) -> str:
        if not self.mode.tensorflow_imported:
            return "TensorFlow not imported"
        parts = ["eager" if self.mode.executing_eagerly else "graph mode (TF1)"]
        if self.mode.control_flow_v2 is False:
            parts.append("control flow v1")
        return ", ".join(parts)
