"""Hand-built tyre items of a 0x0200 report, bytes written from the standards' layouts (no public capture of a
real TPMS terminal is at hand), shared by the codec's unit test, the TPMS log's API test and its browser test.

- 0x66 TPMS alarm, Jiangsu 2017 table 4-18: alarm id DWORD, flag BYTE, the shared block (speed BYTE km/h,
  altitude WORD m, lat / lng DWORD 1e-6 degree, time BCD[6] GMT+8, vehicle status WORD, the 16-byte
  alarm number: terminal id BYTE[7], time BCD[6], serial, attachment count, reserved), event count BYTE,
  then per event: tyre BYTE, type WORD bits, pressure WORD kPa, temperature WORD °C, battery WORD %.
- 0x05 tyre pressure, JT/T 808-2019 table 27: BYTE[30], one per wheel from the front, left to right,
  0xFF no data.
"""

from __future__ import annotations

TPMS_ALARM_HEX = (
    "00000007"  # alarm id 7
    "00"  # flag: none (TPMS events are instantaneous)
    "3C" "0032" "0260FA70" "06EFF870"  # 60 km/h, 50 m, 39.910000 N, 116.390000 E
    "260410080000"  # 2026-04-10 08:00:00 GMT+8 (00:00 UTC)
    "0003"  # vehicle status: ACC on, positioned
    "54455354303031" "260410080000" "00" "00" "00"  # alarm number: "TEST001", same time, serial 0, no files
    "02"  # two tyre events
    "00" "0001" "00E6" "0023" "005A"  # tyre 0: timed report (bit 0), 230 kPa, 35 °C, 90 %
    "05" "0084" "0096" "0028" "000F"  # tyre 5: pressure low (bit 2) + battery low (bit 7), 150 kPa, 40 °C, 15 %
)
TYRE_PRESSURE_HEX = "7071" + "FF" * 28  # wheels 0 and 1 report 0x70 and 0x71; the other 28 have no data


def item(item_id: int, value_hex: str) -> bytes:
    """One additional-information item: id BYTE, length BYTE, value."""
    value = bytes.fromhex(value_hex)
    return bytes((item_id, len(value))) + value


def tyre_items() -> bytes:
    """Both tyre items, as a 0x0200 report's additional information carries them."""
    return item(0x66, TPMS_ALARM_HEX) + item(0x05, TYRE_PRESSURE_HEX)


# What the TPMS log shows for a fix carrying ``tyre_items()``, in its order (item, tyre):
# (item, tyre, pressure kPa, raw pressure, temperature °C, battery %, type WORD, zh-CN / en-US alarm names).
EXPECTED_ROWS = (
    (5, 0, None, 0x70, None, None, None, None, None),
    (5, 1, None, 0x71, None, None, None, None, None),
    (102, 0, 230, None, 35, 90, 0x0001, "胎压定时上报", "Tyre pressure report"),
    (102, 5, 150, None, 40, 15, 0x0084, "胎压过低报警,电池电量低报警", "Tyre pressure too low,Tyre sensor battery low"),
)
