"""0x9601 补报车辆静态信息请求 -> 0x1601 (JT/T 809-2011 §5.5.3, -2019 the same data type): the vehicle's static
information from its records, pure (exchange.link.service reads the record and sends the answer).

CAR_INFO is GBK text of ``KEY:=value`` items separated by ``;``, the keys of the standard's vehicle static
information: VIN (the plate number, as the standard uses the field), VEHICLE_COLOR (plate colour),
VEHICLE_TYPE, TRANS_TYPE (transport industry code), VEHICLE_NATIONALITY (registration area), OWERS_ID,
OWERS_NAME and OWERS_TEL (the operating enterprise). fleetwatch keeps no vehicle type code, industry code or
registration area: those are sent empty rather than guessed. DRIVER_NAME and DRIVER_TEL follow when the car
has a driver (fleetwatch's addition; a superior reading only the standard's keys skips them).
A vehicle not exchanged with the superior gets no answer (the standard has no failure result for 0x1601):
its records are not the superior's to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocols.jt809 import messages as m

STATIC_INFO_REQUEST = 0x9601


def _clean(value: Any) -> str:
    """A value as text without the item separators (``;`` would end the item, ``:=`` start a key)."""
    return "" if value is None else str(value).replace(";", " ").replace(":=", "=")


def car_info(vehicle: Mapping[str, Any]) -> str:
    """``vehicle``: plate, plate_colour, enterprise_id, enterprise_name, enterprise_phone, driver_name,
    driver_phone (warehouse.queries.exchange.static_vehicle)."""
    items = [("VIN", vehicle["plate"]), ("VEHICLE_COLOR", vehicle["plate_colour"]), ("VEHICLE_TYPE", ""),
             ("TRANS_TYPE", ""), ("VEHICLE_NATIONALITY", ""), ("OWERS_ID", vehicle["enterprise_id"]),
             ("OWERS_NAME", vehicle["enterprise_name"]), ("OWERS_TEL", vehicle["enterprise_phone"])]
    if vehicle.get("driver_name"):
        items += [("DRIVER_NAME", vehicle["driver_name"]), ("DRIVER_TEL", vehicle.get("driver_phone"))]
    return ";".join(f"{key}:={_clean(value)}" for key, value in items)


def answer_body(vehicle: Mapping[str, Any], source_sn: int, version: str) -> m.StaticInfo:
    """0x1600 / 0x1601 for the vehicle of the request; 2019 names the request by data type and SN."""
    answer = m.StaticInfoAnswer(car_info(vehicle), STATIC_INFO_REQUEST if version == "2019" else None,
                                source_sn if version == "2019" else None)
    return m.StaticInfo(str(vehicle["plate"]), int(vehicle["plate_colour"]), m.StaticInfoAnswer.DATA_TYPE, answer)
