"""Dagster wiring of the reports: partitions, assets, checks, schedules, the late-data sensor and
resources, built by ``orchestration.definitions.build_definitions(settings)``. The work itself is
``orchestration.build`` (plain Python over ``pipelines`` and ``warehouse``).

No module here may use ``from __future__ import annotations``: Dagster reads the annotations of asset
functions at definition time (ruff bans the import in this package).
"""
