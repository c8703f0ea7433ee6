"""Database connections: ``connect(url)`` for one psycopg connection, ``pool(url)`` for a process pool,
``async_pool(url)`` for an asyncio service's one pool (the gateway's servers and the media server).

URLs are libpq URLs (``postgresql://fleet@127.0.0.1:55432/fleet``); ``fleet.settings.database_url()``
gives the configured one. yoyo's ``postgresql+psycopg://`` form is accepted too.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, ConnectionPool


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
