"""The rule catalogue, by family: every module of a family package (`tape`, `function`,
`map`, `optimizer`, `tensor`, `runtime`, `meta`) whose name does not start with `_` defines one rule.
Modules starting with `_` hold what the rules of one family share."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from .base import Rule

FAMILIES = ("tape", "function", "map", "optimizer", "tensor", "runtime", "meta")


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for family in FAMILIES:
        package = importlib.import_module(f"{__name__}.{family}")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            found.append(_rule_of(importlib.import_module(f"{package.__name__}.{info.name}")))
    found.sort(key=lambda rule: rule.code)
    return tuple(found)


def _rule_of(module) -> type[Rule]:
    classes = [obj for obj in vars(module).values()
               if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
               and obj.__module__ == module.__name__]
    if len(classes) != 1:
        raise RuntimeError(f"rule module {module.__name__} must define exactly one rule, found {len(classes)}")
    return classes[0]


def rule_by_code(code: str) -> type[Rule] | None:
    code = code.strip().upper()
    for rule in all_rules():
        if rule.code == code:
            return rule
    return None
