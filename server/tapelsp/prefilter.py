"""What can be skipped before parsing: whole files, and rules per file.

Every rule declares `triggers`: substrings one of which a file must contain for the
rule to find anything (`GradientTape` for the tape rules, `map_fn` for MAP002 ...).
They are chosen so that the ways code reaches TensorFlow still contain them: an alias
(`from tensorflow import GradientTape as GT` still spells `GradientTape`), internal
names (`backprop.GradientTape`, `def_function.function`), and for rules that follow
names into other modules of the project (FUNC009, TAPE006/010/015), the file being
checked, which is where the finding is reported.

So a rule none of whose triggers is in the text finds nothing there, and a file that no
enabled rule can fire on is not even parsed. Searching a text for a trigger it lacks reads the
whole text, which for most rules costs more than running the rule where its facts are missing
(a tape rule in a file without a tape): those rules are `cheap_without_triggers`, and their
triggers are searched for only to decide whether a file needs the facts pass at all; every
other rule runs only where one of its triggers is. A file that mentions TensorFlow at all is always
parsed while TL001 is enabled, so its syntax errors are reported; when no rule has a
trigger in it, that is all that is done with it (no facts pass). Rules that declare no
triggers (the probe's RT rules, which report nothing statically) run only next to a
rule that has a trigger in the file.

Soundness is tested, not assumed: every rule example, and bench/throughput.py
--prefilter-proof over the real corpora, gives the same findings with this filter
as without it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence, TypeVar

# Text whose presence means the file is TensorFlow code whose syntax errors matter.
TENSORFLOW_MENTIONS = ("tensorflow", "keras", "tf.")

R = TypeVar("R")


# Each search for a trigger that is absent reads the whole text, and most triggers are absent
# from most files: so each distinct trigger is searched for once per text (several rules share
# `GradientTape`, `function` ...), not at all when a shorter trigger inside it is already known
# to be absent (no `function` means no `.function`), and a trigger found answers for the shorter
# ones inside it. `_seen` holds the answers for the last text asked about (the engine asks
# `rules_to_run` and then `worth_parsing` about the same text).
_seen: tuple[str, dict[str, bool]] = ("", {})


@lru_cache(maxsize=64)  # the triggers of the enabled rules: a few per configuration
def _inner_triggers(known: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """For each trigger in `known`, the other triggers in `known` that are substrings of it."""
    return {trigger: tuple(other for other in known if other != trigger and other in trigger)
            for trigger in known}


def _answers(text: str) -> dict[str, bool]:
    global _seen
    seen = _seen
    if seen[0] is text:
        return seen[1]
    answers: dict[str, bool] = {}
    _seen = (text, answers)
    return answers


def _contains(text: str, trigger: str, answers: dict[str, bool], inner: dict[str, tuple[str, ...]]) -> bool:
    found = answers.get(trigger)
    if found is None:
        shorter = inner.get(trigger, ())
        found = False if any(answers.get(other) is False for other in shorter) else trigger in text
        answers[trigger] = found
        if found:
            for other in shorter:
                answers[other] = True
    return found


def may_fire(text: str, triggers: Sequence[str]) -> bool:
    """Can a rule with these triggers find anything in `text`? (No triggers: it can.)"""
    if not triggers:
        return True
    answers, inner = _answers(text), _inner_triggers(frozenset(triggers))
    return any(_contains(text, trigger, answers, inner) for trigger in triggers)


def rules_to_run(text: str, rules: Sequence[R]) -> list[R]:
    """The rules to run on `text`, in their order: those that can find something in it.

    A rule that is `cheap_without_triggers` is not searched for: it runs whenever the text gets
    a facts pass anyway (another rule's trigger is in it), and finds nothing where its own
    triggers are absent. Only when no other rule's trigger is in the text are its triggers
    searched, to tell whether the facts pass is needed at all."""
    answers, inner = _answers(text), _all_triggers(rules)
    run: list[bool] = []
    searched = False  # a rule whose triggers were searched for (and found) runs
    for rule in rules:
        if not rule.triggers:  # type: ignore[attr-defined]
            run.append(True)
        elif rule.cheap_without_triggers:  # type: ignore[attr-defined]
            run.append(False)  # decided below
        elif any(_contains(text, t, answers, inner) for t in rule.triggers):  # type: ignore[attr-defined]
            run.append(True)
            searched = True
        else:
            run.append(False)
    cheap = searched or any(any(_contains(text, t, answers, inner) for t in rule.triggers)  # type: ignore[attr-defined]
                            for rule in rules if rule.triggers and rule.cheap_without_triggers)  # type: ignore[attr-defined]
    return [rule for rule, chosen in zip(rules, run)
            if chosen or cheap and rule.triggers and rule.cheap_without_triggers]  # type: ignore[attr-defined]


def _all_triggers(rules: Sequence[R]) -> dict[str, tuple[str, ...]]:
    """`_inner_triggers` of every trigger of `rules` (rules are few and fixed per configuration)."""
    key = tuple(rule.triggers for rule in rules)  # type: ignore[attr-defined]
    inner = _by_rules.get(key)
    if inner is None:
        if len(_by_rules) > 64:
            _by_rules.clear()
        inner = _by_rules[key] = _inner_triggers(frozenset(t for triggers in key for t in triggers))
    return inner


_by_rules: dict[tuple[tuple[str, ...], ...], dict[str, tuple[str, ...]]] = {}


def worth_parsing(text: str, rules: Sequence[R], syntax_errors: bool) -> bool:
    """Does anything need the parsed tree: a rule that has a trigger in the text, or
    (when syntax errors are reported) a mention of TensorFlow?

    Rules without triggers do not make a file worth parsing on their own (they run on
    files parsed for another reason)."""
    if syntax_errors and any(mention in text for mention in TENSORFLOW_MENTIONS):
        return True
    answers, inner = _answers(text), _all_triggers(rules)
    return any(any(_contains(text, t, answers, inner) for t in rule.triggers)  # type: ignore[attr-defined]
               for rule in rules)
