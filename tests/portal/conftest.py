"""Personas and data for the portal tests: a member per role, an outsider, one evaluation."""

import io
import json
import tarfile
import threading
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.utils import translation

from portal.models import (
    Candidate,
    ChecklistItem,
    Evaluation,
    Membership,
    Offering,
    Role,
    Score,
    Vendor,
)

from ..demo_snapshot import restore as demo_restore


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A page requested in Chinese leaves Chinese active in this thread (LocaleMiddleware
    activates it per request and nothing deactivates it between tests): reset it, so no test
    depends on the language the previous one used."""
    yield
    translation.deactivate()


PASSWORD = "correct-horse-battery-staple"
# setup_demo's logins (portal.services.demo.DEMO_USERS): username -> password. Tests import
# it with ``from .conftest import PASSWORDS``.
PASSWORDS = {
    "procurement": "procure-gpus-2026",
    "manager": "decide-gpus-2026",
    "engineer": "measure-gpus-2026",
    "viewer": "view-gpus-2026",
}


@pytest.fixture
def empty_cache():
    """The Django cache emptied before and after the test (results read model, fragments)."""
    from django.core.cache import cache

    cache.clear()
    yield cache
    cache.clear()


@pytest.fixture
def make_user(db):
    def make(username: str, **kwargs):
        return get_user_model().objects.create_user(username=username, password=PASSWORD, **kwargs)

    return make


@pytest.fixture
def evaluation(db) -> Evaluation:
    return Evaluation.objects.create(
        name="Pre-train on 16 GPUs",
        workload_profile="pretraining",
        required_total_gpus=16,
        required_gpu_memory_gib=80,
        duration_days=30,
    )


@pytest.fixture
def members(evaluation, make_user) -> dict[str, object]:
    """One user per role in ``evaluation``, plus an ``outsider`` who belongs to none."""
    users = {}
    for role in Role:
        user = make_user(role.value)
        Membership.objects.create(evaluation=evaluation, user=user, role=role)
        users[role.value] = user
    # The procurement persona also holds the catalogue role (as in the demo); membership alone
    # gives no catalogue rights (tests/portal/test_integrity_catalogue.py).
    from portal.services.catalogue import catalogue_permission

    users["procurement"].user_permissions.add(catalogue_permission())
    users["outsider"] = make_user("outsider")
    return users


@pytest.fixture
def vendor(db) -> Vendor:
    return Vendor.objects.create(name="Test Vendor", mlps_level=3)


def small_offering(vendor: Vendor, name: str = "1x L40S container", **fields) -> Offering:
    """A minimal second offering (one GPU in containers over Ethernet) for tests that need
    one besides the ``offering`` fixture."""
    values = {
        "delivery_form": "container",
        "gpu_model": "NVIDIA L40S",
        "gpu_form_factor": "pcie",
        "gpus_per_node": 1,
        "gpu_memory_gib": 48,
        "nvlink_topology": "none",
        "fabric": "ethernet",
        **fields,
    }
    return Offering.objects.create(vendor=vendor, name=name, **values)


@pytest.fixture
def offering(vendor) -> Offering:
    return Offering.objects.create(
        vendor=vendor,
        name="8x H100 bare metal",
        delivery_form="bare_metal",
        gpu_model="NVIDIA H100 SXM5 80GB",
        gpu_form_factor="sxm",
        gpus_per_node=8,
        gpu_memory_gib=80,
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=8,
        sla_availability_pct=Decimal("99.9"),
    )


@pytest.fixture
def demo(db, demo_snapshot):
    """setup_demo's data set (restored from the run's copy); returns what the command printed."""
    yield demo_restore(demo_snapshot)
    ContentType.objects.clear_cache()


@pytest.fixture
def as_role(client, demo):
    """Logs the test client in as the demo's user of a role ("procurement", "manager",
    "engineer", "viewer") and returns it: ``as_role("manager").get(url)``."""

    def login(role: str):
        assert client.login(username=role, password=PASSWORDS[role])
        return client

    return login


SAMPLES = Path(__file__).resolve().parent / "samples"


def sample_bytes(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def make_bundle(
    files: dict[str, bytes],
    *,
    hostname: str = "gpu-node-01",
    nonce=None,
    missing: tuple[str, ...] = (),
) -> bytes:
    """A collector-style tar.gz: manifest.json plus one member per output, and the commands
    ``missing`` on the node listed without output."""
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": hostname,
        "started_at": "2026-11-30T08:00:00Z",
        "finished_at": "2026-11-30T08:02:00Z",
        "nonce": nonce,
        "commands": [
            {
                "name": name.rsplit(".", 1)[0],
                "argv": [name.rsplit(".", 1)[0]],
                "output": name,
                "exit_code": 0,
                "duration_s": 0.5,
            }
            for name in files
        ]
        + [
            {
                "name": name,
                "argv": [name],
                "output": None,
                "exit_code": None,
                "duration_s": None,
                "missing": True,
            }
            for name in missing
        ],
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in [("manifest.json", json.dumps(manifest).encode()), *files.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def checklist(db) -> list[ChecklistItem]:
    """The ten checklist items (fixtures/checklist.json), in their order."""
    call_command("loaddata", "checklist", verbosity=0)
    return list(ChecklistItem.objects.order_by("number"))


@pytest.fixture
def candidate(evaluation, offering) -> Candidate:
    return Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)


@pytest.fixture
def upload_token(candidate, members):
    from portal.services.tokens import upload_token_create

    token, raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    return token, raw


def stored_refresh(candidate_id: int) -> dict:
    """Everything a refresh stores: the verification, knockouts and the six scores."""
    candidate = Candidate.objects.get(pk=candidate_id)
    return {
        "verification": candidate.verification,
        "knockouts": candidate.knockouts,
        "scores": sorted(
            Score.objects.filter(candidate_id=candidate_id).values_list(
                "dimension", "value", "contributions"
            )
        ),
    }


def in_thread(work) -> tuple[threading.Thread, dict]:
    """Run ``work()`` in a transaction on a thread of its own (its own database connection);
    the returned dict gets its "result" or the "error" it raised, for the test to assert on."""
    from django.db import connection, transaction

    outcome: dict = {}

    def run():
        try:
            with transaction.atomic():
                outcome["result"] = work()
        except Exception as exc:  # reported to the test, which asserts on it
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome
