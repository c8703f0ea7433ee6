"""The first start's report build (``fleet up``): the reports of the generated history's days not built
yet and their months, then the analyst notebooks' pages, as Dagster runs in the instance of DAGSTER_HOME
(orchestration.backfill), so Dagster's UI shows them built with their runs; later starts build only what
is missing (and today).

It runs as its own process beside the children's start, in its own process group: stopping the stack
stops it (and the notebook kernels it started) at once, mid-run, instead of waiting for the build to end
(an interrupted run is built again by the next start or the nightly schedule). A failure is said, never
fatal: the stack runs without the reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import date

import click

from fleet.settings import ReportSettings
from fleet.supervisor import _die_with_parent


def _say(message: str) -> None:
    click.echo(f"[fleet up] {message}", err=True)


def build_reports(database_url: str) -> int:
    reports = ReportSettings()
    try:
        import dagster as dg

        from orchestration.backfill import backfill_reports, render_notebook_pages
        from orchestration.build import ReportsEnv

        env = ReportsEnv.from_settings(database_url, reports)
        today = env.today()
        with dg.DagsterInstance.get() as instance:
            summary = backfill_reports(instance, reports, env, date.fromisoformat(reports.start_date), today)
            failed = f", {len(summary.failed_run_ids)} runs failed (see Dagster)" if summary.failed_run_ids else ""
            _say(f"reports: {len(summary.days)} days and {len(summary.months)} months built by"
                 f" {len(summary.run_ids) + len(summary.failed_run_ids)} Dagster runs in {summary.seconds:.0f} s"
                 f" ({len(summary.skipped)} already done){failed}")
            started = time.monotonic()
            rendered = render_notebook_pages(instance, reports, env)
            _say(f"notebooks: {'rendered' if rendered else 'NOT rendered (see Dagster)'} by a Dagster run in"
                 f" {time.monotonic() - started:.0f} s")
        return 0
    except Exception as exc:  # the stack runs without them; the nightly schedule catches up
        _say(f"reports not built: {type(exc).__name__}: {exc}")
        return 1


class ReportBackfill:
    """The build's process: ``join`` waits for it (``fleet up --check``, tests), ``stop`` ends its group."""

    def __init__(self, database_url: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "fleet.report_backfill", database_url],
                                     env=dict(os.environ), start_new_session=True, preexec_fn=_die_with_parent)

    def join(self, timeout: float | None = None) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def is_alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.proc.poll() is not None:
            return
        _say("stopping the report build (the next start goes on with what is missing)")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=timeout_s)
                break
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the notebook kernels it started
        except ProcessLookupError:
            pass


if __name__ == "__main__":
    sys.exit(build_reports(sys.argv[1]))
