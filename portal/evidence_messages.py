"""The reader's-language text of evidence errors: scoring's error codes and their params, and
the import's own failure codes, rendered from one catalogue of translatable templates.

Scoring raises ``EvidenceParseError`` / ``BundleRejected`` with a ``code`` and ``params`` beside
the English text (scoring never imports Django); this module is the only place that turns a code
into words. A code missing here, or params that do not fit its template, fall back to the English
text stored with it, so nothing is ever shown blank.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from .metric_labels import kind_label

# One template per code raised in scoring/evidence (tests/portal/test_evidence_messages.py
# checks every raise site has its entry and that the placeholders match its params).
MESSAGES: dict[str, Promise] = {
    # Text decoding and kind detection (base.py, registry.py)
    "text.utf16": gettext_lazy("invalid UTF-16 text (%(detail)s)"),
    "text.binary": gettext_lazy("binary content (NUL bytes), not a text output"),
    "text.not_utf8": gettext_lazy("not UTF-8 text (byte %(byte)s)"),
    # Notes, not errors: how a file that is not UTF-8 was read (base.DecodedText.notes)
    "text.decoded_as": gettext_lazy("not UTF-8: read as %(encoding)s text"),
    "text.decoded_lines_as": gettext_lazy(
        "line(s) %(lines)s are not UTF-8 and were read as %(encoding)s; the rest is UTF-8"
    ),
    "text.cut_character": gettext_lazy(
        "the file ends inside a character (cut?): its last %(bytes)s byte(s) were left out"
    ),
    "file.empty": gettext_lazy("the file is empty"),
    "file.unknown_kind": gettext_lazy("not the output of a supported tool (supported: %(kinds)s)"),
    "file.other_vendor_tool": gettext_lazy(
        "%(tool)s output: %(vendor)s accelerators' tool, not NVIDIA GPUs'; no evidence kind "
        "reads it"
    ),
    "file.unsupported_kind": gettext_lazy("unsupported evidence kind “%(kind)s”"),
    "file.figure_out_of_range": gettext_lazy(
        "a figure out of range (%(figure)s): not a value the tool prints"
    ),
    "file.figure_overflow": gettext_lazy(
        "a number too large to be a figure: not a value the tool prints"
    ),
    "parser.internal": gettext_lazy("internal parser error (%(error)s)"),
    # Archives (archive.py)
    "archive.file_too_large": gettext_lazy("file “%(name)s” is larger than the %(cap)s cap"),
    "archive.name_nul": gettext_lazy("member name “%(name)s” contains a NUL byte"),
    "archive.name_backslash": gettext_lazy("member name “%(name)s” contains a backslash"),
    "archive.name_absolute": gettext_lazy("member name “%(name)s” is an absolute path"),
    "archive.name_drive_letter": gettext_lazy("member name “%(name)s” starts with a drive letter"),
    "archive.name_control_char": gettext_lazy(
        "member name “%(name)s” contains a control character"
    ),
    "archive.name_traversal": gettext_lazy(
        "member name “%(name)s” has a '..' component (path traversal)"
    ),
    "archive.name_empty": gettext_lazy("member name “%(name)s” is empty"),
    "archive.too_many_members": gettext_lazy("too many members: more than %(max)s"),
    "archive.duplicate_name": gettext_lazy("duplicate member name “%(name)s”"),
    "archive.member_too_large": gettext_lazy(
        "member “%(name)s” is larger than the %(cap)s cap per file"
    ),
    "archive.files_too_large": gettext_lazy(
        "the bundle's files add up to more than the %(cap)s cap"
    ),
    "archive.ratio": gettext_lazy(
        "the archive inflates more than %(ratio)s times its compressed size (compression bomb?)"
    ),
    "archive.member_ratio": gettext_lazy(
        "member “%(name)s” inflates more than %(ratio)s times its compressed size "
        "(compression bomb?)"
    ),
    "archive.too_large": gettext_lazy("the archive is larger than the %(cap)s cap"),
    "archive.gzip_truncated": gettext_lazy(
        "the gzip stream is truncated: the file was cut while it was written or sent; send "
        "it again from the node (the collector keeps the bundle it sent)"
    ),
    "archive.gzip_corrupt": gettext_lazy("corrupt gzip data (%(detail)s)"),
    "archive.not_regular": gettext_lazy(
        "member “%(name)s” %(problem)s: only regular files allowed"
    ),
    "archive.bad_tgz": gettext_lazy("not a valid gzip-compressed tar archive (%(detail)s)"),
    "archive.bad_tar": gettext_lazy("not a valid tar archive (%(detail)s)"),
    "archive.empty": gettext_lazy("the archive is empty"),
    "archive.zip_truncated": gettext_lazy(
        "not a valid zip archive (no end of central directory: truncated?)"
    ),
    "archive.zip_directory_too_large": gettext_lazy(
        "the zip central directory is too large (%(bytes)s bytes) for %(max)s members"
    ),
    "archive.bad_zip": gettext_lazy("not a valid zip archive (%(detail)s)"),
    "archive.member_corrupt": gettext_lazy("member “%(name)s” is corrupt (%(detail)s)"),
    "archive.encrypted": gettext_lazy("member “%(name)s” is encrypted"),
    "archive.member_declares_too_large": gettext_lazy(
        "member “%(name)s” declares %(bytes)s bytes, over the %(cap)s cap per file"
    ),
    "archive.lying_header": gettext_lazy(
        "member “%(name)s” has a lying header: it declares %(bytes)s bytes but holds "
        "%(compressed)s compressed bytes"
    ),
    # The collector's manifest (bundle.py)
    "manifest.missing": gettext_lazy(
        "manifest.json is missing: a bundle must be made by the collector (loose tool outputs "
        "can be uploaded one file at a time instead)"
    ),
    "manifest.bad_json": gettext_lazy("manifest.json is not valid JSON (%(detail)s)"),
    "manifest.not_object": gettext_lazy("manifest.json must hold a JSON object"),
    "manifest.schema_version": gettext_lazy(
        "manifest.json: unsupported schema_version %(schema)s (this portal reads version "
        "%(supported)s)"
    ),
    "manifest.output_twice": gettext_lazy("manifest.json: output “%(output)s” is listed twice"),
    "manifest.nonce_type": gettext_lazy("manifest.json: 'nonce' must be a string or null"),
    "manifest.missing_key": gettext_lazy("manifest.json: required key “%(key)s” is missing"),
    "manifest.key_type": gettext_lazy("manifest.json: “%(key)s” must be %(type)s"),
    "manifest.empty_key": gettext_lazy("manifest.json: “%(key)s” is empty"),
    "manifest.bad_time": gettext_lazy(
        "manifest.json: “%(key)s” is not an ISO 8601 time: “%(text)s”"
    ),
    "manifest.no_time_zone": gettext_lazy("manifest.json: “%(key)s” has no time zone: “%(text)s”"),
    # Times out of range (times.py)
    "manifest.time_out_of_range": gettext_lazy(
        "manifest.json: “%(key)s” (%(text)s) is out of range: it cannot be converted to UTC"
    ),
    "manifest.time_too_early": gettext_lazy(
        "manifest.json: “%(key)s” (%(text)s) is before %(earliest)s: no GPU evidence is that "
        "old; check the node's clock"
    ),
    "manifest.time_in_future": gettext_lazy(
        "manifest.json: “%(key)s” (%(text)s) is later than the upload was received "
        "(%(received)s) plus %(hours)s hours; check the node's clock"
    ),
    "time.tool_out_of_range": gettext_lazy(
        "“%(file)s”: the time the tool printed is out of range: it cannot be converted to UTC"
    ),
    "time.tool_too_early": gettext_lazy(
        "“%(file)s”: the time the tool printed (%(text)s) is before %(earliest)s: no GPU "
        "evidence is that old; check the node's clock"
    ),
    "time.tool_in_future": gettext_lazy(
        "“%(file)s”: the time the tool printed (%(text)s) is later than the upload was "
        "received (%(received)s) plus %(hours)s hours; check the node's clock"
    ),
    "manifest.command_not_object": gettext_lazy(
        "manifest.json: command %(command)s: must be an object"
    ),
    "manifest.command_missing_key": gettext_lazy(
        "manifest.json: command %(command)s: required key “%(key)s” is missing"
    ),
    "manifest.command_key_type": gettext_lazy(
        "manifest.json: command %(command)s: “%(key)s” must be %(type)s"
    ),
    "manifest.command_argv": gettext_lazy(
        "manifest.json: command %(command)s: 'argv' must be a list of strings"
    ),
    "manifest.command_output_type": gettext_lazy(
        "manifest.json: command %(command)s: 'output' must be a string or null"
    ),
    "manifest.command_output_manifest": gettext_lazy(
        "manifest.json: command %(command)s: 'output' cannot be the manifest"
    ),
    "manifest.command_exit_code": gettext_lazy(
        "manifest.json: command %(command)s: 'exit_code' must be an integer or null"
    ),
    "manifest.command_duration": gettext_lazy(
        "manifest.json: command %(command)s: 'duration_s' must be seconds >= 0 or null"
    ),
    "manifest.command_flag": gettext_lazy(
        "manifest.json: command %(command)s: “%(key)s” must be true or false"
    ),
    "manifest.command_text": gettext_lazy(
        "manifest.json: command %(command)s: “%(key)s” must be a string or null"
    ),
    # What the collector recorded about one command (bundle.py)
    "command.not_collected": gettext_lazy("not collected: %(reason)s"),
    "command.not_installed": gettext_lazy("%(tool)s is not installed on the node"),
    "command.not_run": gettext_lazy("the collector did not run it"),
    "command.output_missing": gettext_lazy(
        "“%(output)s” is listed in manifest.json but not in the bundle"
    ),
    "command.failed": gettext_lazy("`%(command)s` failed with exit code %(exit_code)s: %(detail)s"),
    "command.failed_stderr": gettext_lazy(
        "`%(command)s` failed with exit code %(exit_code)s: %(detail)s (stderr: %(stderr)s)"
    ),
    "command.printed_nothing": gettext_lazy("printed nothing"),
    # Parsers, one group per kind
    "cpu_info.unreadable": gettext_lazy("unreadable %(label)s “%(text)s”"),
    "cpu_info.nothing": gettext_lazy(
        "no lscpu fields or /proc/cpuinfo processor blocks found (expected 'CPU(s):' or "
        "'processor : 0' lines)"
    ),
    "dcgm.json_not_object": gettext_lazy("dcgmi diag JSON: the document is not an object"),
    "dcgm.json_no_tests": gettext_lazy(
        "dcgmi diag JSON without any test result (no 'test_categories' or 'tests')"
    ),
    "dcgm.tool_error": gettext_lazy("dcgmi reported an error: %(message)s"),
    "dcgm.nothing": gettext_lazy(
        "no dcgmi diag results found (expected '| Diagnostic | Result |' table rows such as "
        "'| PCIe | Pass - All |')"
    ),
    "dmi.unreadable_table": gettext_lazy(
        "dmidecode could not read the DMI table (%(message)s): run it as root on the host "
        "itself, not inside a container"
    ),
    "dmi.nothing": gettext_lazy(
        "no DMI records found (expected `dmidecode` output with 'Handle 0x...' blocks)"
    ),
    "fio.json_unreadable": gettext_lazy("fio JSON is unreadable (%(detail)s; truncated?)"),
    "fio.json_too_deep": gettext_lazy("fio JSON is nested too deeply"),
    "fio.field_not_number": gettext_lazy("fio JSON field %(field)s is not a number"),
    "fio.field_invalid": gettext_lazy("fio JSON field %(field)s is not a valid figure"),
    "fio.overflow": gettext_lazy("implausible figure (number overflow)"),
    "fio.json_not_object": gettext_lazy("fio JSON is not an object"),
    "fio.json_no_jobs": gettext_lazy("fio JSON has no 'jobs' list"),
    "fio.json_job_not_object": gettext_lazy("fio JSON job entry is not an object"),
    "fio.failed": gettext_lazy("fio reported no results; the run failed: %(message)s"),
    "fio.terse": gettext_lazy("fio terse output is not supported: rerun with --output-format=json"),
    "fio.no_results": gettext_lazy(
        "fio job header found but no read/write results (job failed or output truncated)"
    ),
    "fio.nothing": gettext_lazy(
        "no fio results found (expected `fio --output-format=json` output or the normal report "
        "with 'Run status group')"
    ),
    "ibstat.unreadable_rate": gettext_lazy("unreadable port rate “%(text)s”"),
    "ibstat.implausible_rate": gettext_lazy("implausible port rate “%(text)s”"),
    "ibstat.implausible_port": gettext_lazy("implausible port number %(number)s"),
    "ibstat.no_ports": gettext_lazy("CA “%(ca)s” has no port status lines (truncated output?)"),
    "ibstat.tool_error": gettext_lazy(
        "the tool stopped with an error before listing any port: %(message)s"
    ),
    "ibstat.nothing": gettext_lazy(
        "no InfiniBand CA or port status found (expected `ibstat`, `ibstatus` or "
        "`ibv_devinfo` output)"
    ),
    "kernel_log.nothing": gettext_lazy(
        "no kernel log found (expected dmesg / journalctl -k lines, or 'NVRM: Xid' / 'SXid' lines)"
    ),
    "lspci.nothing": gettext_lazy(
        "no PCI device lines found (expected `lspci` output such as "
        "'0000:1b:00.0 3D controller [0302]: NVIDIA Corporation ...')"
    ),
    "lspci.detail_only": gettext_lazy(
        "lspci -vv detail lines without the device line they belong to "
        "('0000:1b:00.0 3D controller: NVIDIA ...'): which device they describe cannot be told"
    ),
    "nccl.test_failed": gettext_lazy(
        "nccl-tests printed no result rows; the test failed: %(message)s"
    ),
    "nccl.no_rows": gettext_lazy(
        "the nccl-tests table has a header but no readable result rows (truncated?)"
    ),
    "nccl.json_unreadable": gettext_lazy(
        "nccl-tests JSON is unreadable (%(detail)s at character %(position)s; a run killed "
        "before its end leaves the report open)"
    ),
    "nccl.json_too_deep": gettext_lazy("nccl-tests JSON is nested too deeply"),
    "nccl.json_too_large": gettext_lazy("nccl-tests JSON report too large to be one run's"),
    "nccl.json_no_results": gettext_lazy(
        "nccl-tests JSON has no result row with its figures (no 'results' list, an empty one, "
        "or every time or bandwidth null or nan)"
    ),
    "nccl.json_bad_value": gettext_lazy(
        "nccl-tests JSON: %(where)s is not a value nccl-tests writes there"
    ),
    "nccl.nothing": gettext_lazy(
        "no nccl-tests result table found (expected a header line with 'size count type ... "
        "time algbw busbw' columns and numeric rows)"
    ),
    "npu_smi.nothing": gettext_lazy(
        "no npu-smi output found (expected the 'npu-smi info' device table with its "
        "'| NPU Name | Health |' heads, or the 'Health Status :' / 'HBM Double Bit Error "
        "Count :' lines of 'npu-smi info -t health' / '-t ecc')"
    ),
    "nvbandwidth.nothing": gettext_lazy(
        "no nvbandwidth output found (expected 'nvbandwidth Version', 'Running <test>.' and "
        "'SUM <test> <GB/s>' lines)"
    ),
    "nvbandwidth.failed": gettext_lazy("nvbandwidth measured nothing (%(error)s)"),
    "nvbandwidth.empty": gettext_lazy("nvbandwidth measured nothing (no matrix and no SUM line)"),
    "nvidia_smi.tool_error": gettext_lazy("nvidia-smi reported an error: %(message)s"),
    "nvidia_smi.nothing": gettext_lazy(
        "no nvidia-smi GPU table found (expected the '| NVIDIA-SMI ... Driver Version' header "
        "and '|   0  <name>  On | <bus id> ... |' rows)"
    ),
    "nvidia_smi_list.tool_error": gettext_lazy("nvidia-smi reported: %(message)s"),
    "nvidia_smi_list.nothing": gettext_lazy(
        "no 'GPU n: <name> (UUID: GPU-...)' or 'MIG ... Device n: (UUID: ...)' line"
    ),
    "nvidia_smi_mig.nothing": gettext_lazy(
        "no MIG table found (expected 'nvidia-smi mig -lgi' / '-lci' / '-lgip' output)"
    ),
    "nvidia_smi_query.nothing": gettext_lazy(
        "no nvidia-smi -q values found (expected 'Attached GPUs : N', 'GPU 00000000:07:00.0' "
        "blocks with indented 'Key : value' lines, or --query-gpu CSV)"
    ),
    "nvidia_smi_query.no_csv_rows": gettext_lazy(
        "no --query-gpu CSV rows found (expected comma-separated values under a header such as "
        "'name, pci.bus_id, memory.total [MiB]')"
    ),
    "nvidia_smi_xml.entity": gettext_lazy("XML entity declarations are refused (<!ENTITY)"),
    "nvidia_smi_xml.doctypes": gettext_lazy("more than one DOCTYPE"),
    "nvidia_smi_xml.doctype": gettext_lazy(
        "only nvidia-smi's own DOCTYPE is accepted (no internal DTD subset)"
    ),
    "nvidia_smi_xml.too_large": gettext_lazy("XML larger than %(max)s bytes"),
    "nvidia_smi_xml.no_root": gettext_lazy("no <nvidia_smi_log> element (not nvidia-smi -q -x)"),
    "nvidia_smi_xml.nothing": gettext_lazy("nothing readable in the XML: %(reason)s"),
    "nvlink.nothing": gettext_lazy(
        "no NVLink lines found (expected 'Link N: 26.562 GB/s', 'Link N: <inactive>', "
        "'Link N: Replay Errors: 0' or 'Link N, P2P is supported: true')"
    ),
    "perftest.not_finite": gettext_lazy("not a finite number “%(token)s”"),
    "perftest.unit": gettext_lazy(
        "unknown bandwidth unit “%(unit)s” (expected MB/sec, MiB/sec or Gb/sec)"
    ),
    "perftest.bw_columns": gettext_lazy(
        "bandwidth row has %(columns)s columns, expected at least %(expected)s"
    ),
    "perftest.size": gettext_lazy("implausible message size %(size)s"),
    "perftest.lat_columns": gettext_lazy("latency row has too few columns"),
    "perftest.tool_failed": gettext_lazy(
        "no perftest result rows: the tool reported “%(message)s”"
    ),
    "perftest.json_unit": gettext_lazy(
        "the perftest JSON report does not say whether its bandwidth is in MB/sec or Gb/sec: "
        "upload the text report, or the JSON after the command that made it"
    ),
    "perftest.json_figures": gettext_lazy(
        "the perftest JSON figures do not fit together: BW_average / (MsgRate x MsgSize) is "
        "%(ratio)s, where perftest's own give 0.9537 (MB/sec) or 0.008 (Gb/sec)"
    ),
    "perftest.json_results": gettext_lazy("the perftest JSON results lack %(missing)s"),
    "perftest.no_rows": gettext_lazy(
        "perftest header found but no result rows (the run did not finish?)"
    ),
    "perftest.nothing": gettext_lazy(
        "no perftest report found (expected ib_write_bw/ib_read_bw/ib_send_bw output with a "
        "'#bytes ... BW average' table)"
    ),
    "rtt.unfinished": gettext_lazy("%(target)s: no reply and no summary (the run did not finish?)"),
    "rtt.nothing": gettext_lazy(
        "no ping / TCP-connect round-trip output found (expected 'N packets transmitted' and "
        "'rtt min/avg/max' lines)"
    ),
    "topo.too_many_devices": gettext_lazy(
        "implausible matrix: %(devices)s device columns (at most %(max)s expected)"
    ),
    "topo.p2p_only": gettext_lazy(
        "an 'nvidia-smi topo -p2p' status table (OK / GNS / CNS per GPU pair) and no "
        "'nvidia-smi topo -m' matrix: it says whether peer-to-peer works, not how GPUs connect"
    ),
    "topo.nothing": gettext_lazy(
        "no 'nvidia-smi topo -m' matrix found (expected a header line starting with GPU0 and "
        "rows such as 'GPU0  X  NV12 ...')"
    ),
    "topo.no_rows": gettext_lazy("the topology header has no GPU rows below it"),
    "virt.too_long": gettext_lazy("too long for systemd-detect-virt output (it prints one word)"),
    "virt.empty": gettext_lazy("no systemd-detect-virt result found (empty)"),
    "virt.too_many_lines": gettext_lazy(
        "too many lines for systemd-detect-virt output (it prints one word)"
    ),
    "virt.no_word": gettext_lazy("systemd-detect-virt command line without its result word"),
    "virt.extra_line": gettext_lazy(
        "expected one word from systemd-detect-virt, found another line “%(line)s”"
    ),
    "virt.unknown_word": gettext_lazy(
        "“%(word)s” is not a systemd-detect-virt result (expected e.g. none, kvm, vmware, "
        "microsoft, xen, docker)"
    ),
}

# Fixed English phrases scoring passes as params (a member's type problem, a JSON type, a
# field's name): shown in the reader's language wherever they appear as a param value.
PHRASES: dict[str, Promise] = {
    "is a symbolic link": gettext_lazy("is a symbolic link"),
    "is a hard link": gettext_lazy("is a hard link"),
    "is a character device": gettext_lazy("is a character device"),
    "is a block device": gettext_lazy("is a block device"),
    "is a FIFO (named pipe)": gettext_lazy("is a FIFO (named pipe)"),
    "is a sparse file": gettext_lazy("is a sparse file"),
    "is a socket": gettext_lazy("is a socket"),
    "a string": gettext_lazy("a string"),
    "a list": gettext_lazy("a list"),
    "an object": gettext_lazy("an object"),
    "true or false": gettext_lazy("true or false"),
    "CPU count": gettext_lazy("CPU count"),
    "sockets": gettext_lazy("sockets"),
    "cores": gettext_lazy("cores"),
    "threads": gettext_lazy("threads"),
    "NUMA nodes": gettext_lazy("NUMA nodes"),
}

# The import's own outcomes (portal/services/evidence/), stored on the upload as
# error_code + error_params beside the English error text.
UPLOAD_BUNDLE_REFUSED = "upload.bundle_refused"
UPLOAD_NOTHING_PARSED = "upload.nothing_parsed"
UPLOAD_FILE_MISSING = "upload.file_missing"
UPLOAD_ABANDONED = "upload.abandoned"
UPLOAD_TIME_REFUSED = "upload.time_refused"
UPLOAD_INTERNAL_ERROR = "upload.internal_error"
UPLOAD_MESSAGES: dict[str, Promise] = {
    UPLOAD_BUNDLE_REFUSED: gettext_lazy("The bundle was refused: %(reason)s"),
    UPLOAD_NOTHING_PARSED: gettext_lazy("Nothing in this upload could be parsed. %(failures)s"),
    UPLOAD_FILE_MISSING: gettext_lazy("The stored file is missing; upload it again."),
    UPLOAD_ABANDONED: gettext_lazy(
        "The import was abandoned after %(n)s attempts; upload the file again."
    ),
    UPLOAD_TIME_REFUSED: gettext_lazy(
        "The upload was refused because of a time it gives: %(reason)s"
    ),
    UPLOAD_INTERNAL_ERROR: gettext_lazy(
        "The import stopped on an unexpected error (recorded in the server's log); upload the "
        "file again, and tell the portal's administrators if it fails again."
    ),
}


def _kinds(value: Any) -> Any:
    return (
        ", ".join(kind_label(k.strip()) for k in value.split(","))
        if isinstance(value, str)
        else value
    )


# Params that name evidence kinds: shown by their tools ("nvidia-smi topo -m", not the code).
KIND_PARAMS = {
    "kind": lambda value: kind_label(value) if isinstance(value, str) else value,
    "kinds": _kinds,
}


def _param(value: Any) -> Any:
    if isinstance(value, Mapping) and ("code" in value or "message" in value):
        return detail_text(value)
    if value is None:
        return ""
    if isinstance(value, str) and value in PHRASES:
        return str(PHRASES[value])
    return value


def _format(template: Promise | None, params: Mapping[str, Any], fallback: str) -> str:
    if template is None:
        return fallback
    try:
        shown = {key: KIND_PARAMS.get(key, _param)(value) for key, value in params.items()}
        return str(template) % shown
    except (KeyError, TypeError, ValueError):
        # Params that do not fit (a row stored by another parser version): the English text.
        return fallback


def detail_text(detail: Mapping[str, Any] | None) -> str:
    """One error detail ({code, params, line, kind, message}, as scoring's
    ``EvidenceError.detail()`` gives) in the reader's language, with its tool and line."""
    if not detail:
        return ""
    message = detail.get("message") or ""
    text = _format(MESSAGES.get(detail.get("code") or ""), detail.get("params") or {}, message)
    if detail.get("line") is not None:
        text = _("line %(line)s: %(text)s") % {"line": detail["line"], "text": text}
    if detail.get("kind"):
        text = str(kind_label(detail["kind"])) + pgettext("after a label", ": ") + text
    return text


def report_error(row: Mapping[str, Any]) -> str:
    """A per-file report row's error in the reader's language (its stored text if no code)."""
    return detail_text(row.get("error_detail")) or row.get("error") or ""


def report_notes(row: Mapping[str, Any]) -> list[str]:
    """A per-file report row's notes (how a file that is not UTF-8 was read, …) in the
    reader's language; none on rows stored before notes existed."""
    return [detail_text(note) for note in row.get("notes") or () if isinstance(note, Mapping)]


# The key in an upload's error_params (on a done upload too) holding {"token_node", "hostname"}
# when its token names a node and the bundle's manifest names another host, or
# {"token_node", "node_name"} when the upload was sent naming another node than its token's
# (a plain file, which has no manifest to say where it came from).
NODE_MISMATCH = "node_mismatch"


def upload_node_mismatch(params: Mapping[str, Any] | None) -> str:
    """The warning, in the reader's language, that an upload came from a host, or was sent for
    a node, other than the node its token was issued for; "" when the names agree or nothing
    is recorded."""
    found = (params or {}).get(NODE_MISMATCH) if isinstance(params, Mapping) else None
    if not isinstance(found, Mapping) or not found.get("token_node"):
        return ""
    if found.get("node_name") and not found.get("hostname"):
        return _(
            "The upload token was issued for node “%(token_node)s”, but the upload was sent "
            "for node “%(node_name)s”. The evidence is filed under “%(node_name)s”: check "
            "which machine the file came from."
        ) % {"token_node": found["token_node"], "node_name": found["node_name"]}
    if not found.get("hostname"):
        return ""
    return _(
        "The upload token was issued for node “%(token_node)s”, but the bundle says it was "
        "collected on host “%(hostname)s”. The evidence is filed under “%(hostname)s”: check "
        "which machine the collector ran on."
    ) % {"token_node": found["token_node"], "hostname": found["hostname"]}


def upload_error(*, code: str, params: Mapping[str, Any] | None, text: str) -> str:
    """An upload's stored failure in the reader's language. Rows stored before codes existed
    (no code) show their stored text with its known lead sentence translated."""
    if not code:
        from .views.display import upload_error as legacy

        return legacy(text)
    params = dict(params or {})
    if code == UPLOAD_NOTHING_PARSED:
        params["failures"] = pgettext("between list items", "; ").join(
            str(f.get("file", ""))
            + pgettext("after a label", ": ")
            + (detail_text(f.get("detail")) or f.get("error", ""))
            for f in params.get("failures") or []
        )
    return _format(UPLOAD_MESSAGES.get(code), params, text)
