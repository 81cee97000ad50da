"""What a rule is: its identity, documentation, examples and its check.

A rule module defines one subclass of `Rule`. The class carries everything the
tests, `--list-rules`, `--explain` and `docs/rules.md` need, so they all come from
the same place.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Iterable, Union

from ..facts.model import Facts
from ..model import Fix, Position, Range, Related, Severity, Violation
from ..settings import Targets
from ..versions import VersionRange

DOCS_URL = "https://github.com/tapelsp/tapelsp/blob/main/docs/rules.md"
DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


@dataclass(frozen=True)
class Proof:
    """How TensorFlow itself shows an example's behaviour when the example runs.

    `check` is Python run after the example in the same namespace; it asserts the
    symptom (for an invalid example) or the healthy result (for a valid one).
    `raises` names the exception the example itself must raise, with a fragment of
    TensorFlow's message.
    """

    check: str = ""
    raises: tuple[str, str] | None = None
    # Examples that switch TensorFlow into graph mode need a process of their own.
    isolated: bool = False


@dataclass(frozen=True)
class Example:
    source: str
    # 1-based lines that must be flagged; empty for a valid example.
    lines: tuple[int, ...] = ()
    title: str = ""
    # Expected source after the rule's fix (fix issue); None when the rule has no fix.
    fixed: str | None = None
    tensorflow_version: str | None = None
    proof: Proof | None = None
    # How TensorFlow shows that `fixed` is cured (run like a valid example's proof).
    fixed_proof: Proof | None = None

    @property
    def valid(self) -> bool:
        return not self.lines


def valid(source: str, title: str = "", *, proof: Proof | None = None,
          tensorflow_version: str | None = None) -> Example:
    return Example(inspect.cleandoc(source) + "\n", (), title, None, tensorflow_version, proof)


def invalid(source: str, lines: int | tuple[int, ...], title: str = "", *, fixed: str | None = None,
            proof: Proof | None = None, tensorflow_version: str | None = None,
            fixed_proof: Proof | None = None) -> Example:
    lines = (lines,) if isinstance(lines, int) else tuple(lines)
    cleaned_fix = inspect.cleandoc(fixed) + "\n" if fixed is not None else None
    return Example(inspect.cleandoc(source) + "\n", lines, title, cleaned_fix, tensorflow_version, proof,
                   fixed_proof)


# What `Context.report(fix=...)` takes: a Fix, or a zero-argument builder of one that is
# called only when the caller asked for fixes (builders import libcst; detection must not).
FixOffer = Union[Fix, Callable[[], Union[Fix, None]]]


@dataclass
class Context:
    """What a rule's check is given."""

    facts: Facts
    targets: Targets
    rule: "Rule"
    severity: Severity
    path: str | None = None
    # A tapelsp.project.Project when the caller can see the rest of the project, else None.
    project: Any = None
    # Whether the caller wants fixes built (the CLI's --fix/--diff/[*] marks, the language server).
    fixes: bool = False
    violations: list[Violation] = field(default_factory=list)
    # The fix offered for a violation (keyed by id of the Violation in `violations`); the
    # engine builds it once the finding survives suppression.
    fix_offers: dict[int, FixOffer] = field(default_factory=dict)

    def report(self, where: ast.AST | Range, message: str, *, related: Iterable[Related] = (),
               fix: FixOffer | None = None) -> None:
        """Record a finding. `fix` is a Fix or a zero-argument builder of one; it is built and
        checked (the result must parse) only when fixes are wanted. One that cannot be built is
        dropped: the finding stays, and `Violation.fix_error` says why."""
        rng = where if isinstance(where, Range) else self.facts.source.node_range(where)
        violation = Violation(
            code=self.rule.code, name=self.rule.name, message=message, range=rng,
            severity=self.severity, related=tuple(related), url=self.rule.url(),
        )
        self.violations.append(violation)
        if fix is not None and self.fixes:
            self.fix_offers[id(violation)] = fix

    def related(self, node: ast.AST, message: str) -> Related:
        return Related(self.facts.source.node_range(node), message)

    def range(self, node: ast.AST) -> Range:
        return self.facts.source.node_range(node)

    def where(self, node: ast.AST) -> str:
        """How a message names the line of `node` ("line 7", or "line 2 of cell 3" in notebooks)."""
        return self.facts.line_label(node.lineno)


def shares_findings(check: Callable[["Rule", Context], None]) -> Callable[["Rule", Context], None]:
    """Decorates the `check` of a rule whose findings another rule reads (OPT001 reads the
    GradientTape rules'): the first run on a file records what it found, a later run with the
    same file, targets, path, project and fixes flag replays it instead of analysing again."""

    def memoised(self: "Rule", ctx: Context) -> None:
        memo = ctx.facts.__dict__.setdefault("_shared_findings", {})
        key = (self.code, ctx.targets, ctx.path, id(ctx.project), ctx.fixes)
        recorded = memo.get(key)
        if recorded is None:
            check(self, ctx)
            # Only a check that finished is recorded: one that raised raises again when rerun.
            memo[key] = (list(ctx.violations), dict(ctx.fix_offers), ctx.project)
            return
        violations, offers, _project = recorded
        for violation in violations:
            replayed = violation if violation.severity == ctx.severity else replace(violation, severity=ctx.severity)
            ctx.violations.append(replayed)
            if id(violation) in offers:
                ctx.fix_offers[id(replayed)] = offers[id(violation)]

    memoised.__name__ = check.__name__
    memoised.__qualname__ = check.__qualname__
    memoised.__doc__ = check.__doc__
    memoised.__wrapped__ = check  # type: ignore[attr-defined]
    return memoised


def findings_of(ctx: Context, code: str) -> list[Violation] | None:
    """The findings of rule `code` on ctx's file (computed once per file when the rule's check
    is decorated with `shares_findings`), with the rule's default severity; None when the
    rule does not apply to ctx's targets or its check failed."""
    from . import rule_by_code

    rule_class = rule_by_code(code)
    if rule_class is None:
        return None
    rule = rule_class()
    if not rule.applies_to(ctx.targets):
        return None
    inner = Context(facts=ctx.facts, targets=ctx.targets, rule=rule, severity=rule.severity,
                    path=ctx.path, project=ctx.project, fixes=ctx.fixes)
    try:
        rule.check(inner)
    except Exception:  # the rule's crash is reported by the engine as its own TL004
        return None
    return inner.violations


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[Severity]
    # Versions of TensorFlow the rule applies to ("" = all).
    tensorflow: ClassVar[VersionRange] = VersionRange("")
    # Substrings one of which a file must contain for the rule to find anything.
    triggers: ClassVar[tuple[str, ...]] = ()
    # True for a rule that costs less to run on a file without its triggers than searching the
    # text for them: it starts from facts such a file lacks (no tape, no `map_fn` call...). Its
    # triggers are then not searched for in a file that gets a facts pass anyway; it runs there
    # and finds nothing (prefilter.py).
    cheap_without_triggers: ClassVar[bool] = False
    examples: ClassVar[tuple[Example, ...]] = ()
    fixable: ClassVar[bool] = False

    def check(self, ctx: Context) -> None:
        raise NotImplementedError

    def applies_to(self, targets: Targets) -> bool:
        return self.tensorflow.contains(targets.tensorflow)

    @classmethod
    def url(cls) -> str:
        return f"{DOCS_URL}#{anchor(cls)}"

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring split into its titled sections."""
        sections: dict[str, str] = {}
        current: str | None = None
        for line in cls.doc().splitlines():
            heading = re.fullmatch(r"##\s+(.+?)\s*", line)
            if heading:
                current = heading.group(1)
                sections[current] = ""
            elif current is not None:
                sections[current] += line + "\n"
        return {k: v.strip("\n") for k, v in sections.items()}


def anchor(rule: type[Rule]) -> str:
    return f"{rule.code.lower()}-{rule.name}"


def whole_line(facts: Facts, line: int) -> Range:
    text = facts.source.line(line)
    return Range(Position(line, 0), Position(line, len(text)))
