"""The agents' database access: one async connection per user, retried through outages.

Failure policy (the whole point of this module):

- ``psycopg.DataError`` / ``psycopg.IntegrityError`` are about the data being written (a value out of
  range, an unknown device id): they propagate, and the caller dead-letters the message that caused them.
- Every other failure (server down, connection lost, deadlock, even a missing table after a bad
  deployment) is retried with exponential backoff, forever, while the caller waits. The agent stops
  taking messages, its offsets are not committed, and good data is never dead-lettered for an outage.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg

from warehouse.db import libpq_url

log = logging.getLogger(__name__)

T = TypeVar("T")

DATA_ERRORS: tuple[type[Exception], ...] = (psycopg.DataError, psycopg.IntegrityError)


class Database:
    """An autocommit async connection, (re)opened on demand; ``transact`` runs work in a transaction."""

    def __init__(self, url: str, *, name: str, max_backoff_s: float = 10.0) -> None:
        self._url = libpq_url(url)
        self._name = name
        self._max_backoff_s = max_backoff_s
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self.retries = 0  # outage retries so far (tests and logs)

    @property
    def url(self) -> str:
        return self._url

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(
                self._url, autocommit=True, connect_timeout=5, application_name=f"streams-{self._name}"
            )
        return self._conn

    async def _discard(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.close()
            except Exception:  # a broken connection may fail to close; it is gone anyway
                log.debug("%s: closing a broken connection failed", self._name, exc_info=True)

    async def transact(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]]) -> T:
        """Run ``work(conn)`` in one transaction until it succeeds. Raises only DATA_ERRORS."""
        delay_s = 0.1
        while True:
            try:
                conn = await self._connection()
                async with conn.transaction():
                    return await work(conn)
            except DATA_ERRORS:
                raise
            except (psycopg.Error, OSError) as exc:
                self.retries += 1
                log.warning("%s: database unavailable (%s); retrying in %.1f s", self._name, exc, delay_s)
                await self._discard()
                await asyncio.sleep(delay_s)
                delay_s = min(delay_s * 2, self._max_backoff_s)

    async def close(self) -> None:
        await self._discard()
