"""Pure batch report logic: polars frames in, frames out; no database, no Dagster.

Modules, in the order a report day uses them (``orchestration/assets/daily.py`` wires them):

- ``rules``: the thresholds (``Rules``, from ``ReportSettings``) and the day window (``Window``).
- ``segments``: a day's positions sorted, drift spikes removed, one row per point with its segment from the
  previous point (distance, time, gap, drift, jitter, counted km) and the day it belongs to.
- ``mileage``: per-vehicle mileage (odometer by sane deltas, else filtered GPS; ``mileage_source``),
  speeds, overspeed, data counts.
- ``motion``: trips, parks and idling (Traccar's classic rules, fleetwatch's 5 km/h).
- ``runtime``: seconds per state from transition logs (ACC, business state, online), clipped to the day;
  the same from positions when no state is known.
- ``alarms``: alarm counters per key per terminal.
- ``drivers``: trips attributed to drivers (0x0702 sign-in, else the assigned driver) and driver-days.
- ``vehicle_day``: the ``car_day_report`` rows from all of the above.
- ``kpi``: regulator KPI numerators and denominators per vehicle and per enterprise.
- ``enterprise``: enterprise-days.
"""
