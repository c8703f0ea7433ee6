"""``python -m streams worker``: run the Faust worker with settings from the environment.

Settings are read here, once, and passed to the factory (FLEET_STREAMS_*, FLEET_KAFKA_*,
FLEET_DATABASE_URL; see fleet/settings.py). SIGTERM/SIGINT stop it cleanly; after SIGKILL a restart
resumes from the last committed offsets and the idempotent sinks absorb the replay.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["worker"]:
        print("usage: python -m streams worker", file=sys.stderr)
        return 2
    import faust

    from fleet.gc_tuning import tune_gc
    from fleet.settings import KafkaSettings, StreamsSettings, database_url, kafka_bootstrap
    from streams.app import create_app

    settings = StreamsSettings()
    kafka = KafkaSettings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings, kafka_bootstrap(kafka), database_url(), kafka)
    tune_gc(settings.gc_threshold)
    worker = faust.Worker(
        app,
        loglevel=settings.log_level,
        logfile=settings.log_file or None,
        quiet=True,
        redirect_stdouts=False,
    )
    worker.execute_from_commandline()  # runs until stopped; exits the process itself
    return 0


if __name__ == "__main__":
    sys.exit(main())
