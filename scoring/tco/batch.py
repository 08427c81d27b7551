"""The TCO figures a ranking reads, for a whole batch of candidates at once.

Ranking reads three things from each candidate's TCO: the recommended total against the
budget (a ratio rounded to 3 decimals for the cost score, and whether it exceeds the budget
for the knockout) and the cost per effective GPU-hour against the reference price (rounded
to 3 decimals). Those are computed here in binary floating point with a bound on their
error: every component the exact TCO rounds to cents is off by at most half a cent, and the
float arithmetic adds a relative error far below 1e-12. A figure is taken from the floats
only when the exact value cannot lie on the other side of a rounding boundary or comparison
(the recommended model included); otherwise, or for a rare shape (a minimum commitment, MIG
slices), the candidate's exact TCO is computed at once and read. Either way the figures are
those of the exact TCO, bit for bit; the exact TCO (the money shown) is built when first read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from decimal import Decimal
from itertools import chain, compress, repeat
from operator import attrgetter, mul, not_
from typing import Any

import numpy as np

from ..batching import item_columns, once_per_key, read_fields
from ..collectives import (
    across_reference,
    comm_share,
    health_of,
    measured_across,
    node_shape,
    ring_limit,
    scale_and_assumed,
    throughput_kernel,
)
from ..fabric_share import declared_fabric
from ..rubric import Rubric
from ..types import BILLING_MODELS, CandidateInput, Deferred, EvaluationSpec, RubricError
from .exact import Tco, TcoPlan, compute_tco, operations_cost, priced_form
from .exact.compute import _billed_extra_days, _billing_terms, _plan_availability, _spot_hours
from .exact.terms import _ZERO_CENTS, _efficiency_cap, _sla_backed

_RELATIVE_ERROR = 1e-12
# Keeps a float figure at least this far (in units of its last kept digit) from a tie.
_TIE_MARGIN = 1e-6
_LARGEST_SCALED = float(2**40)


class PendingTco(Deferred):
    """A candidate's TCO for a ranking: the figures its scores and knockouts read, and the
    exact Tco (``resolve()``), computed when first asked for.

    ``budget_ratio`` and ``effective_price_ratio`` are budget_ratio() and
    effective_price_ratio() of the exact TCO; ``over_budget`` whether its recommended total
    exceeds the evaluation's budget in the offering's currency, or no price the job can use
    is given (Tco.spot_refused), so the budget must-have fails (False without a budget)."""

    __slots__ = (
        "_candidate",
        "_evaluation",
        "_plan",
        "_rubric",
        "_tco",
        "budget_ratio",
        "currency",
        "effective_price_ratio",
        "over_budget",
    )

    def __init__(
        self,
        candidate: CandidateInput,
        evaluation: EvaluationSpec,
        rubric: Rubric,
        plan: TcoPlan,
    ) -> None:
        # Four slots rather than a tuple of them: one object fewer per candidate for the
        # cyclic garbage collector to walk.
        self._candidate = candidate
        self._evaluation = evaluation
        self._rubric = rubric
        self._plan = plan
        self._tco: Tco | None = None
        self.currency = candidate.offering.currency
        self.budget_ratio: float | None = None
        self.effective_price_ratio: float | None = None
        self.over_budget = False

    def resolve(self) -> Tco:
        """The exact TCO (compute_tco), computed once."""
        tco = self._tco
        if tco is None:
            tco = self._tco = compute_tco(
                self._candidate, self._evaluation, self._rubric, self._plan
            )
        return tco

    def _read_exact(self) -> None:
        """Take every figure from the exact TCO."""
        evaluation = self._evaluation
        tco = self.resolve()
        self.budget_ratio = budget_ratio(tco, evaluation)
        self.effective_price_ratio = effective_price_ratio(
            tco, self._candidate.offering.gpu_model, self._rubric
        )
        budget = evaluation.budget_total
        # An unusable (refused spot) price cannot meet a budget: the knockout reads the
        # exact TCO and says why.
        self.over_budget = (
            budget is not None
            and tco.currency == evaluation.budget_currency
            and (tco.spot_refused or tco.recommended_total > budget)
        )


_PENDING_SLOTS = {name: getattr(PendingTco, name).__set__ for name in PendingTco.__slots__}
_SET_PRICE_RATIO = _PENDING_SLOTS["effective_price_ratio"]
_SET_BUDGET_RATIO = _PENDING_SLOTS["budget_ratio"]
_SET_OVER_BUDGET = _PENDING_SLOTS["over_budget"]
_QUOTED_OF = attrgetter("quoted_prices")
_PRICES_OF = attrgetter("prices")
_CURRENCY_OF = attrgetter("offering.currency")


def _new_pending(
    candidates: Sequence[CandidateInput], evaluation: EvaluationSpec, rubric: Rubric, plan: TcoPlan
) -> list[PendingTco]:
    """PendingTco(candidate, evaluation, rubric, plan) of every candidate, the same objects,
    with no Python-level call per object (each slot is filled over the batch in C)."""
    count = len(candidates)
    if count < 32:
        # A few: the constructor costs less than nine passes over the batch.
        return [PendingTco(candidate, evaluation, rubric, plan) for candidate in candidates]
    made = list(map(object.__new__, repeat(PendingTco, count)))
    columns = {
        "_candidate": candidates,
        "_evaluation": repeat(evaluation),
        "_rubric": repeat(rubric),
        "_plan": repeat(plan),
        "_tco": repeat(None),
        "currency": map(_CURRENCY_OF, candidates),
        "budget_ratio": repeat(None),
        "effective_price_ratio": repeat(None),
        "over_budget": repeat(False),
    }
    for name, setter in _PENDING_SLOTS.items():
        deque(map(setter, made, columns[name]), maxlen=0)
    return made


def budget_ratio(tco: Tco | PendingTco | None, evaluation: EvaluationSpec) -> float | None:
    """Recommended (v1: cheapest) TCO ÷ budget (3 decimals), or None without a budget, a
    price or a common currency."""
    if type(tco) is PendingTco:
        return tco.budget_ratio
    budget = evaluation.budget_total
    if tco is None or budget is None or budget <= 0 or tco.currency != evaluation.budget_currency:
        return None
    if tco.spot_refused:
        return None  # no billing model the job can use is priced
    return round(float(tco.recommended_total / budget), 3)


def effective_price_ratio(
    tco: Tco | PendingTco | None, gpu_model: str, rubric: Rubric
) -> float | None:
    """Cost per effective GPU-hour ÷ the rubric's reference price for the GPU (3 decimals)."""
    if type(tco) is PendingTco:
        return tco.effective_price_ratio
    if tco is None or tco.cost_per_effective_gpu_hour is None or tco.spot_refused:
        return None
    reference = rubric.reference_gpu_hour_price(gpu_model, tco.currency)
    return round(float(tco.cost_per_effective_gpu_hour / reference), 3)


def _rounded(
    values: np.ndarray, errors: np.ndarray | float, digits: int
) -> tuple[np.ndarray, np.ndarray]:
    """k (as floats) such that round(x, digits) is k / 10**digits for every x within
    ``errors`` of ``values``, and where that is settled: not where such an x may round
    otherwise (near a tie, huge, not finite)."""
    scale = 10.0**digits
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * scale
        slack = errors * scale + _RELATIVE_ERROR * np.abs(scaled) + _TIE_MARGIN
        settled = (np.abs(scaled) < _LARGEST_SCALED) & (
            np.abs(scaled - np.floor(scaled) - 0.5) > slack
        )
    return np.rint(scaled), settled


# Below this many candidates the exact TCOs cost less than the float columns' fixed cost
# (some sixty numpy calls).
FLOAT_MIN_CANDIDATES = 48


def pending_tcos(
    candidates: Sequence[CandidateInput],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    plan: TcoPlan | None = None,
    *,
    floats: bool | None = None,
) -> list[PendingTco | None]:
    """Each candidate's PendingTco (None without a price), its figures filled in: from float
    columns over the batch where they are settled (see above), else from the exact TCO.

    ``floats`` False reads every exact TCO now; None (the default) takes the float columns
    from FLOAT_MIN_CANDIDATES candidates on. Both give the same figures."""
    plan = plan or TcoPlan(evaluation)
    if floats is None:
        floats = len(candidates) >= FLOAT_MIN_CANDIDATES
    if any(map(_QUOTED_OF, candidates)):
        offers = [candidate.effective_prices() for candidate in candidates]
    else:
        # No quoted price: the list prices are the effective ones (effective_prices()).
        offers = list(map(_PRICES_OF, map(_OFFERING_OF, candidates)))
    priced: list[CandidateInput] = list(candidates)
    prices: list[tuple[Any, ...]] = offers
    if not all(offers):
        priced = list(compress(candidates, offers))
        prices = list(filter(None, offers))
    pending = _new_pending(priced, evaluation, rubric, plan)
    found: list[PendingTco | None] = pending
    if len(pending) < len(candidates):
        made = iter(pending)
        found = [next(made) if offered else None for offered in offers]
    if not floats:
        for item in pending:
            item._read_exact()
        return found
    taken, values = _float_inputs(priced, prices, evaluation, rubric, plan)
    on_floats = [False] * len(pending)
    for index in taken:
        on_floats[index] = True
    for item, on in zip(pending, on_floats, strict=True):
        if not on:
            item._read_exact()
    if taken:
        _settle(
            [pending[index] for index in taken], values, evaluation, plan, rubric.v2 is not None
        )
    return found


_NO_PRICE = Decimal("NaN")
_SPOT_ROW = BILLING_MODELS.index("spot")


_UNPRICED_REFERENCE = object()
_OFFERING_OF = attrgetter("offering")
_MEASURED_OF = attrgetter("measured")
_ANSWERS_OF = attrgetter("answers")
_NODE_COUNT_OF = attrgetter("node_count")
_VERDICT_OF = attrgetter("bare_metal_verdict", "bare_metal_confidence", "delivery_form_seen")
_PER_GPU_OF = attrgetter("price_per_gpu")
# What the float figures read of an offering, in this order.
_OFFERING_FIELDS = (
    "delivery_form",
    "spot_preemption_risk_pct",
    "releasable_hourly",
    "min_commitment_days",
    "vendor_managed",
    "currency",
    "gpu_model",
    "mig_profile",
    "sla_availability_pct",
    "gpus_per_node",
    "storage_cost_month",
    "network_egress_cost_month",
    "support_cost_month",
    "licence_cost_gpu_month",
    "setup_fee",
    "setup_days",
)


def _float_inputs(
    candidates: Sequence[CandidateInput],
    prices: Sequence[tuple[Any, ...]],
    evaluation: EvaluationSpec,
    rubric: Rubric,
    plan: TcoPlan,
) -> tuple[list[int], list[np.ndarray]]:
    """The inputs of the float figures (see _settle) of the candidates (each priced:
    ``prices`` are their effective prices): the positions of those the float path takes and,
    for them, one float64 array per input. The rest, a shape left to the exact TCO (a minimum
    commitment beyond the duration, MIG slices, no reference price), read it.

    Each helper that prices a candidate's terms (_billing_terms, operations_cost,
    _plan_availability, the reference price) runs once per distinct value of what it reads
    of the candidate: a batch's candidates share most terms."""
    count = len(candidates)
    policy = rubric.v2
    offerings = list(map(_OFFERING_OF, candidates))
    (
        forms,
        stated_risks,
        releasable,
        commitments,
        managed,
        currencies,
        models,
        mig_profiles,
        slas,
        per_node,
        storage,
        egress,
        support,
        licence,
        setup_fee,
        setup_days,
    ) = zip(*read_fields(offerings, _OFFERING_FIELDS), strict=True) if count else ((),) * 16
    nodes = list(map(_NODE_COUNT_OF, candidates))
    gpus = list(map(mul, nodes, per_node))
    answers = list(map(_ANSWERS_OF, candidates))
    billing_statuses: list[Any] = [None] * count
    if policy is not None and policy.billing_terms_item != "sla":
        sla_statuses, billing_statuses = item_columns(
            answers, ("sla", policy.billing_terms_item), None
        )
    else:
        sla_statuses = [items.get("sla") for items in answers]
        if policy is not None:
            billing_statuses = sla_statuses
    # The priced form reads the evidence only where there is a bare-metal verdict.
    verdicts = list(map(_VERDICT_OF, map(_MEASURED_OF, candidates)))
    form_keys: Sequence[Any] = forms
    if any(verdict[0] is not None for verdict in verdicts):
        form_keys = list(zip(forms, verdicts, strict=True))

    def billing(candidate: CandidateInput) -> tuple[Any, ...]:
        # The billing terms, and the hours spot bills at their risk (read where it is priced).
        terms = _billing_terms(candidate, evaluation, rubric, plan)
        return (*terms, _spot_hours(plan, terms[0], policy))

    # The shared values as floats, converted once per key.
    def reference(candidate: CandidateInput) -> Any:
        offering = candidate.offering
        try:
            return float(rubric.reference_gpu_hour_price(offering.gpu_model, offering.currency))
        except RubricError:
            return _UNPRICED_REFERENCE

    def operations(candidate: CandidateInput) -> float:
        return float(operations_cost(candidate, evaluation, rubric, plan.duration_months))

    def availability(candidate: CandidateInput) -> float:
        return float(_plan_availability(candidate, rubric, plan)[0])

    # Decimals in a key by their exact text (see _TEXT_KEYED): equal text is the same value.
    terms = once_per_key(
        list(
            zip(
                form_keys,
                map(str, stated_risks),
                billing_statuses,
                releasable,
                commitments,
                nodes,
                strict=True,
            )
        ),
        candidates,
        billing,
    )
    references = once_per_key(list(zip(models, currencies, strict=True)), candidates, reference)
    taken = [
        index
        for index, (term, ref, mig) in enumerate(zip(terms, references, mig_profiles, strict=True))
        if not term[2] and ref is not _UNPRICED_REFERENCE and not (policy is not None and mig)
    ]
    if len(taken) < count:

        def keep(column: Sequence[Any]) -> list[Any]:
            return [column[index] for index in taken]

        candidates, prices, terms, references = map(keep, (candidates, prices, terms, references))
        forms, managed, currencies, slas, sla_statuses, billing_statuses, models = map(
            keep, (forms, managed, currencies, slas, sla_statuses, billing_statuses, models)
        )
        form_keys = keep(form_keys)
        gpus, storage, egress, support, licence, setup_fee, setup_days = map(
            keep, (gpus, storage, egress, support, licence, setup_fee, setup_days)
        )
    count = len(taken)
    if policy is None:
        costs = [float(_ZERO_CENTS)] * count
    else:
        # The GPU model sets the reference rate a foreign currency's staff cost converts at.
        costs = once_per_key(
            list(zip(forms, managed, billing_statuses, currencies, models, strict=True)),
            candidates,
            operations,
        )
    backed = [_sla_backed(candidate, rubric) for candidate in candidates]
    availabilities = once_per_key(
        list(zip(map(str, slas), sla_statuses, backed, strict=True)),
        candidates,
        availability,
    )
    risks, hourly_hours, _, allow_spot, spot_terms = (
        zip(*terms, strict=True) if count else ((),) * 5
    )
    # Every model priced (prices are kept in BILLING_MODELS order) or a look-up per model.
    unpriced = False
    if set(map(len, prices)) <= {len(BILLING_MODELS)}:
        per_gpu = list(map(_PER_GPU_OF, chain.from_iterable(prices)))
    else:
        unpriced = True
        per_gpu = []
        for offered in prices:
            by_model = {price.billing_model: price.price_per_gpu for price in offered}
            per_gpu += [by_model.get(model, _NO_PRICE) for model in BILLING_MODELS]
    spot_priced = per_gpu[_SPOT_ROW :: len(BILLING_MODELS)]
    spot_hours: Sequence[Any] = spot_terms
    if unpriced:
        spot_hours = [
            _NO_PRICE if spot is _NO_PRICE else hours
            for spot, hours in zip(spot_priced, spot_terms, strict=True)
        ]
    caps = _efficiency_caps(candidates, form_keys, gpus, rubric, evaluation)
    gpu_array = np.array(gpus, dtype=float)
    useful = gpu_array
    if policy is not None and policy.effective_hours == "required":
        useful = np.minimum(gpu_array, float(evaluation.required_total_gpus))
    # float() of each Decimal (numpy's own conversion of Decimals is slower); the values the
    # candidates share (risks, hours of the hourly and spot models) once each.
    shared = FloatCache()
    values = [
        _float_column(per_gpu).reshape(count, len(BILLING_MODELS)).T,
        *map(_float_column, (storage, egress, support, licence, setup_fee)),
        np.array(costs, dtype=float),
        gpu_array,
        np.array(setup_days, dtype=float),
        *(
            np.array(list(map(shared.__getitem__, column)))
            for column in (risks, hourly_hours, spot_hours)
        ),
        np.array(allow_spot, dtype=float),
        np.array(availabilities, dtype=float),
        caps,
        np.array(references, dtype=float),
        useful,
    ]
    return taken, values


_BUSBW_OF = attrgetter("busbw_fraction")


def _efficiency_caps(
    candidates: Sequence[CandidateInput],
    form_keys: Sequence[Any],
    gpus: Sequence[int],
    rubric: Rubric,
    evaluation: EvaluationSpec,
) -> np.ndarray:
    """_efficiency_cap(candidate, rubric, evaluation)[0] of every candidate, as float64.

    ``form_keys[i]`` holds what priced_form reads of candidate i, ``gpus[i]`` its GPU count.
    Rubric v2: the parts collectives.collectives composes for one candidate, each once per
    what it reads (scale and assumption per form and GPUs, the node shape per GPU model, node
    and NVLink domain, the reference across the measured nodes, the ring limit a measured peak
    counts up to per declared system and expectation, the declared fabric per fabric, ibstat
    figures and claim status), then collectives.throughput_kernel over the batch. Rubric v1:
    the measured fraction capped at 1, else the scale rule once per (form key, GPU count)."""
    measured = list(map(_MEASURED_OF, candidates))
    fractions = list(map(_BUSBW_OF, measured))
    known = [fraction is not None for fraction in fractions]
    capped = np.minimum(
        np.array([f if k else 0.0 for f, k in zip(fractions, known, strict=True)]), 1.0
    )
    if rubric.v2 is None:
        unmeasured = [index for index, k in enumerate(known) if not k]
        if unmeasured:
            keys = [(form_keys[i], gpus[i]) for i in unmeasured]
            chosen = [candidates[i] for i in unmeasured]
            capped[unmeasured] = once_per_key(
                keys, chosen, lambda candidate: _efficiency_cap(candidate, rubric, evaluation)[0]
            )
        return capped
    comm = comm_share(evaluation, rubric)
    parts = once_per_key(
        list(zip(form_keys, gpus, strict=True)),
        candidates,
        lambda candidate: scale_and_assumed(
            candidate, evaluation, rubric, priced_form(candidate, rubric)
        ),
    )
    scale = np.array([part[0] for part in parts], dtype=float)
    assumed = [part[1] for part in parts]
    offerings = list(map(_OFFERING_OF, candidates))
    shape_keys = read_fields(offerings, _SHAPE_FIELDS)
    shapes = once_per_key(
        shape_keys, offerings, lambda offering: node_shape(offering, evaluation, rubric)
    )
    health = capped  # the measured fractions, capped at 1 as health_of caps them
    for index, k in enumerate(known):
        # A stand-in shape's stored fraction is not read (health_of's ``referenced``).
        if not k or shapes[index].stand_in:
            health[index] = health_of(
                candidates[index], assumed[index], not shapes[index].stand_in
            )[0]
    count = len(candidates)
    across = np.zeros(count, dtype=bool)
    peak = np.zeros(count)
    reference = np.ones(count)
    share = np.ones(count)
    spanning = [i for i, shape in enumerate(shapes) if shape.declared]
    if spanning and comm > 0.0:
        nodes = [measured_across(candidates[i]) for i in spanning]
        measured_on = [i for i, n in zip(spanning, nodes, strict=True) if n is not None]
        if measured_on:
            found = once_per_key(
                [(shape_keys[i], measured[i].busbw_nodes) for i in measured_on],
                measured_on,
                lambda i: across_reference(shapes[i], measured[i].busbw_nodes),
            )
            for i, value in zip(measured_on, found, strict=True):
                if value is not None:
                    across[i], peak[i], reference[i] = True, measured[i].peak_busbw_gbyte_s, value
            capped = [i for i in measured_on if across[i]]
            limits = once_per_key(
                [
                    (
                        shape_keys[i],
                        measured[i].busbw_nodes,
                        measured[i].expected_busbw_gbyte_s,
                        _FABRIC_KEY(offerings[i]),
                        offerings[i].nvlink_topology,
                    )
                    for i in capped
                ],
                capped,
                lambda i: ring_limit(candidates[i], shapes[i], measured[i].busbw_nodes),
            )
            for i, limit in zip(capped, limits, strict=True):
                peak[i] = min(peak[i], limit)
        declared = [i for i in spanning if not across[i]]
        if declared:
            keys = [
                (
                    shape_keys[i],
                    _FABRIC_KEY(offerings[i]),
                    _IBSTAT_KEY(measured[i]),
                    candidates[i].node_count,
                    candidates[i].answers.get("fabric"),
                )
                for i in declared
            ]
            counted = once_per_key(
                keys,
                declared,
                lambda i: (
                    declared_fabric(
                        candidates[i], rubric, shapes[i].reference, shapes[i].nvlink_gbyte_s
                    ).counted
                ),
            )
            share[declared] = counted
    comms = np.full(count, comm)
    return throughput_kernel(health, across, peak, reference, share, comms, scale)[0]


# Every field node_shape reads (reference_fabric reads the form factor and memory too).
_SHAPE_FIELDS = (
    "gpu_model",
    "gpus_per_node",
    "mig_profile",
    "nvlink_domain_gpus",
    "gpu_form_factor",
    "gpu_memory_gib",
)
_FABRIC_KEY = attrgetter("fabric", "fabric_rate_gbit_s", "nics_per_node")
_IBSTAT_KEY = attrgetter("ib_rate_gbit_s_min", "ib_ports_down", "ib_rails_min")


class FloatCache(dict):
    """float() of each distinct value, converted once (float() of a Decimal costs several
    dict look-ups). Zeros are never kept: -0 and 0 are equal keys of different floats (a
    Decimal zero's sign is read without float())."""

    def __missing__(self, key: Any) -> float:
        if type(key) is Decimal and not key:
            return -0.0 if key.is_signed() else 0.0
        value = float(key)
        if value:
            self[key] = value
        return value


class TextFloats(dict):
    """float() of each distinct text, converted once: float(str(d)) is float(d) for every
    Decimal d (which converts through its text), and -0 keeps its sign."""

    def __missing__(self, text: str) -> float:
        value = self[text] = float(text)
        return value


# A Decimal's hash is computed on first use (and kept): the inputs a cold ranking reads are
# built afresh from database rows, so hashing each Decimal, and comparing equal Decimals in a
# dict, costs more than str() of it. Columns and keys of Decimals are therefore grouped by
# their exact text, which is never equal for unequal values.
_TEXT_KEYED = frozenset((Decimal,))


def _float_column(values: Sequence[Any]) -> np.ndarray:
    """float() of every value as a float64 array: through each distinct text when the first
    values repeat (a catalogue figure: each distinct value converted once), else one by one
    (a price: a cache would only add a look-up). Either way the same floats."""
    convert: Any = float
    if len(values) < 64:
        pass
    elif type(values[0]) is Decimal:
        if len(set(map(str, values[:32]))) <= 16 and set(map(type, values)) <= _TEXT_KEYED:
            return np.array(list(map(TextFloats().__getitem__, map(str, values))), dtype=float)
    else:
        try:
            if len(set(values[:32])) <= 16:
                convert = FloatCache().__getitem__
        except TypeError:  # pragma: no cover - Decimals and floats are hashable
            pass
    return np.array(list(map(convert, values)), dtype=float)


def _covered_days(plan: TcoPlan, v2: bool) -> tuple[float, ...]:
    """The days each billing model (BILLING_MODELS order) bills beyond the duration, which
    cover setup days in rubric v2 (0 for hourly and spot, and in rubric v1)."""
    return tuple(float(_billed_extra_days(model, plan)) if v2 else 0.0 for model in BILLING_MODELS)


def _settle(
    pending: list[PendingTco],
    values: list[np.ndarray],
    evaluation: EvaluationSpec,
    plan: TcoPlan,
    v2: bool,
) -> None:
    """Fill in every pending figure from the float inputs (_float_inputs); a candidate
    whose figures are not all settled reads its exact TCO."""
    prices, storage, egress, support, licence, setup_fee, operations = values[:7]
    gpus, setup_days, risk, hourly_hours, spot_hours, allow_spot = values[7:13]
    availability, cap, ref, useful = values[13:]
    count = len(pending)
    months = float(plan.duration_months)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        # Each component in cents, rounded as compute_tco rounds it (settled away from a
        # half cent), so the totals are exact whole cents.
        shared = np.zeros(count)
        settled = np.ones(count, dtype=bool)
        for part in (
            storage * months,
            egress * months,
            support * months,
            licence * gpus * months,
            operations,
        ):
            cents, exact = _rounded(part, 0.0, 2)
            shared += cents
            settled &= exact
        all_gpus = prices * gpus
        units = np.array(
            (
                hourly_hours,
                spot_hours,
                np.full(count, float(plan.months_billed)),
                np.full(count, float(plan.years_billed)),
            )
        )
        day_rates = np.array(
            (
                all_gpus[0] * 24.0,
                all_gpus[1] * 24.0 / (1.0 - risk / 100.0),
                all_gpus[2] * 12.0 / 365.0,
                all_gpus[3] / 365.0,
            )
        )
        gpu, gpu_exact = _rounded(all_gpus * units, 0.0, 2)
        # The setup days the whole months or years billed do not cover (rubric v2; see
        # compute_tco), per billing model.
        covered = np.array(_covered_days(plan, v2)).reshape(len(BILLING_MODELS), 1)
        setup_paid = np.maximum(setup_days - covered, 0.0)
        setup, setup_exact = _rounded(
            np.where(setup_days != 0, setup_fee + day_rates * setup_paid, setup_fee), 0.0, 2
        )
        totals = gpu + shared + setup
        priced = ~np.isnan(prices)
        settled &= (~priced | (gpu_exact & setup_exact)).all(axis=0)
        settled &= (np.abs(np.where(priced, totals, 0.0)) < _LARGEST_SCALED).all(axis=0)
        allowed = priced.copy()
        allowed[_SPOT_ROW] &= allow_spot > 0
        # Only spot is priced and spot is not allowed: it stays the figure, and the exact
        # TCO (Tco.spot_refused) gives the ranking's figures.
        usable = allowed.any(axis=0)
        settled &= usable | ~priced.any(axis=0)
        allowed = np.where(usable, allowed, priced)
        # The first lowest whole-cent total, as compute_tco picks it.
        best = np.argmin(np.where(allowed, totals, np.inf), axis=0)
        total_cents = totals[best, np.arange(count)]
        total = total_cents / 100.0

        budget = evaluation.budget_total
        currency = evaluation.budget_currency
        ratio_k = over = None
        if budget is not None:
            judged = np.fromiter((p.currency == currency for p in pending), bool, count)
            limit = float(budget) * 100.0
            over = total_cents > limit
            settled &= ~judged | (np.abs(total_cents - limit) > _RELATIVE_ERROR * abs(limit))
            if budget > 0:
                ratio_k, ratio_settled = _rounded(total_cents / limit, 0.0, 3)
                settled &= ~judged | ratio_settled
                ratio_k = np.where(judged, ratio_k, np.nan)
            over = over & judged
        efficiency_k, efficiency_settled = _rounded(cap, 0.0, 4)
        # The useful GPUs: the delivered ones, or the required ones below them (F2).
        hours = useful * float(plan.used_hours) * availability * (efficiency_k / 10_000.0)
        costed = (useful * float(plan.used_hours) > 0) & (efficiency_k > 0)
        settled &= efficiency_settled & (~costed | ((hours > 0) & (ref > 0)))
        cost_k, cost_settled = _rounded(total / hours, 0.0, 4)
        price_k, price_settled = _rounded(cost_k / 10_000.0 / ref, 0.0, 3)
        settled &= ~costed | (cost_settled & price_settled)
        price_k = np.where(costed, price_k, np.nan)
    ok = settled.tolist()
    done = list(compress(pending, ok))
    # NaN (no figure) is None; the figures of the settled candidates only.
    price_k = price_k[settled] / 1000.0
    figures: list[tuple[Any, list[Any]]] = [
        (_SET_PRICE_RATIO, np.where(np.isnan(price_k), None, price_k).tolist())
    ]
    if ratio_k is not None:
        ratio_k = ratio_k[settled] / 1000.0
        figures.append((_SET_BUDGET_RATIO, np.where(np.isnan(ratio_k), None, ratio_k).tolist()))
    if over is not None:
        figures.append((_SET_OVER_BUDGET, over[settled].tolist()))
    for setter, column in figures:
        # map() runs the slot assignments in C; the deque only drains it.
        deque(map(setter, done, column), maxlen=0)
    for item in compress(pending, map(not_, ok)):
        item._read_exact()
