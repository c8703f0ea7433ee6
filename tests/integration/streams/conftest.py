"""A streams worker shared by the tests of a module (its own consumer group, starting at the topics' end)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import Producer, Worker, commit_group_at_end, wait_for


def start_worker(stack_env: dict[str, str], kafka_bootstrap: str, tmp: Path, app_id: str | None = None,
                 **settings: object) -> Worker:
    """A ready worker. Without ``app_id``: a new consumer group that starts at the topics' current end."""
    if app_id is None:
        app_id = f"streams-test-{secrets.token_hex(4)}"
        commit_group_at_end(kafka_bootstrap, app_id)
    worker = Worker(stack_env, tmp, app_id, **settings)
    worker.start()
    wait_for(lambda: "Worker]: Ready" in worker.log_tail(400) or worker.proc.poll() is not None,  # type: ignore[union-attr]
             60, "worker ready", worker)
    assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
    return worker


@pytest.fixture(scope="module")
def worker(stack_env: dict[str, str], kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    w = start_worker(stack_env, kafka_bootstrap, tmp_path_factory.mktemp("streams"),
                     live_coalesce_ms=200, batch_window_s=0.1)
    yield w
    w.stop()


@pytest.fixture
def producer(kafka_bootstrap: str) -> Iterator[Producer]:
    p = Producer(kafka_bootstrap)
    yield p
    p.close()
