"""The rules of vehicles, terminals, SIM cards, drivers and groups that are not one field's rule
(api/query/fleet_entities.py), run inside the generic write's transaction (api/query/records.py).

- Every reference names a record of the written record's own enterprise (the generic check only
  proves the caller can see it): else 404 naming the field, as for a missing one.
- A car's devices (virtual ``deviceIds``): each fitted to at most one live car (409 naming
  deviceIds); the master device is one of them (400 naming masterDeviceId). Deleting a car frees its
  devices; its gps rows stay.
- Import aliases: ``groupName`` and ``masterDevicePhone`` name a group / device by its human key.
- Columns the database keeps NOT NULL take their default when a body sends null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.errors import BadRequest, Conflict, NotFound
from api.query.grammar import EntityHooks
from fleet.enums import DEVICE_PROTOCOL_VERSIONS
from fleet.phones import canonical_phone
from warehouse.queries import fleet

TENANT = "enterpriseId"


def _tenant(who: Any, values: Mapping[str, Any], before: Mapping[str, Any] | None) -> int:
    if before is not None:
        return int(before["enterprise_id"])
    return int(values.get(TENANT) or who.enterprise_id)


def _missing(field: str, what: str, value: Any) -> NotFound:
    return NotFound(f"关联记录不存在 (field '{field}': {what} {value} does not exist)", data={"field": field})


def _own(conn: Any, values: Mapping[str, Any], tenant: int, refs: Mapping[str, str]) -> None:
    """Each reference field given (field -> table) names a live row of ``tenant``."""
    for field, table in refs.items():
        value = values.get(field)
        if value is not None and fleet.tenant_of(conn, table, value) != tenant:
            raise _missing(field, table, value)


def _defaults(values: dict[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    return {**values, **{n: d for n, d in defaults.items() if n in values and values[n] is None}}


class CarHooks(EntityHooks):
    REFS = {"groupId": "car_group", "driverId": "driver", "carModelId": "car_model", "carTypeId": "car_type",
            "masterDeviceId": "device"}
    DEFAULTS = {"plateColor": 2, "type": 1, "iconId": 1}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        tenant = _tenant(who, values, before)
        values = _defaults(values, self.DEFAULTS)
        values = self._resolve_aliases(conn, values, tenant)
        _own(conn, values, tenant, self.REFS)
        if before is None:
            from api.licence import check_vehicle_quota

            check_vehicle_quota(conn, tenant)
        return self._devices(conn, values, before)

    @staticmethod
    def _resolve_aliases(conn: Any, values: dict[str, Any], tenant: int) -> dict[str, Any]:
        values = dict(values)
        for alias, target, table, column in (("groupName", "groupId", "car_group", "name"),
                                             ("masterDevicePhone", "masterDeviceId", "device", "phone")):
            if alias not in values:
                continue
            key = values.pop(alias)
            if key is None:
                values[target] = None
                continue
            if column == "phone":
                key = _canonical(alias, key)
            found = fleet.id_by_key(conn, table, column, key, tenant)
            if found is None:
                raise _missing(alias, table, key)
            values[target] = found
        return values

    @staticmethod
    def _devices(conn: Any, values: dict[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any]:
        """The final device list and master: ``deviceIds`` when given, else the car's devices plus a
        newly named master; the master defaults to the previous one while it stays, else the first."""
        car_id = None if before is None else int(before["id"])
        master = values.get("masterDeviceId", None if before is None else before["master_device_id"])
        if "deviceIds" in values:
            devices = list(dict.fromkeys(values["deviceIds"] or []))  # null: no device
            if "masterDeviceId" in values and master is not None and master not in devices:
                raise BadRequest("主终端必须是该车辆的终端 (field 'masterDeviceId': the master device must be one of "
                                 "the car's devices)", data={"field": "masterDeviceId"})
        else:
            current = [] if car_id is None else fleet.car_device_ids(conn, car_id)
            devices = current + ([master] if master is not None and master not in current else [])
            if devices == current:
                return values
        found = {row["id"]: row for row in fleet.lock_devices(conn, devices)}
        tenant = values.get(TENANT, None if before is None else before["enterprise_id"])
        for device_id in devices:
            row = found.get(device_id)
            if row is None or (tenant is not None and row["enterprise_id"] != tenant):
                raise _missing("deviceIds", "device", device_id)
            if row["car_id"] is not None and row["car_id"] != car_id:
                raise Conflict(f"终端已安装在其他车辆上 (field 'deviceIds': device {device_id} is fitted to car "
                               f"{row['car_id']}; detach it there first)", data={"field": "deviceIds"})
        if master not in devices:
            master = devices[0] if devices else None
        return {**values, "deviceIds": devices, "masterDeviceId": master}

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if "deviceIds" in values:
            fleet.fit_devices(conn, record_id, list(values["deviceIds"]))

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        fleet.release_car(conn, record_id)


def _canonical(field: str, phone: Any) -> str:
    """A terminal phone without leading zeros (fleet.phones), or a 400 naming the field."""
    try:
        return canonical_phone(str(phone))
    except ValueError:
        raise BadRequest(f"手机号只能包含数字 (field '{field}': a phone number has digits only)",
                         data={"field": field}) from None


class DeviceHooks(EntityHooks):
    REFS = {"deviceProducerId": "device_producer", "deviceTypeId": "device_type"}
    DEFAULTS = {"protocol": "jt808", "videoChannel": "", "talkChannel": "",
                "hasVideo": 0, "hasPhoto": 0, "hasMicrophone": 0}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _defaults(values, self.DEFAULTS)
        if values.get("phone") is not None:  # one canonical form: the gateway matches every header width
            values["phone"] = _canonical("phone", values["phone"])
        values = _protocol_version(values, before)
        _own(conn, values, _tenant(who, values, before), self.REFS)
        return values

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        fleet.release_device(conn, record_id)


def _protocol_version(values: dict[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any]:
    """A device's protocol version must be one of its protocol's (fleet.enums.DEVICE_PROTOCOL_VERSIONS): a
    gb32960 device of version 2013 would be a JT/T 808 header on a GB terminal. A write that sets the protocol
    without a version (or a create without one) takes the protocol's default version; else 400 naming
    protocolVersion."""
    old_protocol = str(before.get("protocol") or "jt808") if before is not None else "jt808"
    protocol = str(values.get("protocol") or old_protocol)
    versions = DEVICE_PROTOCOL_VERSIONS.get(protocol, ())
    version = values.get("protocolVersion")
    if version is None:
        if before is not None and protocol == old_protocol and "protocolVersion" not in values:
            return values
        values = {**values, "protocolVersion": versions[0] if versions else None}
        version = values["protocolVersion"]
    if version not in versions:
        raise BadRequest(f"协议版本不合法 (field 'protocolVersion': {version} is not a version of {protocol}; "
                         f"one of {', '.join(versions)})", data={"field": "protocolVersion"})
    return values


class SimHooks(EntityHooks):
    DEFAULTS = {"state": 1}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _defaults(values, self.DEFAULTS)
        if values.get("msisdn") is not None:
            values["msisdn"] = _canonical("msisdn", values["msisdn"])
        _own(conn, values, _tenant(who, values, before), {"deviceId": "device"})
        device_id = values.get("deviceId")
        if device_id is not None:
            other = fleet.sim_of_device(conn, device_id, None if before is None else int(before["id"]))
            if other is not None:
                raise Conflict(f"该终端已有SIM卡 (field 'deviceId': device {device_id} already holds SIM card {other})",
                               data={"field": "deviceId"})
        return values


class DriverHooks(EntityHooks):
    DEFAULTS = {"state": 1}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _defaults(values, self.DEFAULTS)
        if "photo" not in values:
            return values
        photo = values.pop("photo")
        values["photoId"] = photo
        if photo is not None:
            tenant, owner = _tenant(who, values, before), fleet.media_tenant(conn, photo)
            if owner not in (tenant, who.enterprise_id):  # the driver's, or just uploaded by the caller
                raise _missing("photo", "photo", photo)
            if owner != tenant:
                fleet.move_media(conn, photo, tenant)
        return values

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        fleet.release_driver(conn, record_id)


class GroupHooks(EntityHooks):
    DEFAULTS = {"type": 1}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _defaults(values, self.DEFAULTS)
        _own(conn, values, _tenant(who, values, before), {"parentId": "car_group"})
        parent = values.get("parentId")
        if before is not None and parent is not None:
            seen: set[int] = set()
            node: int | None = parent
            while node is not None and node not in seen:
                if node == before["id"]:
                    raise BadRequest("上级车组不能是自身或下级车组 (field 'parentId': a group cannot be inside itself)",
                                     data={"field": "parentId"})
                seen.add(node)
                node = fleet.group_parent(conn, node)
        return values

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        if fleet.group_in_use(conn, record_id):
            raise Conflict("车组下还有子车组或车辆 (the group still holds sub-groups or vehicles)")
