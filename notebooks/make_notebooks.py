import nbformat as nbf

SETUP = """import lake  # first: it selects matplotlib's Agg backend (no display; lake.show puts PNGs in the output)
import matplotlib.pyplot as plt
import polars as pl

print("lake:", lake.lake_dir(), "datasets:", lake.datasets())"""


def nb(title: str, intro: str, cells: list[tuple[str, str]]) -> nbf.NotebookNode:
    book = nbf.v4.new_notebook()
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.cells.append(nbf.v4.new_markdown_cell(f"# {title}\n\n{intro}"))
    book.cells.append(nbf.v4.new_code_cell(SETUP))
    for kind, text in cells:
        if "fig, ax" in text:  # Agg draws off screen: lake.show puts the PNG in the output
            text += "\nlake.show(fig)"
        book.cells.append(nbf.v4.new_markdown_cell(text) if kind == "md" else nbf.v4.new_code_cell(text))
    return book


books = {
"fleet_mileage_utilisation.ipynb": nb(
    "Fleet mileage and utilisation",
    "Daily mileage of the fleet, active vehicles (出车: at least 1 km in a day) and the utilisation rate "
    "(出车率 = active vehicle-days / vehicle-days), per enterprise; the top vehicles of the period. Source: "
    "`car_day_report` in the lake (one row per vehicle and local day).",
    [("code", """daily = lake.query('''
    SELECT day, count(*) AS vehicles, sum(CASE WHEN active THEN 1 ELSE 0 END) AS active,
           round(sum(mileage_km), 1) AS mileage_km, round(sum(drive_s) / 3600.0, 1) AS drive_h
      FROM car_day_report GROUP BY day ORDER BY day''')
daily = daily.with_columns(utilisation=(pl.col("active") / pl.col("vehicles")).round(3))
daily"""),
     ("code", """fig, ax = plt.subplots(figsize=(8, 3))
ax.bar([str(d) for d in daily["day"]], daily["mileage_km"].to_list(), color="#13c2c2")
ax.set_ylabel("km")
ax.set_title("Fleet mileage per day")
ax2 = ax.twinx()
ax2.plot([str(d) for d in daily["day"]], daily["utilisation"].to_list(), color="#fa8c16", marker="o")
ax2.set_ylim(0, 1)
ax2.set_ylabel("utilisation")
fig.autofmt_xdate()
fig.tight_layout()"""),
     ("code", """by_enterprise = (lake.scan("car_day_report")
    .group_by("enterprise_id")
    .agg(vehicle_days=pl.len(), active_days=pl.col("active").sum(), mileage_km=pl.col("mileage_km").sum())
    .with_columns(utilisation=(pl.col("active_days") / pl.col("vehicle_days")).round(3))
    .sort("mileage_km", descending=True).collect())
by_enterprise"""),
     ("code", """top = lake.query('''
    SELECT plate_number, round(sum(mileage_km), 1) AS km, sum(trips) AS trips, max(max_speed_kmh) AS max_speed
      FROM car_day_report GROUP BY plate_number ORDER BY km DESC LIMIT 10''')
top"""),
     ("code", """trips = lake.query("SELECT distance_km, duration_s FROM trip")
fig, ax = plt.subplots(figsize=(5, 3))
ax.hist(trips["distance_km"].to_list() or [0], bins=20, color="#1890ff")
ax.set_xlabel("trip km")
ax.set_title(f"{trips.height} trips")
fig.tight_layout()""")]),
"alarm_hotspots_hours.ipynb": nb(
    "Alarm hot spots and hours",
    "Where and when alarms start: counts per alarm key, per local hour of the day, and on a coarse grid "
    "(0.01° cells, about 1 km) of their positions. Source: the `alarm` episodes and `device_day_report` counters.",
    [("code", """alarms = lake.query('''
    SELECT key, type, start_time, lng, lat, day FROM alarm''')
print(alarms.height, "alarm episodes")
by_key = alarms.group_by("key").agg(n=pl.len()).sort("n", descending=True)
by_key"""),
     ("code", """hours = lake.query('''
    SELECT floor(((epoch(start_time) + 8 * 3600) % 86400) / 3600)::int AS hour, count(*) AS n
      FROM alarm GROUP BY hour ORDER BY hour''')
fig, ax = plt.subplots(figsize=(8, 3))
ax.bar(hours["hour"].to_list(), hours["n"].to_list(), color="#f5222f")
ax.set_xticks(range(0, 24, 2))
ax.set_xlabel("local hour (UTC+8)")
ax.set_title("Alarms by hour")
fig.tight_layout()"""),
     ("code", """cells = (alarms.filter(pl.col("lng").is_not_null())
    .with_columns(cell_lng=(pl.col("lng") * 100).floor() / 100, cell_lat=(pl.col("lat") * 100).floor() / 100)
    .group_by("cell_lng", "cell_lat").agg(n=pl.len()).sort("n", descending=True))
fig, ax = plt.subplots(figsize=(5, 4))
if cells.height:
    sc = ax.scatter(cells["cell_lng"].to_list(), cells["cell_lat"].to_list(), s=[10 + 5 * n for n in cells["n"]],
                    c=cells["n"].to_list(), cmap="Reds")
    fig.colorbar(sc, ax=ax, label="alarms")
ax.set_xlabel("lng")
ax.set_ylabel("lat")
ax.set_title("Alarm hot spots (0.01° cells)")
fig.tight_layout()
cells.head(10)"""),
     ("code", """counters = lake.query('''
    SELECT day, sum(alarm_total) AS alarms, sum(active_safety) AS active_safety, sum(unhandled) AS unhandled
      FROM device_day_report GROUP BY day ORDER BY day''')
counters""")]),
"driver_safety_ranking.ipynb": nb(
    "Driver safety ranking",
    "A driving-behaviour score per driver: 100 minus deductions per 100 km for overspeed and the alarms "
    "of the trips they drove (an example rule; the platform's `drivingGradeRule` setting holds the real weights). "
    "Sources: `trip` (driver attribution), `car_day_report` (overspeed), `device_day_report` (alarm counters).",
    [("code", """drivers = lake.query('''
    SELECT driver_id, count(*) AS trips, round(sum(distance_km), 1) AS km, round(sum(duration_s) / 3600.0, 2) AS hours,
           max(max_speed_kmh) AS max_speed
      FROM trip WHERE driver_id IS NOT NULL GROUP BY driver_id''')
drivers"""),
     ("code", """vehicle_days = lake.query('''
    SELECT c.car_id, c.day, c.overspeed_count, coalesce(d.alarm_total, 0) AS alarms,
           coalesce(d.active_safety, 0) AS active_safety
      FROM car_day_report c LEFT JOIN device_day_report d ON d.car_id = c.car_id AND d.day = c.day''')
trips = lake.query("SELECT car_id, day, driver_id, distance_km FROM trip WHERE driver_id IS NOT NULL")
# a vehicle-day's events go to its drivers in proportion to the distance each drove that day
share = trips.group_by("car_id", "day", "driver_id").agg(km=pl.col("distance_km").sum())
share = share.with_columns(part=pl.col("km") / pl.col("km").sum().over("car_id", "day"))
events = share.join(vehicle_days, on=["car_id", "day"], how="left").group_by("driver_id").agg(
    overspeed=(pl.col("overspeed_count").fill_null(0) * pl.col("part")).sum(),
    alarms=(pl.col("alarms").fill_null(0) * pl.col("part")).sum(),
    active_safety=(pl.col("active_safety").fill_null(0) * pl.col("part")).sum())
ranking = drivers.join(events, on="driver_id", how="left").with_columns(
    per_100km=((pl.col("overspeed") * 2 + pl.col("alarms") + pl.col("active_safety") * 3)
               / pl.max_horizontal(pl.col("km"), pl.lit(1.0)) * 100))
ranking = ranking.with_columns(score=(100 - pl.col("per_100km")).clip(0, 100).round(1)).sort("score")
ranking"""),
     ("code", """fig, ax = plt.subplots(figsize=(6, 3))
ax.barh([str(d) for d in ranking["driver_id"]], ranking["score"].to_list(), color="#52c41a")
ax.set_xlim(0, 100)
ax.set_xlabel("score")
ax.set_title("Driver safety score (lowest first)")
fig.tight_layout()""")]),
"data_quality_kpis.ipynb": nb(
    "Data-quality KPIs (regulator)",
    "The assessment ratios of docs/kpi.md per enterprise and day: 上线率 (online rate), 轨迹完整率 (track "
    "completeness), 数据合格率 (data qualification), 卫星定位漂移车辆率 (drift rate); recomputed here from the "
    "numerators and denominators of `kpi_vehicle_day` to show they are sums, never averaged ratios.",
    [("code", """kpi = lake.query('''
    SELECT day, enterprise_id, online_rate, completeness_rate, qualification_rate, drift_rate
      FROM kpi_enterprise_day ORDER BY day, enterprise_id''')
kpi"""),
     ("code", """vehicles = lake.scan("kpi_vehicle_day").collect()
again = vehicles.group_by("day", "enterprise_id").agg(
    online=pl.col("online").sum(),
    qualified=pl.col("qualified_points").sum(),
    total=(pl.col("qualified_points") + pl.col("rejected_points")).sum(),
    complete_km=pl.col("complete_km").sum(), total_km=pl.col("total_km").sum(),
).with_columns(
    qualification_rate=pl.when(pl.col("total") > 0).then(pl.col("qualified") / pl.col("total")),
    completeness_rate=pl.when(pl.col("total_km") > 0).then(pl.col("complete_km") / pl.col("total_km")),
).sort("day", "enterprise_id")
check = again.join(kpi, on=["day", "enterprise_id"], suffix="_table")
assert all(a is None or abs(a - b) < 1e-9 for a, b in zip(check["qualification_rate"], check["qualification_rate_table"], strict=True))
again"""),
     ("code", """fig, ax = plt.subplots(figsize=(8, 3))
for name in ("online_rate", "completeness_rate", "qualification_rate", "drift_rate"):
    series = kpi.group_by("day").agg(pl.col(name).mean()).sort("day")
    ax.plot([str(d) for d in series["day"]], series[name].to_list(), marker="o", label=name)
ax.set_ylim(-0.05, 1.05)
ax.legend(fontsize=7)
ax.set_title("KPI ratios per day (mean over enterprises)")
fig.autofmt_xdate()
fig.tight_layout()""")]),
}
for name, book in books.items():
    nbf.write(book, f"/work/wt-reports/notebooks/{name}")
print("written", list(books))
