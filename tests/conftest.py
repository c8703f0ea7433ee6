"""Session fixtures: real PostgreSQL and Kafka, started only when a test asks for them.

- ``pg_url``: libpq URL of a migrated, otherwise empty database (private server on a free port,
  fsync off), or a fresh database on the server ``FLEET_DATABASE_URL`` names.
- ``kafka_bootstrap``: ``host:port`` of a broker with every topic of ``fleet.topics`` (private
  single-node KRaft on free ports, or ``FLEET_KAFKA_BOOTSTRAP``).
- ``stack_env``: ``os.environ`` plus FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP for subprocesses.
- ``pg_conn``: a psycopg connection to ``pg_url`` for one test (closed afterwards).
- ``free_port``: a function returning a free TCP port on 127.0.0.1.

Servers stop at the end of the session, also when tests fail or the run is interrupted.
Tests under ``tests/integration`` and ``tests/e2e`` get the matching marker automatically.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import warehouse.passwords as _passwords
from tests.support.ports import free_port as _free_port
from tests.support.stack import SessionStack

_TESTS_DIR = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    # kafka-python 3.0 loads its protocol schemas with a deprecated importlib API on every request
    for message in ("read_text is deprecated", "open_text is deprecated"):
        config.addinivalue_line("filterwarnings", f"ignore:{message}:DeprecationWarning")


# The one end-to-end module that drives no browser and no console stack: it starts `fleet up` whole.
_STACK_SMOKE_MODULE = "tests/e2e/test_fleet_up.py"
_STACK_SMOKE = _TESTS_DIR.parent / _STACK_SMOKE_MODULE


def _run_rank(path: Path) -> int:
    """The order the workers take the tests in (pytest_xdist_make_scheduler): the browser tests (the longest unit),
    then the `fleet up` smoke test (two minutes in one test), the integration modules, the unit tests last (many
    short modules that even out the workers' ends)."""
    if path == _STACK_SMOKE:
        return 1
    if (_TESTS_DIR / "e2e") in path.parents:
        return 0
    return 2 if (_TESTS_DIR / "integration") in path.parents else 3


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        for suite in ("integration", "e2e"):
            if (_TESTS_DIR / suite) in path.parents:
                item.add_marker(getattr(pytest.mark, suite))
    items.sort(key=lambda item: _run_rank(Path(str(item.path))))  # stable: each group keeps its order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """How `make test`'s pytest workers share the tests (scripts/test.sh): every browser test on one worker,
    because they drive one console stack and one Chromium that a second worker would start again
    (tests/e2e/conftest.py); every other module (the `fleet up` smoke test too) as a unit on whichever worker is
    free, so a module's fixtures (its gateway, its workers, its database) start once. The units are taken in the
    order pytest_collection_modifyitems gives (the browser tests first, the unit tests last), not by their
    number of tests: a one-test module can take minutes, and at the end it would keep one worker busy alone."""
    from xdist.scheduler import LoadScopeScheduling

    class SuiteScheduling(LoadScopeScheduling):
        def __init__(self, config: pytest.Config, log: Any = None) -> None:
            super().__init__(config, log)
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            browser = module.startswith("tests/e2e/") and module != _STACK_SMOKE_MODULE
            return "tests/e2e" if browser else module

    return SuiteScheduling(config, log)


PRODUCT_HASHER = _passwords._hasher  # the product's argon2id parameters (tests/unit/warehouse/test_passwords.py)


@pytest.fixture(scope="session", autouse=True)
def _cheap_password_hashes() -> Iterator[None]:
    """The passwords the tests store (the demo seed's administrators, each test's own users) are hashed with
    argon2id at its lowest cost. A check reads the cost from the stored hash, so the API checks them by the
    same code as any other, in a millisecond instead of ~130 ms and 64 MiB: sign-ins and made-up users were
    minutes of the suite's CPU. Servers the tests start as processes (the console stack's API, `fleet up`)
    hash with the product's parameters, which tests/unit/warehouse/test_passwords.py asserts."""
    from argon2 import PasswordHasher

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_passwords, "_hasher", lambda: cheap)
        _passwords._dummy_hash.cache_clear()
        yield
    _passwords._dummy_hash.cache_clear()


@pytest.fixture(scope="session")
def _session_stack() -> Iterator[SessionStack]:
    stack = SessionStack()
    atexit.register(stack.close)  # belt and braces: e.g. an interpreter exit inside a fixture
    try:
        yield stack
    finally:
        stack.close()
        atexit.unregister(stack.close)


@pytest.fixture(scope="session")
def pg_url(_session_stack: SessionStack) -> str:
    """URL of a migrated, empty database (see module doc)."""
    return _session_stack.database_url()


@pytest.fixture(scope="session")
def kafka_bootstrap(_session_stack: SessionStack) -> str:
    """Bootstrap servers of a broker with fleetwatch's topics (see module doc)."""
    return _session_stack.kafka_bootstrap()


@pytest.fixture(scope="session")
def stack_env(pg_url: str, kafka_bootstrap: str) -> dict[str, str]:
    """Environment for subprocesses under test (gateway, workers): points them at the session's servers."""
    return {**os.environ, "FLEET_DATABASE_URL": pg_url, "FLEET_KAFKA_BOOTSTRAP": kafka_bootstrap}


@pytest.fixture
def pg_conn(pg_url: str) -> Iterator[Any]:
    """A psycopg connection (autocommit off) to the session database, closed after the test."""
    from warehouse.db import connect

    conn = connect(pg_url)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture(scope="session")
def free_port() -> Callable[[], int]:
    """``free_port()`` returns a TCP port nothing listens on (bind it soon)."""
    return _free_port
