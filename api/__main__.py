"""``python -m api``: serve the API with gunicorn (gevent worker, see ``api.server``)."""

from __future__ import annotations

import sys

from fleet.settings import ApiSettings

GEVENT_WORKER = "api.server.FleetGeventWorker"
GRACEFUL_TIMEOUT_S = 5


def gunicorn_argv(settings: ApiSettings) -> list[str]:
    if settings.worker_class == "gevent":
        # One greenlet per connection; --keep-alive also bounds the read of a request's headers.
        worker = ["--worker-class", GEVENT_WORKER,
                  "--worker-connections", str(settings.worker_connections),
                  "--keep-alive", str(settings.header_timeout_s),
                  # On SIGTERM the worker waits for open connections; STOMP sockets never finish by
                  # themselves, so bound the wait below `fleet up`'s 15 s before SIGKILL.
                  "--graceful-timeout", str(GRACEFUL_TIMEOUT_S)]
    else:  # the previous shape (a thread per connection), kept to compare in benchmarks
        worker = ["--worker-class", "gthread", "--threads", str(settings.threads)]
    return [
        "gunicorn",
        "--bind", f"{settings.host}:{settings.port}",
        *worker,
        "--workers", str(settings.workers),
        # Unused, and one shared path ($HOME/.gunicorn/gunicorn.ctl) for every API on the machine.
        "--no-control-socket",
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
