"""Every example of every rule, checked by the engine, plus the shape of the catalogue.

Each example is its own test (`TAPE001-invalid-1`, `FUNC001-valid-2`, ...): an invalid
example must be flagged for its rule at exactly its documented lines, a valid one must
not be flagged for its rule, and no example may make a rule crash (TL004).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import all_rules
from tapelsp.rules.base import DOC_SECTIONS, Example, Proof, Rule

DEFAULT_TF = "2.21"
INTERNAL_ERROR = "TL004"
META_CODES = ("TL001", "TL002", "TL003", "TL004")


def example_ids(rule: type[Rule]) -> list[tuple[str, Example]]:
    """`CODE-invalid-N` / `CODE-valid-N`, numbered from 1 per kind in declaration order."""
    counts = {"valid": 0, "invalid": 0}
    out = []
    for example in rule.examples:
        kind = "valid" if example.valid else "invalid"
        counts[kind] += 1
        out.append((f"{rule.code}-{kind}-{counts[kind]}", example))
    return out


CASES = [(rule, example) for rule in all_rules() for _, example in example_ids(rule)]
IDS = [case_id for rule in all_rules() for case_id, _ in example_ids(rule)]


def _numbered(source: str) -> str:
    return "\n".join(f"{n:>4} | {line}" for n, line in enumerate(source.splitlines(), start=1))


def _describe(findings) -> str:
    if not findings:
        return "  (none)"
    return "\n".join(f"  {v.code} line {v.range.start.line + 1}, col {v.range.start.column + 1}: {v.message}"
                     for v in findings)


def runtime_only(rule: type[Rule]) -> bool:
    """Rules only the probe reports (RT codes): their invalid examples' lines are what the probe
    flags at runtime (proven in tests/probe); the static pass never flags them."""
    return bool(getattr(rule, "runtime_only", False))


@pytest.mark.parametrize(("rule", "example"), CASES, ids=IDS)
def test_example(rule: type[Rule], example: Example) -> None:
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    findings = tapelsp.check_source(example.source, "example.py", settings)
    context = (f"\nexample{f' ({example.title})' if example.title else ''}, "
               f"TensorFlow {settings.tensorflow_version}:\n{_numbered(example.source)}\n"
               f"findings:\n{_describe(findings)}")
    crashes = [v for v in findings if v.code == INTERNAL_ERROR]
    assert not crashes, f"a rule crashed on this example{context}"
    flagged = sorted(v.range.start.line + 1 for v in findings if v.code == rule.code)
    if runtime_only(rule):
        assert not flagged, f"{rule.code} is reported by the probe only, never statically{context}"
        return
    assert flagged == sorted(example.lines), (
        f"{rule.code} should flag lines {sorted(example.lines) or 'nothing'}, flagged {flagged or 'nothing'}"
        f"{context}")


# --- the catalogue itself ------------------------------------------------------------

def _rule_modules() -> list[str]:
    """Every module of every family package under tapelsp/rules that does not start with `_`
    (found on disk, not through `all_rules`, so that a module it skips is still tested)."""
    import tapelsp.rules as package

    found = []
    for family in pkgutil.iter_modules(package.__path__):
        if not family.ispkg:
            continue
        family_package = importlib.import_module(f"tapelsp.rules.{family.name}")
        found.extend(f"{family.name}.{info.name}" for info in pkgutil.iter_modules(family_package.__path__)
                     if not info.name.startswith("_"))
    return found


def test_rules_live_in_family_packages_only() -> None:
    import tapelsp.rules as package

    loose = [info.name for info in pkgutil.iter_modules(package.__path__)
             if not info.ispkg and info.name != "base"]
    assert loose == []
    assert len(_rule_modules()) == len(all_rules())


@pytest.mark.parametrize("module_name", _rule_modules())
def test_each_rule_module_defines_exactly_one_rule(module_name: str) -> None:
    module = importlib.import_module(f"tapelsp.rules.{module_name}")
    defined = [obj for obj in vars(module).values()
               if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
               and obj.__module__ == module.__name__]
    assert len(defined) == 1, f"{module.__name__} defines {[c.__name__ for c in defined]}"
    assert defined[0] in all_rules()


def test_catalogue_is_not_empty_and_has_the_meta_codes() -> None:
    codes = {rule.code for rule in all_rules()}
    assert set(META_CODES) <= codes
    assert codes - set(META_CODES), "no real rules registered"


def test_codes_and_names_are_unique() -> None:
    codes = [rule.code for rule in all_rules()]
    names = [rule.name for rule in all_rules()]
    assert len(codes) == len(set(codes)), sorted(c for c in codes if codes.count(c) > 1)
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_code_name_and_identity(rule: type[Rule]) -> None:
    assert re.fullmatch(r"[A-Z]+[0-9]{3}", rule.code), rule.code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
    assert rule.summary and not rule.summary.endswith("."), rule.summary
    assert isinstance(rule.severity, tapelsp.Severity)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_docstring_has_the_four_sections(rule: type[Rule]) -> None:
    sections = rule.doc_sections()
    missing = [title for title in DOC_SECTIONS if not sections.get(title, "").strip()]
    assert not missing, f"{rule.code} docstring lacks (or leaves empty) sections {missing}"
    order = [title for title in sections if title in DOC_SECTIONS]
    assert order == list(DOC_SECTIONS), f"{rule.code} sections out of order: {order}"


REAL_RULES = [rule for rule in all_rules() if not rule.code.startswith("TL")]


@pytest.mark.parametrize("rule", REAL_RULES, ids=lambda rule: rule.code)
def test_rule_has_valid_and_invalid_examples(rule: type[Rule]) -> None:
    kinds = {example.valid for example in rule.examples}
    assert True in kinds, f"{rule.code} has no valid example (what must stay silent?)"
    assert False in kinds, f"{rule.code} has no invalid example"


@pytest.mark.parametrize("rule", REAL_RULES, ids=lambda rule: rule.code)
def test_rule_has_a_runtime_proof(rule: type[Rule]) -> None:
    """At least one invalid example shows its symptom under real TensorFlow (tests/runtime)."""
    runnable = [example for example in rule.examples
                if not example.valid and _runnable_proof(example.proof)]
    assert runnable, f"{rule.code} has no invalid example with a Proof(check=...) or Proof(raises=...)"


def _runnable_proof(proof: Proof | None) -> bool:
    return proof is not None and bool(proof.check.strip() or proof.raises)


@pytest.mark.parametrize(("rule", "example"), CASES, ids=IDS)
def test_example_is_well_formed(rule: type[Rule], example: Example) -> None:
    """Lines exist in the source; a Proof is shaped the way the runtime harness reads it."""
    count = len(example.source.splitlines())
    assert all(1 <= line <= count for line in example.lines), (example.lines, count)
    if rule.code != "TL001":
        compile(example.source, "example.py", "exec")  # examples are real Python
    proof = example.proof
    if proof is None:
        return
    if proof.raises is not None:
        assert example.lines, "a valid example must run clean; it cannot expect an exception"
        name, fragment = proof.raises
        assert re.fullmatch(r"[A-Za-z_][\w.]*", name) and fragment.strip(), proof.raises
    if proof.check.strip():
        compile(inspect.cleandoc(proof.check), "proof-check", "exec")
    if not example.valid:
        assert _runnable_proof(proof), "an invalid example's Proof must assert something (check or raises)"
