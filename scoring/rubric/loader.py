"""Loading and validating the versioned rubric JSON (the rubric is data, not code).

A rubric is a list of rules, each read by generic code according to its ``kind``:

- ``boolean``: ``points`` when the fact is true, ``points_false`` (default 0) otherwise;
- ``steps``: a threshold table; ``direction`` "higher" gives the points of the highest
  threshold the value reaches, "lower" those of the lowest threshold the value stays under;
- ``linear``: piecewise-linear interpolation between ``anchors`` [[x, points], …], flat
  outside them;
- ``choice``: ``choices`` {value: points}, ``default`` for anything else.

Every rule has a stable ``id`` ("<dimension>.<group>.<name>"), ``label_en`` and ``label_zh``,
the ``inputs`` it reads (first one present wins, so a measured fact listed before the claimed
one replaces it), an optional ``claim_item`` (the checklist key whose status scales a claimed
value by ``status_factors``, or a derived item such as "delivery_form" whose status the
evidence settles), ``if_missing`` ("zero" counts the rule at 0 points, "exclude"
leaves it out), ``only_if`` conditions, an optional ``backed_by`` (the fact that must be above
zero for the claim to count beyond the factor of ``unbacked_at_most``, "claimed" by default:
an SLA with no credit on breach) and a ``source`` note. Tables must be monotone, so a
better value never earns fewer points. The rubric's ``contradicted_scales`` ("points" by
default, or "max_points") says what a contradicted item's negative factor scales: the claimed
value's points, or each rule's maximum, a cost that no better claim under the item can raise.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from types import MappingProxyType
from typing import Any

from ..reference import GPU_SPECS
from ..types import (
    CHECKLIST_KEYS,
    CURRENCIES,
    DELIVERY_FORMS,
    DIMENSIONS,
    ITEM_STATUSES,
    WORKLOAD_PROFILES,
    RubricError,
)
from .model import (
    BooleanTable,
    ChoiceTable,
    FormProfile,
    LinearTable,
    Preset,
    Rubric,
    Rule,
    ScaleRules,
    StepTable,
    Table,
    V2Policy,
)

RULE_KINDS = ("boolean", "steps", "linear", "choice")
GPU_FAMILIES = frozenset(spec.family for spec in GPU_SPECS)
# The packaged rubric versions, oldest first; new evaluations and the demo use the last one.
RUBRIC_VERSIONS = ("1", "2")
CURRENT_RUBRIC_VERSION = RUBRIC_VERSIONS[-1]
STATUS_FACTOR_KEYS = (*ITEM_STATUSES, "no_item")


# --- loading and validation -------------------------------------------------------------------


def _fail(where: str, message: str) -> RubricError:
    return RubricError(f"{where}: {message}")


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(where, f"expected a number, got {value!r}")
    if not math.isfinite(value):
        raise _fail(where, f"expected a finite number, got {value!r}")
    return float(value)


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"missing or empty {key!r}")
    return value


def _pairs(raw: Any, where: str) -> tuple[tuple[float, float], ...]:
    if not isinstance(raw, list) or not raw:
        raise _fail(where, "expected a non-empty list of [x, points] pairs")
    pairs = []
    for i, pair in enumerate(raw):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _fail(where, f"entry {i} must be [x, points], got {pair!r}")
        pairs.append((_number(pair[0], f"{where}[{i}]"), _number(pair[1], f"{where}[{i}]")))
    xs = [x for x, _ in pairs]
    if any(b <= a for a, b in pairwise(xs)):
        raise _fail(where, f"x values must be strictly ascending, got {xs}")
    return tuple(pairs)


def _monotone(points: list[float], where: str) -> None:
    rising = all(b >= a for a, b in pairwise(points))
    falling = all(b <= a for a, b in pairwise(points))
    if not (rising or falling):
        raise _fail(where, f"points must be monotone so a better value never scores less: {points}")


def _table(kind: str, raw: Mapping[str, Any], where: str) -> Table:
    if kind == "boolean":
        return BooleanTable(
            _number(raw.get("points"), f"{where}.points"),
            _number(raw.get("points_false", 0), f"{where}.points_false"),
        )
    if kind == "steps":
        direction = raw.get("direction")
        if direction not in ("higher", "lower"):
            raise _fail(where, f"direction must be 'higher' or 'lower', got {direction!r}")
        pairs = _pairs(raw.get("steps"), f"{where}.steps")
        otherwise = _number(raw.get("otherwise", 0), f"{where}.otherwise")
        points = [p for _, p in pairs]
        # Better values must never earn less: rising thresholds rise ("higher") or fall ("lower")
        # in points, and the value beyond every threshold earns the least.
        ordered = [otherwise, *points] if direction == "higher" else [*points, otherwise]
        if any(b < a for a, b in pairwise(ordered)) and direction == "higher":
            raise _fail(where, f"points must not fall as thresholds rise: {ordered}")
        if any(b > a for a, b in pairwise(ordered)) and direction == "lower":
            raise _fail(where, f"points must not rise as thresholds rise: {ordered}")
        return StepTable(direction, tuple(x for x, _ in pairs), tuple(points), otherwise)
    if kind == "linear":
        pairs = _pairs(raw.get("anchors"), f"{where}.anchors")
        if len(pairs) < 2:
            raise _fail(where, "a linear rule needs at least two anchors")
        _monotone([p for _, p in pairs], f"{where}.anchors")
        return LinearTable(tuple(x for x, _ in pairs), tuple(p for _, p in pairs))
    if kind == "choice":
        choices = raw.get("choices")
        if not isinstance(choices, Mapping) or not choices:
            raise _fail(where, "a choice rule needs a non-empty 'choices' object")
        table = {str(k): _number(v, f"{where}.choices.{k}") for k, v in choices.items()}
        return ChoiceTable(MappingProxyType(table), _number(raw.get("default", 0), where))
    raise _fail(where, f"unknown rule kind {kind!r} (known: {', '.join(RULE_KINDS)})")


def _rule(raw: Any, index: int, fact_names: frozenset[str], derived_items: frozenset[str]) -> Rule:
    if not isinstance(raw, Mapping):
        raise _fail(f"rules[{index}]", "each rule must be an object")
    rule_id = raw.get("id")
    where = f"rule {rule_id!r}" if isinstance(rule_id, str) and rule_id else f"rules[{index}]"
    _text(raw, "id", where)
    dimension = raw.get("dimension")
    if dimension not in DIMENSIONS:
        raise _fail(where, f"dimension must be one of {', '.join(DIMENSIONS)}, got {dimension!r}")
    if not rule_id.startswith(f"{dimension}."):
        raise _fail(where, f"the id must start with its dimension '{dimension}.'")
    label_en = _text(raw, "label_en", where)
    label_zh = _text(raw, "label_zh", where)
    if not any("\u4e00" <= ch <= "\u9fff" for ch in label_zh):
        raise _fail(where, f"label_zh must be Chinese text, got {label_zh!r}")
    source = _text(raw, "source", where)
    inputs = raw.get("inputs")
    if not isinstance(inputs, list) or not inputs or not all(isinstance(i, str) for i in inputs):
        raise _fail(where, "inputs must be a non-empty list of fact names")
    for name in inputs:
        if name not in fact_names:
            raise _fail(where, f"unknown input fact {name!r}")
    claim_item = raw.get("claim_item")
    if claim_item is not None and claim_item not in (*CHECKLIST_KEYS, *derived_items):
        raise _fail(
            where, f"claim_item must be a checklist key or a derived item, got {claim_item!r}"
        )
    if_missing = raw.get("if_missing", "zero")
    if if_missing not in ("zero", "exclude"):
        raise _fail(where, f"if_missing must be 'zero' or 'exclude', got {if_missing!r}")
    only_if = _conditions(raw, "only_if", where, fact_names)
    applies_if = _conditions(raw, "applies_if", where, fact_names)
    measurable_if = _conditions(raw, "measurable_if", where, fact_names)
    backed_by, unbacked_at_most, backed_from = _backing(raw, where, claim_item)
    kind = raw.get("kind")
    table = _table(kind, raw, where)
    return Rule(
        id=rule_id,
        dimension=dimension,
        kind=kind,
        label_en=label_en,
        label_zh=label_zh,
        inputs=tuple(inputs),
        table=table,
        claim_item=claim_item,
        if_missing=if_missing,
        only_if=only_if,
        source=source,
        applies_if=applies_if,
        measurable_if=measurable_if,
        backed_by=backed_by,
        unbacked_at_most=unbacked_at_most,
        backed_from=backed_from,
    )


def _backing(
    raw: Mapping[str, Any], where: str, claim_item: str | None
) -> tuple[str | None, str, Decimal | None]:
    """A rule's ``backed_by`` (a plain offering or vendor field whose value above zero, or at
    least ``backed_from``, backs the claim: the TCO reads it from the offering as the rule
    does), ``unbacked_at_most`` (the checklist status whose factor caps the claim when nothing
    backs it; default "claimed") and ``backed_from`` (None: any value above zero)."""
    from ..dimensions.facts import FACTS  # deferred like FACT_NAMES

    backed_by = raw.get("backed_by")
    at_most = raw.get("unbacked_at_most", "claimed")
    if backed_by is None:
        if "unbacked_at_most" in raw or "backed_from" in raw:
            raise _fail(where, "unbacked_at_most and backed_from need backed_by")
        return None, "claimed", None
    source = FACTS.get(backed_by) if isinstance(backed_by, str) else None
    if source is None or source.field is None or source.field[0] not in ("offering", "vendor"):
        raise _fail(where, f"backed_by must name an offering or vendor fact, got {backed_by!r}")
    if claim_item is None:
        raise _fail(where, "backed_by caps a claim: the rule needs a claim_item")
    if at_most not in ITEM_STATUSES:
        raise _fail(where, f"unbacked_at_most must be a checklist status, got {at_most!r}")
    backed_from = None
    if "backed_from" in raw:
        backed_from = Decimal(str(_number(raw["backed_from"], f"{where}.backed_from")))
        if backed_from <= 0:
            raise _fail(where, "backed_from must be above zero")
    return backed_by, at_most, backed_from


def _conditions(
    raw: Mapping[str, Any], key: str, where: str, fact_names: frozenset[str]
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """A rule's only_if, applies_if or measurable_if: fact names mapped to lists of allowed
    values."""
    conditions_raw = raw.get(key, {})
    if not isinstance(conditions_raw, Mapping):
        raise _fail(where, f"{key} must map fact names to lists of allowed values")
    conditions = []
    for name, allowed in conditions_raw.items():
        if name not in fact_names or not isinstance(allowed, list) or not allowed:
            raise _fail(where, f"{key} {name!r} must name a known fact and list allowed values")
        conditions.append((name, tuple(allowed)))
    return tuple(conditions)


def _status_factors(raw: Any) -> Mapping[str, float]:
    if not isinstance(raw, Mapping):
        raise _fail("status_factors", "must be an object")
    factors = {}
    for key in STATUS_FACTOR_KEYS:
        if key not in raw:
            raise _fail("status_factors", f"missing factor for {key!r}")
        factors[key] = _number(raw[key], f"status_factors.{key}")
    unknown = set(raw) - set(STATUS_FACTOR_KEYS) - {"source"}
    if unknown:
        raise _fail("status_factors", f"unknown keys {sorted(unknown)}")
    # The product rule "contradicted < unverified < verified" is data, so check it here.
    if not factors["contradicted"] < 0 <= factors["unanswered"] <= factors["claimed"]:
        raise _fail("status_factors", "need contradicted < 0 <= unanswered <= claimed")
    if not factors["unverifiable"] <= factors["claimed"] <= factors["verified"] <= 1:
        raise _fail("status_factors", "need unverifiable <= claimed <= verified <= 1")
    return MappingProxyType(factors)


def _presets(raw: Any) -> Mapping[str, Preset]:
    if not isinstance(raw, Mapping):
        raise _fail("presets", "must be an object keyed by workload profile")
    presets = {}
    for profile in WORKLOAD_PROFILES:
        entry = raw.get(profile)
        where = f"presets.{profile}"
        if not isinstance(entry, Mapping):
            raise _fail(where, "missing preset")
        weights = entry.get("weights")
        if not isinstance(weights, Mapping) or set(weights) != set(DIMENSIONS):
            raise _fail(where, f"weights must give each of {', '.join(DIMENSIONS)}")
        values = {d: _number(weights[d], f"{where}.weights.{d}") for d in DIMENSIONS}
        if any(v < 0 for v in values.values()) or abs(sum(values.values()) - 100) > 1e-9:
            raise _fail(where, "weights must be non-negative and sum to 100")
        presets[profile] = Preset(profile, MappingProxyType(values), _text(entry, "source", where))
    return MappingProxyType(presets)


def _scale(raw: Any) -> ScaleRules:
    where = "scale_rules"
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    overhead = raw.get("virtualisation_overhead_pct")
    bands = raw.get("fabric_control_loss_pct")
    if not isinstance(overhead, Mapping) or not isinstance(bands, Mapping):
        raise _fail(where, "needs virtualisation_overhead_pct and fabric_control_loss_pct")
    anchors = _pairs(overhead.get("anchors"), f"{where}.virtualisation_overhead_pct.anchors")
    if anchors[0][0] < 1:
        raise _fail(where, "overhead anchors start at 1 GPU or more")
    band_list = []
    for i, band in enumerate(bands.get("bands") or []):
        band_where = f"{where}.fabric_control_loss_pct.bands[{i}]"
        if not isinstance(band, Mapping):
            raise _fail(band_where, "must be an object")
        low = int(_number(band.get("min_gpus"), band_where))
        high = int(_number(band.get("max_gpus"), band_where))
        pct = _number(band.get("pct"), band_where)
        if not 1 <= low <= high or not 0 <= pct < 100:
            raise _fail(band_where, "needs 1 <= min_gpus <= max_gpus and 0 <= pct < 100")
        band_list.append((low, high, pct))
    form_factors = workload_fabric = collective = None
    raw_forms = raw.get("delivery_form_factors")
    if raw_forms is not None:
        if not isinstance(raw_forms, Mapping) or set(raw_forms) - {"source"} != set(DELIVERY_FORMS):
            raise _fail(where, f"delivery_form_factors must give each of {DELIVERY_FORMS}")
        form_factors = {}
        for form in DELIVERY_FORMS:
            pair = raw_forms[form]
            f_where = f"{where}.delivery_form_factors.{form}"
            if not isinstance(pair, list) or len(pair) != 2:
                raise _fail(f_where, "must be [overhead factor, fabric factor]")
            a, b = _number(pair[0], f_where), _number(pair[1], f_where)
            if not (0 <= a <= 1 and 0 <= b <= 1):
                raise _fail(f_where, "factors are in 0..1")
            form_factors[form] = (a, b)
        if form_factors["bare_metal"] != (0.0, 0.0):
            raise _fail(where, "bare metal loses nothing to virtualisation: factors [0, 0]")
        _text(raw_forms, "source", f"{where}.delivery_form_factors")
        raw_workload = raw.get("workload_fabric_loss_pct")
        if not isinstance(raw_workload, Mapping):
            raise _fail(where, "a rubric with delivery_form_factors needs workload_fabric_loss_pct")
        workload_fabric = _workload_anchors(raw_workload, f"{where}.workload_fabric_loss_pct")
        raw_collective = raw.get("collective_share_pct")
        if raw_collective is not None:
            collective = _workload_anchors(raw_collective, f"{where}.collective_share_pct")
    sources = {
        "bare_metal_required": _text(raw, "source", where),
        "virtualisation_overhead": _text(overhead, "source", f"{where}.virtualisation_overhead"),
        "fabric_control": _text(bands, "source", f"{where}.fabric_control_loss_pct"),
    }
    return ScaleRules(
        single_node_max_gpus=int(_number(raw.get("single_node_max_gpus"), where)),
        bare_metal_required_min_gpus=int(_number(raw.get("bare_metal_required_min_gpus"), where)),
        overhead_anchors=tuple((int(g), p) for g, p in anchors),
        fabric_bands=tuple(band_list),
        sources=MappingProxyType(sources),
        form_factors=None if form_factors is None else MappingProxyType(form_factors),
        workload_fabric=None if workload_fabric is None else MappingProxyType(workload_fabric),
        collective=None if collective is None else MappingProxyType(collective),
    )


def _workload_anchors(raw: Any, where: str) -> dict[str, tuple[tuple[int, float], ...]]:
    """Per workload profile, [(GPUs, percent)] anchors (the first at 1 GPU or more) whose
    percentage never falls as GPUs grow and stays below 100."""
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    found = {}
    for profile in WORKLOAD_PROFILES:
        w_where = f"{where}.{profile}"
        pairs = _pairs(raw.get(profile), w_where)
        if any(b < a for (_, a), (_, b) in pairwise(pairs)) or pairs[0][0] < 1:
            raise _fail(w_where, "the percentage must never fall as GPUs grow (from 1 GPU on)")
        if not all(0 <= pct < 100 for _, pct in pairs):
            raise _fail(w_where, "a share is a percentage in 0..100")
        found[profile] = tuple((int(g), p) for g, p in pairs)
    _text(raw, "source", where)
    return found


OPS_CAPACITIES = ("none", "small_team", "platform_team")


def _v2_policy(data: Mapping[str, Any]) -> V2Policy | None:
    """Rubric v2's delivery-form profiles, cost, elasticity and MIG policy (None in v1)."""
    raw_forms = data.get("delivery_forms")
    if raw_forms is None:
        return None
    where = "delivery_forms"
    if not isinstance(raw_forms, Mapping) or set(raw_forms) != set(DELIVERY_FORMS):
        raise _fail(where, f"must give each of {', '.join(DELIVERY_FORMS)}")
    forms = {}
    for form in DELIVERY_FORMS:
        entry = raw_forms[form]
        f_where = f"{where}.{form}"
        if not isinstance(entry, Mapping):
            raise _fail(f_where, "must be an object")
        assumed = _number(entry.get("assumed_busbw_fraction"), f"{f_where}.assumed_busbw_fraction")
        if not 0 < assumed <= 1:
            raise _fail(f_where, "assumed_busbw_fraction must be in (0, 1]")
        risk = _decimal_param(entry.get("spot_preemption_risk_pct"), f"{f_where}.spot_risk")
        if risk >= 100:
            raise _fail(f_where, "spot_preemption_risk_pct must be below 100")
        releasable = entry.get("releasable_hourly")
        if not isinstance(releasable, bool):
            raise _fail(f_where, "releasable_hourly must be true or false")
        forms[form] = FormProfile(
            assumed_busbw_fraction=assumed,
            spot_preemption_risk_pct=risk,
            releasable_hourly=releasable,
            source=_text(entry, "source", f_where),
        )
    billing = data.get("billing")
    if not isinstance(billing, Mapping):
        raise _fail("billing", "must be an object")
    overhead = _decimal_param(
        billing.get("spot_checkpoint_overhead_pct"), "billing.spot_checkpoint_overhead_pct"
    )
    max_days = int(_number(billing.get("spot_max_uninterruptible_days"), "billing"))
    raw_sync = billing.get("synchronous_min_nodes")
    if not isinstance(raw_sync, Mapping) or not set(raw_sync) <= set(WORKLOAD_PROFILES):
        raise _fail("billing.synchronous_min_nodes", "must map workload profiles to a node count")
    synchronous = {}
    for profile, nodes in raw_sync.items():
        count = _number(nodes, f"billing.synchronous_min_nodes.{profile}")
        if count < 1 or count != int(count):
            raise _fail(f"billing.synchronous_min_nodes.{profile}", "must be a whole count >= 1")
        synchronous[profile] = int(count)
    terms_item = billing.get("billing_terms_item")
    if terms_item not in CHECKLIST_KEYS:
        raise _fail("billing.billing_terms_item", f"must be a checklist key, got {terms_item!r}")
    effective_hours = billing.get("effective_hours", "delivered")
    if effective_hours not in ("delivered", "required"):
        raise _fail("billing.effective_hours", "must be 'delivered' or 'required'")
    elasticity = data.get("elasticity")
    if not isinstance(elasticity, Mapping):
        raise _fail("elasticity", "must be an object")
    provisioning_fit: dict[str, tuple[tuple[float, float], ...] | None] = {}
    for profile in WORKLOAD_PROFILES:
        anchors = (elasticity.get("provisioning_fit") or {}).get(profile, None)
        if anchors is None:
            provisioning_fit[profile] = None
            continue
        pairs = _pairs(anchors, f"elasticity.provisioning_fit.{profile}")
        _monotone([p for _, p in pairs], f"elasticity.provisioning_fit.{profile}")
        provisioning_fit[profile] = pairs
    dedicated = elasticity.get("dedicated_fit")
    if not isinstance(dedicated, Mapping) or set(dedicated) != set(DELIVERY_FORMS):
        raise _fail("elasticity.dedicated_fit", f"must give each of {DELIVERY_FORMS}")
    dedicated_fit = {k: _number(v, f"elasticity.dedicated_fit.{k}") for k, v in dedicated.items()}
    mig = data.get("mig")
    if not isinstance(mig, Mapping):
        raise _fail("mig", "must be an object")
    slices = tuple(int(_number(x, "mig.compute_slices")) for x in mig.get("compute_slices", []))
    max_instances = int(_number(mig.get("max_instances"), "mig.max_instances"))
    if not slices or max_instances < 1 or max(slices) > max_instances:
        raise _fail("mig", "compute_slices and max_instances must describe a 7-slice GPU")
    raw_gpus = mig.get("gpus")
    if not isinstance(raw_gpus, Mapping) or not raw_gpus:
        raise _fail("mig.gpus", "must map GPU families to their profiles' compute slices")
    mig_gpus = {}
    for family, sizes in raw_gpus.items():
        g_where = f"mig.gpus.{family}"
        if family not in GPU_FAMILIES:
            raise _fail(g_where, "not a GPU family of scoring.reference")
        if not isinstance(sizes, list) or not sizes:
            raise _fail(g_where, "must list compute-slice sizes")
        values = tuple(int(_number(x, g_where)) for x in sizes)
        if not set(values) <= set(slices) or max(values) > max_instances:
            raise _fail(g_where, f"slice sizes must be among {slices}")
        mig_gpus[family] = values
    operations = data.get("operations")
    if not isinstance(operations, Mapping):
        raise _fail("operations", "must be an object")
    raw_fte = operations.get("ops_fte_by_capacity")
    if not isinstance(raw_fte, Mapping) or set(raw_fte) != set(OPS_CAPACITIES):
        raise _fail("operations.ops_fte_by_capacity", f"must give each of {OPS_CAPACITIES}")
    ops_fte = {}
    for capacity, value in raw_fte.items():
        # zero is a valid figure here (a platform team adds no staff)
        f_where = f"operations.ops_fte_by_capacity.{capacity}"
        ops_fte[capacity] = _decimal_param(value, f_where) if value != "0" else Decimal(0)
    residency = data.get("residency")
    if not isinstance(residency, Mapping):
        raise _fail("residency", "must be an object")
    return V2Policy(
        forms=MappingProxyType(forms),
        spot_checkpoint_overhead_pct=overhead,
        spot_max_uninterruptible_days=max_days,
        synchronous_min_nodes=MappingProxyType(synchronous),
        billing_terms_item=terms_item,
        provisioning_fit=MappingProxyType(provisioning_fit),
        dedicated_fit=MappingProxyType(dedicated_fit),
        mig_compute_slices=slices,
        mig_max_instances=max_instances,
        mig_gpus=MappingProxyType(mig_gpus),
        ops_fte=MappingProxyType(ops_fte),
        effective_hours=effective_hours,
        sources=MappingProxyType(
            {
                "billing": _text(billing, "source", "billing"),
                "elasticity": _text(elasticity, "source", "elasticity"),
                "mig": _text(mig, "source", "mig"),
                "operations": _text(operations, "source", "operations"),
                "residency": _text(residency, "source", "residency"),
            }
        ),
    )


def _decimal_param(value: Any, where: str) -> Decimal:
    if not isinstance(value, str):
        raise _fail(where, f"money and percentages are strings (exact decimals), got {value!r}")
    try:
        result = Decimal(value)
    except InvalidOperation:
        raise _fail(where, f"not a decimal number: {value!r}") from None
    if not result.is_finite() or result <= 0:
        raise _fail(where, f"must be a positive decimal, got {value!r}")
    return result


def _reference_prices(raw: Any) -> tuple[Mapping[str, tuple[tuple[str, Decimal], ...]], str]:
    where = "reference_gpu_hour_prices"
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    table = {}
    for currency in CURRENCIES:
        entries = raw.get(currency)
        if not isinstance(entries, list) or not entries:
            raise _fail(where, f"missing prices in {currency}")
        parsed = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str):
                raise _fail(f"{where}.{currency}[{i}]", "must be [pattern, price]")
            parsed.append((entry[0].lower(), _decimal_param(entry[1], f"{where}.{currency}[{i}]")))
        if parsed[-1][0] != "*":
            raise _fail(f"{where}.{currency}", "the last entry must be the '*' fallback")
        table[currency] = tuple(parsed)
    return MappingProxyType(table), _text(raw, "source", where)


def parse_rubric(data: Any) -> Rubric:
    """Validate rubric data (the decoded JSON) and build a Rubric; RubricError on any fault."""
    # deferred: dimensions imports this module's types
    from ..dimensions.facts import DERIVED_ITEMS, FACT_NAMES

    if not isinstance(data, Mapping):
        raise RubricError("a rubric must be a JSON object")
    version = data.get("version")
    if not isinstance(version, str) or not version:
        raise RubricError("the rubric needs a 'version' string")
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise RubricError("the rubric needs a non-empty 'rules' list")
    derived = frozenset(DERIVED_ITEMS)
    rules = tuple(_rule(raw, i, FACT_NAMES, derived) for i, raw in enumerate(raw_rules))
    scales = data.get("contradicted_scales", "points")
    if scales not in ("points", "max_points"):
        raise RubricError(f"contradicted_scales must be 'points' or 'max_points', got {scales!r}")
    if scales == "max_points":
        rules = tuple(replace(rule, contradicted_on_max=True) for rule in rules)
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise _fail(f"rule {rule.id!r}", "duplicate rule id")
        seen.add(rule.id)
    by_dimension = {d: tuple(r for r in rules if r.dimension == d) for d in DIMENSIONS}
    for dimension, dimension_rules in by_dimension.items():
        if not any(r.max_points > 0 and r.if_missing == "zero" for r in dimension_rules):
            raise RubricError(
                f"dimension {dimension!r} needs at least one rule that always counts "
                "(positive points, if_missing 'zero')"
            )
    policy = _v2_policy(data)
    if policy is not None:
        _claims_have_a_verification_path(rules)
    reference_prices, reference_source = _reference_prices(data.get("reference_gpu_hour_prices"))
    confidence = _number(data.get("bare_metal_min_confidence"), "bare_metal_min_confidence")
    if not 0 < confidence <= 1:
        raise RubricError("bare_metal_min_confidence must be in (0, 1]")
    availability = _decimal_param(data.get("assumed_availability_pct"), "assumed_availability_pct")
    if availability > 100:
        raise RubricError("assumed_availability_pct must be at most 100")
    return Rubric(
        version=version,
        rules=rules,
        status_factors=_status_factors(data.get("status_factors")),
        presets=_presets(data.get("presets")),
        scale=_scale(data.get("scale_rules")),
        reference_prices=reference_prices,
        reference_prices_source=reference_source,
        bare_metal_min_confidence=confidence,
        assumed_availability_pct=availability,
        by_dimension=MappingProxyType(by_dimension),
        v2=policy,
    )


def _claims_have_a_verification_path(rules: tuple[Rule, ...]) -> None:
    """Rubric v2: no vendor claim counts in full without a way to check it. A rule reading a
    claimed fact needs a ``claim_item`` (the checklist item whose document review verifies it
    and whose status scales it); a fact whose basis depends on the evidence needs that item or
    an evidence reference that can measure it."""
    from ..dimensions.facts import CLAIMED, FACTS  # deferred like FACT_NAMES

    for rule in rules:
        if rule.claim_item is not None:
            continue
        for name in rule.inputs:
            source = FACTS[name]
            if source.basis == CLAIMED or (source.basis is None and not source.ref_names):
                raise _fail(
                    f"rule {rule.id!r}",
                    f"reads the claim {name!r} that no checklist item or evidence can verify: "
                    "give it a claim_item (rubric v2 never counts an unverifiable claim in full)",
                )


def rubric_text(version: str = "1") -> str:
    """The packaged JSON text of a rubric version."""
    if not isinstance(version, str) or not version.isalnum():
        raise RubricError(f"a rubric version is a short alphanumeric name, got {version!r}")
    resource = resources.files("scoring").joinpath("rubrics", f"rubric-v{version}.json")
    try:
        return resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RubricError(f"no rubric version {version!r} is packaged") from None


@lru_cache(maxsize=8)
def load_rubric(version: str = "1") -> Rubric:
    """Load and validate a packaged rubric (cached: a Rubric is immutable)."""
    return _parse_text(rubric_text(version), f"rubric-v{version}.json")


def rubric_sha256(text: str) -> str:
    """The hex sha256 of a rubric's JSON text (UTF-8): what a recorded decision names it by."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=16)
def load_rubric_text(text: str) -> Rubric:
    """Load and validate a rubric from its exact JSON text, e.g. the text a recorded decision
    kept, so that the decision replays on the rubric it was taken with after the packaged file
    has been revised. RubricError when the text no longer reads (a schema an older release
    wrote); the caller decides what to fall back on."""
    if not isinstance(text, str):
        raise RubricError(f"a rubric text is a string, got {type(text).__name__}")
    return _parse_text(text, "the recorded rubric")


def _parse_text(text: str, name: str) -> Rubric:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RubricError(f"{name} is not valid JSON: line {exc.lineno}: {exc.msg}") from None
    return parse_rubric(data)
