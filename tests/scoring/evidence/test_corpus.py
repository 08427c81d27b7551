"""The sample corpus as a whole (issue #13, section 1): coverage per kind, leave-one-source-out,
and a stated fuzzing budget per parser.

- Coverage: every kind has at least 3 real outputs, each with a provenance line, from at least
  3 distinct public sources (outputs made on the dev machine are counted as samples, not as a
  source); no kind is exempt. The counts per kind are shown in the README.
- Leave-one-source-out: for each kind and each source, that source's samples are held out and
  must still be recognised as the right kind with their key figure read, while nothing in the
  parsers may name them (no file name, no identifying token such as a host name, UUID or serial
  found only in that source). The parsers have no fixtures of their own; this check keeps it so.
- Fuzzing: truncation, human annotations, CRLF, tabs vs spaces and extra columns applied to the
  real samples, FUZZ_BUDGET examples per parser: each output either parses into JSON-safe
  figures or raises EvidenceParseError of its kind, never anything else.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.evidence import PARSERS, registry
from scoring.evidence.base import EvidenceParseError

SAMPLES = Path(__file__).parent / "samples"
EVIDENCE_DIR = Path(__file__).resolve().parents[3] / "scoring" / "evidence"
KINDS = sorted(PARSERS)

# The figure each kind must produce from every sample that is not an error case (a tuple: at
# least one of them; a write-only fio job has no read figure and the other way round).
KEY_METRIC: dict[str, str | tuple[str, ...]] = {
    "fio": ("read_bw_mbyte_s", "write_bw_mbyte_s"),
    "cpu_info": "logical_cpus",
    "dcgm_diag": "overall",
    "dmi": "products",
    "ibstat": "port_count",
    "kernel_log": "xid_count",
    "lspci": "device_count",
    "nccl_tests": "peak_busbw_gbyte_s",
    "nvbandwidth": "testcase_names",
    "nvidia_smi": "gpu_count",
    "nvidia_smi_list": "mig_count",
    "nvidia_smi_mig": "tables",
    "nvidia_smi_nvlink": "gpu_count",
    "nvidia_smi_query": "product_names",
    "nvidia_smi_topo": "gpu_count",
    "nvidia_smi_xml": "driver_version",
    # A device table, an -t ecc or an -t health output: at least one of them.
    "npu_smi": ("npu_count", "ecc_volatile_uncorrected_total", "worst_health"),
    "perftest": "test_type",
    "rtt": "rtt_avg_ms",
    "virt": "virt",
}

# Stated fuzzing budget: hypothesis examples per parser (each example is one mutated sample).
FUZZ_BUDGET = {kind: 100 for kind in KINDS}
FUZZ_BUDGET.update(
    {"nccl_tests": 200, "perftest": 200, "kernel_log": 200, "rtt": 200, "nvbandwidth": 200}
)

# A PCI address ("0000:1b:00.0", or "0000:1b:00" as nccl-tests lists a device) names a slot
# that every server has, not a source.
_PCI = re.compile(r"^(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-9a-fA-F])?$")


def _provenance() -> list[dict[str, str]]:
    with (SAMPLES / "PROVENANCE.tsv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _source_key(source: str, rows: dict[str, str]) -> str:
    """One name per public source: an issue/PR thread, a repository, the dev machine, a page."""
    if source.startswith("same source as "):
        target = source[len("same source as ") :].split()[0]
        match = next(path for path in rows if path.endswith(target))
        return _source_key(rows[match], rows)
    if source.startswith("produced on the dev machine"):
        return "dev machine"
    thread = re.match(r"https://github\.com/([^/\s]+/[^/\s]+)/(?:issues|pull)/(\d+)", source)
    if thread:
        return f"{thread.group(1)}#{thread.group(2)}"
    repo = re.match(r"^([\w.-]+/[\w.-]+)\s", source + " ")
    if repo and not source.startswith("http"):
        return repo.group(1)
    return re.sub(r"\s*\((?:public GitHub file; )?repository not recorded\)", "", source)


def _samples() -> dict[str, dict[str, list[str]]]:
    """kind -> source -> sample paths."""
    rows = {row["file"]: row["source"] for row in _provenance()}
    by_kind: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path, source in rows.items():
        by_kind[path.split("/")[0]][_source_key(source, rows)].append(path)
    return by_kind


def _notes() -> dict[str, str]:
    return {row["file"]: row["notes"] for row in _provenance()}


CORPUS = _samples()
NOTES = _notes()
MIN_SOURCES = 3


def test_every_sample_file_has_a_provenance_line() -> None:
    listed = {row["file"] for row in _provenance()}
    on_disk = {f"{path.parent.name}/{path.name}" for path in SAMPLES.glob("*/*") if path.is_file()}
    assert on_disk - listed == set()
    assert listed - on_disk == set()


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_has_three_samples_from_distinct_sources(kind: str) -> None:
    sources = CORPUS[kind]
    assert sum(len(paths) for paths in sources.values()) >= MIN_SOURCES
    # Outputs made on the dev machine are real but not public: they do not count as a source.
    public = [source for source in sources if source != "dev machine"]
    assert len(public) >= MIN_SOURCES, sorted(sources)


def _is_error_case(path: str) -> bool:
    return bool(re.search(r"error case", NOTES.get(path, ""), re.IGNORECASE))


_TOKEN = re.compile(r"[A-Za-z0-9_.:@-]{10,}")


@cache
def _tokens_of(path: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall((SAMPLES / path).read_text("utf-8")))


@cache
def _owners() -> dict[str, frozenset[tuple[str, str]]]:
    """Each long token of the corpus -> the (kind, source) pairs whose samples hold it: read
    once for the whole module (each held-out source used to re-read every other sample)."""
    owners: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for kind, sources in CORPUS.items():
        for source, paths in sources.items():
            for path in paths:
                for token in _tokens_of(path):
                    owners[token].add((kind, source))
    return {token: frozenset(found) for token, found in owners.items()}


def _identifying_tokens(kind: str, source: str) -> set[str]:
    """Host names, UUIDs, serials, GUIDs...: long letter+digit tokens found only in the
    samples of ``source`` (of ``kind``), in no other source's nor any other kind's."""
    owners = _owners()
    return {
        token
        for path in CORPUS[kind][source]
        for token in _tokens_of(path)
        if owners[token] == {(kind, source)}
        and re.search(r"[A-Za-z]", token)
        and re.search(r"\d", token)
        and not _PCI.match(token)
    }


_PARSER_SOURCE = "\n".join(path.read_text(encoding="utf-8") for path in EVIDENCE_DIR.rglob("*.py"))
_LOSO = [(kind, source) for kind in KINDS for source in sorted(CORPUS[kind])]


@pytest.mark.parametrize(("kind", "source"), _LOSO, ids=[f"{k}:{s[:40]}" for k, s in _LOSO])
def test_leave_one_source_out(kind: str, source: str) -> None:
    held_out = CORPUS[kind][source]
    # Nothing in the parsers is tuned to the held-out source.
    for token in _identifying_tokens(kind, source):
        assert token not in _PARSER_SOURCE, f"parser code names {token!r} from {source}"
    for path in held_out:
        assert Path(path).name not in _PARSER_SOURCE
    # Detection and the key figure still hold on the held-out samples.
    for path in held_out:
        text = (SAMPLES / path).read_text(encoding="utf-8")
        assert registry.detect_kind(text) == kind, path
        if _is_error_case(path):
            try:
                PARSERS[kind].parse(text)
            except EvidenceParseError as exc:
                assert exc.kind == kind
            continue
        result = PARSERS[kind].parse(text)
        keys = KEY_METRIC[kind]
        keys = (keys,) if isinstance(keys, str) else keys
        assert any(result.metrics[key] is not None for key in keys), path


def _mutate(data: st.DataObject, text: str) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(
            st.sampled_from(["truncate", "annotate", "crlf", "tabs", "spaces", "column"])
        )
        if op == "truncate":
            cut = data.draw(st.integers(0, len(lines)))
            lines = lines[:cut]
            if lines and data.draw(st.booleans()):
                last = lines[-1]
                lines[-1] = last[: data.draw(st.integers(0, len(last)))]
        elif op == "crlf":
            lines = [line + "\r" for line in lines]
        elif lines:
            index = data.draw(st.integers(0, len(lines) - 1))
            line = lines[index]
            if op == "annotate":
                note = data.draw(
                    st.sampled_from(["  # checked", "   <-- low?", " -> was Down", " // ok"])
                )
                lines[index] = line + note
            elif op == "tabs":
                lines[index] = re.sub(r" {2,}", "\t", line)
            elif op == "spaces":
                lines[index] = line.replace("\t", "    ")
            else:
                lines[index] = line + data.draw(
                    st.sampled_from([" 0", " N/A", "  extra", "\t12.5"])
                )
    return "\n".join(lines)


def _fuzz_test(kind: str, check_parse_contract):
    paths = [p for paths in CORPUS[kind].values() for p in paths]
    texts = [(SAMPLES / p).read_text(encoding="utf-8") for p in sorted(paths)]

    @settings(
        max_examples=FUZZ_BUDGET[kind],
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        text = _mutate(data, data.draw(st.sampled_from(texts)))
        check_parse_contract(PARSERS[kind], kind, text)
        assert registry.detect_kind(text) in (*PARSERS, "unknown")

    return run


@pytest.mark.parametrize("kind", KINDS)
def test_fuzz_real_samples_with_human_edits(kind: str, parse_contract) -> None:
    _fuzz_test(kind, parse_contract)()


def test_readme_table_counts_match_the_corpus() -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|.*\| (\d+) / (\d+) \|$", readme, re.MULTILINE)
    shown = {kind: (int(samples), int(sources)) for kind, samples, sources in rows}
    actual = {
        kind: (
            sum(len(paths) for paths in CORPUS[kind].values()),
            len([source for source in CORPUS[kind] if source != "dev machine"]),
        )
        for kind in KINDS
    }
    assert shown == actual


def test_no_sample_is_kept_twice():
    # Batch 9 added three samples the corpus held under other names, and an earlier batch had
    # kept one ibstat paste twice: a copy counts as a second output and a second source.
    import hashlib

    by_digest: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SAMPLES.rglob("*")):
        if path.is_file() and path.name != "PROVENANCE.tsv":
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            by_digest[digest].append(str(path.relative_to(SAMPLES)))
    assert [names for names in by_digest.values() if len(names) > 1] == []
