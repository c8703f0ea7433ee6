"""Declarations of the vehicle menu area (platform-spec §3, §4, §9): groups, drivers,
vehicles (``car``), terminals (``device``) and SIM cards. Rules beyond one field live in
``api/query/fleet_hooks.py``; the SQL in ``warehouse/queries/fleet.py`` and migration 0008.

Spreadsheets (``importable`` / ``exportable``): a car row names its group and master terminal by
their human keys, ``groupName`` and ``masterDevicePhone`` (aliases resolved inside the car's
enterprise on write, read back as the current name / phone); import terminals before the cars that
name them.
"""

from __future__ import annotations

import re
from typing import Any

from api.query import validators
from api.query.fleet_hooks import CarHooks, DeviceHooks, DriverHooks, GroupHooks, SimHooks
from api.query.grammar import EntitySpec, FieldSpec
from api.query.values import FieldType
from fleet.enums import DEVICE_PROTOCOL_VERSIONS
from fleet.gb32960_records import GB_PROTOCOLS
from fleet.phones import phone_search_text

F = FieldSpec

# platform-spec §9
PLATE_COLORS = (1, 2, 3, 4, 5, 6, 7, 8)  # blue, yellow, black, white, agricultural yellow/blue/green, other
VEHICLE_GRADES = (1, 2, 3, 4)  # A-D
VEHICLE_TYPES = (1, 2, 3)  # fuel, new-energy, hybrid
# What the gateways speak: JT/T 808 under the 2011/2013 header and the 2019 header (gateway/), GB/T 32960 and
# GB 17691 / HJ 1239 / DB4403/T 363 (gateway/gb/); JT/T 1078-2016 video. Which versions go with which protocol:
# fleet.enums.DEVICE_PROTOCOL_VERSIONS, checked by DeviceHooks.
PROTOCOLS = ("jt808", *GB_PROTOCOLS)
PROTOCOL_VERSIONS = tuple(dict.fromkeys(v for p in PROTOCOLS for v in DEVICE_PROTOCOL_VERSIONS[p]))
VIDEO_PROTOCOL_VERSIONS = ("2016",)
# Video channels 1-13 (front, driver, front door, ...) and the audio channels 33, 36, 37.
CHANNELS = frozenset({*range(1, 14), 33, 36, 37})
DEVICE_STATES = (0, 1, 2, 3, 4, 5)  # unregistered, registered, offline, online, deregistered, disabled
SIM_OPERATORS = (1, 2, 3, 9)  # China Mobile, China Unicom, China Telecom, other
LICENCE_CLASSES = ("A1", "A2", "A3", "B1", "B2", "C1", "C2", "C3", "C4", "C5", "C6", "D", "E", "F", "M", "N", "P")
RECORD_STATES = (1, 0)  # platform-spec §4: 1 normal, 0 disabled

CHANNELS_INVALID = "通道号不合法 (channels are a comma list of 1-13, 33, 36, 37 without repeats)"
DEVICE_IDS_INVALID = "终端列表不合法 (deviceIds is a list of at most 16 device ids)"
_CHANNEL_LIST = re.compile(r"[0-9]{1,2}(,[0-9]{1,2})*")


def channel_list(value: Any) -> str | None:
    """``""`` or a comma list of distinct channel numbers of platform-spec §9."""
    if value == "":
        return None
    if not isinstance(value, str) or not _CHANNEL_LIST.fullmatch(value):
        return CHANNELS_INVALID
    numbers = [int(n) for n in value.split(",")]
    return None if len(set(numbers)) == len(numbers) and set(numbers) <= CHANNELS else CHANNELS_INVALID


def device_id_list(value: Any) -> str | None:
    ok = (isinstance(value, list) and len(value) <= 16
          and all(isinstance(i, int) and not isinstance(i, bool) and 0 < i < 2**63 for i in value))
    return None if ok else DEVICE_IDS_INVALID


def media_id(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63
    return None if ok else "照片编号不合法 (photo is the id of an uploaded photo)"


def _writable(name: str, table: str, label: str, hooks: Any, fields: dict[str, FieldSpec]) -> EntitySpec:
    return EntitySpec(name=name, relation=table, table=table, tenant_column="enterprise_id", permission=name,
                      record_state_column="record_state", label=label, hooks=hooks, fields=fields)


def W(column: str, ftype: FieldType = "str", *, io: bool = True, **rules: Any) -> FieldSpec:
    """A field the create / edit form writes; ``io``: one an onboarding spreadsheet carries too."""
    return FieldSpec(column, ftype, create=True, update=True, importable=io, exportable=io, **rules)

_TIMES = {
    "createTime": F("created_at", "time", label="创建时间", exportable=True),
    "updateTime": F("updated_at", "time", label="更新时间"),
}

GROUP = _writable("group", "car_group", "车组", GroupHooks(), {
    "id": F("id", "int", label="编号"),
    "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
    "name": W("name", required=True, max_length=64, unique=True, label="车组名称"),
    "type": W("type", "int", minimum=1, maximum=99, label="类型"),
    "parentId": W("parent_id", "int", ref="group", label="上级车组", io=False),
    **_TIMES,
})

DRIVER = _writable("driver", "driver", "驾驶员", DriverHooks(), {
    "id": F("id", "int", label="编号"),
    "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
    "name": W("name", required=True, max_length=32, check=validators.person_name, label="姓名"),
    "phone": W("phone", max_length=24, check=validators.phone, label="联系电话"),
    "nationalId": W("id_card", max_length=18, check=validators.national_id, unique=True, label="身份证号"),
    "licenceNo": W("license_no", pattern=r"[0-9A-Za-z]{1,32}", label="驾驶证号"),
    "licenceClass": W("license_class", enum=LICENCE_CLASSES, label="准驾车型"),
    "licenceExpire": W("license_expire", max_length=10, check=validators.calendar_date, label="驾驶证有效期至"),
    "qualificationNo": W("qualification_no", pattern=r"[0-9A-Za-z]{1,32}", label="从业资格证号"),
    "photoId": F("photo_id", "int", label="照片", filterable=False, sortable=False),
    "photo": W("", "int", virtual=True, check=media_id, label="照片", io=False),  # an uploaded photo's id, or null
    "state": W("state", "int", enum=RECORD_STATES, label="状态"),
    **_TIMES,
})

_CAR_GROUP_NAME = "SELECT g.name FROM car_group g WHERE g.id = car.group_id"
_CAR_MASTER_PHONE = "SELECT d.phone FROM device d WHERE d.id = car.master_device_id"

CAR = _writable("car", "car", "车辆", CarHooks(), {
    "id": F("id", "int", label="编号"),
    "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
    "plateNumber": W("plate_number", required=True, pattern=r"[^\s]{2,16}", unique=True, label="车牌号"),
    "plateColor": W("plate_color", "int", enum=PLATE_COLORS, label="车牌颜色"),
    "vin": W("vin", pattern=r"[A-HJ-NPR-Z0-9]{17}", unique=True, label="车架号"),
    "grade": W("grade", "int", enum=VEHICLE_GRADES, label="车辆等级"),
    "type": W("car_type", "int", enum=VEHICLE_TYPES, label="能源类型"),
    "carModelId": W("car_model_id", "int", ref="carModel", label="车辆型号", io=False),
    "carTypeId": W("car_type_id", "int", ref="carType", label="车辆类型", io=False),
    "groupId": W("group_id", "int", ref="group", label="车组", io=False),
    "groupName": W("group_name", expression=_CAR_GROUP_NAME, max_length=64, label="车组名称"),
    "driverId": W("driver_id", "int", ref="driver", label="驾驶员", io=False),
    "driverName": F("driver_name", expression="SELECT dr.name FROM driver dr WHERE dr.id = car.driver_id",
                    label="驾驶员姓名", exportable=True),
    "iconId": W("icon_id", "int", minimum=1, maximum=32, label="图标", io=False),
    "masterDeviceId": W("master_device_id", "int", ref="device", label="主终端", io=False),
    "masterDevicePhone": W("master_device_phone", expression=_CAR_MASTER_PHONE, pattern=r"[0-9]{11,20}",
                           label="主终端手机号"),
    "deviceIds": W("device_ids", virtual=True, check=device_id_list, label="终端", io=False),
    # The bell's expiry notices (console-spec §9 bizType 2 / 3, api/notices.py).
    "insuranceExpire": W("insurance_expire", max_length=10, check=validators.calendar_date, label="保险到期日期"),
    "inspectionExpire": W("inspection_expire", max_length=10, check=validators.calendar_date, label="年检到期日期"),
    **_TIMES,
})

DEVICE = _writable("device", "device", "终端", DeviceHooks(), {
    "id": F("id", "int", label="编号"),
    "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
    "carId": F("car_id", "int", label="车辆"),
    "phone": W("phone", required=True, pattern=r"[0-9]{11,20}", unique=True, label="终端手机号",
               normalize=phone_search_text),
    "deviceSn": W("device_sn", required=True, pattern=r"[0-9A-Za-z-]{1,30}", unique=True, label="终端编号"),
    "deviceName": W("device_name", max_length=64, label="终端名称"),
    "protocol": W("protocol", enum=PROTOCOLS, label="协议"),
    "protocolVersion": W("protocol_version", enum=PROTOCOL_VERSIONS, label="协议版本"),
    "videoProtocolVersion": W("video_protocol_version", enum=VIDEO_PROTOCOL_VERSIONS, label="视频协议版本"),
    "videoChannel": W("video_channel", max_length=64, check=channel_list, label="视频通道"),
    "talkChannel": W("talk_channel", max_length=64, check=channel_list, label="对讲通道"),
    "hasVideo": W("has_video", "int", enum=(0, 1), label="视频"),
    "hasPhoto": W("has_photo", "int", enum=(0, 1), label="拍照"),
    "hasMicrophone": W("has_microphone", "int", enum=(0, 1), label="麦克风"),
    "deviceProducerId": W("device_producer_id", "int", ref="deviceProducer", label="终端厂商", io=False),
    "deviceTypeId": W("device_type_id", "int", ref="deviceType", label="终端类型", io=False),
    # Recorded before the terminal first registers: the gateway then refuses any other terminal id
    # (0x0100, exactly as the terminal reports it) and any other IMEI (0x0102 of 2019), gateway/README.md.
    "expectedTerminalId": W("expected_terminal_id", pattern=r"[0-9A-Za-z-]{1,30}", label="预登记终端ID"),
    "expectedImei": W("expected_imei", pattern=r"[0-9]{15}", label="预登记IMEI"),
    "manufacturerId": F("manufacturer_id", label="制造商编号"),
    "terminalModel": F("terminal_model", label="终端型号"),
    # The gateway and the streams own these; an administrator disables / enables (api/routes/fleet.py).
    "state": F("state", "int", enum=DEVICE_STATES, label="终端状态", exportable=True),
    "bizState": F("biz_state", "int", label="业务状态"),
    "acc": F("acc", "int", label="ACC"),
    "onlineTime": F("online_time", "time", label="上线时间"),
    "offlineTime": F("offline_time", "time", label="下线时间"),
    **_TIMES,
})

SIM = _writable("sim", "sim", "SIM卡", SimHooks(), {
    "id": F("id", "int", label="编号"),
    "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
    "iccid": W("iccid", pattern=r"[0-9]{19,20}", unique=True, label="ICCID"),
    "msisdn": W("msisdn", required=True, pattern=r"[0-9]{11,13}", unique=True, label="MSISDN"),
    "operator": W("operator", "int", enum=SIM_OPERATORS, label="运营商"),
    "deviceId": W("device_id", "int", ref="device", label="终端", io=False),
    "devicePhone": F("device_phone", expression="SELECT d.phone FROM device d WHERE d.id = sim.device_id",
                     label="终端手机号", exportable=True),
    "state": W("state", "int", enum=RECORD_STATES, label="状态"),
    "expireDate": W("expire_date", max_length=10, check=validators.calendar_date, label="到期日期"),
    **_TIMES,
})

FLEET_WRITABLE = (GROUP, DRIVER, CAR, DEVICE, SIM)
