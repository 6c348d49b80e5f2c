"""One user's engine calls are capped across processes; past the cap they queue, then get a 429."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from django.test import Client, override_settings

from policyeditor.api.models import ApiToken
from policyeditor.core import fair_share
from policyeditor.core.fair_share import EngineBusy, acquire
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter

pytestmark = pytest.mark.django_db

CEL = {"expression": "1 + 1 == 2"}


def hold_all_slots(user, limit: int) -> list[int]:
    """What other server processes running `limit` evaluations of `user` look like: held flocks."""
    return [acquire(f"user-{user.pk}", limit, 0) for _ in range(limit)]


def release(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def api_client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 'fair')[1]}")


@override_settings(POLICYEDITOR_EVAL_PER_USER=2, POLICYEDITOR_EVAL_QUEUE_SECONDS=0.2)
def test_a_user_running_their_share_gets_a_429_problem_with_retry_after_from_the_api(alice, bob):
    held = hold_all_slots(alice, 2)
    try:
        response = api_client(alice).post("/api/v1/cel", CEL, content_type="application/json")
        assert response.status_code == 429
        assert response["Content-Type"] == "application/problem+json"
        assert int(response["Retry-After"]) >= 1
        problem = response.json()
        assert problem["type"].endswith("/evaluation-busy")
        assert "2 evaluations running" in problem["detail"]
        # Another user's calls are not held up by alice's.
        other = api_client(bob).post("/api/v1/cel", CEL, content_type="application/json")
        assert other.status_code == 200 and other.json()["value"] is True
    finally:
        release(held)
    again = api_client(alice).post("/api/v1/cel", CEL, content_type="application/json")
    assert again.status_code == 200


@override_settings(POLICYEDITOR_EVAL_PER_USER=1, POLICYEDITOR_EVAL_QUEUE_SECONDS=0.2)
def test_an_htmx_view_answers_a_429_fragment_that_says_why(alice):
    draft = create_draft(alice, get_starter("replica-limit").documents())
    client = Client()
    client.force_login(alice)
    held = hold_all_slots(alice, 1)
    try:
        response = client.post(
            f"/drafts/{draft.pk}/validate/",
            {"docs": "", "kubernetes_version": "1.34"},
            HTTP_HX_REQUEST="true",
        )
    finally:
        release(held)
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    body = response.content.decode()
    assert "1 evaluation running" in body
    assert "<html" not in body  # a fragment for htmx to swap in, not a whole page


@override_settings(POLICYEDITOR_EVAL_PER_USER=1, POLICYEDITOR_EVAL_QUEUE_SECONDS=3)
def test_a_call_past_the_share_waits_for_a_slot_to_free_up(alice):
    held = hold_all_slots(alice, 1)
    timer = threading.Timer(0.3, release, args=(held,))
    timer.start()
    started = time.monotonic()
    response = api_client(alice).post("/api/v1/cel", CEL, content_type="application/json")
    timer.join()
    assert response.status_code == 200
    assert time.monotonic() - started >= 0.25  # it queued rather than failing at once


def test_a_slot_held_by_a_process_that_dies_is_free_again(alice):
    path = fair_share.slots_dir()
    path.mkdir(parents=True, exist_ok=True)
    lock = path / f"user-{alice.pk}.0.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(EngineBusy):
            acquire(f"user-{alice.pk}", 1, 0)
    finally:
        holder.kill()
        holder.wait(timeout=10)
    release([acquire(f"user-{alice.pk}", 1, 1.0)])


@override_settings(POLICYEDITOR_EVAL_PER_USER=1, POLICYEDITOR_EVAL_QUEUE_SECONDS=0)
def test_one_request_making_several_engine_calls_uses_one_share(alice, monkeypatch):
    # The live preview starts a validation and may run more engine work before collecting it.
    from policyeditor.core.engine_gate import run_engine, start_engine

    state = fair_share._RequestState(request=type("R", (), {"user": alice, "META": {}})())
    token = fair_share._current.set(state)
    try:
        collect = start_engine(abs, -2)
        assert run_engine(abs, -3) == 3
        assert collect() == 2
        assert state.held == 0
    finally:
        fair_share._current.reset(token)
