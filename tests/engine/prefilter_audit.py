"""A pytest plugin that checks the pre-parse filter under a whole test suite.

    .venv/bin/python -m pytest tests/rules tests/engine -p tests.engine.prefilter_audit -q

Every `check_source` call any test makes is run twice, with the filter (what the test
sees) and without it (every file parsed, every rule run); a difference fails the test
that made the call, naming the rules the filter would have wrongly skipped. Not loaded
by default: it doubles the analysis cost.
"""

from __future__ import annotations

import sys
import threading

_lock = threading.Lock()


def _audited(original):
    from tapelsp import prefilter

    def check_source(*args, **kwargs):
        filtered = original(*args, **kwargs)
        with _lock:
            saved = prefilter.worth_parsing, prefilter.rules_to_run
            prefilter.worth_parsing = lambda text, rules, syntax: True
            prefilter.rules_to_run = lambda text, rules: list(rules)
            try:
                unfiltered = original(*args, **kwargs)
            finally:
                prefilter.worth_parsing, prefilter.rules_to_run = saved
        # A rule the filter does not run cannot crash (TL004): that difference is the point.
        if [v for v in filtered if v.code != "TL004"] != [v for v in unfiltered if v.code != "TL004"]:
            missed = sorted({v.code for v in unfiltered} ^ {v.code for v in filtered})
            raise AssertionError(f"the pre-parse filter changed the findings (codes {missed}): "
                                 f"{filtered!r} != {unfiltered!r}")
        return filtered

    check_source.__wrapped__ = original  # type: ignore[attr-defined]
    return check_source


def pytest_configure(config):
    import tapelsp.engine

    original = tapelsp.engine.check_source
    wrapper = _audited(original)
    for name, module in list(sys.modules.items()):
        if (name == "tapelsp" or name.startswith("tapelsp.")) and getattr(module, "check_source", None) is original:
            module.check_source = wrapper


# Tests that count parses or rule runs: the audit's second run adds to the count.
COUNTING = (
    "tests/engine/test_prefilter.py::test_a_file_no_rule_can_fire_on_is_not_parsed",
    "tests/engine/test_prefilter.py::test_a_file_mentioning_tensorflow_is_parsed_for_its_syntax_errors",
    "tests/engine/test_settings.py::test_files_that_never_mention_tensorflow_are_not_parsed",
)


def pytest_collection_modifyitems(config, items):
    kept = [item for item in items if item.nodeid not in COUNTING]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in COUNTING])
        items[:] = kept
