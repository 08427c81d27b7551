"""The checks every real-output batch runs on its data: figures read, outputs refused, other tools.

A batch file declares its samples and what was read from each by hand, and binds the tests here
to module names, e.g. ``test_real_output_figures = figures_test(EXPECTED)``: pytest collects a
module attribute by its name, so each batch keeps its own test names and ids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from scoring.evidence import PARSERS, registry
from scoring.evidence.base import UNKNOWN, EvidenceParseError, unquote_text

Sample = Callable[[str], str]

# (sample path, kind, {metric: value read by hand}): the metrics must hold exactly these values.
Figures = tuple[str, str, dict[str, Any]]
# (sample path, kind, error code, line or None): a real output with no figure to read.
Refusal = tuple[str, str, str, int | None]


@dataclass(frozen=True)
class OtherTool:
    """A real output of a tool that is no evidence kind: read as no kind, refused by ``code``.

    ``tool`` and ``vendor`` are another vendor's accelerator tool the refusal names (rocm-smi,
    AMD); ``named_as`` are kinds a collector's command could name the file as: the refusal is
    the same when the file comes with that kind.
    """

    path: str
    code: str
    tool: str | None = None
    vendor: str | None = None
    named_as: tuple[str, ...] = ()


def read_figures(text: str, kind: str) -> list[dict[str, Any]]:
    """The metrics of ``text`` as an upload reads them (the registry: a markdown quote removed,
    figures range-checked) and, when the text is not quoted, as its kind's parser reads it."""
    readings = [registry.parse_text(text, kind).metrics]
    if unquote_text(text) == text:
        readings.append(PARSERS[kind].parse(text).metrics)
    return readings


def figures_test(expected: Sequence[Figures]) -> Callable[..., None]:
    """A test, one case per sample: detected as its kind, and its metrics hold the figures."""

    @pytest.mark.parametrize(("path", "kind", "figures"), expected, ids=[e[0] for e in expected])
    def test(sample: Sample, path: str, kind: str, figures: dict[str, Any]) -> None:
        text = sample(path)
        assert registry.detect_kind(text) == kind
        for metrics in read_figures(text, kind):
            assert {key: metrics[key] for key in figures} == figures

    return test


def refused_test(refused: Sequence[Refusal]) -> Callable[..., None]:
    """A test, one case per sample: detected as its kind, then refused by its parser and by the
    registry with the error's code and line."""

    @pytest.mark.parametrize(("path", "kind", "code", "line"), refused, ids=[r[0] for r in refused])
    def test(sample: Sample, path: str, kind: str, code: str, line: int | None) -> None:
        text = sample(path)
        assert registry.detect_kind(text) == kind
        for parse in (PARSERS[kind].parse, lambda t: registry.parse_text(t, kind)):
            with pytest.raises(EvidenceParseError) as caught:
                parse(text)
            assert (caught.value.kind, caught.value.code, caught.value.line) == (kind, code, line)

    return test


def other_tools_test(others: Sequence[OtherTool]) -> Callable[..., None]:
    """A test, one case per sample: no kind claims it, and reading it fails with its code, naming
    the other vendor's tool when it is one (detected, or named as one of ``named_as``)."""

    @pytest.mark.parametrize("other", others, ids=[o.path for o in others])
    def test(sample: Sample, other: OtherTool) -> None:
        # A look-alike (another vendor's SMI, another benchmark's table, a wrapper's log) is read
        # as no kind at all: no figure of it may reach a score.
        text = sample(other.path)
        assert registry.detect_kind(text) == UNKNOWN
        for kind in (None, *other.named_as):
            with pytest.raises(EvidenceParseError) as caught:
                registry.parse_text(text, kind)
            assert caught.value.code == other.code
            assert caught.value.params.get("tool") == other.tool
            if other.vendor is not None:
                assert caught.value.params == {"tool": other.tool, "vendor": other.vendor}
                assert str(caught.value).startswith(
                    f"{other.tool} output: {other.vendor} accelerators' tool"
                )

    return test
