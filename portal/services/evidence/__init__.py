"""Evidence: accept an upload, import it (parse, store measurements, refresh scores), sweep.

``submit``: accept an upload and queue its import; ``storage``: the size limit, quotas, usage
and the cleanup of failed uploads' files; ``nodes``: the node an upload names against its
token's; ``importing``: claim a batch of a candidate's uploads and import it, ``outcome``
working out what each comes to and ``write`` writing them in one transaction;
``queueing``: the import queue (enqueue, sweep, re-import); ``remove``: delete or retract.
"""

from .importing import evidence_import
from .nodes import sent_node_mismatch
from .outcome import (
    BUNDLE_REFUSED,
    MAX_FAILURES_STORED,
    MEASUREMENT_COLUMNS,
    REPORT_KEYS,
    TIME_REFUSED,
    UNIT_SUFFIXES,
)
from .queueing import (
    MAX_IMPORT_ATTEMPTS,
    Reimport,
    evidence_reimport,
    evidence_reimport_all,
    evidence_sweep,
)
from .remove import RetractRefused, evidence_retract, evidence_upload_delete, may_retract
from .storage import (
    DISK_FULL_ERRNOS,
    QuotaExceeded,
    StorageFull,
    UploadTooLarge,
    evidence_failed_cleanup,
    evidence_quota_check,
    evidence_usage,
    storage_full_error,
)
from .submit import evidence_submit

__all__ = [
    "BUNDLE_REFUSED",
    "DISK_FULL_ERRNOS",
    "MAX_FAILURES_STORED",
    "MAX_IMPORT_ATTEMPTS",
    "MEASUREMENT_COLUMNS",
    "REPORT_KEYS",
    "TIME_REFUSED",
    "UNIT_SUFFIXES",
    "QuotaExceeded",
    "Reimport",
    "RetractRefused",
    "StorageFull",
    "UploadTooLarge",
    "evidence_failed_cleanup",
    "evidence_import",
    "evidence_quota_check",
    "evidence_reimport",
    "evidence_reimport_all",
    "evidence_retract",
    "evidence_submit",
    "evidence_sweep",
    "evidence_upload_delete",
    "evidence_usage",
    "may_retract",
    "sent_node_mismatch",
    "storage_full_error",
]
