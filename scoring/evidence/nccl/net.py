"""The network transports NCCL's own INFO/WARN lines name (InfiniBand, EFA, TCPX...)."""

from __future__ import annotations

import re

from .formats import _LAUNCHER_TAG

# Network transports named by NCCL_DEBUG=INFO lines ("NCCL INFO Using network ...",
# "NET/Plugin ...", "NET/OFI Selected Provider is efa"); the first three exist only in one
# cloud's virtual machines, libfabric/OFI also runs on bare-metal HPC (e.g. Slingshot).
# "NET/IB : No device found" is NCCL saying IB is absent, not that it is used.
_NET_PATTERNS = (
    (re.compile(r"TCPXO|FasTrak", re.IGNORECASE), "GCP GPUDirect-TCPXO"),
    (re.compile(r"GPUDirectTCPX|gpudirect-?tcpx\b", re.IGNORECASE), "GCP GPUDirect-TCPX"),
    (re.compile(r"provider\s+(?:is\s+)?efa\b|\befa-direct\b", re.IGNORECASE), "AWS EFA"),
    (re.compile(r"NET/OFI|aws-ofi-nccl|AWS Libfabric|Libfabric", re.IGNORECASE), "libfabric (OFI)"),
    (re.compile(r"Using network IB\b|NET/IB\b(?!\s*:\s*No device)"), "InfiniBand"),
    (re.compile(r"Using network Socket\b|NET/Socket\b"), "Socket"),
)
# Lower-case words one of which a text must contain for the label's pattern to match at all.
_NET_GATES = {
    "GCP GPUDirect-TCPXO": ("tcpxo", "fastrak"),
    "GCP GPUDirect-TCPX": ("tcpx",),
    "AWS EFA": ("efa",),
    "libfabric (OFI)": ("net/ofi", "aws-ofi-nccl", "libfabric"),
    "InfiniBand": ("net/ib", "network ib"),
    "Socket": ("net/socket", "network socket"),
}
# A line NCCL itself printed (src/debug.cc): "[<timestamp>] <host>:<pid>:<tid> [<cudaDev>]
# NCCL INFO <msg>", WARN lines with "<file>:<line> [(<func>)]" before "NCCL WARN". The
# timestamp (NCCL_DEBUG_TIMESTAMP_FORMAT, on WARN by default since 2.26), the host part and
# the device are optional because pasted logs often lose them; an mpirun --tag-output or
# srun --label prefix may come first. Prose that merely names a transport ("grep -c
# 'NET/Socket'", "look for NET/IB") has none of this shape and names nothing.
_NCCL_LOG_LINE_RE = re.compile(
    rf"\s*{_LAUNCHER_TAG}?(?:\[\d+,\d+\]<std(?:out|err)>:|\d+: )?"
    r"(?:\[[^\]\n]*\]\s?)?"
    r"(?:[^\s:\[]+:\d+:\d+ )?"
    r"(?:\[-?\d+\] )?"
    r"(?:[^\s:]+:\d+ (?:\([^)\n]*\) )?)?"
    r"NCCL (?:INFO|WARN) "
)


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


def _net_plugins(text: str) -> list[str]:
    """Transports named by NCCL's own INFO/WARN lines in ``text`` (one line or a whole log),
    in ``_NET_PATTERNS`` order; a match outside such a line does not count."""
    found: list[str] = []
    lowered = text.lower()
    if "net" not in lowered and "efa" not in lowered:
        return found
    for pattern, label in _NET_PATTERNS:
        # A substring test is ~30x cheaper than a case-insensitive regex scan of a big log.
        if not any(word in lowered for word in _NET_GATES[label]):
            continue
        line_end = -1  # a line is looked at once, not once per match in it (quadratic)
        for match in pattern.finditer(text):
            if match.start() < line_end:
                continue
            end = text.find("\n", match.start())
            line_end = len(text) if end < 0 else end
            if _NCCL_LOG_LINE_RE.match(_line_at(text, match.start())):
                found.append(label)
                break
    return found
