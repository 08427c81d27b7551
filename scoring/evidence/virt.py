"""Parser for ``systemd-detect-virt`` output: one word naming the VM or container technology.

Detection is deliberately strict, because a one-word file is easy to mistake: the file must be
a single known word (``kvm``, ``none``...), or a command line naming ``systemd-detect-virt``
followed by one word.

Metrics (``ParseResult.metrics``):

- ``virt`` (str): the word printed, e.g. "kvm", "none", "docker".
- ``scope``: "any", "vm" (``--vm``/``-v``) or "container" (``--container``/``-c``), read from the
  echoed command line; "any" when there is none.
- ``virtual`` (bool|None): a virtual machine is detected. True for a VM word; False for "none"
  (scope any or vm); None when the word is a container, because systemd reports the container
  first and hides whether its host is a VM (run ``systemd-detect-virt --vm`` there), or when
  the scope was container.
- ``container`` (bool|None): True for a container word; False for "none" (scope any or
  container) or a VM word in scope any; None in scope vm.
- ``vm_virt`` (str|None): the hypervisor word ("kvm", "vmware"...) of the run that found a VM,
  when ``virtual`` is True; None otherwise. With a container it names the VM under it (a
  ``--vm`` run), which ``virt`` does not show.

Several runs pasted together (``--vm`` then ``--container``, or the plain command then
``--container``) are combined: ``virtual`` and ``container`` each take the verdict the runs
agree on (None, with a warning, when they contradict each other); ``virt`` shows the container
word when a container is reported, else the hypervisor word, else the last word; ``scope`` is
"any" when the runs cover both scopes.

A run with ``SYSTEMD_LOG_LEVEL=debug`` prints systemd's log sentences ("Found VM virtualization
kvm", "Virtualization found, CPUID=...") before the word: they are skipped.

Facts: ``virtual`` (1.0/0.0, unit "bool") when known.
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "virt"

# From the systemd-detect-virt manual (systemd 252-256).
VM_TECHNOLOGIES = frozenset(
    {
        "qemu",
        "kvm",
        "amazon",
        "zvm",
        "vmware",
        "microsoft",
        "oracle",
        "powervm",
        "xen",
        "bochs",
        "uml",
        "parallels",
        "bhyve",
        "qnx",
        "acrn",
        "apple",
        "sre",
        "google",
        "vm-other",
    }
)
CONTAINER_TECHNOLOGIES = frozenset(
    {
        "openvz",
        "lxc",
        "lxc-libvirt",
        "systemd-nspawn",
        "docker",
        "podman",
        "rkt",
        "wsl",
        "proot",
        "pouch",
        "container-other",
    }
)
_KNOWN = VM_TECHNOLOGIES | CONTAINER_TECHNOLOGIES | {"none"}

_COMMAND_RE = re.compile(r"(?:^|[\s$#>/])systemd-detect-virt\b(?P<args>[^|;&]*)")
_WORD_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
# A bare prompt left at the end of a paste ("$", "[root@h ~]#").
_PROMPT_RE = re.compile(r"^(?:\S*[$#>%]|\[[^\]]*\][$#])$")
_MAX_LINES = 50


_QUOTE_RE = re.compile(r"^(?:>\s?)+")
# Another command typed after the result ("# dmidecode -s ...", "$ cat ..."): the paste goes on
# with something else, so reading stops there.
_OTHER_COMMAND_RE = re.compile(r"^(?:\[[^\]]*\]\s*)?[$#%]\s+\S")
_VERSION_RE = re.compile(r"^systemd\s+(\d{2,4})\b")
# systemd's debug log (SYSTEMD_LOG_LEVEL=debug, on stderr) ends its reasoning with this sentence;
# when it is there, every line with a space (but the command line) is a log sentence.
_FOUND_RE = re.compile(r"^Found (VM|container) virtualization ([a-z][a-z0-9-]*)\.?$")


def _lines(text: str) -> list[tuple[int, str]]:
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = _QUOTE_RE.sub("", raw.strip()).strip()  # markdown "> " quoting
        if line:
            lines.append((n, line))
    return lines


def _scope(args: str) -> str:
    tokens = args.split()
    if any(t in {"--vm", "-v"} for t in tokens):
        return "vm"
    if any(t in {"--container", "-c"} for t in tokens):
        return "container"
    return "any"


def _drop_debug_log(lines: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], bool]:
    """The lines without systemd's debug sentences, and whether there were any."""
    if not any(_FOUND_RE.match(line) for _, line in lines):
        return lines, False
    return [(n, s) for n, s in lines if " " not in s or _COMMAND_RE.search(s)], True


def _read(text: str) -> tuple[list[tuple[str, int, str]], bool, bool]:
    """Return ([(word, line, scope)...], command_seen, debug_log) or raise EvidenceParseError.

    One result per ``systemd-detect-virt`` command pasted (``--vm`` then ``--container`` is a
    common pair), or the one word of a file without a command line.
    """
    if len(text) > 4096:
        raise EvidenceParseError(
            "too long for systemd-detect-virt output (it prints one word)",
            kind=KIND,
            code="virt.too_long",
        )
    lines = [(n, s) for n, s in _lines(text) if not _PROMPT_RE.match(s)]
    lines, debug_log = _drop_debug_log(lines)
    if not lines:
        raise EvidenceParseError(
            "no systemd-detect-virt result found (empty)", kind=KIND, code="virt.empty"
        )
    if len(lines) > _MAX_LINES:
        raise EvidenceParseError(
            "too many lines for systemd-detect-virt output (it prints one word)",
            kind=KIND,
            code="virt.too_many_lines",
        )
    scope, command_seen = "any", False
    blocks: list[tuple[str, list[tuple[int, str]]]] = [("any", [])]
    version_next = False
    for number, line in lines:
        match = _COMMAND_RE.search(line)
        if match:
            if "--version" in match.group("args"):
                version_next = True
                continue
            if not command_seen or not blocks[-1][1]:
                # Lines above the first command line are something else typed before it; a
                # command without a result gives none.
                blocks.pop()
            command_seen = True
            scope = _scope(match.group("args"))
            blocks.append((scope, []))
            continue
        if version_next and _VERSION_RE.match(line):
            version_next = False
            continue
        version_next = False
        if command_seen and blocks[-1][1] and _OTHER_COMMAND_RE.match(line):
            break  # the rest of the paste is another command's output
        blocks[-1][1].append((number, line))
    blocks = [block for block in blocks if block[1]]
    if not blocks:
        raise EvidenceParseError(
            "systemd-detect-virt command line without its result word",
            kind=KIND,
            code="virt.no_word",
        )
    results: list[tuple[str, int, str]] = []
    for scope, words in blocks:
        if len(words) > 1:
            number, line = words[1]
            raise EvidenceParseError(
                f"expected one word from systemd-detect-virt, found another line {line[:40]!r}",
                line=number,
                kind=KIND,
                code="virt.extra_line",
                params={"line": line[:40]},
            )
        number, word = words[0]
        if word not in _KNOWN and not (command_seen and _WORD_RE.match(word)):
            raise EvidenceParseError(
                f"{word[:40]!r} is not a systemd-detect-virt result (expected e.g. none, kvm, "
                "vmware, microsoft, xen, docker)",
                line=number,
                kind=KIND,
                code="virt.unknown_word",
                params={"word": word[:40]},
            )
        results.append((word, number, scope))
    return results, command_seen, debug_log


def detect(text: str) -> int:
    """Confidence 0..100: 95 with the command line shown, 40 for a single known word."""
    try:
        if len(text) > 4096:
            return 0
        results, command_seen, debug_log = _read(text)
    except Exception:  # detect() must never raise, whatever the input
        return 0
    if command_seen or debug_log:
        return 95
    return 40 if len(results) == 1 and results[0][0] in _KNOWN else 0


def _verdict(word: str, scope: str) -> tuple[bool | None, bool | None]:
    """(virtual, container) that one printed word says in its scope."""
    if word == "none":
        return (
            False if scope in {"any", "vm"} else None,
            False if scope in {"any", "container"} else None,
        )
    if word in VM_TECHNOLOGIES:
        return True, False if scope == "any" else None
    if word in CONTAINER_TECHNOLOGIES:
        return None, True
    return None, None


def _combine(values: list[bool | None]) -> tuple[bool | None, bool]:
    """One verdict from several runs: the one they agree on; None (and True) when they differ."""
    known = {value for value in values if value is not None}
    if len(known) > 1:
        return None, True
    return (known.pop() if known else None), False


def parse(text: str) -> ParseResult:
    """Parse ``systemd-detect-virt`` results into the VM and container verdicts."""
    results, _, _ = _read(text)
    warnings: list[str] = []
    verdicts = [_verdict(word, scope) for word, _, scope in results]
    virtual, virtual_conflict = _combine([v for v, _ in verdicts])
    container, container_conflict = _combine([c for _, c in verdicts])
    # The word shown: the container's when one is reported (it is what a reader of "virt" must
    # see first), else the hypervisor's, else the last one printed.
    chosen = next(
        (r for r, (_, c) in zip(results, verdicts, strict=True) if c),
        next((r for r, (v, _) in zip(results, verdicts, strict=True) if v), results[-1]),
    )
    word, _, scope = chosen
    if len(results) > 1:
        scopes = {s for _, _, s in results}
        scope = scopes.pop() if len(scopes) == 1 else "any"
        runs = ", ".join(f"{s}: {w}" for w, _, s in results)
        warnings.append(f"{len(results)} systemd-detect-virt runs combined ({runs})")
    if virtual_conflict or container_conflict:
        warnings.append("the systemd-detect-virt runs disagree: no verdict taken from them")
    for result_word, _, _ in results:
        if result_word in CONTAINER_TECHNOLOGIES and virtual is None:
            warnings.append(
                f"inside a {result_word} container: run `systemd-detect-virt --vm` to see "
                "whether the host is a VM"
            )
        elif result_word not in _KNOWN:
            warnings.append(f"unknown virtualization technology {result_word!r}")
    facts: tuple[Fact, ...] = ()
    vm_virt: str | None = None
    if virtual is not None:
        vm_word, vm_line = next(
            (w, n) for (w, n, _), (v, _) in zip(results, verdicts, strict=True) if v is not None
        )
        facts = (Fact("virtual", 1.0 if virtual else 0.0, "bool", vm_line, {"virt": vm_word}),)
        vm_virt = vm_word if virtual else None
    metrics: dict[str, Any] = {
        "virt": word,
        "scope": scope,
        "virtual": virtual,
        "container": container,
        "vm_virt": vm_virt,
    }
    return ParseResult(kind=KIND, metrics=metrics, facts=facts, warnings=tuple(warnings))
