"""The reports' one resource: ``ReportsEnv`` (database URL, lake folder, time zone and rules), built from
the settings by ``orchestration.definitions``; tests pass their own."""

from orchestration.build import ReportsEnv

RESOURCE_KEY = "reports"

__all__ = ["RESOURCE_KEY", "ReportsEnv"]
