"""Functions of the file that a library differentiates with respect to their arguments, with no
tape in sight: a TFP MCMC kernel's `target_log_prob_fn` (HamiltonianMonteCarlo, NUTS, MALA),
`tfp.math.value_and_gradient(f, x)` (the library table's `grad_fn@POS=KEYWORD` flag).

What such a function returns must stay a TensorFlow computation of its arguments: a cut on every
route (`state.numpy()`, a NumPy function) leaves the library with a None gradient."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..facts.model import CallSite
from . import library
from .paths import DEAD, LIVE, Cut


@dataclass(frozen=True)
class Differentiated:
    site: CallSite            # the call that takes the function (`tfp.mcmc.HamiltonianMonteCarlo(...)`)
    function: ast.AST         # the def or lambda
    cuts: tuple[Cut, ...]     # the cuts on every route from its arguments to what it returns


def differentiated_functions(ctx) -> list[Differentiated]:
    facts = ctx.facts
    cached = facts.__dict__.get("_differentiated")
    if cached is not None:
        return cached
    found: list[Differentiated] = []
    facts.__dict__["_differentiated"] = found
    sites = [site for site in facts.calls if site.qualname and site.qualname.startswith("tensorflow_probability.")]
    if not sites:
        return found
    from .keras_graph import evaluate_function
    from .values import FUNCTION, values_for

    values = values_for(ctx)
    for site in sites:
        api = library.api(site.qualname)
        if api is None or not api.grad_fn:
            continue
        for position, keyword in api.grad_fn:
            given = next((k.value for k in site.node.keywords if k.arg == keyword), None)
            if given is None and len(site.node.args) > position:
                given = site.node.args[position]
            if given is None:
                continue
            held = values.value(given, site.scope)
            function = held.ref
            if held.kind != FUNCTION or not held.certain or held.home is not None \
                    or not isinstance(function, (ast.FunctionDef, ast.Lambda)):
                continue
            args = function.args
            if args.vararg is not None or args.kwarg is not None:
                continue
            params = {a.arg: LIVE for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            if not params:
                continue
            status, cuts = evaluate_function(values, function, params)
            if status == DEAD and cuts:
                found.append(Differentiated(site, function, tuple(cuts)))
    return found
