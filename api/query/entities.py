"""What each queryable entity exposes: camelCase field -> column, sortability, tenant column.

Anything not listed here cannot be selected, filtered or sorted on (secrets such as
``device.auth_code`` are simply absent).
"""

from __future__ import annotations

from api.query.entities_alarm_settings import ALARM_SETTINGS_READ_ONLY, ALARM_SETTINGS_WRITABLE
from api.query.entities_alarms import ALARM_ENTITIES
from api.query.entities_audit import AUDIT_LOG
from api.query.entities_exchange import EXCHANGE_READ_ONLY, EXCHANGE_WRITABLE
from api.query.entities_fence_sync import FENCE_SYNC
from api.query.entities_fences import FENCE_READ_ONLY, FENCE_WRITABLE
from api.query.entities_gb32960 import GB32960_ENTITIES
from api.query.entities_gb32960_exchange import GB32960_EXCHANGE_READ_ONLY, GB32960_EXCHANGE_WRITABLE
from api.query.entities_inferior import INFERIOR_READ_ONLY, INFERIOR_WRITABLE
from api.query.entities_logs import LOG_ENTITIES
from api.query.entities_media import MEDIA_ENTITIES
from api.query.entities_messages import MESSAGE_ENTITIES
from api.query.entities_refused import REFUSED_REGISTRATION
from api.query.entities_reports import REPORT_ENTITIES
from api.query.entities_settings import ANNOUNCEMENT, DICTIONARY, LICENCE_APPLY, LICENCE_LOG, OPEN_APP
from api.query.entities_video import VIDEO_ENTITIES
from api.query.fleet_entities import DEVICE, FLEET_WRITABLE, GROUP
from api.query.grammar import EntitySpec, FieldSpec
from api.query.org_entities import ORG_ENTITIES

F = FieldSpec

CAR_VIEW = EntitySpec(
    name="carView",
    relation="car_view",
    tenant_column="enterprise_id",
    id_field="carId",
    default_order="carId",
    fields={
        "carId": F("car_id", "int"),
        "enterpriseId": F("enterprise_id", "int"),
        "groupId": F("group_id", "int"),
        "plateNumber": F("plate_number"),
        "plateColor": F("plate_color", "int"),
        "vin": F("vin"),
        "iconId": F("icon_id", "int"),
        "masterDeviceId": F("master_device_id", "int"),
        "masterDeviceSn": F("master_device_sn"),
        "masterDevicePhone": F("master_device_phone"),
        "masterDeviceBizState": F("master_device_biz_state", "int"),
        "masterDeviceState": F("master_device_state", "int"),
        "lastOnlineTime": F("last_online_time", "time"),
        "hasVideo": F("has_video", "int"),
        "hasPhoto": F("has_photo", "int"),
        "hasMicrophone": F("has_microphone", "int"),
        "videoChannel": F("video_channel"),
        "talkChannel": F("talk_channel"),
        "driverId": F("driver_id", "int"),
        "driverName": F("driver_name"),
        "createTime": F("created_at", "time"),
    },
)

# Followed cars (platform-spec §7 carUserView): car_view's fields for the cars the caller follows, the
# caller's own only (PUT / DELETE /api/car/{id}/follow.json keep the list, api/routes/vehicles.py).
CAR_USER_VIEW = EntitySpec(
    name="carUserView",
    relation="car_user_view",
    tenant_column="enterprise_id",
    owner_column="user_id",
    id_field="carId",
    default_order="carId",
    fields={**CAR_VIEW.fields, "userId": F("user_id", "int"), "followTime": F("followed_at", "time")},
)

# device and group are writable: api/query/fleet_entities.py (with car, driver and sim).

# Track points (console-spec §3 "GPS record": queried by conditions, sorted by time ascending).
GPS = EntitySpec(
    name="gps",
    relation="gps",
    tenant_column="enterprise_id",
    id_field="time",
    tiebreak=("time", "deviceId"),  # (deviceId, time) is the key
    default_order="time",
    default_page_size=1000,
    max_page_size=10000,
    fields={
        "deviceId": F("device_id", "int"),
        "carId": F("car_id", "int"),
        "enterpriseId": F("enterprise_id", "int"),
        "time": F("fix_at", "time"),
        "lng": F("lng", "float"),
        "lat": F("lat", "float"),
        "altitude": F("altitude_m", "float"),
        "speed": F("speed_kmh", "float"),
        "direction": F("direction_deg", "int"),
        "mileage": F("mileage_km", "float"),
        "oilmass": F("fuel_l", "float"),
        "alarm": F("alarm_flags", "int"),
        "state": F("status_flags", "int"),
        "acc": F("acc", "int", expression='"status_flags" & 1'),
        "receivedAt": F("received_at", "time"),
    },
)



# --- Writable entities: one declaration drives query, count, create, get, update, delete, the
# OpenAPI document and the tests (tests/integration/api/test_entities_api.py). ---------------------

CODE = r"[A-Za-z0-9_.-]{1,32}"


def catalogue(name: str, table: str, permission: str) -> EntitySpec:
    """A per-enterprise catalogue (platform-spec §2 lists): name, unique code, remark."""
    return EntitySpec(
        name=name,
        relation=table,
        table=table,
        tenant_column="enterprise_id",
        permission=permission,
        record_state_column="record_state",
        fields={
            "id": F("id", "int", label="编号"),
            "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
            "name": F("name", required=True, max_length=64, create=True, update=True, label="名称",
                      importable=True, exportable=True),
            "code": F("code", required=True, pattern=CODE, unique=True, create=True, update=True, label="编码",
                      importable=True, exportable=True),
            "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                        label="备注", importable=True, exportable=True),
            "createTime": F("created_at", "time", label="创建时间", exportable=True),
        },
    )


CAR_MODEL = catalogue("carModel", "car_model", "carModel")
CAR_TYPE = catalogue("carType", "car_type", "carType")
DEVICE_PRODUCER = catalogue("deviceProducer", "device_producer", "deviceProducer")
DEVICE_TYPE = catalogue("deviceType", "device_type", "deviceType")

WRITABLE: dict[str, EntitySpec] = {e.name: e for e in (CAR_MODEL, CAR_TYPE, DEVICE_PRODUCER, DEVICE_TYPE,
                                                        DICTIONARY, OPEN_APP, ANNOUNCEMENT, *ORG_ENTITIES, *FLEET_WRITABLE,
                                                        *ALARM_SETTINGS_WRITABLE, *FENCE_WRITABLE,
                                                        *EXCHANGE_WRITABLE, *INFERIOR_WRITABLE,
                                                        *GB32960_EXCHANGE_WRITABLE)}
QUERYABLE: dict[str, EntitySpec] = {e.name: e for e in (CAR_VIEW, CAR_USER_VIEW, DEVICE, GROUP, GPS, *WRITABLE.values(),
                                                         LICENCE_LOG, LICENCE_APPLY, AUDIT_LOG, *LOG_ENTITIES, *MESSAGE_ENTITIES,
                                                         *MEDIA_ENTITIES, *ALARM_SETTINGS_READ_ONLY,
                                                         *ALARM_ENTITIES, *VIDEO_ENTITIES, *REPORT_ENTITIES,
                                                         REFUSED_REGISTRATION, FENCE_SYNC, *FENCE_READ_ONLY,
                                                         *EXCHANGE_READ_ONLY, *INFERIOR_READ_ONLY, *GB32960_ENTITIES,
                                                         *GB32960_EXCHANGE_READ_ONLY)}
COUNTABLE: dict[str, EntitySpec] = {e.name: e for e in (CAR_VIEW, CAR_USER_VIEW, DEVICE, GROUP, *WRITABLE.values(), LICENCE_LOG,
                                                         LICENCE_APPLY, AUDIT_LOG, *LOG_ENTITIES, *MESSAGE_ENTITIES, *MEDIA_ENTITIES,
                                                         *ALARM_ENTITIES, *VIDEO_ENTITIES, *REPORT_ENTITIES,
                                                         REFUSED_REGISTRATION, FENCE_SYNC, *FENCE_READ_ONLY,
                                                         *EXCHANGE_READ_ONLY, *INFERIOR_READ_ONLY, *GB32960_ENTITIES,
                                                         *GB32960_EXCHANGE_READ_ONLY)}

# Which permission code guards each entity (the console's permission codes): the query, meta, export and
# import routes check it.
PERMISSION_OF = {
    "carView": "car", "carUserView": "car", "device": "device", "group": "group", "gps": "gps",
    **{name: entity.permission for name, entity in QUERYABLE.items() if entity.permission},
}
