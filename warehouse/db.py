"""Database connections: ``connect(url)`` for one psycopg connection, ``pool(url)`` for a process pool,
``async_pool(url)`` for an asyncio service's one pool (the gateway's servers and the media server),
``PooledCalls(url)`` for an asyncio service whose queries are plain functions run in threads (the link services).

URLs are libpq URLs (``postgresql://fleet@127.0.0.1:55432/fleet``); ``fleet.settings.database_url()``
gives the configured one. yoyo's ``postgresql+psycopg://`` form is accepted too.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool, ConnectionPool

T = TypeVar("T")


def libpq_url(url: str) -> str:
    """`url` with a driver suffix (``postgresql+psycopg://``) removed."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.startswith("postgresql+"):
        return f"postgresql://{rest}"
    return url


def connect(url: str, *, autocommit: bool = False, **kwargs: Any) -> psycopg.Connection[Any]:
    """A new psycopg connection (caller closes it; use it as a context manager).

    Raises psycopg.OperationalError when the server is unreachable.
    """
    kwargs.setdefault("connect_timeout", 10)
    return psycopg.connect(libpq_url(url), autocommit=autocommit, **kwargs)


def pool(url: str, *, min_size: int = 1, max_size: int | None = None, name: str = "fleet",
         **kwargs: Any) -> ConnectionPool:
    """An opened psycopg_pool.ConnectionPool; `max_size` defaults to ``DatabaseSettings.pool_max``.

    `kwargs` go to each connection (e.g. ``autocommit=True``). Close the pool when done
    (``pool.close()`` or ``with pool(...) as p``). Raises psycopg_pool.PoolTimeout when no connection
    can be made within 30 s.
    """
    if max_size is None:
        from fleet.settings import DatabaseSettings

        max_size = DatabaseSettings().pool_max
    result = ConnectionPool(
        libpq_url(url), min_size=min_size, max_size=max(max_size, min_size), name=name,
        kwargs={"connect_timeout": 10, **kwargs}, open=False,
    )
    result.open(wait=True, timeout=30)
    return result


def async_pool(url: str, *, min_size: int = 1, max_size: int | None = None, name: str = "fleet",
               **kwargs: Any) -> AsyncConnectionPool:
    """A NOT yet opened psycopg_pool.AsyncConnectionPool (an asyncio service opens it once its loop runs:
    ``await p.open(wait=False)`` to start without waiting for the database). `max_size` defaults to
    ``DatabaseSettings.pool_max``; `kwargs` go to each connection (e.g. ``autocommit=True``). A connection
    that cannot be made raises psycopg_pool.PoolTimeout at ``p.connection()`` after the pool's timeout."""
    if max_size is None:
        from fleet.settings import DatabaseSettings

        max_size = DatabaseSettings().pool_max
    return AsyncConnectionPool(libpq_url(url), min_size=min_size, max_size=max(max_size, min_size), name=name,
                               kwargs={"connect_timeout": 10, **kwargs}, open=False)


class PooledCalls:
    """``calls(fn, *args)`` runs ``fn(conn, *args)`` on an autocommit connection kept between calls, from any thread
    (asyncio services call it through ``asyncio.to_thread``). A service that queries per Kafka record or every few
    seconds then pays for a connection (a PostgreSQL backend process and its authentication) once, not per call:
    a new connection per lookup held the JT/T 809 forwarding back by seconds when thousands of vehicles started
    at once. The pool opens on the first call without waiting for the database, so a service starts while the
    database is away; a call then raises psycopg_pool.PoolTimeout (an OperationalError) after ``timeout_s``. Each
    connection is checked as it is taken (an empty query), so a database restarted between two calls costs the
    next call a new connection, not an error. An asyncio service runs inside ``async with calls.kept():``, which
    closes the connections however the run ends; others call ``close()`` when they stop."""

    def __init__(self, url: str, *, name: str, max_size: int = 2, timeout_s: float = 10.0) -> None:
        self._url = libpq_url(url)
        self._name = name
        self._max_size = max_size
        self._timeout_s = timeout_s
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()

    def _opened(self) -> ConnectionPool:
        with self._lock:
            if self._pool is None:
                self._pool = ConnectionPool(self._url, min_size=1, max_size=self._max_size, name=self._name,
                                            kwargs={"connect_timeout": 10, "autocommit": True}, open=False,
                                            check=ConnectionPool.check_connection, timeout=self._timeout_s)
                self._pool.open(wait=False)
            return self._pool

    def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        with self._opened().connection() as conn:
            return fn(conn, *args)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[PooledCalls]:
        """The calls for the body of an asyncio service's run: closed when it returns, fails or is cancelled."""
        try:
            yield self
        finally:
            await asyncio.to_thread(self.close)
