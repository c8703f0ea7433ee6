"""``python -m api``: serve the API with gunicorn (gthread workers, as flask-sock needs)."""

from __future__ import annotations

import sys

from fleet.settings import ApiSettings


def gunicorn_argv(settings: ApiSettings) -> list[str]:
    return [
        "gunicorn",
        "--bind", f"{settings.host}:{settings.port}",
        "--worker-class", "gthread",
        "--workers", str(settings.workers),
        "--threads", str(settings.threads),
        "--access-logfile", "-",
        # %(U)s is the path without the query string: the password grant carries the password in
        # the query (console-spec §7), so query strings must never reach the log.
        "--access-logformat", '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(L)ss',
        "api.wsgi:app",
    ]


def main() -> None:
    from gunicorn.app.wsgiapp import run

    sys.argv = gunicorn_argv(ApiSettings())
    run()


if __name__ == "__main__":
    main()
