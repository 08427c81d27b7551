"""Tests of the ``nvidia-smi -L`` and ``nvidia-smi mig -lgi/-lci`` parsers on real outputs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import nvidia_smi_list, nvidia_smi_mig, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]


@pytest.mark.parametrize(
    ("path", "gpus", "migs", "profiles", "uuid_format"),
    [
        (
            "nvidia_smi_list/alcf-thetagpu-a100-driver450-legacy-mig-uuids.txt",
            1,
            2,
            ["1c.3g.20gb"],
            "legacy",
        ),
        ("nvidia_smi_list/jasmin-notebooks-2xa100-1g10gb-each.txt", 2, 2, ["1g.10gb"], "mig"),
        (
            "nvidia_smi_list/ru-cloud-docs-2xa100-80gb-2x1g10gb-indented.txt",
            2,
            4,
            ["1g.10gb"],
            "mig",
        ),
        (
            "nvidia_smi_list/gh200-rag-mig-only-in-container.txt",
            0,
            3,
            ["3g.48gb", "2g.24gb", "1g.24gb"],
            "mig",
        ),
    ],
)
def test_list(
    sample: Sample, path: str, gpus: int, migs: int, profiles: list, uuid_format: str
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "nvidia_smi_list"
    metrics = nvidia_smi_list.parse(text).metrics
    assert (metrics["gpu_count"], metrics["mig_count"]) == (gpus, migs)
    assert metrics["mig_profiles"] == profiles
    assert metrics["uuid_format"] == uuid_format


def test_list_uuids_and_parents(sample: Sample) -> None:
    text = sample("nvidia_smi_list/alcf-thetagpu-a100-driver450-legacy-mig-uuids.txt")
    metrics = nvidia_smi_list.parse(text).metrics
    assert metrics["gpu_uuids"] == ["GPU-2fa5cf01-9520-1bc1-995b-cc0c6d9bca7c"]
    assert metrics["gpu_names"] == ["A100-SXM4-40GB"]
    second = metrics["mig_devices"][1]
    assert (second["gpu_index"], second["device"], second["gi"], second["ci"]) == (0, 1, 2, 0)
    ru = nvidia_smi_list.parse(
        sample("nvidia_smi_list/ru-cloud-docs-2xa100-80gb-2x1g10gb-indented.txt")
    )
    assert [m["gpu_index"] for m in ru.metrics["mig_devices"]] == [0, 0, 1, 1]
    assert [g["mig_count"] for g in ru.metrics["gpus"]] == [2, 2]


def test_list_without_mig() -> None:
    text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-950792bf-a01c-3f1a-e122-3473e67f54b2)\n"
    metrics = nvidia_smi_list.parse(text).metrics
    assert (metrics["gpu_count"], metrics["mig_enabled"], metrics["uuid_format"]) == (
        1,
        False,
        None,
    )


def test_nvlink_status_is_not_a_gpu_list(sample: Sample) -> None:
    text = sample("nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt")
    assert nvidia_smi_list.detect(text) == 0
    assert registry.detect_kind(text) == "nvidia_smi_nvlink"


@pytest.mark.parametrize(
    ("path", "gis", "profiles", "placements"),
    [
        ("nvidia_smi_mig/alcf-thetagpu-a100-lgi-2x3g20gb.txt", 2, ["3g.20gb"], [(4, 4), (0, 4)]),
        (
            "nvidia_smi_mig/ceems-a100-40gb-lgi-mixed-profiles.txt",
            3,
            ["1g.5gb", "2g.10gb", "4g.20gb"],
            [(6, 1), (4, 2), (0, 4)],
        ),
        (
            "nvidia_smi_mig/kr-blog-a100-lgi-doubled-pipes.txt",
            3,
            ["1g.5gb", "2g.10gb", "4g.20gb"],
            [(6, 1), (4, 2), (0, 4)],
        ),
        (
            "nvidia_smi_mig/a30-notes-lgi-blank-lines-between.txt",
            4,
            ["1g.6gb"],
            [(0, 1), (1, 1), (2, 1), (3, 1)],
        ),
    ],
)
def test_gpu_instances(
    sample: Sample, path: str, gis: int, profiles: list, placements: list
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "nvidia_smi_mig"
    metrics = nvidia_smi_mig.parse(text).metrics
    assert metrics["gpu_instance_count"] == gis
    assert metrics["gpu_instance_profiles"] == profiles
    assert [
        (g["placement_start"], g["placement_size"]) for g in metrics["gpu_instances"]
    ] == placements


def test_compute_instances(sample: Sample) -> None:
    metrics = nvidia_smi_mig.parse(
        sample("nvidia_smi_mig/alcf-thetagpu-a100-lci-2x1c3g20gb.txt")
    ).metrics
    assert metrics["compute_instance_count"] == 2
    assert [
        (c["gpu_instance_id"], c["profile"], c["instance_id"]) for c in metrics["compute_instances"]
    ] == [
        (1, "1c.3g.20gb", 0),
        (2, "1c.3g.20gb", 0),
    ]


def test_profile_listing() -> None:
    # nvidia-smi mig -lgip rows as the R470+ drivers print them (A100 40GB first two profiles).
    text = (
        "+-----------------------------------------------------------------------------+\n"
        "| GPU instance profiles:                                                      |\n"
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |\n"
        "|                              Free/Total   GiB              CE    JPEG  OFA  |\n"
        "|=============================================================================|\n"
        "|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |\n"
        "|                                                             1     0     0   |\n"
        "+-----------------------------------------------------------------------------+\n"
        "|   0  MIG 7g.40gb        0     1/1        39.25      No     98     5     0   |\n"
        "|                                                             7     1     1   |\n"
        "+-----------------------------------------------------------------------------+\n"
    )
    metrics = nvidia_smi_mig.parse(text).metrics
    assert [
        (p["profile"], p["profile_id"], p["free"], p["total"], p["memory_gib"])
        for p in metrics["profiles"]
    ] == [
        ("1g.5gb", 19, 7, 7, 4.75),
        ("7g.40gb", 0, 1, 1, 39.25),
    ]


def test_no_mig_device_is_a_valid_empty_result() -> None:
    result = nvidia_smi_mig.parse("No MIG-enabled devices found.\n")
    assert result.metrics["mig_enabled"] is False
    assert result.metrics["gpu_instance_count"] == 0


def test_foreign_text_is_refused() -> None:
    with pytest.raises(EvidenceParseError):
        nvidia_smi_mig.parse("hello\n")
    with pytest.raises(EvidenceParseError):
        nvidia_smi_list.parse("hello\n")


def test_seven_1g12gb_devices_on_an_h100_nvl(sample: Callable[[str], str]) -> None:
    text = sample("nvidia_smi_list/h100nvl-vm-mig-L-7x1g12gb.txt")
    assert registry.detect_kind(text) == "nvidia_smi_list"
    m = nvidia_smi_list.parse(text).metrics
    assert (m["gpu_count"], m["mig_count"], m["mig_profiles"]) == (1, 7, ["1g.12gb"])
    assert m["gpu_names"] == ["NVIDIA H100 NVL"]
    assert m["mig_devices"][6]["uuid"] == "MIG-7a52b067-66ca-54eb-b2da-4bf4d9673bb7"


def test_lgip_with_a_media_extension_profile(sample: Callable[[str], str]) -> None:
    m = nvidia_smi_mig.parse(sample("nvidia_smi_mig/h100nvl-vm-mig-lgip-me-profiles.txt")).metrics
    assert m["tables"] == ["lgip"]
    assert m["profile_count"] == 7
    names = [p["profile"] for p in m["profiles"]]
    assert names == ["1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"]
    me = m["profiles"][1]
    assert (me["profile_id"], me["free"], me["total"], me["memory_gib"]) == (20, 1, 1, 10.62)
    assert m["profiles"][-1]["sm"] == 132


def test_lgip_blackwell_profiles_with_media_and_graphics_suffixes(sample):
    b200 = nvidia_smi_mig.parse(sample("nvidia_smi_mig/b200-lgip-1g23gb-me-1g45gb-2g45gb-cut.txt"))
    assert [(p["profile"], p["profile_id"], p["total"]) for p in b200.metrics["profiles"]] == [
        ("1g.23gb", 19, 7),
        ("1g.23gb+me", 20, 1),
        ("1g.45gb", 15, 4),
        ("2g.45gb", 14, 3),
    ]
    wide = nvidia_smi_mig.parse(
        sample("nvidia_smi_mig/rtxpro6000-blackwell-lgip-wide-gfx-me-cut.txt")
    )
    profiles = {p["profile"]: p for p in wide.metrics["profiles"]}
    assert profiles["1g.24gb+gfx"]["profile_id"] == 47
    assert profiles["1g.24gb"]["memory_gib"] == 23.12
    assert profiles["1g.24gb"]["sm"] == 46


def test_list_quoted_in_markdown(sample) -> None:
    text = sample("nvidia_smi_list/hpc-docs-8xh100-markdown-quoted-fence.txt")
    assert registry.detect_kind(text) == "nvidia_smi_list"
    m = nvidia_smi_list.parse(text).metrics
    assert m["gpu_count"] == 8
    assert m["gpu_names"] == ["NVIDIA H100 80GB HBM3"] * 8
    assert m["gpu_uuids"][0] == "GPU-e5f404f3-cc2a-cf0c-219f-dcf1a4e223f2"


def test_two_nodes_lists_in_one_file_are_flagged(sample) -> None:
    result = nvidia_smi_list.parse(
        sample("nvidia_smi_list/slurm-2node-8xh100-each-concatenated-indented.txt")
    )
    assert result.metrics["gpu_count"] == 16
    assert len(set(result.metrics["gpu_uuids"])) == 16
    assert result.warnings == (
        "GPU index 0 is listed 2 times with different UUIDs: the lists of several nodes in "
        "one file; gpu_count counts them all",
    )


def test_a_mig_device_listed_by_two_containers_is_counted_once() -> None:
    line = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3a)\n"
    mig = "  MIG 3g.40gb     Device  0: (UUID: MIG-1b3b7ab3-5d3c-5b7e-a8a6-b7a4d5e8f3c2)\n"
    result = nvidia_smi_list.parse((line + mig) * 2)
    assert (result.metrics["gpu_count"], result.metrics["mig_count"]) == (1, 1)
    assert result.metrics["gpus"][0]["mig_count"] == 1
    assert len(result.warnings) == 2


_LGIP_ROWS = (
    "|   0  MIG 1g.10gb       19     7/7        9.50       No     14     0     0   |\n"
    "|                                                             1     0     0   |\n"
    "+-----------------------------------------------------------------------------+\n"
    "|   0  MIG 2g.20gb       14     3/3        19.50      No     28     1     0   |\n"
    "|                                                             2     0     0   |\n"
)


def test_profile_rows_pasted_without_their_heading_are_read_by_their_shape() -> None:
    assert registry.detect_kind(_LGIP_ROWS) == "nvidia_smi_mig"
    result = nvidia_smi_mig.parse(_LGIP_ROWS)
    assert result.metrics["tables"] == ["lgip"]
    assert [(p["profile"], p["memory_gib"]) for p in result.metrics["profiles"]] == [
        ("1g.10gb", 9.5),
        ("2g.20gb", 19.5),
    ]
    assert result.warnings[0].startswith("line 1: rows without their table heading")


def test_instance_rows_without_their_heading_are_not_read_as_profiles() -> None:
    rows = (
        "|   0  MIG 3g.40gb          9        1          0:4     |\n"
        "|   0  MIG 3g.40gb          9        2          4:4     |\n"
    )
    metrics = nvidia_smi_mig.parse(rows).metrics
    assert (metrics["tables"], metrics["gpu_instance_count"], metrics["profile_count"]) == (
        ["lgi"],
        2,
        0,
    )


def test_one_row_alone_is_too_little_to_name_the_kind() -> None:
    assert nvidia_smi_mig.detect(_LGIP_ROWS.splitlines()[0]) == 0
