"""Make an integer gradient source a float one (TAPE012), built with libcst.

- `float_literals_fix`: the integer literals of a source's data become float literals
  (`tf.constant(3)` -> `tf.constant(3.0)`, `tf.Variable([1, -2])` -> `tf.Variable([1.0, -2.0])`).
- `float_dtype_fix`: an integer dtype becomes `float32` (`dtype=tf.int32` -> `dtype=tf.float32`,
  `dtype="int64"` -> `dtype="float32"`).
- `dtype_keyword_fix`: `dtype=tf.float32` added to a conversion of integer NumPy data
  (`tf.convert_to_tensor(pixels)` -> `tf.convert_to_tensor(pixels, dtype=tf.float32)`).

The rule decides which applies on `ast`; these only rewrite the nodes it names.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from ..model import Applicability, Fix
from .blocks import Rewrite, or_none, with_keyword

_DECIMAL = re.compile(r"[0-9][0-9_]*\Z")


def float_text(literal: str, value: int) -> str:
    """The float literal for an integer literal: `3` -> `3.0`, `1_000` -> `1_000.0`, `0x10` -> `16.0`."""
    if _DECIMAL.match(literal) and (literal == "0" or not literal.startswith("0")):
        return literal + ".0"
    return repr(float(value))


@or_none
def float_literals_fix(text: str, literals: list[ast.Constant], title: str,
                       applicability: Applicability = Applicability.SAFE) -> Fix | None:
    rewrite = Rewrite(text, literals)
    for literal in literals:
        node = rewrite.node(literal, cst.Integer)
        assert isinstance(node, cst.Integer)
        new_value = float_text(node.value, literal.value)
        rewrite.change(node, lambda updated, new_value=new_value: cst.Float(
            value=new_value, lpar=updated.lpar, rpar=updated.rpar))
    return rewrite.fix(title, applicability)


@or_none
def float_dtype_fix(text: str, dtype: ast.expr, title: str,
                    applicability: Applicability = Applicability.UNSAFE) -> Fix | None:
    rewrite = Rewrite(text, [dtype])
    if isinstance(dtype, ast.Attribute):
        node = rewrite.node(dtype, cst.Attribute)
        assert isinstance(node, cst.Attribute)
        rewrite.change(node, lambda updated: updated.with_changes(attr=cst.Name("float32")))
    elif isinstance(dtype, ast.Name):
        return None  # `int32` imported on its own: which float name is bound is unknown
    elif isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        node = rewrite.node(dtype, cst.SimpleString)
        assert isinstance(node, cst.SimpleString)
        quote = node.quote
        prefix = node.prefix
        rewrite.change(node, lambda updated: updated.with_changes(value=f"{prefix}{quote}float32{quote}"))
    else:
        return None
    return rewrite.fix(title, applicability)


@or_none
def dtype_keyword_fix(text: str, call: ast.Call, dtype_code: str, title: str,
                      applicability: Applicability = Applicability.UNSAFE) -> Fix | None:
    rewrite = Rewrite(text, [call])
    node = rewrite.node(call, cst.Call)
    assert isinstance(node, cst.Call)
    rewrite.change(node, lambda updated: with_keyword(updated, "dtype", dtype_code))
    return rewrite.fix(title, applicability)
