"""The one shape of a position on the wire to the console: named columns and rows of values.

Both ways the live map learns positions carry it: the bulk read (``POST /api/gps/last.json``: one row per
vehicle in scope, ``{fields, rows, serverTime}``) and the live push (``/user/{enterpriseId}/positions``:
``{type: "positions", fields, rows}``, streams.console). The console turns both into its positions with one
function (dashboards/src/live/lastPositions.ts ``positionsFromRows``). Units: ``time`` epoch milliseconds,
``lng`` / ``lat`` degrees as stored, ``speed`` km/h, ``direction`` degrees, ``altitude`` m, ``mileage`` km,
``oilmass`` L, ``alarmType`` the unsigned 32-bit JT/T 808 alarm word, ``status`` the status word (bit 0 ACC),
``online`` 1 / 0, ``bizState`` the business state (fleet.enums.BizState). A reader looks columns up by name,
so a column may be added at the end without breaking anyone.
"""

from __future__ import annotations

from datetime import datetime

POSITION_FIELDS = ("carId", "deviceId", "plateNumber", "time", "lng", "lat", "speed", "direction", "altitude",
                   "mileage", "oilmass", "alarmType", "status", "online", "bizState")
# The live push adds the gateway's receive time of the fix (epoch ms): the console measures its latency.
LIVE_POSITION_FIELDS = (*POSITION_FIELDS, "sentAt")

UNSIGNED_32 = 0xFFFFFFFF


def epoch_ms(at: datetime) -> int:
    """Epoch milliseconds of an aware datetime, rounded as the bulk read's ``round(epoch * 1000)``."""
    return round(at.timestamp() * 1000)
