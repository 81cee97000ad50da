"""Update a tf.Variable in place instead of rebinding its name (TAPE011), built with libcst.

`v = v - x` and `v -= x` become `v.assign_sub(x)`, `v = v + x` / `v = x + v` / `v += x`
become `v.assign_add(x)`, anything else `v.assign(<the value>)`. The rule picks the method
and the operand on `ast`; this writes the call in place of the assignment, keeping the
operand's own text (its comments and line breaks) and the statement's trailing comment.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none


@or_none
def assign_fix(text: str, stmt: ast.Assign | ast.AugAssign, method: str, operand: ast.expr, title: str,
               applicability: Applicability, combine: str | None = None) -> Fix | None:
    """`combine` ("*", "/"): the argument is `v <combine> operand` (for `v *= x`)."""
    rewrite = Rewrite(text, [stmt])
    small = rewrite.node(stmt, cst.Assign, cst.AugAssign)
    if isinstance(small, cst.Assign):
        if len(small.targets) != 1:
            return None
        target_node = small.targets[0].target
    else:
        assert isinstance(small, cst.AugAssign)
        target_node = small.target
    operand_node = rewrite.node(operand, cst.BaseExpression)

    def update(updated):
        target = updated.targets[0].target if isinstance(updated, cst.Assign) else updated.target
        value = _find(updated, operand_node) or operand_node
        argument = value.with_changes(lpar=[], rpar=[]) if value.lpar and _one_line(rewrite, value) else value
        if combine is not None:
            if isinstance(argument, _LOOSE) and not argument.lpar:
                argument = argument.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            operator = cst.Multiply() if combine == "*" else cst.Divide()
            argument = cst.BinaryOperation(left=target.deep_clone(), operator=operator, right=argument)
        call = cst.Call(func=cst.Attribute(value=target, attr=cst.Name(method)), args=[cst.Arg(value=argument)])
        return cst.Expr(value=call, semicolon=updated.semicolon)

    if target_node is None:
        return None
    rewrite.change(small, update)
    return rewrite.fix(title, applicability)


_LOOSE = (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda, cst.NamedExpr,
          cst.UnaryOperation)


def _find(root: cst.CSTNode, wanted: cst.CSTNode) -> cst.CSTNode | None:
    """`wanted` itself when it is still in the updated tree (nothing under it changed)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node is wanted:
            return node
        stack.extend(node.children)
    return None


def _one_line(rewrite: Rewrite, node: cst.CSTNode) -> bool:
    return "\n" not in rewrite.parsed.code(node) and "\r" not in rewrite.parsed.code(node)
