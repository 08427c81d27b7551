"""The API's pages in the reader's language: the name and description the browsable API shows
for each view (REST_FRAMEWORK["VIEW_NAME_FUNCTION"], ["VIEW_DESCRIPTION_FUNCTION"]).

DRF takes them from the class name and docstring, which no catalogue reads. Here each view's
name and its docstring (as one paragraph: tests/portal/test_zh_pages_complete.py checks they
are the same text) are translatable; a view missing here falls back to DRF's English.
"""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from rest_framework import views
from rest_framework.utils import formatting

# The name of each view's page.
NAMES = {
    "EvidenceUploadView": pgettext_lazy("API page", "Evidence Upload"),
    "EvidenceNonceView": pgettext_lazy("API page", "Evidence Nonce"),
    "EvidenceDetailView": pgettext_lazy("API page", "Evidence Detail"),
    "MeView": pgettext_lazy("API page", "Me"),
    "ChecklistList": pgettext_lazy("API page", "Checklist List"),
    "VendorList": pgettext_lazy("API page", "Vendor List"),
    "VendorDetail": pgettext_lazy("API page", "Vendor Detail"),
    "OfferingList": pgettext_lazy("API page", "Offering List"),
    "OfferingDetail": pgettext_lazy("API page", "Offering Detail"),
    "OfferingPriceList": pgettext_lazy("API page", "Offering Price List"),
    "OfferingPriceDetail": pgettext_lazy("API page", "Offering Price Detail"),
    "EvaluationList": pgettext_lazy("API page", "Evaluation List"),
    "EvaluationDetail": pgettext_lazy("API page", "Evaluation Detail"),
    "MemberList": pgettext_lazy("API page", "Member List"),
    "MemberDetail": pgettext_lazy("API page", "Member Detail"),
    "CandidateList": pgettext_lazy("API page", "Candidate List"),
    "CandidateDetail": pgettext_lazy("API page", "Candidate Detail"),
    "CandidateCatalogueView": pgettext_lazy("API page", "Candidate Catalogue"),
    "CandidateIntegrityView": pgettext_lazy("API page", "Candidate Integrity"),
    "AnswerList": pgettext_lazy("API page", "Answer List"),
    "AnswerDetail": pgettext_lazy("API page", "Answer Detail"),
    "WeightsView": pgettext_lazy("API page", "Weights"),
    "PocPlanView": pgettext_lazy("API page", "Poc Plan"),
    "PocCoverageView": pgettext_lazy("API page", "Poc Coverage"),
    "UploadTokenList": pgettext_lazy("API page", "Upload Token List"),
    "UploadTokenDetail": pgettext_lazy("API page", "Upload Token Detail"),
    "UploadTokenRevoke": pgettext_lazy("API page", "Upload Token Revoke"),
    "UploadList": pgettext_lazy("API page", "Upload List"),
    "UploadDetail": pgettext_lazy("API page", "Upload Detail"),
    "MeasurementList": pgettext_lazy("API page", "Measurement List"),
    "ScoreList": pgettext_lazy("API page", "Score List"),
    "RankingView": pgettext_lazy("API page", "Ranking"),
    "RobustnessView": pgettext_lazy("API page", "Robustness"),
    "DecisionView": pgettext_lazy("API page", "Decision"),
    "DecisionReopenView": pgettext_lazy("API page", "Decision Reopen"),
    "HistoryView": pgettext_lazy("API page", "History"),
    "PortfolioView": pgettext_lazy("API page", "Portfolio"),
    "PortfolioDecisionView": pgettext_lazy("API page", "Portfolio Decision"),
    "WorkloadList": pgettext_lazy("API page", "Workload List"),
    "WorkloadDetail": pgettext_lazy("API page", "Workload Detail"),
}

# Each view's docstring, as one paragraph.
DESCRIPTIONS = {
    "EvidenceUploadView": _(
        "POST a file or collector bundle; 202 with the status URL, 200 if already received."
    ),
    "EvidenceNonceView": _("The nonce the collector embeds in its manifest; upload tokens only."),
    "EvidenceDetailView": _(
        "The state of one upload: for its upload token, or for members of its evaluation."
    ),
    "MeView": _("The signed-in user and the evaluations they belong to, with their role in each."),
    "ChecklistList": _("The ten-point checklist every candidate answers, in English and Chinese."),
    "VendorList": _(
        "Vendors (filter: name, mlps_level, xinchuang, iso27001). POST: catalogue editors "
        "(staff or the catalogue role)."
    ),
    "VendorDetail": _(
        "One vendor. PUT/PATCH: catalogue editors; its offerings get a new version. DELETE: "
        "catalogue editors, only once the vendor has no offerings (else 409)."
    ),
    "OfferingList": _(
        "Offerings with their list prices (filter: vendor, delivery_form, gpu_model, fabric, "
        "gpu_form_factor, region). POST: catalogue editors (staff or the catalogue role)."
    ),
    "OfferingDetail": _(
        "One offering. PUT/PATCH: catalogue editors; a new version (candidates keep theirs). "
        "DELETE: catalogue editors, with its list prices, only while no evaluation has it as "
        "a candidate (else 409: remove the candidacies first)."
    ),
    "OfferingPriceList": _(
        "The list prices of one offering, one per billing model. POST: catalogue editors "
        "(staff or the catalogue role)."
    ),
    "OfferingPriceDetail": _(
        "One list price. PUT/PATCH/DELETE: catalogue editors; a new version of the offering."
    ),
    "EvaluationList": _(
        "The evaluations the user is a member of (filter: status, workload_profile). POST "
        "creates one (procurement members of any evaluation, or staff) with the workload's "
        "preset weights; its creator becomes its procurement member."
    ),
    "EvaluationDetail": _(
        "One evaluation: requirements, status, weights, the user's role. PATCH: procurement."
    ),
    "MemberList": _(
        "Members and their roles. POST (procurement) adds a user by username with a role."
    ),
    "MemberDetail": _(
        "One membership. PATCH changes the role, DELETE removes it (procurement); the last "
        "procurement member cannot be removed or demoted."
    ),
    "CandidateList": _(
        "The candidates (offerings in this evaluation) with their scores; filter: offering, "
        "vendor. POST (procurement) adds an offering with its node count and quoted price."
    ),
    "CandidateDetail": _(
        "One candidate. PATCH (procurement): node count, quote, notes; DELETE removes it."
    ),
    "CandidateCatalogueView": _(
        "The version of its offering the candidate is scored on, and how the catalogue "
        'differs from it today. POST (procurement) ``{"action": "adopt"}`` pins the catalogue'
        ' as it is now and rescores; ``{"action": "keep"}`` keeps the pinned version (both '
        "audited)."
    ),
    "CandidateIntegrityView": _(
        "Where the candidate's evidence comes from: its node fingerprint (GPU UUIDs and "
        "serials, board and system serials, HCA GUIDs, MACs, nccl-tests hosts and runs), the "
        "same hardware or the same output (identical upload bytes) under other candidates "
        "(naming them), and which uploads are used (imported, of a checked origin, fresh "
        "enough)."
    ),
    "AnswerList": _(
        "A candidate's questionnaire answers, item by item (the checklist lists all items)."
    ),
    "AnswerDetail": _(
        "One answer, addressed by checklist item number (1-10) or key (``nvlink_topology``). "
        "PUT (procurement) saves the claim, typed value and notes; the candidate is re-"
        "verified against its evidence and rescored."
    ),
    "WeightsView": _(
        "The six dimension weights, in percent. PUT sets them directly: each from 0 to 100, "
        "the six summing to 100 within ±0.05 (weights summing to anything else, fractions of "
        "1 among them, are a 400 naming their sum; nothing is stored). POST derives them from"
        " an AHP pairwise comparison matrix (400 naming the most inconsistent comparison when"
        " the consistency ratio is above 0.10). Both: procurement and the manager, as on the "
        "weights page; a decided evaluation answers 409 whatever is sent."
    ),
    "PocPlanView": _(
        "The evaluation's POC plan: deadline, fleet sample (seed, size, per-candidate sampled"
        " nodes) and the span of the multi-node runs. PUT (procurement) creates or changes "
        "it; 409 when the evaluation is decided. Before a plan exists GET answers ``exists: "
        "false``."
    ),
    "PocCoverageView": _(
        "One candidate's required POC runs, each covered / pending / failed with the uploads "
        "and nodes that satisfied it; after the deadline a missing run is failed. Without a "
        "plan: ``plan: false`` and nothing complete."
    ),
    "UploadTokenList": _(
        "Upload tokens of the evaluation (engineers and procurement; filter: candidate, "
        "revoked). POST (procurement) issues a token for one candidate of this evaluation; "
        "the answer holds the raw token, shown this once only."
    ),
    "UploadTokenDetail": _(
        "One upload token (never its secret). DELETE revokes it at once (procurement); the "
        "row stays for the audit trail."
    ),
    "UploadTokenRevoke": _(
        "Revoke an upload token at once (procurement); revoking twice keeps the first time."
    ),
    "UploadList": _(
        "Evidence uploads of the evaluation and their import status (filter: candidate, "
        "status, node_name), newest first, a cursor page at a time."
    ),
    "UploadDetail": _(
        "One upload: its import status, error and per-file report. DELETE (procurement) with "
        '``{"reason": …}`` deletes it and its measurements through the audited service (a '
        "record of what it was stays in the history); refused (409) once the evaluation is "
        "decided."
    ),
    "MeasurementList": _(
        "Facts parsed from the evidence (filter: candidate, upload, kind, metric, node_name),"
        " in the order they were stored, a cursor page at a time."
    ),
    "ScoreList": _(
        "Stored dimension scores with the contributions that explain them (filter: candidate,"
        " dimension), a cursor page at a time. The live ranking is /ranking/."
    ),
    "RankingView": _(
        "The ranking computed now from the stored facts: weighted totals, dimension scores, "
        "knockouts and a TCO summary per candidate, qualified candidates first."
    ),
    "RobustnessView": _(
        "How robust the ranking is to the weights: the weight change of each dimension that "
        "would swap the leader with each other candidate, and the share of seeded random "
        "weight draws (each weight ±perturbation_pct %) in which each candidate leads."
    ),
    "DecisionView": _(
        "The evaluation's decision (``decision`` is null until one is recorded). POST "
        "(manager) records it once, with a snapshot of scores, weights and evidence; it can "
        "never be changed."
    ),
    "DecisionReopenView": _(
        "Reopen a decided evaluation (manager) with a reason: a new decision round starts; "
        "the earlier decision stays readable under ``earlier_decisions`` and the reopening is"
        " audited."
    ),
    "HistoryView": _(
        "The audit trail: who changed which answer, candidate, weight, price, offering, token"
        " or decision, when, and the values before and after; newest first (filter: kind)."
    ),
    "PortfolioView": _(
        "The evaluation's portfolio: settings (with their version), workloads and the "
        "proposal computed now. PATCH (procurement) changes settings; send ``version`` from "
        "GET to refuse overwriting settings saved since (409)."
    ),
    "PortfolioDecisionView": _(
        "Record the portfolio as the decision (manager): the proposal, or with ``assignment``"
        " an edited one (a candidate and billing model per workload). The record holds every "
        "assignment, the totals, the single-vendor comparison and the risks; ``/decision/`` "
        "shows it and reopens it."
    ),
    "WorkloadList": _(
        "The evaluation's workloads (GPUs over time, profile, peak, requirements). POST "
        "(procurement) adds one; 409 when the evaluation is decided."
    ),
    "WorkloadDetail": _(
        "One workload. PATCH (procurement) changes the fields given; DELETE removes it."
    ),
}


def view_name(view) -> str:
    """The view's page name in the reader's language (DRF's default for a view not listed)."""
    name = NAMES.get(type(view).__name__)
    return str(name) if name is not None else views.get_view_name(view)


def view_description(view, html: bool = False) -> str:
    """The view's description in the reader's language (DRF's default for a view not listed)."""
    description = DESCRIPTIONS.get(type(view).__name__)
    if description is None:
        return views.get_view_description(view, html)
    text = formatting.dedent(str(description))
    return formatting.markup_description(text) if html else text
