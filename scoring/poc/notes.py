"""Why a run's evidence fails it: the failure notes' codes and their English words."""

from __future__ import annotations

from collections.abc import Mapping

# Why a run's evidence fails it, as a stable code with its parts (stored with the coverage;
# pages word it in their reader's language from these) and the English wording of each.
NOTE_DCGM_FAIL = "dcgm_fail"
NOTE_DCGM_SKIP = "dcgm_skip"
NOTE_DCGM_INCOMPLETE = "dcgm_incomplete"
NOTE_NCCL_WRONG = "nccl_wrong"
NOTE_FIO_ERRORS = "fio_errors"
# An nccl-tests run whose device names state another GPU than the offering's (another model,
# memory size or form factor): it proves nothing about this candidate.
NOTE_FOREIGN_GPU = "foreign_gpu"
NOTES_EN = {
    NOTE_DCGM_FAIL: "dcgmi diag reported fail",
    NOTE_DCGM_SKIP: "dcgmi diag reported skip",
    NOTE_DCGM_INCOMPLETE: "dcgmi diag output ends before its result",
    NOTE_NCCL_WRONG: "nccl-tests reported {count} wrong results",
    NOTE_FIO_ERRORS: "fio jobs ended in an error ({jobs})",
    NOTE_FOREIGN_GPU: "ran on {gpu}, not the claimed {claimed}",
}
# A diag whose every hardware test was skipped checked nothing, and one whose output is cut
# before its result says nothing of the tests past the cut: either fails its run but proves
# nothing either way (see PocShortfall.reason "unproven").
DCGM_SKIPPED = NOTES_EN[NOTE_DCGM_SKIP]


NoteArgs = tuple[tuple[str, str], ...]


def note_en(code: str, args: Mapping[str, str] | NoteArgs = ()) -> str:
    """A failure note's English words from its code and parts ("" for no code)."""
    return NOTES_EN[code].format(**dict(args)) if code else ""
