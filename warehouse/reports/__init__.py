"""Report tables: what the Dagster assets write and the report API reads.

- ``columns``: the alarm counter columns of ``device_day_report`` / ``device_month_report`` (one per key of
  the alarm catalogue, ``fleet/alarm_catalog.py``; a test asserts the migration has exactly these).
- ``writes``: a day's (or month's) rows replaced in one transaction (DELETE of the key, then COPY).
- ``rollups``: the month tables as SQL over the day tables.
- ``queries``: the report API's reads (scoped like every other read, ``warehouse.queries.scope``).
"""
