"""The API's connection pool (psycopg 3). Opened when the app is built, without waiting for it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app
from psycopg import Connection
from psycopg_pool import ConnectionPool

from warehouse.db import libpq_url

EXTENSION_KEY = "fleet_db"


class Database:
    """A pool; ``connection()`` commits on a clean exit and rolls back when the block raises."""

    def __init__(self, url: str, *, max_size: int = 10, timeout_s: float = 5.0) -> None:
        self.url = url
        self.pool: ConnectionPool[Connection[Any]] = ConnectionPool(
            libpq_url(url), min_size=1, max_size=max(1, max_size), timeout=timeout_s, open=False, name="fleet-api"
        )

    def open(self) -> None:
        self.pool.open(wait=False)

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def connection(self) -> Iterator[Connection[Any]]:
        with self.pool.connection() as conn:
            yield conn


def get_db(app: Flask | None = None) -> Database:
    db: Database = (app or current_app).extensions[EXTENSION_KEY]
    return db
