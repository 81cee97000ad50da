"""tapelsp.files: reading files as editors show them, and every kind of bad input (one TL002, run goes on)."""

from __future__ import annotations

import json
import os
import socket

import pytest

from tapelsp import Settings, files
from tapelsp.model import Position, Range

from .helpers import run_in_process
from .sources import MAP, PINNED, TAPE, codes, write_tree

SETTINGS = Settings(select=PINNED, tensorflow_version="2.21")


def check(path):
    return files.check_path(path, SETTINGS, SETTINGS.targets())


def only(result):
    (violation,) = result.violations
    return violation


def summary(result):
    return [(v.code, v.range.start.line + 1, v.range.start.column + 1) for v in result.violations]


def assert_unreadable(result, message):
    violation = only(result)
    assert (violation.code, violation.name, violation.message) == ("TL002", "unreadable-file", message)
    assert violation.range == Range(Position(0, 0), Position(0, 0))
    assert result.error == message


# -- reading -------------------------------------------------------------------------


def test_plain_file(tmp_path):
    path = write_tree(tmp_path, {"t.py": TAPE}) / "t.py"
    result = check(path)
    assert result.path == str(path) and result.error is None
    assert summary(result) == [("TAPE001", 7, 10)]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_keep_editor_line_numbers(tmp_path, newline):
    source = "# a comment\n\n" + MAP
    (tmp_path / "m.py").write_bytes(source.replace("\n", newline).encode())
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 7, 12)]


def test_form_feed_and_unicode_line_separators_do_not_end_lines(tmp_path):
    # Python (and editors) end lines only at \r\n, \r and \n; str.splitlines would also split here.
    source = "import tensorflow as tf\n\x0c\n# a\x0cb \u2028 c \x1c d\ns = 'x\u2029y'\n" + MAP.split("\n", 1)[1]
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 8, 12)]
    suppressed = source.replace("values)\n", "values)  # noqa: MAP002\n")
    (tmp_path / "m.py").write_text(suppressed, encoding="utf-8")
    assert summary(check(tmp_path / "m.py")) == []


def test_mixed_line_endings(tmp_path):
    (tmp_path / "m.py").write_bytes(b"import tensorflow as tf\r\n\r\r\ndef act(v):\n    return tf.map_fn(lambda x: tf.exp(x), v)\r\n")
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 5, 12)]


def test_utf8_bom(tmp_path):
    (tmp_path / "m.py").write_bytes(b"\xef\xbb\xbf" + MAP.encode())
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 5, 12)]


def test_pep263_coding_declaration(tmp_path):
    source = "# -*- coding: cp1252 -*-\n" + MAP.replace("def act(values):", "def act(values):  # “smart” – quotes €")
    (tmp_path / "m.py").write_bytes(source.encode("cp1252"))
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 6, 12)]


def test_columns_are_code_points(tmp_path):
    (tmp_path / "m.py").write_text("import tensorflow as tf\nü = 'é😀'; y = tf.map_fn(lambda v: v * 2.0, ü)\n",
                                   encoding="utf-8")
    assert summary(check(tmp_path / "m.py")) == [("MAP002", 2, 15)]


def test_empty_and_blank_files_are_clean(tmp_path):
    write_tree(tmp_path, {"empty.py": "", "blank.py": "\n\n   \n", "empty.ipynb": ""})
    for name in ("empty.py", "blank.py"):
        result = check(tmp_path / name)
        assert (result.violations, result.error) == ((), None)


def test_five_megabyte_file_is_checked_normally(tmp_path):
    filler = "".join(f"value_{i} = {i} * 2  # padding line for a large generated module\n" for i in range(80_000))
    source = "import tensorflow as tf\n" + filler + MAP.split("\n", 1)[1]
    assert len(source.encode()) > 5_000_000
    (tmp_path / "big.py").write_text(source, encoding="utf-8")
    assert summary(check(tmp_path / "big.py")) == [("MAP002", 80_005, 12)]


def test_nul_byte_after_the_sniffed_prefix_is_a_syntax_error_not_binary(tmp_path):
    (tmp_path / "late.py").write_bytes(b"import tensorflow as tf\n" + b"# pad\n" * 2000 + b"x = 1\x00\n")
    result = check(tmp_path / "late.py")
    assert [v.code for v in result.violations] == ["TL001"]


# -- bad input: one TL002 each ---------------------------------------------------------


def test_not_utf8(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"import tensorflow as tf\nname = 'caf\xe9'\n")
    assert_unreadable(check(tmp_path / "latin.py"),
                      "Cannot read file: it is not valid UTF-8 (byte 0xe9 at line 2, byte 12 of the line); "
                      "save it as UTF-8 or declare its encoding with a `# -*- coding: ... -*-` line.")


def test_wrong_declared_encoding(tmp_path):
    (tmp_path / "x.py").write_bytes(b"# coding: ascii\nname = 'caf\xc3\xa9'\n")
    assert_unreadable(check(tmp_path / "x.py"),
                      "Cannot read file: it is not valid ascii (byte 0xc3 at line 2, byte 12 of the line); "
                      "fix the bytes or the coding declaration.")


def test_unknown_declared_encoding(tmp_path):
    (tmp_path / "x.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    assert_unreadable(check(tmp_path / "x.py"),
                      "Cannot read file: its coding declaration names an unknown encoding 'klingon'.")


def test_bom_with_a_different_declared_encoding(tmp_path):
    (tmp_path / "x.py").write_bytes(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n")
    assert_unreadable(check(tmp_path / "x.py"),
                      "Cannot read file: it starts with a UTF-8 byte-order mark but declares another encoding "
                      "(encoding problem: utf-8).")


def test_binary(tmp_path):
    (tmp_path / "blob.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00binary")
    assert_unreadable(check(tmp_path / "blob.py"),
                      "Cannot read file: it looks like a binary file (NUL byte at offset 7).")


def test_utf16_file_looks_binary(tmp_path):
    (tmp_path / "wide.py").write_bytes("import tensorflow as tf\n".encode("utf-16"))
    assert only(check(tmp_path / "wide.py")).message.startswith("Cannot read file: it looks like a binary file")


def test_broken_symlink(tmp_path):
    os.symlink("nowhere.py", tmp_path / "dangling.py")
    assert_unreadable(check(tmp_path / "dangling.py"),
                      "Cannot read file: broken symbolic link (points to 'nowhere.py', which does not exist).")


def test_symlink_loop(tmp_path):
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    assert_unreadable(check(tmp_path / "loop_a.py"), "Cannot read file: too many levels of symbolic links.")


def test_missing_file(tmp_path):
    assert_unreadable(check(tmp_path / "gone.py"), "Cannot read file: no such file.")


def test_directory_named_like_a_python_file(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    assert_unreadable(check(tmp_path / "pkg.py"), "Cannot read file: it is a directory, not a file.")


def test_fifo_is_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")  # reading it would block forever
    assert_unreadable(check(tmp_path / "pipe.py"),
                      "Cannot read file: not a regular file (a pipe, socket or device).")


def test_socket_is_not_read(tmp_path):
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "s.py"))
        assert only(check(tmp_path / "s.py")).message == "Cannot read file: not a regular file (a pipe, socket or device)."
    finally:
        server.close()


def test_permission_denied(tmp_path, monkeypatch):
    # Tests run as root, where chmod 000 does not stop reads: make open() refuse instead.
    path = write_tree(tmp_path, {"secret.py": TAPE}) / "secret.py"
    real_open = open

    def refusing_open(file, mode="r", *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing_open)
    assert_unreadable(check(path), "Cannot read file: permission denied.")


def test_read_error(tmp_path, monkeypatch):
    path = write_tree(tmp_path, {"flaky.py": TAPE}) / "flaky.py"
    real_open = open

    def failing_open(file, mode="r", *args, **kwargs):
        if os.fspath(file) == str(path):
            raise OSError(5, "Input/output error")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    assert_unreadable(check(path), "Cannot read file: input/output error.")


@pytest.mark.parametrize("content, message", [
    ('{"cells": [', "Cannot read notebook: not valid notebook JSON: Expecting value: line 1 column 12 (char 11)"),
    ("[]", "Cannot read notebook: not a Jupyter notebook: no list of cells"),
    ('{"cells": [{"cell_type": "code", "source": 7}]}', "Cannot read notebook: cell 1 has a source that is not text"),
])
def test_broken_notebook(tmp_path, content, message):
    (tmp_path / "nb.ipynb").write_text(content, encoding="utf-8")
    assert_unreadable(check(tmp_path / "nb.ipynb"), message)


def test_notebook_not_utf8(tmp_path):
    (tmp_path / "nb.ipynb").write_bytes(b'{"cells": [], "metadata": {"x": "\xff"}}')
    assert_unreadable(check(tmp_path / "nb.ipynb"),
                      "Cannot read file: it is not valid UTF-8 (byte 0xff at line 1, byte 34 of the line); "
                      "notebooks are UTF-8 JSON.")


def test_notebook_with_bom_and_finding_in_cell_2(tmp_path):
    notebook = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# title"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": TAPE},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_bytes(b"\xef\xbb\xbf" + json.dumps(notebook).encode())
    (violation,) = check(tmp_path / "nb.ipynb").violations
    assert (violation.code, violation.cell, violation.range.start) == ("TAPE001", 2, Position(6, 9))


def test_unreadable_file_respects_ignore(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n")
    result = files.check_path(tmp_path / "latin.py", Settings(select=PINNED, ignore=("TL002",)))
    assert result.violations == ()
    assert result.error.startswith("Cannot read file: it is not valid UTF-8")


def test_check_bytes_names_the_kind_from_the_path():
    notebook = json.dumps({"cells": [{"cell_type": "code", "source": TAPE}]}).encode()
    assert [v.cell for v in files.check_bytes(notebook, "x.ipynb", SETTINGS).violations] == [1]
    assert [v.code for v in files.check_bytes(notebook, "x.py", SETTINGS).violations] == []
    assert [v.cell for v in files.check_bytes(notebook, "-", SETTINGS, notebook=True).violations] == [1]


def test_read_source_reports_the_encoding(tmp_path):
    (tmp_path / "a.py").write_bytes(b"# coding: latin-1\nx = '\xe9'\n")
    (tmp_path / "b.py").write_bytes(b"\xef\xbb\xbfx = 1\r\n")
    assert files.read_source(tmp_path / "a.py") == files.Source("# coding: latin-1\nx = 'é'\n", "iso-8859-1")
    assert files.read_source(tmp_path / "b.py") == files.Source("x = 1\r\n", "utf-8-sig")
    with pytest.raises(files.UnreadableFile, match="no such file"):
        files.read_source(tmp_path / "c.py")


# -- the CLI goes on past bad files -------------------------------------------------------


def test_bad_files_do_not_stop_the_run(tmp_path):
    write_tree(tmp_path, {
        "a_latin.py": b"x = '\xe9'\n",
        "b_binary.py": b"\x00\x00",
        "c_broken.ipynb": '{"cells": [',
        "d_empty.py": "",
        "e_good.py": TAPE,
    })
    os.symlink("nowhere.py", tmp_path / "f_dangling.py")
    os.mkfifo(tmp_path / "g_pipe.py")
    outcome = run_in_process(["--check", "."], cwd=tmp_path)
    assert outcome.code == 1
    assert outcome.err == ""
    assert codes(outcome.out) == ["a_latin.py:1:1: TL002", "b_binary.py:1:1: TL002", "c_broken.ipynb:1:1: TL002",
                                  "e_good.py:7:10: TAPE001", "f_dangling.py:1:1: TL002", "g_pipe.py:1:1: TL002"]
    assert "\nFound 6 errors.\n" in outcome.out


def test_only_unreadable_files_exit_1_not_2(tmp_path):
    write_tree(tmp_path, {"latin.py": b"x = '\xe9'\n"})
    outcome = run_in_process(["--check", "latin.py"], cwd=tmp_path)
    assert outcome.code == 1
    assert run_in_process(["--check", "latin.py", "--exit-zero"], cwd=tmp_path).code == 0
    assert run_in_process(["--check", "latin.py", "--ignore", "TL002"], cwd=tmp_path).code == 0
