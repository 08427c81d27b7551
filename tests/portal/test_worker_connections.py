"""The worker keeps its database connection across tasks as Django's rules allow
(CONN_MAX_AGE), instead of Celery's Django fixup closing it before and after every task."""

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from portal.celery import app
from portal.tasks import worker_heartbeat_task

pytestmark = pytest.mark.django_db(transaction=True)


def _run_tasks_as_a_worker(count: int) -> list:
    """Send the signals a worker sends around ``count`` tasks, the fixup's handlers included
    (a worker process installs them), and return the raw connection each task used."""
    fixup = DjangoWorkerFixup(app)
    task = worker_heartbeat_task
    used = []
    task.push_request(is_eager=False)
    try:
        for number in range(count):
            fields = {"sender": task, "task_id": f"t{number}", "task": task, "args": ()}
            signals.task_prerun.send(kwargs={}, **fields)
            fixup.on_task_prerun(sender=task)
            task()
            used.append(connection.connection)
            signals.task_postrun.send(kwargs={}, retval=None, state="SUCCESS", **fields)
            fixup.on_task_postrun(sender=task)
    finally:
        task.pop_request()
    return used


@pytest.fixture
def conn_max_age():
    saved = connection.settings_dict["CONN_MAX_AGE"]

    def set_to(seconds: int) -> None:
        connection.close()
        connection.settings_dict["CONN_MAX_AGE"] = seconds

    yield set_to
    connection.close()
    connection.settings_dict["CONN_MAX_AGE"] = saved


def test_the_fixup_is_told_not_to_close_connections_itself():
    assert DjangoWorkerFixup(app).db_reuse_max >= 10**9


def test_a_worker_reuses_its_connection_across_tasks_within_conn_max_age(conn_max_age):
    conn_max_age(60)
    used = _run_tasks_as_a_worker(3)
    assert used[0] is not None
    assert used[1] is used[0] and used[2] is used[0]
    assert connection.connection is used[0]


def test_with_conn_max_age_zero_each_task_gets_a_fresh_connection(conn_max_age):
    conn_max_age(0)
    used = _run_tasks_as_a_worker(2)
    assert used[0] is not None and used[1] is not None and used[1] is not used[0]
    assert connection.connection is None  # closed after the last task, as after a request


def test_a_connection_left_inside_a_transaction_is_dropped_after_the_task(conn_max_age):
    conn_max_age(60)
    (first,) = _run_tasks_as_a_worker(1)
    connection.set_autocommit(False)  # what a task that died mid-transaction leaves behind
    task = worker_heartbeat_task
    task.push_request(is_eager=False)
    try:
        signals.task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
    finally:
        task.pop_request()
    assert connection.connection is None
    (second,) = _run_tasks_as_a_worker(1)
    assert second is not None and second is not first
