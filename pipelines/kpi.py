"""Regulator KPIs (docs/kpi.md; docs/reports.md §5): numerators and denominators, never averaged ratios.

Per vehicle and day (``kpi_vehicle_days``): qualified points (stored positioned fixes), refused points
(``gps_reject_day``), total GPS km and the complete part (total minus incomplete segments), drift points,
online / offline seconds, 上线 (at least one qualified fix).

Per enterprise (``kpi_enterprise_rows``; the same function serves a day and a month, over the vehicle rows
of the period): vehicles (应入网: its live vehicles), joined (入网: those that ever sent a qualified fix),
online (上线 in the period), drift vehicles (online with >= 1 drift point), points, km, seconds, overspeed
alarms and fatigue seconds; then the ratios:

- 入网率 join_rate = joined / vehicles; 上线率 online_rate = online / joined;
- 轨迹完整率 completeness_rate = complete_km / total_km; 数据合格率 qualification_rate = qualified / total points;
- 卫星定位漂移车辆率 drift_rate = drift vehicles / online; 平台连通率 connectivity_rate: null (JT/T 809 link);
- 平均超速次数 avg_overspeed = overspeed alarms / online; 平均疲劳驾驶时长 avg_fatigue_s = fatigue s / online;
- 平均断线时长 avg_offline_s = offline s of joined vehicles / joined (our definition).

A ratio whose denominator is 0 is null.
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Window


def kpi_vehicle_days(car_days: pl.DataFrame, window: Window, alarms: pl.DataFrame | None = None) -> pl.DataFrame:
    """``alarms``: (car_id, overspeed_alarms, fatigue_s) of the day (zeros when absent)."""
    rows = car_days.select(
        "car_id", "enterprise_id", "enterprise_path", "plate_number",
        pl.lit(window.date_key, pl.Int64).alias("date"), pl.lit(window.day).alias("day"),
        pl.col("positioned_points").alias("qualified_points"),
        (pl.col("points") - pl.col("positioned_points") + pl.col("rejected_points")).alias("rejected_points"),
        pl.col("gps_km").fill_null(0.0).alias("total_km"),
        (pl.col("gps_km").fill_null(0.0) - pl.col("incomplete_km").fill_null(0.0)).alias("complete_km"),
        "drift_points", "online_s", "offline_s", "online",
        pl.lit(window.provisional).alias("provisional"),
    )
    if alarms is None or alarms.is_empty():
        return rows.with_columns(overspeed_alarms=pl.lit(0, pl.Int64), fatigue_s=pl.lit(0, pl.Int64))
    per_car = alarms.group_by("car_id").agg(overspeed_alarms=pl.col("overspeed_alarms").sum().cast(pl.Int64),
                                            fatigue_s=pl.col("fatigue_s").sum().cast(pl.Int64))
    return rows.join(per_car, on="car_id", how="left").with_columns(
        pl.col("overspeed_alarms").fill_null(0), pl.col("fatigue_s").fill_null(0))


def _ratio(num: str, den: str) -> pl.Expr:
    return pl.when(pl.col(den) > 0).then(pl.col(num).cast(pl.Float64) / pl.col(den)).otherwise(None)


def kpi_enterprise_rows(vehicle_rows: pl.DataFrame, cars: pl.DataFrame, joined_car_ids: pl.Series) -> pl.DataFrame:
    """Per enterprise of ``cars`` (car_id, enterprise_id, enterprise_path, enterprise_name).

    ``vehicle_rows``: kpi vehicle rows of the period (several days per car for a month), with
    ``overspeed_alarms`` and ``fatigue_s``."""
    per_car = vehicle_rows.group_by("car_id").agg(
        online=pl.col("online").any(), drift_points=pl.col("drift_points").sum(),
        qualified_points=pl.col("qualified_points").sum(), rejected_points=pl.col("rejected_points").sum(),
        total_km=pl.col("total_km").sum(), complete_km=pl.col("complete_km").sum(),
        online_s=pl.col("online_s").sum(), offline_s=pl.col("offline_s").sum(),
        overspeed_alarms=pl.col("overspeed_alarms").sum(), fatigue_s=pl.col("fatigue_s").sum())
    frame = (cars.select("car_id", "enterprise_id", "enterprise_path", "enterprise_name")
             .join(per_car, on="car_id", how="left")
             .with_columns(joined=pl.col("car_id").is_in(joined_car_ids.implode()),
                           online=pl.col("online").fill_null(False)))
    online = pl.col("online")
    out = frame.group_by("enterprise_id").agg(
        enterprise_path=pl.col("enterprise_path").first(), enterprise_name=pl.col("enterprise_name").first(),
        vehicles=pl.len().cast(pl.Int64),
        joined_vehicles=pl.col("joined").sum().cast(pl.Int64),
        online_vehicles=online.sum().cast(pl.Int64),
        drift_vehicles=(online & (pl.col("drift_points").fill_null(0) > 0)).sum().cast(pl.Int64),
        drift_points=pl.col("drift_points").fill_null(0).sum().cast(pl.Int64),
        qualified_points=pl.col("qualified_points").fill_null(0).sum().cast(pl.Int64),
        total_points=(pl.col("qualified_points").fill_null(0) + pl.col("rejected_points").fill_null(0))
        .sum().cast(pl.Int64),
        total_km=pl.col("total_km").fill_null(0.0).sum(),
        complete_km=pl.col("complete_km").fill_null(0.0).sum(),
        online_s=pl.col("online_s").fill_null(0).sum().cast(pl.Int64),
        offline_s=pl.col("offline_s").fill_null(0).filter(pl.col("joined")).sum().cast(pl.Int64),
        overspeed_alarms=pl.col("overspeed_alarms").fill_null(0).sum().cast(pl.Int64),
        fatigue_s=pl.col("fatigue_s").fill_null(0).sum().cast(pl.Int64),
    )
    return out.with_columns(
        join_rate=_ratio("joined_vehicles", "vehicles"),
        online_rate=_ratio("online_vehicles", "joined_vehicles"),
        completeness_rate=_ratio("complete_km", "total_km"),
        qualification_rate=_ratio("qualified_points", "total_points"),
        drift_rate=_ratio("drift_vehicles", "online_vehicles"),
        connectivity_rate=pl.lit(None, pl.Float64),
        avg_overspeed=_ratio("overspeed_alarms", "online_vehicles"),
        avg_fatigue_s=_ratio("fatigue_s", "online_vehicles"),
        avg_offline_s=_ratio("offline_s", "joined_vehicles"),
    ).sort("enterprise_id")
