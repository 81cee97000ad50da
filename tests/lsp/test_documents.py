"""The server's copy of a document follows incremental edits exactly (unit level, no server):
random edits in every position encoding, over text with CRLF, lone CR, form feeds, U+2028,
accents and emoji, against plain string slicing."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from tapelsp.lsp.documents import TextDocument
from tapelsp.lsp.positions import from_client_column, to_client_column
from tapelsp.text import SourceText

from . import editing

PIECES = ["a", "b", " ", "\n", "\r", "\r\n", "é", "😀", "\x0c", "\u2028", "tf."]


def random_text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(PIECES) for _ in range(size))


def inside_crlf(text: str, index: int) -> bool:
    return 0 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_random_incremental_edits_match_string_slicing(encoding):
    rng = random.Random(f"tapelsp-{encoding}")
    for _ in range(400):
        text = random_text(rng, rng.randint(0, 25))
        document = TextDocument.of("file:///t.py", 1, text)
        for version in range(2, 8):
            start = rng.randint(0, len(text))
            end = rng.randint(start, len(text))
            if inside_crlf(text, start) or inside_crlf(text, end):
                continue  # LSP positions never point between \r and \n
            new = random_text(rng, rng.randint(0, 4))
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=editing.position(text, start, encoding),
                                  end=editing.position(text, end, encoding)), text=new)
            text = text[:start] + new + text[end:]
            document.apply(change, version, encoding)
            assert document.text == text
            # The lines are the engine's lines (what diagnostics are computed on).
            assert [line.rstrip("\r\n") for line in document.lines] == SourceText(text).lines
            assert document.version == version


def test_whole_document_change_replaces_the_text():
    document = TextDocument.of("file:///t.py", 1, "a\nb\n")
    document.apply(types.TextDocumentContentChangeWholeDocument(text="x\r\ny"), 2, "utf-16")
    assert document.text == "x\r\ny" and document.lines == ["x\r\n", "y"]


@pytest.mark.parametrize("encoding, column, units", [
    ("utf-16", 3, 4), ("utf-8", 3, 7), ("utf-32", 3, 3),  # after "a😀é"
    ("utf-16", 4, 5), ("utf-8", 4, 8), ("utf-32", 4, 4),
])
def test_columns_round_trip(encoding, column, units):
    line = "a😀éb"
    assert to_client_column(line, column, encoding) == units
    assert from_client_column(line, units, encoding) == column


def test_a_position_inside_a_surrogate_pair_goes_to_the_character_end():
    assert from_client_column("😀x", 1, "utf-16") == 1
    assert from_client_column("😀x", 99, "utf-16") == 2
