"""Property-based fuzzing of the engine and the fixes (issue 11, point 1).

Three sources of programs (tests/reliability/programs.py): a generator of TensorFlow code
(tapes, tf.functions, map_fn, loops, classes, nested defs, shadowed names, variables in
functions), mixes of the rules' own examples with perturbations, and arbitrary valid Python
from hypothesmith. On each: `check_source` never raises and no rule fails (TL004); findings
are the same twice and with or without fixes built; applying every fix (safe only, then safe
and unsafe) gives code that parses, and a second round changes nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tapelsp import check_source

from .programs import (check_deterministic, check_fixes, check_never_crashes, example_mixes,
                       hypothesmith_programs, tf_programs)


@given(tf_programs())
def test_generated_tensorflow_programs(text):
    check_never_crashes(text)
    check_deterministic(text)
    check_fixes(text, unsafe=False)
    check_fixes(text, unsafe=True)


@given(example_mixes())
def test_mixed_rule_examples(text):
    check_never_crashes(text)
    check_deterministic(text)
    check_fixes(text, unsafe=False)
    check_fixes(text, unsafe=True)


# hypothesmith compiles what it generates; `1(2)` and the like warn, harmlessly.
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=15)
@given(hypothesmith_programs())
def test_arbitrary_valid_python(text):
    check_never_crashes(text)
    check_deterministic(text)
    check_fixes(text, unsafe=True)


def test_the_generators_reach_the_rules():
    """Guard against a generator that silently stops producing findings: a fixed sample of the
    example mixes must reach most rules, and fixes must be applied."""
    from hypothesis import HealthCheck, Phase, seed
    from hypothesis import settings as hsettings

    codes: set[str] = set()
    fixed = 0

    @seed(11)
    @hsettings(max_examples=80, phases=[Phase.generate], derandomize=False, database=None, deadline=None,
               suppress_health_check=list(HealthCheck))
    @given(example_mixes())
    def collect(text):
        nonlocal fixed
        codes.update(v.code for v in check_source(text, "fuzz.py"))
        fixed += check_fixes(text, unsafe=True)[0]

    collect()
    assert len({c for c in codes if not c.startswith("TL")}) >= 15, sorted(codes)
    assert fixed >= 20
