"""Upload-token pages and the collector download: procurement issues a token for one candidate,
sees the raw token once, and hands the node engineer a ready-to-paste command."""

import shlex
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from ..forms_procurement import UploadTokenCreateForm, add_service_error
from ..models import UploadToken
from ..permissions import CAN_EDIT
from ..services.tokens import upload_token_create, upload_token_revoke
from .common import form_status, member_candidate, require_form_methods


def collector_command(
    *, portal: str, script_url: str, raw_token: str, chinese: bool = False
) -> str:
    """What a node engineer pastes: the token into the environment (GPU_PORTAL_TOKEN, which
    the collector reads, keeps it out of the process list other users of the node can read),
    then download the collector and run it. ``chinese`` (the page is read in Chinese) adds
    --lang zh: a GPU node's locale is usually that of its server image (C, C.UTF-8 or
    en_US.UTF-8), not the engineer's, so the environment alone would mostly give English to
    someone who reads the portal in Chinese; the option is in plain sight and easy to drop."""
    return (
        f"export GPU_PORTAL_TOKEN={shlex.quote(raw_token)}\n"
        f"curl -fsSLO {shlex.quote(script_url)} && "
        f"python3 collect.py --portal {shlex.quote(portal)}" + (" --lang zh" if chinese else "")
    )


# A new raw token waits here between the POST that creates it and the GET that shows it
# (POST/redirect/GET: reloading the page creates no second token); the first token page
# shown takes it out, so it is displayed exactly once.
NEW_TOKEN_SESSION_KEY = "upload_token_new"  # noqa: S105 (the name of a session key)


def _new_token_take(request: HttpRequest, candidate) -> str | None:
    """The raw token created by this session's last POST, if it is this candidate's and still
    usable; removed from the session whatever it was."""
    pending = request.session.pop(NEW_TOKEN_SESSION_KEY, None)
    if not isinstance(pending, dict):
        return None
    token = UploadToken.objects.filter(pk=pending.get("token"), candidate=candidate).first()
    if token is None or not token.is_usable:
        return None
    raw = pending.get("raw")
    return raw if isinstance(raw, str) and token.token_prefix == raw[:10] else None


@never_cache
@login_required
@require_form_methods
def upload_token_list(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    raw_token = command = None
    if request.method == "POST":
        form = UploadTokenCreateForm(request.POST)
        if form.is_valid():
            try:
                token, raw = upload_token_create(
                    candidate=candidate,
                    created_by=request.user,
                    expires_in=timedelta(days=form.cleaned_data["expires_in_days"]),
                    node_name=form.cleaned_data["node_name"],
                    label=form.cleaned_data["label"],
                )
            except ValidationError as exc:
                add_service_error(form, exc, {"expires_in": "expires_in_days"})
            else:
                request.session[NEW_TOKEN_SESSION_KEY] = {"token": token.pk, "raw": raw}
                url = reverse("upload-token-list", args=[evaluation.pk, candidate.pk])
                return redirect(f"{url}#new-token")
    else:
        form = UploadTokenCreateForm()
        raw_token = _new_token_take(request, candidate)
        if raw_token is not None:
            command = collector_command(
                portal=request.build_absolute_uri("/").rstrip("/"),
                script_url=request.build_absolute_uri(reverse("collector-script")),
                raw_token=raw_token,
                chinese=(get_language() or "").startswith("zh"),
            )
    tokens = UploadToken.objects.filter(candidate=candidate).select_related("created_by")
    plan = getattr(evaluation, "poc_plan", None) if raw_token else None
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "tokens": tokens,
        "form": form,
        "raw_token": raw_token,
        "command": command,
        "shared_fs_path": plan.shared_fs_path if plan else "",
    }
    return render(request, "portal/token_list.html", context, status=form_status(form))


@login_required
@require_POST
def upload_token_revoke_view(
    request: HttpRequest, pk: int, candidate_pk: int, token_pk: int
) -> HttpResponse:
    evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    token = get_object_or_404(UploadToken, pk=token_pk, candidate=candidate)
    upload_token_revoke(token=token, by=request.user)
    messages.success(
        request, _("Upload token %(prefix)s… revoked.") % {"prefix": token.token_prefix}
    )
    return redirect("upload-token-list", pk=evaluation.pk, candidate_pk=candidate.pk)


@require_safe
def collector_script(request: HttpRequest) -> FileResponse:
    """The collector, public so that a node can fetch it with curl: it holds no secret."""
    path = settings.BASE_DIR / "collector" / "collect.py"
    try:
        handle = path.open("rb")
    except FileNotFoundError as exc:
        raise Http404 from exc
    return FileResponse(
        handle, as_attachment=True, filename="collect.py", content_type="text/x-python"
    )
