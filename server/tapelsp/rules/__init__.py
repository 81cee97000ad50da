"""The rule catalogue: every module in this package but `base` defines one rule."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from .base import Rule

_NOT_RULES = {"base"}


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_RULES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        classes = [obj for obj in vars(module).values()
                   if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
                   and obj.__module__ == module.__name__]
        if len(classes) != 1:
            raise RuntimeError(f"rule module {module.__name__} must define exactly one rule, found {len(classes)}")
        found.append(classes[0])
    found.sort(key=lambda rule: rule.code)
    return tuple(found)


def rule_by_code(code: str) -> type[Rule] | None:
    code = code.strip().upper()
    for rule in all_rules():
        if rule.code == code:
            return rule
    return None
