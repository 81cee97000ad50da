"""The engine's public deferred-fix API that the language server's workers use:
`deferred_fixes()` hands fix offers over unbuilt, `build_fix` builds one on demand."""

from __future__ import annotations

from tapelsp.engine import build_fix, check_source, deferred_fixes
from tapelsp.notebook import check_notebook

from .samples import LEARNER, NESTED_TAPES


def test_findings_come_without_fixes_and_each_offer_builds_the_same_fix_as_eager():
    eager = {(v.code, v.range): v.fix for v in check_source(NESTED_TAPES, "t.py", fixes=True)}
    assert any(fix is not None for fix in eager.values())
    with deferred_fixes() as offers:
        found = check_source(NESTED_TAPES, "t.py", fixes=True)
    assert found and all(v.fix is None for v in found)
    assert offers, "the TAPE001 fix offer was not handed over"
    for offer in offers:
        built = build_fix(offer)
        assert built.fix == eager[(built.code, built.range)]


def test_outside_the_block_fixes_are_built_again():
    with deferred_fixes():
        check_source(LEARNER, "l.py", fixes=True)
    assert any(v.fix is not None for v in check_source(LEARNER, "l.py", fixes=True))


def test_notebooks_hand_offers_over_in_joined_program_positions():
    notebook = {"cells": [{"cell_type": "markdown", "source": "# title"},
                          {"cell_type": "code", "source": NESTED_TAPES}]}
    with deferred_fixes() as offers:
        found = check_notebook(notebook, "n.ipynb", fixes=True)
    assert [v.cell for v in found if v.code == "TAPE001"] == [2]
    assert offers and build_fix(offers[0]).fix is not None
