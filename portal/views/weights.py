"""The weights page: direct weights in percent that must make 100 (or are scaled to 100 on
request, and the page says so), the AHP pairwise comparisons shown as last saved, and a
what-if for every member; only procurement and the manager of an open evaluation save."""

from decimal import ROUND_HALF_UP, Decimal

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from ..forms import loaded_version_field, refuse_stale, sent_version, weight_percent_field
from ..models import Dimension, EvaluationStatus, WorkloadProfile
from ..permissions import CAN_WEIGH
from ..services.errors import EvaluationDecided, StaleCopy
from ..services.evaluations import (
    DIMENSIONS,
    WEIGHTS_SUM_TOLERANCE,
    evaluation_weights_from_ahp,
    evaluation_weights_set,
    weights_version,
)
from . import dashboard
from .common import member_evaluation, require_form_methods

# Saaty's scale: the judgement "row dimension is N times as important as the column one".
AHP_VALUES = ["1/9", "1/7", "1/5", "1/3", "1", "3", "5", "7", "9"]
PAIRS = [(a, b) for i, a in enumerate(DIMENSIONS) for b in DIMENSIONS[i + 1 :]]
SUM_TOLERANCE = WEIGHTS_SUM_TOLERANCE  # the API's PUT takes the same
HUNDRED = Decimal(100)


def percentages(weights: dict) -> dict[str, Decimal]:
    """Stored weights (any scale) as percentages of their sum, one decimal."""
    total = sum(Decimal(str(w)) for w in weights.values()) or Decimal(1)
    return {
        d: (Decimal(str(w)) * HUNDRED / total).quantize(Decimal("0.1"), ROUND_HALF_UP)
        for d, w in weights.items()
    }


class WeightsForm(forms.Form):
    """Six percentages; they must add up to 100, unless ``scale`` asks to scale them to 100."""

    scale = forms.BooleanField(required=False)
    loaded_version = loaded_version_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scale"].label = _("Scale them to 100 in proportion when saving")
        # Named like the dashboard's what-if parameters, so one form serves both.
        for d in Dimension:
            self.fields[f"w_{d.value}"] = weight_percent_field(d.label)
        self.scaled_from: Decimal | None = None

    def total(self) -> Decimal:
        return sum((self.cleaned_data.get(f"w_{d}") or 0 for d in DIMENSIONS), Decimal(0))

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        total = self.total()
        if total <= 0:
            raise ValidationError(_("At least one weight must be positive: all six are zero."))
        if abs(total - HUNDRED) > SUM_TOLERANCE:
            if not data.get("scale"):
                raise ValidationError(
                    _(
                        "The weights add up to %(total)s %%; they must make 100 %%. Adjust them, "
                        "or tick “Scale them to 100” to save them in proportion."
                    )
                    % {"total": format(total.normalize(), "f")}
                )
            self.scaled_from = total
        return data

    def percent(self) -> dict[str, Decimal]:
        """The weights in percent of their sum (as typed when they make 100), the unit they
        are stored in."""
        total = self.total()
        return {d: self.cleaned_data[f"w_{d}"] * HUNDRED / total for d in DIMENSIONS}


class AhpForm(forms.Form):
    loaded_version = loaded_version_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        labels = dict(Dimension.choices)
        for a, b in PAIRS:
            self.fields[f"{a}__{b}"] = forms.ChoiceField(
                label=_("%(a)s compared with %(b)s") % {"a": labels[a], "b": labels[b]},
                choices=[(v, v) for v in AHP_VALUES],
                initial="1",
            )

    def judgements(self) -> dict[str, str]:
        return {f"{a}__{b}": self.cleaned_data[f"{a}__{b}"] for a, b in PAIRS}

    def matrix(self) -> list[list[float]]:
        index = {d: i for i, d in enumerate(DIMENSIONS)}
        size = len(DIMENSIONS)
        matrix = [[1.0] * size for _ in range(size)]
        for a, b in PAIRS:
            num, _sep, den = self.cleaned_data[f"{a}__{b}"].partition("/")
            value = float(num) / float(den or 1)
            matrix[index[a]][index[b]] = value
            matrix[index[b]][index[a]] = 1.0 / value
        return matrix


def saved_judgements(evaluation) -> dict[str, str]:
    """The pairwise judgements last saved, from the stored matrix ({} if none)."""
    matrix = evaluation.ahp_matrix or []
    if len(matrix) != len(DIMENSIONS):
        return {}
    index = {d: i for i, d in enumerate(DIMENSIONS)}
    judgements = {}
    for a, b in PAIRS:
        value = float(matrix[index[a]][index[b]])
        # Back to the scale's label: 3 -> "3", 1/3 -> "1/3".
        judgements[f"{a}__{b}"] = str(round(value)) if value >= 1 else f"1/{round(1 / value)}"
    return {k: v for k, v in judgements.items() if v in AHP_VALUES}


def preset_percentages(evaluation, profile: str) -> dict[str, Decimal] | None:
    """A workload profile's preset weights (the rubric's) in percent, one decimal; None for
    a profile that is not one."""
    from scoring.api import preset_weights

    if profile not in WorkloadProfile.values:
        return None
    return percentages(preset_weights(profile, rubric_version=evaluation.rubric_version))


def _sum_shown(form: WeightsForm) -> str:
    """The sum of the weights as the form reads them; "—" when one is not a weight it reads
    (Decimal alone reads full-width digits and "1_0", which the field refuses), as the page's script
    shows it."""
    if form.is_bound and any(form.has_error(f"w_{d}") for d in DIMENSIONS):
        return "—"
    # 1e400, Infinity or 400 digits as typed are refused by the field: never summed here.
    total = sum((Decimal(str(form[f"w_{d}"].value() or 0)) for d in DIMENSIONS), Decimal(0))
    return f"{total.quantize(Decimal('0.1'), ROUND_HALF_UP)}"


def _shares(shown: dict[str, Decimal]) -> str:
    return " · ".join(f"{Dimension(d).label} {shown[d]} %" for d in DIMENSIONS if d in shown)


def _saved_message(form: WeightsForm, evaluation) -> str:
    if form.scaled_from is None:
        return _("Weights saved.")
    shares = _shares(percentages(evaluation.weights))
    return _("Your weights added up to %(total)s %%; saved scaled to 100 %%: %(w)s.") % {
        "total": format(form.scaled_from.normalize(), "f"),
        "w": shares,
    }


@login_required
@require_form_methods
def weights(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    may_weigh = membership.role in CAN_WEIGH
    decided = evaluation.status == EvaluationStatus.DECIDED
    shown = percentages(evaluation.weights)
    # What the page loaded: the services refuse a save over weights someone saved since.
    version = weights_version(evaluation)
    form = WeightsForm(
        initial={**{f"w_{d}": w for d, w in shown.items()}, "loaded_version": version}
    )
    # ?preset=<workload>: the form filled with that workload's preset weights, nothing saved
    # (Save weights records them, checked against the version the page was loaded at).
    preset = request.GET.get("preset", "")
    preset_shown = preset_percentages(evaluation, preset) if request.method != "POST" else None
    if preset_shown is not None:
        form = WeightsForm(
            initial={**{f"w_{d}": w for d, w in preset_shown.items()}, "loaded_version": version}
        )
    judgements = saved_judgements(evaluation)
    ahp_form = AhpForm(initial={**judgements, "loaded_version": version})
    status = 200
    if request.method == "POST":
        # The role first: a member who may weigh is told that the evaluation is decided, with
        # the input kept, not that the role forbids it.
        if not may_weigh:
            raise PermissionDenied(_("Your role does not allow saving weights."))
        target: forms.Form
        if "ahp" in request.POST:
            target = ahp_form = AhpForm(request.POST)
        else:
            target = form = WeightsForm(request.POST)
        try:
            if decided:
                raise EvaluationDecided()
            if target is ahp_form:
                if ahp_form.is_valid():
                    evaluation_weights_from_ahp(
                        evaluation=evaluation,
                        matrix=ahp_form.matrix(),
                        by=request.user,
                        expected_version=sent_version(ahp_form),
                    )
                    messages.success(request, _("Weights derived from the pairwise comparisons."))
                    return redirect("evaluation-weights", pk)
            elif form.is_valid():
                saved = evaluation_weights_set(
                    evaluation=evaluation,
                    weights=form.percent(),
                    by=request.user,
                    expected_version=sent_version(form),
                )
                messages.success(request, _saved_message(form, saved))
                return redirect("evaluation-weights", pk)
        except StaleCopy as exc:
            # Named as stored now (the locked row the service compared with).
            refuse_stale(target, exc, _shares(percentages(exc.current.weights)))
        except EvaluationDecided as exc:
            # Decided here or by a decision recorded since the page was read (the service
            # reads the row under its lock): the refusal other decided pages give.
            decided = True
            target.add_error(None, exc.messages[0])
        except ValidationError as exc:
            for message in exc.messages:
                target.add_error(None, message)
        # A decided evaluation's refusal is a 409, as the decided page of other writes.
        status = 409 if decided else 422 if (form.errors or ahp_form.errors) else 200
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "form": form,
        "ahp_form": ahp_form,
        "ahp_saved": bool(judgements),
        "weights_sum": _sum_shown(form),
        "can_save": may_weigh and not decided,
        "decided": decided,
        "may_weigh": may_weigh,
        # The dashboard's results fragment, from the same cache entry (rendered once per state).
        # Read through the module at call time: the weights page shows the dashboard's own
        # cached fragment (a test that replaces it replaces it for both pages).
        "results_html": dashboard.results_html(
            evaluation,
            role=membership.role,
            weights=None if preset_shown is None else dict(preset_shown),
        ),
        "presets": WorkloadProfile.choices,
        "preset_label": WorkloadProfile(preset).label if preset_shown is not None else None,
    }
    return render(request, "portal/evaluation_weights.html", context, status=status)
