"""Wrap an expression in a call, built with libcst: `epsilon` -> `tf.constant(epsilon)` (FUNC009),
`tf.constant(t, dtype=tf.float32)` with further arguments, `tf.Variable(...)` (TAPE010).

The expression keeps its own text (comments and line breaks inside it too); parentheses
written around it move outside the new call.

Importing this module imports libcst: rules import it inside their fix builders only.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none


@or_none
def wrap_fix(text: str, expr: ast.expr, func: str, title: str, applicability: Applicability,
             more: str = "") -> Fix | None:
    """`expr` -> `func(expr)`, or `func(expr, <more>)` (`more`: further arguments' text, as
    `dtype=tf.float32`)."""
    rewrite = Rewrite(text)
    node = rewrite.node(expr, cst.BaseExpression)
    template = cst.parse_expression(f"{func}(_, {more})" if more else f"{func}(_)")
    assert isinstance(template, cst.Call)

    def change(updated):
        inner = updated.with_changes(lpar=[], rpar=[])
        args = [template.args[0].with_changes(value=inner), *template.args[1:]]
        return template.with_changes(args=args, lpar=updated.lpar, rpar=updated.rpar)
    rewrite.change(node, change)
    return rewrite.fix(title, applicability)
