"""The kind's name and nccl-tests' line formats: the compiled patterns and column names."""

from __future__ import annotations

import re

KIND = "nccl_tests"

_COLLECTIVE_RE = re.compile(
    r"(?<![A-Za-z0-9_])(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|"
    r"sendrecv|gather|scatter|hypercube)_perf"
)
_TESTS_VERSION_RE = re.compile(
    r"nccl-tests version (\S+)(?:\s+\([^()\s]{1,64}\))?(?:\s+nccl-headers=(\d+))?"
    r"(?:\s+nccl-library=(\d{1,9}))?"
)
_NCCL_VERSION_RE = re.compile(r"\bNCCL version (\d+\.\d+(?:\.\d+)?)")
_COMPILED_WITH_RE = re.compile(r"compiled with NCCL (\d+\.\d+(?:\.\d+)?)")
# "nThread 1 nGpus 8 minBytes ..."; some builds print "nGpus(perProc) 1 minBytes ..." instead.
_PARAMS_RE = re.compile(
    r"\b(?:nThread\s+(\d{1,9})\s+nGpus|nGpus\(perProc\)(?=\s+\d{1,9}\s+minBytes\b))"
    r"\s+(\d{1,9})"
)
# A device-list entry up to its PCI bus. The bracket holds no other bracket: "Rank 0 on h device
# 0 [" repeated with no "]" would otherwise be scanned to the end from each "Rank" (quadratic).
_DEVICE_ENTRY = (
    r"\bRank\s+(\d{1,9})\s+(?:Group\s+\d+\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+"
    r"\[([^\][]*)\]"
)
_DEVICE_ENTRY_RE = re.compile(_DEVICE_ENTRY)
_DEVICE_RE = re.compile(_DEVICE_ENTRY + r"\s*(.*)$")
# The PCI bus of a device-list entry: "0x18" (bus only) or "0002:00:01" (domain:bus:device).
_DEVICE_BUS_RE = re.compile(
    r"^\s*(?:0x([0-9A-Fa-f]{1,2})|[0-9A-Fa-f]{4,8}:([0-9A-Fa-f]{2}):[0-9A-Fa-f]{2}(?:\.[0-7])?)\s*$"
)
_NRANKS_RE = re.compile(r"\bnranks (\d{1,9})\b")
_OOB_RE = re.compile(r"Out of bounds values\s*:\s*(\d{1,15})\s*(OK|FAILED)?", re.IGNORECASE)
_AVG_RE = re.compile(r"Avg bus bandwidth\s*:\s*(\S+)", re.IGNORECASE)
_FAILURE_RE = re.compile(r"\b(?:Test (?:NCCL |CUDA )?failure|NCCL failure|CUDA failure)\b")
# nccl-tests' own failure report names the test source file and line it checked at
# ("<host>: Test NCCL failure <file>.cu:<line> '<reason>'", " .. <host> pid <n>: Test failure
# <file>.cu:<line>"): a log that kept nothing else (every rank failed at init) is still nccl-tests.
_TESTS_FAILURE_RE = re.compile(r"\b(?:Test (?:NCCL |CUDA )?failure|NCCL failure) \w+\.cu:\d+")
# An NCCL WARN line reporting an error (src/debug.cc prints "... NCCL WARN <msg>"): what a run
# that stopped before its first row said about why, when it printed no "Test ... failure".
_WARN_ERROR_RE = re.compile(
    r"NCCL WARN .*(?:failure|failed|error|[Tt]imeout|[Aa]bort|[Cc]onnection (?:closed|refused))"
)
# What a launcher puts before each line it relays: Ray (and so SkyPilot) names the task
# "(head, rank=0, pid=3808) ", kubectl logs --prefix the pod "[pod/<name>/<container>] ";
# either may come before mpirun's --tag-output "[1,0]<stdout>:" or srun --label's "0: ".
_LAUNCHER_TAG = (
    r"(?:\((?:[\w.-]+,? )?[\w.-]+=[^,()\s]*(?:, [\w.-]+=[^,()\s]*)*\) |\[pod/[^\]\s]+\] )"
)
# MPICH / Intel MPI (Hydra) "-prepend-rank" and "-l" put "[<rank>]" before each piece of
# output they relay, so the same tag also appears inside a line, where one printf ended.
_HYDRA_TAG = r"\[\d{1,6}\](?= |$)"
_RANK_TAG = rf"(?:\[\d+,\d+\]<std(?:out|err)>:|\s*\d+: |{_HYDRA_TAG})"
# A log pasted indented (a list item, a YAML block) keeps the blanks before the tag.
# Without a launcher tag, srun's "0: " takes any blanks before it in its own "\s*": a "[ \t]*"
# before that "\s*" split a long run of blanks in every way (quadratic).
_MPI_TAG_RE = re.compile(
    rf"^(?:[ \t]*{_LAUNCHER_TAG}{_RANK_TAG}?"
    rf"|[ \t]*\[\d+,\d+\]<std(?:out|err)>:|\s*\d+: |[ \t]*{_HYDRA_TAG})"
)
_HYDRA_HEAD = r"(?:[ \t]*\[\d{1,6}\](?= ))?"
# One result row: "<size> <count> <type> <redop> <root> <time> ...", with nccl-tests' type and
# reduction names (the redop is blank in old alltoall tables); a Hydra tag may follow the root,
# where nccl-tests' first printf of the row ends. Pre-2020 tables have no root column: there the
# time ("163.7", or "17016" in %g) comes straight after the type or redop, then algbw and busbw
# with their two decimals.
_ROW_SHAPE_RE = re.compile(
    rf"(?m)^{_HYDRA_HEAD}[ \t]*\d{{1,15}}[ \t]+\d{{1,15}}[ \t]+"
    r"(?:u?int(?:8|32|64)|int|char|f8e4m3|f8e5m2|fp8|float(?:8|16|32|64)?|half|bfloat16|bf16|double)"
    r"[ \t]+(?:(?:sum|prod|max|min|avg|none|mulsum|premulsum)[ \t]+)?"
    r"(?:-?\d{1,9}(?:\[\d{1,6}\])?[ \t]+\d"
    r"|\d{1,9}(?:\.\d{1,4})?[ \t]+\d{1,9}\.\d\d[ \t]+\d{1,9}\.\d\d(?![\d.]))"
)
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)

_HEADER_ALIASES = {"bytes": "size", "n": "count", "op": "redop", "res": "error", "#wrong": "wrong"}
_WRONG_COLUMNS = ("wrong", "error")
_DEFAULT_PREFIXES = {
    13: ["size", "count", "type", "redop", "root"],
    12: ["size", "count", "type", "redop"],
    11: ["size", "count", "type"],
}
_SCAN_BYTES = 65536
_NOT_AVAILABLE = frozenset({"N/A", "n/a", "N/a", "n/A"})
