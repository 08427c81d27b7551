"""Tests of the dmidecode parser: physical servers, VMs, old layout and failed runs."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import dmi
from scoring.evidence.base import EvidenceParseError


def _system(**fields: str) -> str:
    body = "".join(f"\t{key.replace('_', ' ')}: {value}\n" for key, value in fields.items())
    return f"# dmidecode 3.4\nHandle 0x0100, DMI type 1, 27 bytes\nSystem Information\n{body}"


def test_two_physical_gpu_servers_with_comments(sample: Callable[[str], str]) -> None:
    result = dmi.parse(sample("dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt"))
    metrics = result.metrics
    assert metrics["products"] == ["DGXA100 920-23687-2531-001", "PowerEdge T-XE8545"]
    assert metrics["manufacturers"] == ["NVIDIA", "Dell Inc."]
    assert metrics["chassis_types"] == ["Rack Mount Chassis"]
    assert metrics["virtual"] is False
    assert metrics["virtual_signals"] == []
    assert metrics["system_count"] == 2
    assert metrics["dmidecode_version"] == "3.3"
    assert metrics["smbios_version"] == "3.2.0"
    assert result.warnings == ()
    assert [(f.metric, f.value, f.line) for f in result.facts] == [("dmi_virtual", 0.0, 8)]


def test_kvm_guest_under_rhev(sample: Callable[[str], str]) -> None:
    metrics = dmi.parse(sample("dmi/insights-kvm-rhev-dmidecode3.0.txt")).metrics
    assert metrics["products"] == ["RHEV Hypervisor"]
    assert metrics["manufacturers"] == ["Red Hat"]
    assert metrics["bios_vendors"] == ["SeaBIOS"]
    assert metrics["chassis_types"] == ["Other"]
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == [
        "BIOS Vendor 'SeaBIOS' (SeaBIOS firmware (QEMU/KVM))",
        "System Product Name 'RHEV Hypervisor' (Red Hat Virtualization)",
        "Chassis Version 'RHEL 7.2.0 PC (i440FX + PIIX, 1996)' (QEMU/KVM i440FX machine)",
    ]
    assert (metrics["dmidecode_version"], metrics["smbios_version"]) == ("3.0", "2.8")


def test_vmware_guest(sample: Callable[[str], str]) -> None:
    metrics = dmi.parse(sample("dmi/insights-vmware-dmidecode2.12.txt")).metrics
    assert metrics["products"] == ["VMware Virtual Platform"]
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == [
        "System Product Name 'VMware Virtual Platform' (VMware)",
        "System Manufacturer 'VMware, Inc.' (VMware)",
    ]


def test_aws_xen_hvm_guest(sample: Callable[[str], str]) -> None:
    metrics = dmi.parse(sample("dmi/insights-aws-xen-hvm-domu.txt")).metrics
    assert metrics["products"] == ["HVM domU"]
    assert metrics["virtual"] is True
    assert "System Product Name 'HVM domU' (Xen)" in metrics["virtual_signals"]
    assert metrics["dmidecode_version"] == "2.12-dmifs"


def test_old_dmidecode_22_layout_of_a_physical_server(sample: Callable[[str], str]) -> None:
    metrics = dmi.parse(sample("dmi/insights-hp-proliant-old-dmidecode2.2-format.txt")).metrics
    assert metrics["products"] == ["ProLiant BL685c G1"]
    assert metrics["manufacturers"] == ["HP"]
    assert metrics["bios_vendors"] == ["HP"]
    assert metrics["virtual"] is False
    assert metrics["dmidecode_version"] == "2.2"


@pytest.mark.parametrize(
    ("path", "line", "message"),
    [
        ("dmi/insights-no-smbios-fail.txt", 2, "No SMBIOS nor DMI entry point found, sorry."),
        ("dmi/devmachine-container-dmidecode-no-dev-mem.txt", 3, "/dev/mem: No such file"),
    ],
)
def test_failed_dmidecode_runs_are_clear_errors(
    sample: Callable[[str], str], path: str, line: int, message: str
) -> None:
    with pytest.raises(EvidenceParseError) as err:
        dmi.parse(sample(path))
    assert err.value.line == line
    assert message in str(err.value)
    assert "run it as root on the host itself" in str(err.value)


def test_q35_standard_pc() -> None:
    metrics = dmi.parse(
        _system(Manufacturer="QEMU", Product_Name="Standard PC (Q35 + ICH9, 2009)")
    ).metrics
    assert metrics["virtual"] is True
    assert metrics["virtual_signals"] == [
        "System Product Name 'Standard PC (Q35 + ICH9, 2009)' (QEMU/KVM Q35 machine)",
        "System Manufacturer 'QEMU' (QEMU)",
    ]


def test_hyper_v_virtual_machine() -> None:
    metrics = dmi.parse(
        _system(Manufacturer="Microsoft Corporation", Product_Name="Virtual Machine")
    ).metrics
    assert metrics["virtual_signals"] == [
        "System Product Name 'Virtual Machine' (Microsoft Hyper-V)"
    ]


@pytest.mark.parametrize(("product", "virtual"), [("p4d.24xlarge", True), ("i3.metal", False)])
def test_amazon_ec2_metal_is_not_a_vm(product: str, virtual: bool) -> None:
    metrics = dmi.parse(_system(Manufacturer="Amazon EC2", Product_Name=product)).metrics
    assert metrics["virtual"] is virtual


def test_grep_filtered_product_lines() -> None:
    text = (
        "[root@om-center opt]# dmidecode |grep Product\n"
        "\tProduct Name: VMware Virtual Platform\n"
        "\tProduct Name: 440BX Desktop Reference Platform\n"
    )
    result = dmi.parse(text)
    assert result.metrics["products"] == ["VMware Virtual Platform"]
    assert result.metrics["virtual"] is True
    assert "records without their 'Handle' line: the output was filtered" in result.warnings


def test_chassis_only_cannot_tell(sample: Callable[[str], str]) -> None:
    lines = sample("dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt").splitlines()
    result = dmi.parse("\n".join(lines[18:38]))
    assert result.metrics["chassis_types"] == ["Rack Mount Chassis"]
    assert result.metrics["virtual"] is None
    assert result.facts == ()


def test_memory_devices_are_summed() -> None:
    text = (
        "Handle 0x1100, DMI type 17, 84 bytes\nMemory Device\n\tSize: 32 GB\n\n"
        "Handle 0x1101, DMI type 17, 84 bytes\nMemory Device\n\tSize: 32768 MB\n\n"
        "Handle 0x1102, DMI type 17, 84 bytes\nMemory Device\n\tSize: No Module Installed\n"
    )
    result = dmi.parse(text)
    assert result.metrics["memory_total_gib"] == 64.0
    assert ("memory_total_gib", 64.0, "GiB") in [(f.metric, f.value, f.unit) for f in result.facts]


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("dmi/insights-vmware-dmidecode2.12.txt") * 5000  # ~6 MB
    start = time.perf_counter()
    assert dmi.parse(text).metrics["system_count"] == 5000
    assert time.perf_counter() - start < 30


def test_ec2_graviton_type1_record_alone(sample) -> None:
    m = dmi.parse(sample("dmi/aws-graviton-t4g-large-dmidecode-t1.txt")).metrics
    assert (m["products"], m["manufacturers"]) == (["t4g.large"], ["Amazon EC2"])
    assert m["virtual"] is True
    assert m["dmidecode_version"] is None  # no banner: -t1 output pasted from its Handle line


def test_ec2_system_record_cut_after_the_product(sample) -> None:
    result = dmi.parse(sample("dmi/aws-r5-2xlarge-dmidecode-t-system-sysfs-cut.txt"))
    m = result.metrics
    assert (m["products"], m["virtual"]) == (["r5.2xlarge"], True)
    assert (m["dmidecode_version"], m["smbios_version"]) == ("3.3", "2.7")
    assert result.warnings == ("excerpt marker at line 10: the output was cut",)


def test_firmware_placeholders_are_no_product_names(sample) -> None:
    result = dmi.parse(
        sample("dmi/systemd-issue24446-asus-desktop-placeholder-system-product-name-baseboard.txt")
    )
    assert result.metrics["products"] == []
    assert result.metrics["manufacturers"] == []
    assert result.metrics["baseboard_products"] == ["Z170 PRO GAMING"]
    assert result.metrics["system_count"] == 1
    assert any("'System Product Name'" in w and "placeholder" in w for w in result.warnings)


def test_to_be_filled_by_oem_product_is_left_out() -> None:
    text = (
        "Handle 0x0001, DMI type 1, 27 bytes\nSystem Information\n"
        "\tManufacturer: To Be Filled By O.E.M.\n\tProduct Name: Default string\n"
        "\nHandle 0x0002, DMI type 2, 15 bytes\nBase Board Information\n"
        "\tManufacturer: Supermicro\n\tProduct Name: X13DEG-OAD\n"
    )
    result = dmi.parse(text)
    assert (result.metrics["products"], result.metrics["manufacturers"]) == ([], [])
    assert result.metrics["baseboard_products"] == ["X13DEG-OAD"]


def test_markdown_fence_glued_to_the_first_handle(sample) -> None:
    result = dmi.parse(
        sample("dmi/netbox-agent-issue46-supermicro-fattwin-fence-glued-handle-tabs-cut.txt")
    )
    assert result.metrics["products"] == ["SYS-F618R2-RTPT+"]
    assert result.metrics["baseboard_products"] == ["X10DRFR-NT"]
    assert result.metrics["virtual"] is False
