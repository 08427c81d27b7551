"""The facts a rubric may read: names, bases, evidence references and how each is fetched.

A fact is named "<namespace>.<field>": ``vendor.*`` and ``offering.*`` are the vendor's
claims, ``measured.*`` what the evidence showed (units normalised: NVMe in GB/s),
``answer.<checklist key>`` the verification status of an item, ``derived.*`` values computed
from the others (the TCO ratios, the efficiency of the delivery form at the candidate's scale).
Each fact has a basis: a claimed value is scaled by the rubric's factor for its checklist
item's status; measured, computed and answer values count as they are.

``context``: the bases and statuses, FactContext and FactSource; ``items``: the claim items'
statuses and references (DERIVED_ITEMS, claim_status, claim_ref); ``values``: per-candidate
fact functions; ``columns``: their column forms for a batch (by_key, DERIVED_COLUMNS);
``per_gpu``: the per-GPU figures and traffic flags, per candidate and as columns; ``table``:
FACTS, FACT_NAMES and fact_value.
"""

# scoring.dimensions takes the TCO ratios from here, as it did from the single module.
from ...tco import budget_ratio, effective_price_ratio
from .columns import (
    DERIVED_COLUMNS,
    DERIVED_NOTE_COLUMNS,
    DERIVED_REF_COLUMNS,
    by_key,
    datasheet_refs,
)
from .context import (
    ANSWER,
    CLAIMED,
    COMPUTED,
    CONTRADICTED,
    MEASURED,
    UNANSWERED,
    FactContext,
    FactSource,
)
from .items import (
    CARRIED_REF_ITEMS,
    DERIVED_ITEMS,
    DERIVED_NOTES,
    DERIVED_REFS,
    ITEM_REF_NAMES,
    claim_ref,
    claim_status,
    delivery_form_status,
    fabric_topology_status,
    form_factor_datasheet_status,
    item_ref_names,
    nvlink_datasheet_status,
    nvme_capacity_status,
    review_only_status,
)
from .per_gpu import MEASURABLE_NOTES
from .table import FACT_NAMES, FACTS, fact_value, may_claim

__all__ = [
    "ANSWER",
    "CARRIED_REF_ITEMS",
    "CLAIMED",
    "COMPUTED",
    "CONTRADICTED",
    "DERIVED_COLUMNS",
    "DERIVED_ITEMS",
    "DERIVED_NOTES",
    "DERIVED_NOTE_COLUMNS",
    "DERIVED_REFS",
    "DERIVED_REF_COLUMNS",
    "FACTS",
    "FACT_NAMES",
    "ITEM_REF_NAMES",
    "MEASURABLE_NOTES",
    "MEASURED",
    "UNANSWERED",
    "FactContext",
    "FactSource",
    "budget_ratio",
    "by_key",
    "claim_ref",
    "claim_status",
    "datasheet_refs",
    "delivery_form_status",
    "effective_price_ratio",
    "fabric_topology_status",
    "fact_value",
    "form_factor_datasheet_status",
    "item_ref_names",
    "may_claim",
    "nvlink_datasheet_status",
    "nvme_capacity_status",
    "review_only_status",
]
