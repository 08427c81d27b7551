"""The reader's-language text of a portfolio proposal: its summary, risks, notes and search
method, worded from ``scoring.portfolio``'s figures with the portal's own labels.

Scoring words a plan in English and Chinese for itself (codes such as ``monthly`` or
``small_team``, money with cents and no currency); the pages say the same with the labels the
rest of the portal uses (billing models as in the cost tables, the operations capacity as the
settings form names it), money rounded as the tables round it and followed by its currency. A
risk or note of a kind unknown here falls back to scoring's own text.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from scoring import portfolio as pf

from .charts.costs import billing_names
from .models import OpsCapacity
from .templatetags.portal_tags import num

SEARCH_METHODS = {
    "exact": gettext_lazy("exact (the cheapest plan is certain)"),
    "heuristic": gettext_lazy("heuristic (local search: a cheaper plan may exist)"),
}


def money(value: Any, currency: str) -> str:
    """An amount as the portfolio tables show it (whole units, grouped) with its currency."""
    return f"{num(value, 0)} {currency}"


def _names(values: Iterable[str]) -> str:
    return pgettext("between names in a sentence", ", ").join(values)


def _scoring_text(obj) -> str:
    return obj.zh if (translation.get_language() or "").startswith("zh") else obj.en


def _percent(value: Any) -> str:
    number = Decimal(str(value))
    return f"{number.quantize(Decimal('0.1')).normalize():f}"


def method_label(method: str) -> str:
    return str(SEARCH_METHODS.get(method, method))


def billing_label(code: str) -> str:
    return str(billing_names().get(code, code))


def summary(result: pf.PortfolioResult, labels: dict[str, str], currency: str) -> str:
    """One paragraph: where each workload goes, the total and the saving against the best
    single vendor."""
    if result.proposal is None:
        names = _names(u.workload_id for u in result.unassignable)
        return _("No candidate can serve: %(workloads)s.") % {"workloads": names}
    placed = pgettext("between list items", "; ").join(
        _("%(workload)s on %(candidate)s (%(billing)s, %(tco)s)")
        % {
            "workload": line.workload_id,
            "candidate": labels.get(line.candidate_id, line.label),
            "billing": billing_label(line.billing_model),
            "tco": money(line.tco, currency),
        }
        for line in result.proposal.lines
    )
    sentences = [
        _("Proposal: %(lines)s. Total %(total)s.")
        % {"lines": placed, "total": money(result.proposal.total, currency)}
    ]
    if result.single is None:
        sentences.append(_("No single vendor can serve every workload."))
    elif result.saving_cny > 0:
        sentences.append(
            _("It saves %(saving)s against the best single vendor, %(vendor)s.")
            % {"saving": money(result.saving_cny, currency), "vendor": result.single.vendors[0]}
        )
    else:
        sentences.append(_("The best single vendor is as cheap: no saving from splitting."))
    # Chinese sentences end with a full-width stop and follow each other without a space.
    zh = (translation.get_language() or "").startswith("zh")
    return ("" if zh else " ").join(sentences)


def risk_text(risk: pf.Risk, currency: str) -> str:
    params = risk.params
    if not params:
        return _scoring_text(risk)
    if risk.kind == "extra_vendor":
        vendors = params["vendors"]
        return _(
            "%(count)s vendors (%(names)s): more contracts, support channels and accounts to run."
        ) % {"count": len(vendors), "names": _names(vendors)}
    if risk.kind == "egress":
        return _(
            "Egress between vendors or regions costs %(amount)s and adds latency to data transfers."
        ) % {"amount": money(params["amount"], currency)}
    if risk.kind == "ops_load":
        code = params["ops_capacity"]
        capacity = OpsCapacity(code).label if code in OpsCapacity.values else code
        return _(
            "Self-managed bare metal (%(offers)s) with operations capacity “%(capacity)s”: "
            "%(amount)s of operations staff is included."
        ) % {
            "offers": _names(params["offers"]),
            "capacity": capacity,
            "amount": money(params["amount"], currency),
        }
    if risk.kind == "preemption":
        return _("Spot capacity for %(workloads)s: it can be pre-empted.") % {
            "workloads": _names(params["workloads"])
        }
    return _scoring_text(risk)


def note_text(note: pf.Note, currency: str) -> str:
    params = note.params
    if note.kind == "fewer_vendors" and params:
        return _(
            "Fewer vendors preferred: %(vendors)s instead of %(optimum)s costs %(extra)s more, "
            "within the %(threshold)s %% threshold."
        ) % {
            "vendors": params["vendors"],
            "optimum": params["optimum_vendors"],
            "extra": money(params["extra"], currency),
            "threshold": _percent(params["threshold_pct"]),
        }
    if note.kind == "far_region" and params:
        return _(
            "%(workload)s accepts a farther region; running in %(region)s saves %(saving)s "
            "against the cheapest option elsewhere."
        ) % {
            "workload": params["workload"],
            "region": params["region"],
            "saving": money(params["saving"], currency),
        }
    return _scoring_text(note)


def risks_recorded(risks: Iterable[pf.Risk], currency: str) -> list[dict[str, str]]:
    """The risks as a decision records them: their kind and their text in both languages."""
    recorded = []
    for risk in risks:
        texts = {}
        for key, language in (("en", "en"), ("zh", "zh-hans")):
            with translation.override(language):
                texts[key] = risk_text(risk, currency)
        recorded.append({"kind": risk.kind, **texts})
    return recorded


def _quoted(names: Iterable[str]) -> str:
    return _names(f"“{name}”" for name in names)


def assignment_gaps(missing: list[str], unknown: list[str]) -> str:
    """Why an edited assignment does not cover the workloads once each, in the reader's
    language: the workloads left without a candidate, and the names that are no workload of
    the evaluation ("" when there is nothing to say)."""
    parts = []
    if missing:
        parts.append(
            ngettext(
                "The workload %(names)s is missing from the assignment: choose a candidate for it.",
                "The workloads %(names)s are missing from the assignment: choose a candidate "
                "for each.",
                len(missing),
            )
            % {"names": _quoted(missing)}
        )
    if unknown:
        parts.append(
            ngettext(
                "%(names)s is not a workload of this evaluation.",
                "%(names)s are not workloads of this evaluation.",
                len(unknown),
            )
            % {"names": _quoted(unknown)}
        )
    return " ".join(parts)
