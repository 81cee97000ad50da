"""The four output formats on hand-made findings: fields, units, fixes, escaping, summaries."""

from __future__ import annotations

import json

from tapelsp.cli.report import render
from tapelsp.cli.report.as_github import escape_data, escape_property
from tapelsp.model import (Applicability, Edit, FileResult, Fix, Position, Range, Related, Severity,
                           Violation)

JSON_KEYS = ["cell", "code", "end_location", "filename", "fix", "location", "message", "noqa_row", "severity", "url"]


def violation(code="TAPE001", line=4, column=9, end_line=4, end_column=20, severity=Severity.ERROR, fix=None,
              cell=None, message="Something is wrong", related=()):
    return Violation(code=code, name="rule-name", message=message,
                     range=Range(Position(line, column), Position(end_line, end_column)), severity=severity,
                     fix=fix, related=related, url=f"https://example.invalid/{code}", cell=cell)


SAFE_FIX = Fix("Rename the inner tape", Applicability.SAFE, (
    Edit(Range(Position(4, 30), Position(4, 34)), "inner"),
    Edit(Range(Position(5, 12), Position(5, 16)), "inner"),
))
UNSAFE_FIX = Fix("Hoist the variable", Applicability.UNSAFE, (Edit(Range(Position(2, 0), Position(3, 0)), ""),))


def test_text_lines_and_summary():
    results = [
        FileResult("a.py", (violation(), violation("MAP002", 9, 0, 9, 5, Severity.WARNING, fix=SAFE_FIX))),
        FileResult("b.ipynb", (violation(cell=2, line=0, column=0),)),
        FileResult("c.py", ()),
    ]
    assert render("text", results) == (
        "a.py:5:10: TAPE001 Something is wrong\n"
        "a.py:10:1: MAP002 [*] Something is wrong\n"
        "b.ipynb:cell 2:1:1: TAPE001 Something is wrong\n"
        "Found 3 errors.\n"
        "[*] 1 fixable with --fix.\n"
    )
    assert render("text", results, quiet=True).count("\n") == 3


def test_text_summary_singular_unsafe_and_clean():
    assert render("text", [FileResult("a.py", (violation(fix=UNSAFE_FIX),))]) == (
        "a.py:5:10: TAPE001 Something is wrong\nFound 1 error.\n"
        "No fixes available (1 hidden fix can be enabled with --unsafe-fixes).\n")
    # With --unsafe-fixes the unsafe fix is one --fix applies: marked, and counted.
    assert render("text", [FileResult("a.py", (violation(fix=UNSAFE_FIX),))], unsafe_fixes=True) == (
        "a.py:5:10: TAPE001 [*] Something is wrong\nFound 1 error.\n[*] 1 fixable with --fix.\n")
    both = [FileResult("a.py", (violation(fix=UNSAFE_FIX), violation("MAP002", fix=SAFE_FIX)))]
    assert render("text", both).endswith(
        "Found 2 errors.\n[*] 1 fixable with --fix (1 hidden fix can be enabled with --unsafe-fixes).\n")
    # After --fix: what was fixed and what is left.
    assert render("text", [FileResult("a.py", ())], fixed=2) == "Found 2 errors (2 fixed, 0 remaining).\n"
    assert render("text", both, fixed=1).startswith("a.py:5:10: TAPE001 Something is wrong\n")
    assert "Found 3 errors (1 fixed, 2 remaining).\n" in render("text", both, fixed=1)
    assert render("text", [], fixed=0) == "All checks passed!\n"
    assert render("text", []) == "All checks passed!\n"
    assert render("text", [FileResult("a.py", ())]) == "All checks passed!\n"
    assert render("text", [], quiet=True) == ""


def test_json_has_ruffs_fields_plus_severity():
    results = [FileResult("pkg/a.py", (violation(fix=SAFE_FIX), violation("MAP002", severity=Severity.WARNING))),
               FileResult("nb.ipynb", (violation(cell=3, severity=Severity.HINT),))]
    items = json.loads(render("json", results))
    assert [list(item) for item in items] == [JSON_KEYS] * 3
    assert items[0] == {
        "cell": None,
        "code": "TAPE001",
        "end_location": {"column": 21, "row": 5},
        "filename": "pkg/a.py",
        "fix": {
            "applicability": "safe",
            "edits": [
                {"content": "inner", "end_location": {"column": 35, "row": 5}, "location": {"column": 31, "row": 5}},
                {"content": "inner", "end_location": {"column": 17, "row": 6}, "location": {"column": 13, "row": 6}},
            ],
            "message": "Rename the inner tape",
        },
        "location": {"column": 10, "row": 5},
        "message": "Something is wrong",
        "noqa_row": 5,
        "severity": "error",
        "url": "https://example.invalid/TAPE001",
    }
    assert (items[1]["fix"], items[1]["severity"]) == (None, "warning")
    assert (items[2]["cell"], items[2]["severity"]) == (3, "hint")


def test_json_unsafe_fix_and_empty():
    (item,) = json.loads(render("json", [FileResult("a.py", (violation(fix=UNSAFE_FIX),))]))
    assert item["fix"] == {"applicability": "unsafe", "message": "Hoist the variable", "edits": [
        {"content": "", "location": {"row": 3, "column": 1}, "end_location": {"row": 4, "column": 1}}]}
    assert render("json", []) == "[]\n"


def test_json_keeps_non_ascii_text():
    text = render("json", [FileResult("größe.py", (violation(message="`ä` – nicht gut"),))])
    assert "größe.py" in text and "`ä` – nicht gut" in text


def test_github_levels_and_properties():
    results = [FileResult("src/a.py", (
        violation(),
        violation("MAP002", severity=Severity.WARNING),
        violation("X001", severity=Severity.INFORMATION),
        violation("X002", severity=Severity.HINT),
    )), FileResult("nb.ipynb", (violation(cell=2),))]
    assert render("github", results) == (
        "::error title=tapelsp (TAPE001),file=src/a.py,line=5,col=10,endLine=5,endColumn=21::TAPE001 Something is wrong\n"
        "::warning title=tapelsp (MAP002),file=src/a.py,line=5,col=10,endLine=5,endColumn=21::MAP002 Something is wrong\n"
        "::notice title=tapelsp (X001),file=src/a.py,line=5,col=10,endLine=5,endColumn=21::X001 Something is wrong\n"
        "::notice title=tapelsp (X002),file=src/a.py,line=5,col=10,endLine=5,endColumn=21::X002 Something is wrong\n"
        "::error title=tapelsp (TAPE001),file=nb.ipynb,line=5,col=10,endLine=5,endColumn=21::cell 2: TAPE001 Something is wrong\n"
    )
    assert render("github", []) == ""


def test_github_escaping():
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("dir:x,y/100%.py\n") == "dir%3Ax%2Cy/100%25.py%0A"
    line = render("github", [FileResult("we,ird:name%.py", (violation(message="50% of\nlines: a, b"),))])
    assert line == ("::error title=tapelsp (TAPE001),file=we%2Cird%3Aname%25.py,line=5,col=10,endLine=5,"
                    "endColumn=21::TAPE001 50%25 of%0Alines: a, b\n")


def test_sarif_result_shape():
    related = (Related(Range(Position(1, 0), Position(1, 3)), "opened here"),)
    log = json.loads(render("sarif", [FileResult("a b.py", (violation(related=related, severity=Severity.HINT),))]))
    (result,) = log["runs"][0]["results"]
    assert result == {
        "ruleId": "TAPE001",
        "level": "note",
        "message": {"text": "Something is wrong"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a%20b.py"},
                                            "region": {"startLine": 5, "startColumn": 10,
                                                       "endLine": 5, "endColumn": 21}}}],
        "relatedLocations": [{"id": 0, "message": {"text": "opened here"},
                              "physicalLocation": {"artifactLocation": {"uri": "a%20b.py"},
                                                   "region": {"startLine": 2, "startColumn": 1,
                                                              "endLine": 2, "endColumn": 4}}}],
    }
