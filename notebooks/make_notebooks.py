"""Writes the four analyst notebooks (outputs stripped) from their cell text: `.venv/bin/python
notebooks/make_notebooks.py`. Titles, labels and chart text are in the product's language (zh-CN, the console's
default) with its names: report and KPI names as the console shows them, enterprises, plates, drivers and
alarms by name, never by id."""

from pathlib import Path

import nbformat as nbf

SETUP = """import lake  # first: Agg backend (no display), a CJK font for the labels; lake.show puts PNGs in the output
import matplotlib.pyplot as plt
import polars as pl

print("数据湖:", lake.lake_dir(), "数据集:", lake.datasets())"""


def nb(title: str, intro: str, cells: list[tuple[str, str]]) -> nbf.NotebookNode:
    book = nbf.v4.new_notebook()
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.metadata["title"] = title  # the rendered page's title (warehouse/notebook_pages.py)
    book.metadata["language_info"] = {"name": "python"}
    book.cells.append(nbf.v4.new_markdown_cell(f"# {title}\n\n{intro}"))
    book.cells.append(nbf.v4.new_code_cell(SETUP))
    for kind, text in cells:
        if "fig, ax" in text:  # Agg draws off screen: lake.show puts the PNG in the output
            text += "\nlake.show(fig)"
        book.cells.append(nbf.v4.new_markdown_cell(text) if kind == "md" else nbf.v4.new_code_cell(text))
    return book


books = {
"fleet_mileage_utilisation.ipynb": nb(
    "车队里程与出车率",
    "车队每日里程、出车车辆（当日里程不少于 1 km）与出车率（出车车次 / 车辆天数），按企业汇总；本期里程最高的车辆。"
    "数据来源：数据湖中的 `car_day_report`（每车每个本地日一行，同“日里程统计”报表）。",
    [("code", """daily = lake.query('''
    SELECT day AS 日期, count(*) AS 车辆数, sum(CASE WHEN active THEN 1 ELSE 0 END) AS 出车车辆,
           round(sum(mileage_km), 1) AS "里程(km)", round(sum(drive_s) / 3600.0, 1) AS "行驶时长(h)"
      FROM car_day_report GROUP BY day ORDER BY day''')
daily = daily.with_columns(出车率=(pl.col("出车车辆") / pl.col("车辆数")).round(3))
daily"""),
     ("code", """fig, ax = plt.subplots(figsize=(8, 3))
days = [str(d) for d in daily["日期"]]
ax.bar(days, daily["里程(km)"].to_list(), color="#13c2c2", label="里程")
ax.set_ylabel("里程 (km)")
ax.set_title("车队每日里程与出车率")
ax2 = ax.twinx()
ax2.plot(days, daily["出车率"].to_list(), color="#fa8c16", marker="o", label="出车率")
ax2.set_ylim(0, 1)
ax2.set_ylabel("出车率")
fig.autofmt_xdate()
fig.tight_layout()"""),
     ("code", """by_enterprise = (lake.scan("car_day_report")
    .group_by("enterprise_name")
    .agg(车辆天数=pl.len(), 出车天数=pl.col("active").sum(), 里程=pl.col("mileage_km").sum().round(1))
    .with_columns(出车率=(pl.col("出车天数") / pl.col("车辆天数")).round(3))
    .rename({"enterprise_name": "企业"})
    .sort("里程", descending=True).collect())
by_enterprise"""),
     ("code", """top = lake.query('''
    SELECT plate_number AS 车牌号, enterprise_name AS 企业, round(sum(mileage_km), 1) AS "里程(km)",
           sum(trips) AS 行程数, max(max_speed_kmh) AS "最高速度(km/h)"
      FROM car_day_report GROUP BY plate_number, enterprise_name ORDER BY "里程(km)" DESC LIMIT 10''')
top"""),
     ("code", """trips = lake.query("SELECT distance_km, duration_s FROM trip")
fig, ax = plt.subplots(figsize=(5, 3))
ax.hist(trips["distance_km"].to_list() or [0], bins=20, color="#1890ff")
ax.set_xlabel("行程里程 (km)")
ax.set_ylabel("行程数")
ax.set_title(f"行程里程分布（共 {trips.height} 个行程）")
fig.tight_layout()""")]),
"alarm_hotspots_hours.ipynb": nb(
    "报警热点与时段",
    "报警从哪里、在什么时候开始：按报警类型、按本地时段（北京时间）统计，以及按位置的网格（0.01°，约 1 km）统计。"
    "数据来源：`alarm` 报警记录与 `device_day_report` 报警计数（同“报警总览”报表）。",
    [("code", """alarms = lake.query('''
    SELECT a.key, a.type, a.start_time, a.lng, a.lat, a.day, c.enterprise_name
      FROM alarm a LEFT JOIN (SELECT DISTINCT car_id, enterprise_name FROM car_day_report) c USING (car_id)''')
alarms = alarms.with_columns(报警类型=pl.col("key").map_elements(lake.alarm_name, return_dtype=pl.String))
print(alarms.height, "条报警")
by_key = alarms.group_by("报警类型").agg(次数=pl.len()).sort("次数", descending=True)
by_key"""),
     ("code", """fig, ax = plt.subplots(figsize=(7, 3.5))
shown = by_key.head(10).reverse()
ax.barh(shown["报警类型"].to_list(), shown["次数"].to_list(), color="#f5222f")
ax.set_xlabel("次数")
ax.set_title("报警类型前十")
fig.tight_layout()"""),
     ("code", """hours = lake.query('''
    SELECT floor(((epoch(start_time) + 8 * 3600) % 86400) / 3600)::int AS hour, count(*) AS n
      FROM alarm GROUP BY hour ORDER BY hour''')
fig, ax = plt.subplots(figsize=(8, 3))
ax.bar(hours["hour"].to_list(), hours["n"].to_list(), color="#f5222f")
ax.set_xticks(range(0, 24, 2))
ax.set_xlabel("时段（北京时间，时）")
ax.set_ylabel("报警次数")
ax.set_title("各时段报警次数")
fig.tight_layout()"""),
     ("code", """cells = (alarms.filter(pl.col("lng").is_not_null())
    .with_columns(cell_lng=(pl.col("lng") * 100).floor() / 100, cell_lat=(pl.col("lat") * 100).floor() / 100)
    .group_by("cell_lng", "cell_lat").agg(n=pl.len()).sort("n", descending=True))
fig, ax = plt.subplots(figsize=(5, 4))
if cells.height:
    sc = ax.scatter(cells["cell_lng"].to_list(), cells["cell_lat"].to_list(), s=[10 + 5 * n for n in cells["n"]],
                    c=cells["n"].to_list(), cmap="Reds")
    fig.colorbar(sc, ax=ax, label="报警次数")
ax.set_xlabel("经度")
ax.set_ylabel("纬度")
ax.set_title("报警热点（0.01° 网格）")
fig.tight_layout()
cells.head(10).rename({"cell_lng": "经度", "cell_lat": "纬度", "n": "报警次数"})"""),
     ("code", """counters = lake.query('''
    SELECT d.day AS 日期, c.enterprise_name AS 企业, sum(d.alarm_total) AS 报警总数, sum(d.active_safety) AS 主动安全报警,
           sum(d.unhandled) AS 未处理
      FROM device_day_report d LEFT JOIN (SELECT DISTINCT car_id, enterprise_name FROM car_day_report) c USING (car_id)
     GROUP BY d.day, c.enterprise_name ORDER BY d.day, c.enterprise_name''')
counters""")]),
"driver_safety_ranking.ipynb": nb(
    "驾驶员安全排名",
    "每位驾驶员的驾驶行为评分：100 分减去每百公里超速与报警的扣分（示例规则；平台的“驾驶评分规则”设置保存实际权重）。"
    "数据来源：`trip`（驾驶员归属）、`driver_day_report`（驾驶员姓名）、`car_day_report`（超速）、`device_day_report`（报警计数）。",
    [("code", """names = lake.query('''
    SELECT DISTINCT d.driver_id, d.driver_name, e.enterprise_name FROM driver_day_report d
      LEFT JOIN (SELECT DISTINCT enterprise_id, enterprise_name FROM car_day_report) e USING (enterprise_id)''')
drivers = lake.query('''
    SELECT driver_id, count(*) AS trips, round(sum(distance_km), 1) AS km, round(sum(duration_s) / 3600.0, 2) AS hours,
           max(max_speed_kmh) AS max_speed
      FROM trip WHERE driver_id IS NOT NULL GROUP BY driver_id''').join(names, on="driver_id", how="left")
drivers.select(驾驶员="driver_name", 企业="enterprise_name", 行程数="trips", 里程="km", 驾驶时长="hours", 最高速度="max_speed")"""),
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
ranking.select(驾驶员="driver_name", 企业="enterprise_name", 里程="km", 超速次数=pl.col("overspeed").round(1),
               报警次数=pl.col("alarms").round(1), 主动安全报警=pl.col("active_safety").round(1), 评分="score")"""),
     ("code", """fig, ax = plt.subplots(figsize=(6, 3))
ax.barh([str(n) for n in ranking["driver_name"].fill_null("未知驾驶员")], ranking["score"].to_list(), color="#52c41a")
ax.set_xlim(0, 100)
ax.set_xlabel("评分")
ax.set_title("驾驶员安全评分（由低到高）")
fig.tight_layout()""")]),
"data_quality_kpis.ipynb": nb(
    "数据质量考核指标",
    "监管考核指标（docs/kpi.md）按企业、按日：上线率、轨迹完整率、数据合格率、卫星定位漂移车辆率；"
    "此处由 `kpi_vehicle_day` 的分子分母重新计算，说明它们是求和之比而不是比率的平均（同“考核指标”报表）。",
    [("code", """kpi = lake.query('''
    SELECT day, enterprise_id, enterprise_name, online_rate, completeness_rate, qualification_rate, drift_rate
      FROM kpi_enterprise_day ORDER BY day, enterprise_name''')
kpi.select(日期="day", 企业="enterprise_name", 上线率="online_rate", 轨迹完整率="completeness_rate",
           数据合格率="qualification_rate", 漂移车辆率="drift_rate")"""),
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
check.select(日期="day", 企业="enterprise_name", 合格点数="qualified", 总点数="total", 数据合格率="qualification_rate",
             完整里程="complete_km", 总里程="total_km", 轨迹完整率="completeness_rate")"""),
     ("code", """fig, ax = plt.subplots(figsize=(8, 3))
for name, label in (("online_rate", "上线率"), ("completeness_rate", "轨迹完整率"),
                    ("qualification_rate", "数据合格率"), ("drift_rate", "漂移车辆率")):
    series = kpi.group_by("day").agg(pl.col(name).mean()).sort("day")
    ax.plot([str(d) for d in series["day"]], series[name].to_list(), marker="o", label=label)
ax.set_ylim(-0.05, 1.05)
ax.legend(fontsize=7)
ax.set_title("每日考核指标（各企业平均）")
fig.autofmt_xdate()
fig.tight_layout()"""),
     ("code", """fig, ax = plt.subplots(figsize=(8, 3))
# an enterprise with no joined vehicle has no 上线率 (a null, not 0): it gets no bar
per = kpi.drop_nulls("online_rate").group_by("enterprise_name").agg(pl.col("online_rate").mean()).sort("online_rate")
ax.barh(per["enterprise_name"].to_list(), per["online_rate"].to_list(), color="#2f54eb")
ax.set_xlim(0, 1)
ax.set_xlabel("上线率")
ax.set_title("各企业上线率（期间平均）")
fig.tight_layout()""")]),
}

if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for name, book in books.items():
        nbf.write(book, here / name)
    print("written", list(books))
