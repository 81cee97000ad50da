"""Wrap an expression in a call, built with libcst: `epsilon` -> `tf.constant(epsilon)` (FUNC009).

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
def wrap_fix(text: str, expr: ast.expr, func: str, title: str, applicability: Applicability) -> Fix | None:
    rewrite = Rewrite(text)
    node = rewrite.node(expr, cst.BaseExpression)
    callee = cst.parse_expression(func)

    def change(updated):
        inner = updated.with_changes(lpar=[], rpar=[])
        return cst.Call(func=callee, args=[cst.Arg(value=inner)], lpar=updated.lpar, rpar=updated.rpar)
    rewrite.change(node, change)
    return rewrite.fix(title, applicability)
