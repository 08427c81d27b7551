"""Tests of the systemd-detect-virt parser: strict one-word detection and the VM verdicts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import registry, virt
from scoring.evidence.base import EvidenceParseError


def test_this_dev_machine_is_a_docker_container(sample: Callable[[str], str]) -> None:
    result = virt.parse(sample("virt/devmachine-systemd-detect-virt-docker.txt"))
    assert result.kind == "virt"
    assert result.metrics == {
        "virt": "docker",
        "scope": "any",
        "virtual": None,
        "container": True,
        "vm_virt": None,
    }
    assert result.facts == ()
    assert result.warnings == (
        "inside a docker container: run `systemd-detect-virt --vm` to see whether the host is a VM",
    )


def test_bare_kvm_word(sample: Callable[[str], str]) -> None:
    # Produced with --vm, but without the command line the parser reads plain semantics.
    result = virt.parse(sample("virt/devmachine-systemd-detect-virt-vm-kvm.txt"))
    assert result.metrics == {
        "virt": "kvm",
        "scope": "any",
        "virtual": True,
        "container": False,
        "vm_virt": "kvm",
    }
    (fact,) = result.facts
    assert (fact.metric, fact.value, fact.unit, fact.line) == ("virtual", 1.0, "bool", 1)


def test_echoed_vm_scope_command(sample: Callable[[str], str]) -> None:
    text = sample("virt/devmachine-echoed-command-kvm.txt")
    assert virt.detect(text) == 95
    result = virt.parse(text)
    assert result.metrics == {
        "virt": "kvm",
        "scope": "vm",
        "virtual": True,
        "container": None,
        "vm_virt": "kvm",
    }
    assert result.facts[0].line == 2


def test_none_means_bare_metal() -> None:
    result = virt.parse("none\n")
    assert result.metrics == {
        "virt": "none",
        "scope": "any",
        "virtual": False,
        "container": False,
        "vm_virt": None,
    }
    assert result.facts[0].value == 0.0


def test_container_scope_none_says_nothing_about_vms() -> None:
    metrics = virt.parse("$ systemd-detect-virt --container\nnone\n").metrics
    assert (metrics["virtual"], metrics["container"]) == (None, False)


def test_prompts_around_the_word_are_ignored() -> None:
    text = "[root@gpu01 ~]# systemd-detect-virt\nmicrosoft\n[root@gpu01 ~]#\n"
    assert virt.detect(text) == 95
    metrics = virt.parse(text).metrics
    assert (metrics["virt"], metrics["virtual"], metrics["container"]) == (
        "microsoft",
        True,
        False,
    )


def test_unknown_word_after_the_command_is_kept_with_a_warning() -> None:
    result = virt.parse("$ systemd-detect-virt\nnewhv\n")
    assert result.metrics["virt"] == "newhv"
    assert result.metrics["virtual"] is None
    assert result.warnings == ("unknown virtualization technology 'newhv'",)


@pytest.mark.parametrize("word", ["hello", "KVM", "yes", "0"])
def test_detection_is_strict_for_lone_words(word: str) -> None:
    assert virt.detect(word + "\n") == 0
    with pytest.raises(EvidenceParseError, match="is not a systemd-detect-virt result") as err:
        virt.parse(word + "\n")
    assert err.value.line == 1


def test_two_words_are_refused_with_the_line() -> None:
    assert virt.detect("kvm\nxen\n") == 0
    with pytest.raises(EvidenceParseError, match="found another line 'xen'") as err:
        virt.parse("kvm\nxen\n")
    assert err.value.line == 2


def test_command_without_result() -> None:
    with pytest.raises(EvidenceParseError, match="command line without its result word"):
        virt.parse("$ systemd-detect-virt\n")


def test_long_text_is_refused_quickly() -> None:
    with pytest.raises(EvidenceParseError, match="too long"):
        virt.parse("kvm\n" * 10_000_000)


def test_echoed_command_then_kvm(sample) -> None:
    m = virt.parse(sample("virt/h100-kvm-vm-no-nvswitch-fabric-stuck-kvm.txt")).metrics
    assert (m["virt"], m["virtual"], m["container"]) == ("kvm", True, False)


@pytest.mark.parametrize(
    ("path", "word"),
    [
        ("virt/systemd-issue28001-debug-log-qemu-hyperv-enlightenments-microsoft.txt", "microsoft"),
        ("virt/systemd-issue28113-debug-log-xen-dom0-vm-other.txt", "vm-other"),
        ("virt/systemd-pr20971-debug-log-xen-pv-nested-in-vmware-prompt.txt", "vmware"),
    ],
)
def test_debug_log_sentences_before_the_word(sample: Callable[[str], str], path, word) -> None:
    # SYSTEMD_LOG_LEVEL=debug: systemd's reasoning precedes the one-word result.
    text = sample(path)
    assert registry.detect_kind(text) == "virt"
    result = virt.parse(text)
    assert result.metrics == {
        "virt": word,
        "scope": "any",
        "virtual": True,
        "container": False,
        "vm_virt": word,
    }


def test_a_sentence_without_the_debug_verdict_is_still_refused() -> None:
    with pytest.raises(EvidenceParseError):
        virt.parse("$ systemd-detect-virt\nVirtualization found, CPUID=KVMKVMKVM\nkvm\n")


def test_two_runs_pasted_together_are_combined(sample) -> None:
    # The plain command and --container, both "none" (inside docker, systemd 245).
    result = virt.parse(
        sample("virt/systemd-issue15393-docker-container-plain-and-container-scope-both-none.txt")
    )
    assert result.metrics == {
        "virt": "none",
        "scope": "any",
        "virtual": False,
        "container": False,
        "vm_virt": None,
    }
    (fact,) = result.facts
    assert (fact.value, fact.line) == (0.0, 3)
    assert any("2 systemd-detect-virt runs combined" in w for w in result.warnings)


def test_vm_scope_then_container_scope_keeps_both_verdicts() -> None:
    text = "$ systemd-detect-virt --vm\nkvm\n$ systemd-detect-virt --container\ndocker\n$\n"
    result = virt.parse(text)
    assert result.metrics == {
        "virt": "docker",
        "scope": "any",
        "virtual": True,
        "container": True,
        "vm_virt": "kvm",
    }
    (fact,) = result.facts
    assert (fact.value, fact.line, fact.details) == (1.0, 2, {"virt": "kvm"})
    # The hypervisor is known, so no advice to run --vm.
    assert not any("--vm" in w for w in result.warnings)


def test_runs_that_contradict_each_other_give_no_verdict() -> None:
    result = virt.parse("# systemd-detect-virt\nkvm\n# systemd-detect-virt\nnone\n")
    assert result.metrics["virtual"] is None
    assert result.facts == ()
    assert any("disagree" in w for w in result.warnings)


def test_one_command_without_a_result_before_another_is_skipped() -> None:
    result = virt.parse("$ systemd-detect-virt --vm\n$ systemd-detect-virt --vm\nmicrosoft\n")
    assert result.metrics == {
        "virt": "microsoft",
        "scope": "vm",
        "virtual": True,
        "container": None,
        "vm_virt": "microsoft",
    }


def _dev_machine_runs(sample: Callable[[str], str], first: str, second: str) -> str:
    """The dev machine's two real outputs (docker in a KVM guest: ``systemd-detect-virt`` and
    ``systemd-detect-virt --vm``) pasted as one file, each under its command line."""
    words = {
        "": sample("virt/devmachine-systemd-detect-virt-docker.txt").strip(),
        " --vm": sample("virt/devmachine-systemd-detect-virt-vm-kvm.txt").strip(),
    }
    return "".join(f"$ systemd-detect-virt{args}\n{words[args]}\n" for args in (first, second))


def test_container_then_vm_scope_names_the_hypervisor_under_it(sample) -> None:
    result = virt.parse(_dev_machine_runs(sample, "", " --vm"))
    assert result.metrics == {
        "virt": "docker",
        "scope": "any",
        "virtual": True,
        "container": True,
        "vm_virt": "kvm",
    }
    (fact,) = result.facts
    assert (fact.value, fact.line, fact.details) == (1.0, 4, {"virt": "kvm"})


def test_plain_runs_saying_docker_then_kvm_keep_the_hypervisor_word() -> None:
    # Two plain runs contradict each other on the container, not on the VM.
    result = virt.parse("$ systemd-detect-virt\ndocker\n$ systemd-detect-virt\nkvm\n")
    assert (result.metrics["virt"], result.metrics["vm_virt"]) == ("docker", "kvm")
    assert (result.metrics["virtual"], result.metrics["container"]) == (True, None)
