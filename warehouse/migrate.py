"""Apply the numbered SQL migrations in ``warehouse/migrations/`` with yoyo (forward-only).

``apply(url)`` is idempotent and safe to call concurrently: yoyo takes a lock table, applies what is
missing in order, each file in its own transaction, and records it in ``_yoyo_migration``.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def yoyo_url(url: str) -> str:
    """The libpq URL rewritten for yoyo's psycopg 3 backend (``postgresql+psycopg://``)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    if scheme in ("postgres", "postgresql", "postgresql+psycopg"):
        return f"postgresql+psycopg://{rest}"
    raise ValueError(f"unsupported database URL scheme {scheme!r} (expected postgresql://)")


def pending(url: str) -> list[str]:
    """Ids of the migrations not yet applied to `url`."""
    from yoyo import get_backend, read_migrations

    backend = get_backend(yoyo_url(url))
    try:
        return [m.id for m in backend.to_apply(read_migrations(str(MIGRATIONS_DIR)))]
    finally:
        backend.connection.close()


def apply(url: str) -> list[str]:
    """Apply every pending migration to `url`; returns the ids applied (empty when up to date).

    Raises the driver's error (psycopg.Error) when a migration fails; that migration is rolled back
    and the ones before it stay applied.
    """
    from yoyo import get_backend, read_migrations

    backend = get_backend(yoyo_url(url))
    try:
        migrations = read_migrations(str(MIGRATIONS_DIR))
        with backend.lock():
            todo = backend.to_apply(migrations)
            if todo:
                log.info("applying migrations %s", ", ".join(m.id for m in todo))
                backend.apply_migrations(todo)
            return [m.id for m in todo]
    finally:
        backend.connection.close()


def main() -> None:
    """``python -m warehouse.migrate [URL]``: migrate the configured (or given) database."""
    import sys

    from fleet.settings import database_url

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    url = sys.argv[1] if len(sys.argv) > 1 else database_url()
    applied = apply(url)
    print(f"applied {len(applied)} migration(s)" + (f": {', '.join(applied)}" if applied else ""))


if __name__ == "__main__":
    main()
