"""A DCGM pass counts by how deep the run went (GPU expert review F4, stop 30).

``dcgmi diag -r 1`` checks the software deployment and ``-r 2`` adds PCIe and a short memory
test; neither loads the GPUs. Yet a -r 1 pass earned the stability rule's full 12 points,
while a candidate that also uploaded a -r 3 run with a warning (the worst output decides)
fell to 6: the shallow run outscored the deeper one. Rubric v2 now scores a pass from quick
runs only as "pass_short" (4 points), read from the tests each output lists, so a run whose
stress tests were all skipped stressed nothing whatever its -r said.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts, ScoringInputError
from scoring.verification.health import dcgm_stress_tested

try:
    from scoring_factories import candidate, evaluation
    from test_verification_fact_refs import facts_of, parsed
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation
    from .test_verification_fact_refs import facts_of, parsed

V1, V2 = load_rubric("1"), load_rubric("2")
RULE = "stability.measured.dcgm_overall"
# Real outputs (tests/scoring/evidence/samples/PROVENANCE.tsv).
R2_PASS = "dcgm_diag/aws-p4de-dcgm3.3.3-r2-8x-20b2-all-pass-nvlinks-expected-param.txt"
SOFTWARE_ONLY_PASS = "dcgm_diag/dcgm-3.1.0-json-8gpu-pass-nulls-warning-line.txt"
R3_PASS = (
    "dcgm_diag/ramble-gcp-8xh200-2335-dcgm3.3.9-driver570-all-pass-eud-skip-hash-commented.txt"
)
R4_PASS = "dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt"
EUD_ONLY_PASS = "dcgm_diag/blog-h200-dcgm3.3.9-r-eud-no-headings.txt"
R3_ALL_SKIPPED = "dcgm_diag/slurm-on-aws-dcgm3.3.9-r3-2x-2bb5-two-tables-all-skip.txt"
R3_FAIL = "dcgm_diag/dcgm-3.3.9-r3-aws-4xa10g-targeted-power-fail-gpu1-info-rows.txt"


@pytest.mark.parametrize(
    ("sample", "stressed"),
    [
        (R2_PASS, False),
        (SOFTWARE_ONLY_PASS, False),
        (R3_PASS, True),
        (R4_PASS, True),
        (EUD_ONLY_PASS, True),  # -r eud: one plugin, no category headings
        (R3_ALL_SKIPPED, False),  # -r 3, every stress test skipped
        (R3_FAIL, True),
    ],
)
def test_the_depth_is_read_from_the_tests_each_output_lists(sample, stressed):
    assert dcgm_stress_tested(parsed(sample).metrics) is stressed


def test_an_output_listing_no_tests_has_no_known_depth():
    assert dcgm_stress_tested({"overall": "pass", "tests": []}) is None
    assert dcgm_stress_tested({"overall": "pass"}) is None


def _points(measured: MeasuredFacts, rubric=V2) -> float:
    result = score_candidate(candidate(measured=measured), evaluation(), rubric)
    rows = {c.rule_id: c for d in result.dimensions for c in d.contributions}
    return rows[RULE].points


def test_quick_runs_score_below_a_stress_test_and_its_warning():
    quick = facts_of([parsed(R2_PASS)])
    deep = facts_of([parsed(R3_PASS)])
    assert (quick.dcgm_overall, quick.dcgm_stress_tested) == ("pass", False)
    assert (deep.dcgm_overall, deep.dcgm_stress_tested) == ("pass", True)
    assert quick.ref("dcgm_stress_tested") == quick.ref("dcgm_overall")
    assert _points(quick) == 4
    assert _points(deep) == 12
    # A stress test's warning, beside the quick pass: the deeper run never scores lower.
    warned = replace(deep, dcgm_overall="warn")
    assert _points(warned) == 6 > _points(quick)
    # Nothing uploaded scores below a quick pass: measuring never hurts.
    assert _points(MeasuredFacts()) == 0 < _points(quick)


def test_the_deepest_output_settles_a_pass_and_is_cited():
    both = facts_of([parsed(R2_PASS, "gpu-01", 3), parsed(R3_PASS, "gpu-02", 4)])
    assert (both.dcgm_overall, both.dcgm_stress_tested) == ("pass", True)
    assert "gpu-02" in both.ref("dcgm_stress_tested")
    assert _points(both) == 12
    # The worst output still decides the result: a failure anywhere is a failure.
    failing = facts_of([parsed(R3_PASS, "gpu-01", 3), parsed(R3_FAIL, "gpu-02", 4)])
    assert failing.dcgm_overall == "fail"
    assert _points(failing) == 0


def test_a_pass_of_unknown_depth_counts_in_full_and_rubric_v1_is_unchanged():
    unknown = MeasuredFacts(dcgm_overall="pass")
    assert _points(unknown) == 12
    quick = MeasuredFacts(dcgm_overall="pass", dcgm_stress_tested=False)
    assert _points(quick, V1) == _points(unknown, V1)


def test_the_depth_must_be_a_boolean():
    with pytest.raises(ScoringInputError, match="dcgm_stress_tested"):
        MeasuredFacts(dcgm_overall="pass", dcgm_stress_tested="no")
