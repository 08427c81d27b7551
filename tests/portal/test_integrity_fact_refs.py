"""Every measured figure a stored score reads names its evidence: a clean ibstat (every port
up) and a clean kernel log (of a node that shows its GPU) imported through the service reach
the network and stability contributions with the upload, node and file they were read from."""

from pathlib import Path

import pytest

from portal.models import Score

from .test_import_scale import _import, bundle

pytestmark = pytest.mark.django_db
SAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "evidence" / "samples"


def test_clean_findings_carry_their_evidence_into_the_stored_contributions(candidate):
    files = {
        "ibstat.txt": (SAMPLES / "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt").read_bytes(),
        "dmesg.txt": (
            SAMPLES / "kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt"
        ).read_bytes(),
        # The node shows its GPU: a clean kernel log says "no Xid" only on such a node.
        "nvidia-smi-q.txt": (
            SAMPLES / "nvidia_smi_query/h200-vm-passthrough-driver550-q.txt"
        ).read_bytes(),
    }
    upload = _import(candidate, bundle(files, hostname="n7", started="2026-11-30T08:00:00+00:00"))
    assert upload.status == "done", upload.error
    candidate.refresh_from_db()
    measured = candidate.verification["measured"]
    assert measured["ib_ports_down"] == 0 and measured["xid_errors"] == 0
    refs = measured["evidence_refs"]
    for name, file in (
        ("ib_ports_down", "ibstat.txt"),
        ("ib_rate_gbit_s_min", "ibstat.txt"),
        ("xid_errors", "dmesg.txt"),
    ):
        assert f"upload {upload.pk}" in refs[name] and "n7" in refs[name], (name, refs[name])
        assert file in refs[name]
    lines = [
        c
        for score in Score.objects.filter(candidate=candidate)
        for c in score.contributions
        if any("ib_ports_down" in str(i) for i in c.get("inputs") or ())
    ]
    assert lines, "no stored contribution read the ports down"
    assert all(f"upload {upload.pk}" in str(c) for c in lines), lines
