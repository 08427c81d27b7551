"""Parser for round-trip-time measurements: ``ping`` (Linux iputils, BSD/macOS, BusyBox,
Windows), ``fping`` summaries, and the collector's TCP-connect probe (``TCPING``), which
prints the same summary lines as ping.

Several runs in one file (the same target pinged again, e.g. through each HCA) are kept as
separate entries of ``targets``; a later summary never overwrites an earlier one.

Each target's summary ("--- host ping statistics ---", "N packets transmitted, M received,
L% packet loss", "rtt min/avg/max/mdev = a/b/c/d ms") gives its figures. Without a summary
(the run was cut), the figures come from the reply lines and a warning says so.

ping run in Chinese is read too (the same lines, their words translated; the separators are
often full-width commas): iputils under LANG=zh_CN ("--- host ping 统计 ---", counts as
"已发送 N 个包" / "已接收 M 个包" with the loss as "L% 包丢失", replies ending
"时间=0.047 毫秒"; the rtt line stays English, and some releases leave part of the summary in
English), and Windows ping on a Chinese system ("正在 Ping host 具有 32 字节的数据", replies
"来自 ... 的回复: 字节=32 时间=1ms", "数据包: 已发送 = 4" / "已接收 = 4" / "丢失 = 0 (0% 丢失)",
"最短 = 1ms" / "最长" / "平均").

metrics (of the first target; ``targets`` lists every target the same way)
    method       "icmp" (ping), "tcp_connect" (collector TCPING), "fping", or "ibping" (the
                 InfiniBand MAD ping of infiniband-diags, which prints ping's summary lines).
    target       host name or address as given; ``target_ip`` the resolved address if shown;
                 ``port`` for tcp_connect.
    transmitted, received (int|None), loss_pct (float|None).
    rtt_min_ms, rtt_avg_ms, rtt_max_ms, rtt_mdev_ms (float|None; mdev/stddev when printed).
    reply_count  reply lines read; ``from_replies`` True when figures came from them.
facts: ``rtt_avg_ms`` (unit "ms") and ``loss_pct`` (unit "%") per target, details {target}.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation

KIND = "rtt"

_NUM = r"(\d+(?:\.\d+)?)"
_START_RE = re.compile(
    r"^(?:PING\s+(?P<target>[^\s(]+)\s*(?:\((?P<ip>[^)]*)\))?"
    r"|TCPING\s+(?P<tcp_target>\S+):(?P<port>\d{1,5})(?:\s+\((?P<tcp_ip>[^)]*)\))?)"
)
_WIN_START_RE = re.compile(
    r"^(?:Pinging|正在\s*Ping)\s+(?P<target>\S+)(?:\s+\[(?P<ip>[^\]]+)\])?\s+(?:with|具有)"
)
# One blank after the target, then anything: "\s+.*" split a long run of blanks in every way.
_STATS_RE = re.compile(r"^---\s+(?P<target>\S+)\s.*(?:statistics|统计)\s+---")
# The count starts where its digits do: tried from every digit of a long run, it was quadratic.
_COUNTS_RE = re.compile(
    r"(?<!\d)(\d+)\s+packets? transmitted,\s+(\d+)\s+(?:packets? )?received"
    r"(?:,\s+\+\d+\s+\w+)*(?:,\s+\+\d+\s+errors)?,\s+" + _NUM + r"%\s+packet loss"
)
_RTT_RE = re.compile(
    r"(?:rtt|round-trip)\s+min/avg/max(?:/(?:mdev|stddev))?\s*=\s*"
    + _NUM
    + "/"
    + _NUM
    + "/"
    + _NUM
    + r"(?:/"
    + _NUM
    + r")?\s*ms"
)
# iputils' summary in zh_CN (iputils po/zh_CN.po): counts, then "+N 错误" and the like, then
# the loss, translated ("包丢失") or, in some releases, left in English. The word after "+N"
# holds no comma: when it could, a full-width comma and "+1x" repeated were split in every
# way (exponential).
_ZH_COUNTS_RE = re.compile(
    r"已发送\s*(\d+)\s*个包\s*[，,]\s*已接收\s*(\d+)\s*个包(?:\s*[，,]\s*\+\d+\s*[^\s，,]+)*"
    r"\s*[，,]\s*" + _NUM + r"%\s*(?:包丢失|packet loss)"
)
_WIN_COUNTS_RE = re.compile(
    r"Packets:\s*Sent\s*=\s*(\d+),\s*Received\s*=\s*(\d+),\s*Lost\s*=\s*\d+\s*\(" + _NUM + r"%"
    r"|已发送\s*=\s*(\d+)\s*[，,]\s*已接收\s*=\s*(\d+)\s*[，,]\s*丢失\s*=\s*\d+\s*[(（]\s*"
    + _NUM
    + r"%"
)
_WIN_RTT_RE = re.compile(
    r"(?:Minimum|最短)\s*=\s*"
    + _NUM
    + r"ms\s*[,，]\s*(?:Maximum|最长)\s*=\s*"
    + _NUM
    + r"ms\s*[,，]\s*(?:Average|平均)\s*=\s*"
    + _NUM
    + r"ms"
)
_WIN_STATS_RE = re.compile(
    r"^(?:Ping statistics for\s+(?P<target>[^:]*):?|(?P<zh_target>\S+)\s*的\s*Ping\s*统计信息)"
)
# A reply line: one of these words, then on the same line its time ("64 bytes from ...:
# icmp_seq=1 ttl=64 time=0.045 ms", "来自 ... 时间=1ms"). Found by ``_reply_ms``: one regex
# "(?:bytes from|...).*?time=" is tried again from every word of a line of them (quadratic).
_REPLY_WORDS = ("bytes from", "Reply from", "connected to", "seq=")
_REPLY_TIME_RE = re.compile(r"time[=<]\s*" + _NUM + r"\s*ms")
_ZH_REPLY_WORD = "来自"
_ZH_REPLY_TIME_RE = re.compile(r"时间\s*[=<]\s*" + _NUM + r"\s*(?:ms|毫秒)")
_FPING_RE = re.compile(
    r"^(?P<target>\S+)\s*:\s*xmt/rcv/%loss\s*=\s*(\d+)/(\d+)/" + _NUM + r"%"
    r"(?:,\s*min/avg/max\s*=\s*" + _NUM + "/" + _NUM + "/" + _NUM + ")?"
)


@dataclass
class _Target:
    method: str
    target: str | None
    line: int
    ip: str | None = None
    port: int | None = None
    transmitted: int | None = None
    received: int | None = None
    loss_pct: float | None = None
    rtt: tuple[float, float, float, float | None] | None = None
    replies: list[float] = field(default_factory=list)


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ping / fping / TCP-connect RTT output."""
    try:
        head = text[:65536]
        words = ("transmitted", "min/avg/max", "xmt/rcv", "Pinging", "PING", "Ping", "已发送")
        if not any(word in head for word in words):
            return 0
        fping = re.search(_FPING_RE.pattern, head, re.MULTILINE)
        if _COUNTS_RE.search(head) or _ZH_COUNTS_RE.search(head) or _RTT_RE.search(head) or fping:
            return 90
        if _WIN_COUNTS_RE.search(head) and re.search(r"Pinging|正在\s*Ping", head):
            return 90
        if re.search(r"(?m)^(?:PING|TCPING) \S+", head) and any(
            _reply_ms(line) is not None for line in head.split("\n")
        ):
            return 80
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _reply_ms(line: str) -> str | None:
    """The time of a reply ``line`` as printed (in ms), or None when it is not one: after the
    first of the reply words, the first time; or after "来自", the first "时间"; whichever word
    comes first."""
    found: list[tuple[int, str]] = []
    starts = [(at, word) for word in _REPLY_WORDS if (at := line.find(word)) >= 0]
    if starts:
        at, word = min(starts)
        match = _REPLY_TIME_RE.search(line, at + len(word))
        if match:
            found.append((at, match.group(1)))
    at = line.find(_ZH_REPLY_WORD)
    if at >= 0:
        match = _ZH_REPLY_TIME_RE.search(line, at + len(_ZH_REPLY_WORD))
        if match:
            found.append((at, match.group(1)))
    return min(found)[1] if found else None


def _summary(target: _Target) -> tuple[dict[str, Any], list[str]]:
    warnings: list[str] = []
    rtt = target.rtt
    from_replies = False
    if rtt is None and target.replies:
        values = target.replies
        mdev = statistics.pstdev(values) if len(values) > 1 else 0.0
        rtt = (min(values), statistics.fmean(values), max(values), round(mdev, 3))
        rtt = (rtt[0], round(rtt[1], 3), rtt[2], rtt[3])
        from_replies = True
        warnings.append(
            f"{target.target}: no summary line (run cut?): figures from {len(values)} reply line(s)"
        )
    if target.transmitted is None and target.replies:
        warnings.append(f"{target.target}: no packet counts: loss unknown")
    if target.received == 0:
        warnings.append(f"{target.target}: no reply at all (100% loss)")
    return (
        {
            "method": target.method,
            "target": target.target,
            "target_ip": target.ip,
            "port": target.port,
            "transmitted": target.transmitted,
            "received": target.received,
            "loss_pct": target.loss_pct,
            "rtt_min_ms": rtt[0] if rtt else None,
            "rtt_avg_ms": rtt[1] if rtt else None,
            "rtt_max_ms": rtt[2] if rtt else None,
            "rtt_mdev_ms": rtt[3] if rtt else None,
            "reply_count": len(target.replies),
            "from_replies": from_replies,
        },
        warnings,
    )


def parse(text: str) -> ParseResult:
    """Parse ping-like output into loss and min/avg/max round-trip times per target."""
    targets: list[_Target] = []
    current: _Target | None = None

    def ensure(method: str, name: str | None, line: int) -> _Target:
        nonlocal current
        if current is None:
            current = _Target(method, name, line)
            targets.append(current)
        return current

    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_annotation(raw.strip())
        if not line:
            continue
        match = _START_RE.match(line)
        if match:
            if match.group("port"):
                current = _Target(
                    "tcp_connect", match.group("tcp_target"), number, ip=match.group("tcp_ip")
                )
                current.port = int(match.group("port"))
            else:
                current = _Target("icmp", match.group("target"), number, ip=match.group("ip"))
            targets.append(current)
            continue
        match = _WIN_START_RE.match(line)
        if match:
            current = _Target("icmp", match.group("target"), number, ip=match.group("ip"))
            targets.append(current)
            continue
        match = _FPING_RE.match(line)
        if match:
            target = _Target("fping", match.group("target"), number)
            target.transmitted, target.received = int(match.group(2)), int(match.group(3))
            target.loss_pct = float(match.group(4))
            if match.group(5):
                target.rtt = (
                    float(match.group(5)),
                    float(match.group(6)),
                    float(match.group(7)),
                    None,
                )
            targets.append(target)
            current = None
            continue
        match = _STATS_RE.match(line)
        if match:
            name = match.group("target")
            known = current and current.target
            if current is not None and current.port is not None:
                known = f"{current.target}:{current.port}"
            # A second summary for a target that has one already is another run (the same
            # command repeated, or through another interface): its own entry, not an overwrite.
            finished = current is not None and (
                current.transmitted is not None or current.rtt is not None
            )
            if current is None or finished or (known and known != name):
                current = None
                ensure("ibping" if " ibping statistics" in line else "icmp", name, number)
            continue
        match = _WIN_STATS_RE.match(line)
        if match:
            name = match.group("target") or match.group("zh_target") or ""
            ensure("icmp", name.strip() or None, number)
            continue
        match = _COUNTS_RE.search(line) or _ZH_COUNTS_RE.search(line) or _WIN_COUNTS_RE.search(line)
        if match:
            target = ensure("icmp", None, number)
            sent, received, loss = (group for group in match.groups() if group is not None)
            target.transmitted, target.received = int(sent), int(received)
            target.loss_pct = float(loss)
            continue
        match = _RTT_RE.search(line)
        if match:
            target = ensure("icmp", None, number)
            mdev = float(match.group(4)) if match.group(4) else None
            target.rtt = (float(match.group(1)), float(match.group(2)), float(match.group(3)), mdev)
            continue
        match = _WIN_RTT_RE.search(line)
        if match:
            target = ensure("icmp", None, number)
            low, high, avg = (float(match.group(i)) for i in (1, 2, 3))
            target.rtt = (low, avg, high, None)
            continue
        reply = _reply_ms(line) if current is not None else None
        if reply is not None and current is not None:
            current.replies.append(float(reply))
    useful = [t for t in targets if t.rtt or t.replies or t.transmitted is not None]
    if not useful:
        if targets:
            raise EvidenceParseError(
                f"{targets[0].target}: no reply and no summary (the run did not finish?)",
                line=targets[0].line,
                kind=KIND,
                code="rtt.unfinished",
                params={"target": targets[0].target},
            )
        raise EvidenceParseError(
            "no ping / TCP-connect round-trip output found (expected 'N packets transmitted' "
            "and 'rtt min/avg/max' lines)",
            kind=KIND,
            code="rtt.nothing",
        )
    summaries: list[dict[str, Any]] = []
    warnings: list[str] = []
    for target in useful:
        summary, target_warnings = _summary(target)
        summaries.append(summary)
        warnings.extend(target_warnings)
    metrics = dict(summaries[0])
    metrics["targets"] = summaries
    metrics["target_count"] = len(summaries)
    facts: list[Fact] = []
    for target, summary in zip(useful, summaries, strict=True):
        if summary["rtt_avg_ms"] is not None:
            facts.append(
                Fact("rtt_avg_ms", summary["rtt_avg_ms"], "ms", target.line,
                     {"target": summary["target"], "method": summary["method"]})
            )  # fmt: skip
        if summary["loss_pct"] is not None:
            facts.append(
                Fact("loss_pct", summary["loss_pct"], "%", target.line,
                     {"target": summary["target"], "method": summary["method"]})
            )  # fmt: skip
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
