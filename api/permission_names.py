"""Permission names in the caller's language: the role editor's catalogue (``GET /api/aas/permission.json``).

The ``permission`` table holds each code's zh-CN name (``warehouse/seed.py`` ``PERMISSIONS``, migrations);
zh-HK is that name converted (``fleet.zh_hk``, generated from zh-CN) and en-US is ``ENGLISH`` below, the
console menu's wording for the screen a code guards. A code this table does not know (added by a newer
migration) keeps its stored name rather than failing.
"""

from __future__ import annotations

from types import MappingProxyType

from fleet.zh_hk import to_hk

ENGLISH = MappingProxyType({
    "dashboard": "Dashboard",
    "monitor": "Live monitoring",
    "car": "Car management",
    "device": "Device management",
    "sim": "SIM cards",
    "driver": "Drivers",
    "group": "Vehicle groups",
    "enterprise": "Enterprises",
    "user": "Users",
    "role": "Roles",
    "gps": "Track data",
    "alarm": "Alarm management",
    "report": "Reports",
    "fence": "Geofences",
    "command": "Terminal commands",
    "sensitiveCommand": "Sensitive commands",
    "carModel": "Car models",
    "carType": "Car types",
    "deviceProducer": "Device producers",
    "deviceType": "Device types",
    "dictionary": "Dictionaries",
    "system": "System monitor",
    "license": "Licence",
    "notify": "Announcements",
    "auditLog": "Audit log",
    "gpsLog": "GPS log",
    "tpmsLog": "TPMS log",
    "onlineLog": "Online log",
    "accStateLog": "ACC state log",
    "parkLog": "Parking log",
    "idlingLog": "Idling log",
    "videoLog": "Video log",
    "downstreamMessage": "Downstream messages",
    "upstreamMessage": "Upstream messages",
    "originalMessage": "Original messages",
    "evidence": "Media evidence",
    "db": "Database",
    "sourceCodeLog": "Version log",
    "openPlatform": "Open platform",
    "terminalParams": "Terminal parameters",
    "alarmLevel": "Alarm levels",
    "platformAlarmRule": "Platform alarm rules",
    "platformAlarmNotifyRule": "Platform alarm notify rules",
    "drivingGradeRule": "Driving grade rules",
    "superiorPlatform": "Superior platforms (JT/T 809)",
    "inferiorPlatform": "Inferior platforms (JT/T 809)",
})


def permission_name(code: str, stored: str, language: str) -> str:
    """The name of permission ``code`` (``stored``: its zh-CN name) in ``language``."""
    if language == "en-US":
        return ENGLISH.get(code, stored)
    if language == "zh-HK":
        return to_hk(stored)
    return stored
