"""One rubric rule compiled to score a batch of candidates through its memo of contributions.

A rule's contribution for a candidate is a function of a few per-candidate values, its key:
the shown value of the fact read and, for a claim, the checklist status and reference, or
for a measurement, the evidence reference. The runner takes those values from the batch's
shared columns and looks the key up in the rule's memo; only a key not seen before is decoded
and built. The common rule shape (one input with a fixed basis, no only_if) keys its memo
first by the status/reference and then by the value, so no key tuple is allocated per
candidate; any other rule keys it by the tuple of all its columns. ``reference`` applies a
rule straight from its definition: the specification the runners are tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from operator import methodcaller
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..rubric.model import backs
from ..types import Contribution
from .facts import (
    CLAIMED,
    COMPUTED,
    FACTS,
    MEASURABLE_NOTES,
    MEASURED,
    FactContext,
    claim_ref,
    claim_status,
    may_claim,
)

if TYPE_CHECKING:
    from ..rubric import Rule
    from .batch import Batch

BatchRunner = Callable[["Batch"], list[Contribution]]
Builder = Callable[..., Contribution]

MEMO_LIMIT = 8192
# Counts the entries of a memo keyed in two levels; no key is ever equal to it.
_SIZE = object()
_EMPTY: dict[Any, Contribution] = {}


def _contribution(
    rule: Rule,
    inputs: dict[str, Any],
    points: float,
    max_points: float,
    basis: str,
    ref: str | None,
) -> Contribution:
    return Contribution(
        rule.id,
        rule.label_en,
        rule.label_zh,
        MappingProxyType(inputs),
        round(points, 4),
        max_points,
        basis,
        ref,
    )


def _shown(value: Any, exact_text: bool) -> Any:
    return str(value) if exact_text and value is not None else value


def _missing(rule: Rule) -> Contribution:
    """The contribution of a rule none of whose inputs is known."""
    excluded = rule.if_missing == "exclude"
    return _contribution(
        rule,
        dict.fromkeys(rule.inputs),
        0.0,
        0.0 if excluded else rule.max_points,
        "excluded" if excluded else "missing",
        None,
    )


def _not_applicable(
    rule: Rule, name: str, shown: Any, condition: str, current: Any
) -> Contribution:
    inputs = {name: shown, condition: current}
    return _contribution(rule, inputs, 0.0, rule.max_points, "not_applicable", None)


def _inapplicable(rule: Rule, condition: str, current: Any) -> Contribution:
    """The contribution of a rule whose applies_if condition is not met: it does not concern
    the candidate, so it leaves the dimension's maximum (0 of 0); the condition read is the
    explanation (e.g. derived.inter_node_traffic False: the need fits in one node)."""
    return _contribution(rule, {condition: current}, 0.0, 0.0, "not_applicable", None)


def _unmeasurable(rule: Rule, condition: str, current: Any, note: str | None) -> Contribution:
    """The contribution of a rule whose measurable_if condition is not met: no measurement can
    settle its fact (no reference to judge it against), so it counts as an unmeasured
    candidate's, "missing" (0 of the rule's maximum, or of 0 where the rule excludes missing
    facts), whatever was measured; it shows the condition, and ``note`` says why."""
    excluded = rule.if_missing == "exclude"
    inputs: dict[str, Any] = dict.fromkeys(rule.inputs)
    inputs[condition] = current
    basis = "excluded" if excluded else "missing"
    return _contribution(rule, inputs, 0.0, 0.0 if excluded else rule.max_points, basis, note)


def measurable_note(condition: str, ctx: FactContext) -> str | None:
    """Why a rule whose measurable_if ``condition`` is not met cannot be measured, for one
    candidate (facts.MEASURABLE_NOTES), or None."""
    notes = MEASURABLE_NOTES.get(condition)
    return None if notes is None else notes[0](ctx)


# The input a contribution shows when its contradicted factor scaled the rule's maximum.
CONTRADICTED_OF_MAX = "contradicted.max_points"


def _contradicted_unstated(
    rule: Rule, factors: Mapping[str, float], status: str | None, ref: str | None
) -> Contribution | None:
    """The contribution of a rule none of whose inputs is known when its claim item is
    contradicted and the rubric takes a contradicted factor of each rule's maximum
    (Rule.contradicted_on_max): the same cost as any value stated under that item, so that
    leaving a term unstated never scores above stating a better one (expert review: with item
    7 contradicted, stating a 2-hour replacement lowered stability from 8.41 to 3.98). None
    when that does not apply: the rule's "missing" contribution stands."""
    if not rule.contradicted_on_max or rule.claim_item is None or status is None:
        return None
    factor = factors[status]
    if factor >= 0.0:
        return None
    inputs: dict[str, Any] = dict.fromkeys(rule.inputs)
    inputs[f"answer.{rule.claim_item}"] = status
    inputs["factor"] = factor
    inputs[CONTRADICTED_OF_MAX] = rule.max_points
    return _contribution(rule, inputs, factor * rule.max_points, rule.max_points, "missing", ref)


def _builder(rule: Rule, factors: Mapping[str, float]) -> Builder:
    """The function building a rule's contribution from a known fact: the table's points,
    scaled for a claim by the factor of its checklist status. A rule with ``backed_by`` takes
    the backing fact's shown value last: when it backs nothing (model.backs) the factor is at
    most that of ``unbacked_at_most``, and where that lowers it the inputs show the backing
    fact and "unbacked.<backing fact>" (the status the claim counts at most as)."""
    rule_id, label_en, label_zh = rule.id, rule.label_en, rule.label_zh
    points_of, max_points = rule.table.points, rule.max_points
    answer_key = f"answer.{rule.claim_item}"
    backed_by = rule.backed_by
    cap = factors[rule.unbacked_at_most] if backed_by is not None else None
    unbacked_key = f"unbacked.{backed_by}"
    on_max = rule.contradicted_on_max

    def build(
        name: str,
        shown: Any,
        value: Any,
        basis: str,
        status: str | None,
        ref: str | None,
        backing: Any = None,
    ) -> Contribution:
        points = points_of(value)
        inputs = {name: shown}
        if basis == CLAIMED:
            factor = factors["no_item" if status is None else status]
            if status is not None:
                inputs[answer_key] = status
            if cap is not None and factor > cap and not backs(backing, rule.backed_from):
                # Verified text that nothing enforces (no credit on breach) is still a claim.
                factor = cap
                inputs[backed_by] = backing  # type: ignore[index]
                inputs[unbacked_key] = rule.unbacked_at_most
            if factor != 1.0:
                inputs["factor"] = factor
            if factor < 0.0 and on_max:
                # A contradicted item costs the factor of the rule's maximum, whatever was
                # claimed under it (Rule.contradicted_on_max).
                inputs[CONTRADICTED_OF_MAX] = max_points
                points = factor * max_points
            else:
                points *= factor
        return Contribution(
            rule_id,
            label_en,
            label_zh,
            MappingProxyType(inputs),
            round(points, 4),
            max_points,
            basis,
            ref,
        )

    return build


def compile_rule(rule: Rule, factors: Mapping[str, float]) -> BatchRunner:
    """The batch runner of one rule (see the module docstring)."""
    runner = _compile_rule(rule, factors)
    if rule.measurable_if:
        runner = _measurable_runner(rule, runner)
    if rule.applies_if:
        return _applies_runner(rule, runner)
    return runner


def _measurable_runner(rule: Rule, runner: BatchRunner) -> BatchRunner:
    """``runner`` with the rule's measurable_if conditions: a candidate for which one is not
    met gets the rule's unmeasurable contribution (memoised by the value read and the note
    saying why)."""
    conditions = rule.measurable_if
    getters = [methodcaller("fact", name) for name, _ in conditions]
    memo: dict[tuple[str, Any, str | None], Contribution] = {}

    def run(batch: Batch) -> list[Contribution]:
        found = runner(batch)
        for (name, allowed), getter in zip(conditions, getters, strict=True):
            notes = None
            for index, value in enumerate(getter(batch)):
                if value not in allowed:
                    if notes is None:
                        column = MEASURABLE_NOTES.get(name)
                        notes = batch.nones if column is None else batch.shared(column[1])
                    key = (name, value, notes[index])
                    contribution = memo.get(key)
                    if contribution is None:
                        if len(memo) >= MEMO_LIMIT:
                            memo.clear()
                        contribution = memo[key] = _unmeasurable(rule, name, value, key[2])
                    found[index] = contribution
        return found

    return run


def _applies_runner(rule: Rule, runner: BatchRunner) -> BatchRunner:
    """``runner`` with the rule's applies_if conditions: a candidate for which one is not
    met gets the rule's not-applicable contribution (memoised by the value read)."""
    conditions = rule.applies_if
    getters = [methodcaller("fact", name) for name, _ in conditions]
    memo: dict[tuple[str, Any], Contribution] = {}

    def run(batch: Batch) -> list[Contribution]:
        found = runner(batch)
        for (name, allowed), getter in zip(conditions, getters, strict=True):
            for index, value in enumerate(getter(batch)):
                if value not in allowed:
                    key = (name, value)
                    contribution = memo.get(key)
                    if contribution is None:
                        contribution = memo[key] = _inapplicable(rule, name, value)
                    found[index] = contribution
        return found

    return run


def _compile_rule(rule: Rule, factors: Mapping[str, float]) -> BatchRunner:
    source = FACTS[rule.inputs[0]]
    if len(rule.inputs) == 1 and not rule.only_if and rule.backed_by is None:
        if source.basis is not None:
            return _simple_runner(rule, factors)
        if rule.claim_item is None:
            return _pair_runner(rule, factors)
    return _general_runner(rule, factors)


def _pair_runner(rule: Rule, factors: Mapping[str, float]) -> BatchRunner:
    """One input whose basis depends on the evidence (its column holds (value, basis) pairs),
    no claim item and no only_if: the memo maps the evidence reference to a dict by pair, and
    a batch in which no candidate has the reference reads one inner dict directly."""
    name = rule.inputs[0]
    source = FACTS[name]
    fact = methodcaller("fact", name)
    refs = methodcaller("measured_ref", source.ref_names) if source.ref_names else None
    memo, missing, build = rule.memo, _missing(rule), _builder(rule, factors)

    def make(ref: str | None, pair: tuple[Any, str]) -> Contribution:
        shown, basis = pair
        if shown is None:
            found = missing
        else:
            found = build(name, shown, shown, basis, None, ref if basis == MEASURED else None)
        size = memo.get(_SIZE, 0)
        if size >= MEMO_LIMIT:
            memo.clear()
            size = 0
        memo[_SIZE] = size + 1
        memo.setdefault(ref, {})[pair] = found
        return found

    def run(batch: Batch) -> list[Contribution]:
        column = fact(batch)
        ref_column = None if refs is None else refs(batch)
        if ref_column is None or ref_column is batch.nones:
            inner = memo.get(None)
            if inner is None:
                inner = memo[None] = {}
            get = inner.get
            return [get(pair) or make(None, pair) for pair in column]
        outer = memo.get
        return [
            outer(ref, _EMPTY).get(pair) or make(ref, pair)
            for ref, pair in zip(ref_column, column, strict=True)
        ]

    return run


def _simple_runner(rule: Rule, factors: Mapping[str, float]) -> BatchRunner:
    """One input with a fixed basis and no only_if: the memo maps the claim token (status,
    or (status, reference)) or the evidence reference to a dict by shown value; without
    either it maps the shown value directly."""
    name = rule.inputs[0]
    source = FACTS[name]
    basis, exact, item = source.basis, source.exact_text, rule.claim_item
    assert basis is not None  # noqa: S101 - compile_rule sends only fixed bases here
    claim = basis == CLAIMED and item is not None
    context: Callable[[Batch], list[Any]] | None = None
    if claim:
        context = methodcaller("claim", item)
    elif basis in (MEASURED, COMPUTED) and source.ref_names:
        # A computed fact with references (the delivery-form check) cites its evidence.
        context = methodcaller("measured_ref", source.ref_names)
    fact = methodcaller("fact", name)
    memo, missing, build = rule.memo, _missing(rule), _builder(rule, factors)

    def make(token: Any, shown: Any) -> Contribution:
        status = ref = None
        if claim:
            status, ref = token if type(token) is tuple else (token, None)
        elif context is not None:
            ref = token
        if shown is None:
            found = (claim and _contradicted_unstated(rule, factors, status, ref)) or missing
        else:
            # Decimal(str(d)) == d, so the table reads the same number that is shown.
            value = Decimal(shown) if exact else shown
            found = build(name, shown, value, basis, status, ref)
        if context is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[shown] = found
        else:
            size = memo.get(_SIZE, 0)
            if size >= MEMO_LIMIT:
                memo.clear()
                size = 0
            memo[_SIZE] = size + 1
            memo.setdefault(token, {})[shown] = found
        return found

    if context is None:

        def run(batch: Batch) -> list[Contribution]:
            get = memo.get
            # A Contribution is always truthy, so `or` only builds what the memo lacks.
            return [get(shown) or make(None, shown) for shown in fact(batch)]

        return run

    by_token = context

    def run_in_context(batch: Batch) -> list[Contribution]:
        get = memo.get
        return [
            get(token, _EMPTY).get(shown) or make(token, shown)
            for token, shown in zip(by_token(batch), fact(batch), strict=True)
        ]

    return run_in_context


def _condition_met(current: Any, source: Any, allowed: tuple[Any, ...]) -> bool:
    """Whether an only_if fact's shown value (exact text for an exact fact) is allowed."""
    if source.exact_text and source.basis is not None:
        current = None if current is None else Decimal(current)
    return current in allowed


def _general_runner(rule: Rule, factors: Mapping[str, float]) -> BatchRunner:
    """Any rule: the key is the tuple of the shown value of each input, the shown value of
    each only_if fact, the claim item's status and reference when an input may be a claim,
    and the evidence reference of each input that may be measured (a key of one column is
    that column's value). The first known input wins, then the only_if conditions apply."""
    sources = tuple((name, FACTS[name]) for name in rule.inputs)
    conditions = tuple((name, FACTS[name], allowed) for name, allowed in rule.only_if)
    item = rule.claim_item
    claims = may_claim(rule)
    getters: list[Callable[[Batch], list[Any]]] = [
        methodcaller("fact", name) for name in (*rule.inputs, *(c[0] for c in conditions))
    ]
    status_at = len(getters)
    if claims:
        getters += [methodcaller("status", item), methodcaller("item_ref", item)]
    ref_at: dict[int, int] = {}
    for index, (_, source) in enumerate(sources):
        if source.basis in (MEASURED, None) and source.ref_names:
            ref_at[index] = len(getters)
            getters.append(methodcaller("measured_ref", source.ref_names))
    backing_at = None
    if rule.backed_by is not None and claims:
        backing_at = len(getters)
        getters.append(methodcaller("fact", rule.backed_by))
    single = len(getters) == 1
    first_condition = len(sources)
    memo, missing, build = rule.memo, _missing(rule), _builder(rule, factors)

    def store(key: Any, found: Contribution) -> Contribution:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[key] = found
        return found

    def make(key: Any) -> Contribution:
        values = (key,) if single else key
        # name, source, shown and basis stay bound to the first input that is known.
        for index, (name, source) in enumerate(sources):  # noqa: B007
            if source.basis is None:
                shown, basis = values[index]
            else:
                shown, basis = values[index], source.basis
            if shown is not None:
                break
        else:
            found = missing
            if claims and all(
                _condition_met(values[first_condition + offset], source, allowed)
                for offset, (_, source, allowed) in enumerate(conditions)
            ):
                status, ref = values[status_at], values[status_at + 1]
                found = _contradicted_unstated(rule, factors, status, ref) or missing
            return store(key, found)
        exact = source.exact_text and source.basis is not None
        value = Decimal(shown) if exact else shown
        for offset, (condition, condition_source, allowed) in enumerate(conditions):
            current = values[first_condition + offset]
            if not _condition_met(current, condition_source, allowed):
                return store(key, _not_applicable(rule, name, shown, condition, current))
        status = ref = backing = None
        if basis == CLAIMED:
            if claims:
                status, ref = values[status_at], values[status_at + 1]
            if backing_at is not None:
                backing = values[backing_at]
        elif basis == MEASURED and index in ref_at:
            ref = values[ref_at[index]]
        return store(key, build(name, shown, value, basis, status, ref, backing))

    def run(batch: Batch) -> list[Contribution]:
        if single:
            keys: Any = getters[0](batch)
        else:
            keys = zip(*[getter(batch) for getter in getters], strict=True)
        get = memo.get
        return [get(key) or make(key) for key in keys]

    return run


def reference(rule: Rule, factors: Mapping[str, float], ctx: FactContext) -> Contribution:
    """One rule applied to one candidate straight from the rubric's definition, without
    columns or memo."""
    for condition, allowed in rule.applies_if:
        condition_source = FACTS[condition]
        current = condition_source.fetch(ctx)
        if current not in allowed:
            return _inapplicable(rule, condition, _shown(current, condition_source.exact_text))
    for condition, allowed in rule.measurable_if:
        condition_source = FACTS[condition]
        current = condition_source.fetch(ctx)
        if current not in allowed:
            shown = _shown(current, condition_source.exact_text)
            return _unmeasurable(rule, condition, shown, measurable_note(condition, ctx))
    for name in rule.inputs:
        source = FACTS[name]
        if source.basis is None:
            value, basis = source.fetch(ctx)
        else:
            value, basis = source.fetch(ctx), source.basis
        if value is not None:
            break
    else:
        if may_claim(rule) and all(
            FACTS[condition].fetch(ctx) in allowed for condition, allowed in rule.only_if
        ):
            item = rule.claim_item
            assert item is not None  # noqa: S101 - may_claim says so
            status, ref = claim_status(ctx, item), claim_ref(ctx, item)
            return _contradicted_unstated(rule, factors, status, ref) or _missing(rule)
        return _missing(rule)
    shown = _shown(value, source.exact_text)
    for condition, allowed in rule.only_if:
        condition_source = FACTS[condition]
        current = condition_source.fetch(ctx)
        if current not in allowed:
            current = _shown(current, condition_source.exact_text)
            return _not_applicable(rule, name, shown, condition, current)
    status = ref = backing = None
    refs = ctx.refs
    if basis == CLAIMED:
        if rule.claim_item is not None:
            status = claim_status(ctx, rule.claim_item)
            ref = claim_ref(ctx, rule.claim_item)
            if rule.backed_by is not None:
                backing_source = FACTS[rule.backed_by]
                backing = _shown(backing_source.fetch(ctx), backing_source.exact_text)
    elif refs and basis in (MEASURED, COMPUTED) and source.ref_names:
        ref = next(filter(None, map(refs.get, source.ref_names)), None)
    return _builder(rule, factors)(name, shown, value, basis, status, ref, backing)
