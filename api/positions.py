"""Shape of a last-position reply (console-spec §3 "Last position"), pure."""

from __future__ import annotations

from typing import Any

ALARM_BITS = 32


def alarm_flags(alarm: int) -> dict[str, int]:
    """``a0``..``a31``: 1 where the JT/T 808 alarm bit is set."""
    unsigned = alarm & 0xFFFFFFFF
    return {f"a{bit}": (unsigned >> bit) & 1 for bit in range(ALARM_BITS)}


def position_reply(row: dict[str, Any]) -> dict[str, Any]:
    """camelCase reply from a ``device_last``/``gps`` row; ``acc`` is status bit 0.

    ``aac`` repeats ``acc``: the spec's client reads either name.
    """
    status = int(row.get("status_flags") or 0)
    alarm = int(row.get("alarm_flags") or 0) & 0xFFFFFFFF
    acc = status & 1
    return {
        "deviceId": row["device_id"],
        "carId": row.get("car_id"),
        "enterpriseId": row.get("enterprise_id"),
        "time": row["fix_at"],
        "lng": row["lng"],
        "lat": row["lat"],
        "direction": row.get("direction_deg"),
        "speed": row.get("speed_kmh"),
        "mileage": row.get("mileage_km"),
        "oilmass": row.get("fuel_l"),
        "altitude": row.get("altitude_m"),
        "state": status,
        "acc": acc,
        "aac": acc,
        "alarmType": alarm,
        **alarm_flags(alarm),
    }
