"""Rewrites for a tape that shadows the outer tape (TAPE001), built with libcst.

- `rename_fix`: give the inner tape (its `as` target and exactly the uses that belong to
  it) a new name; the other uses keep meaning the outer tape.
- `unwrap_fix`: remove the inner `with tf.GradientTape() as tape:` and keep its body, one
  level less indented, so the gradient call reaches the outer tape. Comments on the removed
  line and inside the block are kept.

Which uses belong to which tape is decided by the rule on `ast`; these only rewrite.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix, Position, Range
from ..text import SourceText
from . import cst as cstu
from .per_source import source_text


def name_range(source: SourceText, node: ast.expr) -> Range:
    """Where the renamable identifier of `tape` or `self.tape` is."""
    rng = source.node_range(node)
    if isinstance(node, ast.Attribute):
        end = rng.end
        return Range(Position(end.line, end.column - len(node.attr)), end)
    return rng


def rename_fix(text: str, tree: ast.Module, nodes: list[ast.expr], new_name: str, title: str,
               applicability: Applicability) -> Fix | None:
    """Rename the identifiers of `nodes` (`tape` Names, or the `tape` of `self.tape`) to `new_name`."""
    source = source_text(text)
    parsed = cstu.parse_region(text, tree, list(nodes))
    changes = cstu.rename_at(parsed, [name_range(source, node) for node in nodes], new_name)
    return cstu.make_fix(parsed, cstu.rewrite(parsed, changes), title, applicability)


def unwrap_fix(text: str, tree: ast.Module, with_node: ast.With, title: str,
               applicability: Applicability) -> Fix | None:
    """Replace the `with` statement by its body."""
    source = source_text(text)
    parsed = cstu.parse_region(text, tree, [with_node])
    statement = parsed.at(source.node_range(with_node), cst.With)
    assert isinstance(statement, cst.With)
    block = parsed.parent(statement)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    body = statement.body
    if isinstance(body, cst.IndentedBlock):
        statements = list(body.body)
        header, footer = body.header, list(body.footer)
    else:  # `with ...: a = 1; b = 2` on one line
        statements = [cst.SimpleStatementLine(body=list(body.body), trailing_whitespace=body.trailing_whitespace)]
        header, footer = None, []
    if not statements:
        return None
    carried = list(statement.leading_lines)
    if header is not None and header.comment is not None:
        carried.append(cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=header.comment))
    first = statements[0]
    statements[0] = first.with_changes(leading_lines=carried + list(first.leading_lines))
    index = next(i for i, s in enumerate(block.body) if s is statement)

    def unwrap(updated):
        new_body = list(updated.body)
        following = new_body[index + 1:]
        if footer and following:
            following[0] = following[0].with_changes(leading_lines=footer + list(following[0].leading_lines))
            extra_footer: list[cst.EmptyLine] = []
        else:
            extra_footer = footer
        new_body = new_body[:index] + statements + following
        return updated.with_changes(body=new_body, footer=extra_footer + list(updated.footer))

    new_code = cstu.rewrite(parsed, {block: unwrap})
    return cstu.make_fix(parsed, new_code, title, applicability)
