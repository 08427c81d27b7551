"""The node an upload names: cleaned, and held against the node its token names."""

from scoring.verification._util import same_host

from ...models import EvidenceUpload, UploadToken
from ..text import clean_text


def _clean_node(name: str | None) -> str:
    """A node name as sent with an upload or read from a bundle's manifest (see clean_text)."""
    return clean_text(name or "").strip()[:200]


def _node_mismatch(upload: EvidenceUpload, hostname: str) -> dict[str, str] | None:
    """The token's node name and the bundle's hostname when the token names a node and the
    machine calls itself something else (stored under ``NODE_MISMATCH`` in error_params)."""
    named = upload.token.node_name if upload.token_id is not None else ""
    if not named or not hostname or same_host(named, hostname):
        return None
    return {"token_node": named[:200], "hostname": hostname[:200]}


def sent_node_mismatch(token: UploadToken | None, node_name: str) -> dict[str, str] | None:
    """The token's node name and the node name sent with the upload (the ``node_name`` form
    field) when the token names a node and the upload names another: a plain file has no
    manifest whose hostname could say which machine it came from, so the name sent is all
    there is, and it disagrees with what the token was issued for. Stored like the bundle's
    case under ``NODE_MISMATCH``, with ``node_name`` in place of ``hostname``."""
    named = token.node_name if token is not None else ""
    node_name = (node_name or "").strip()
    if not named or not node_name or same_host(named, node_name):
        return None
    return {"token_node": named[:200], "node_name": node_name[:200]}
