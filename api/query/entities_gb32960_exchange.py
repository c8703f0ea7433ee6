"""The GB/T 32960 data exchange (platform-spec §2 "Data exchange": the gb32960 exchange's superiorPlatform and
car; exchange/gb32960) as declared entities.

``gb32960SuperiorPlatform`` (table ``gb32960_superior_platform``, migration 0061; read from its view with the
link state): a superior platform the link service (``fleet exchange``) forwards the exchanged vehicles' real-time
data to. ``username`` / ``password`` / ``encryption`` are what the platform login 0x05 carries (GB/T 32960.3-2016
table 17: 12 and 20 bytes, encryption rule 1 none, 2 RSA, 3 AES-128); ``version`` the framing sent (2016 ``##``,
2025 ``$$``). ``password`` is write-only. ``aesKey`` / ``aesIv`` (write-only, 32 hex digits each, both or neither;
migration 0068) are the AES-128 key and IV agreed with the platform (protocols/gb32960/cipher.py): encryption rule
3 needs them; RSA (2) is not offered, the 2016 edition having no key exchange for it; ``aesKeySet`` reads whether
a key is kept. A change is picked up within FLEET_GB32960_EXCHANGE_RELOAD_S and restarts that platform's
link.
Its virtual ``carIds`` are the vehicles it forwards (each a car of the caller's tree, else 404 naming the field),
kept in ``gb32960_exchange_car``: a write with ``carIds`` replaces the list, a read answers it.
``gb32960ExchangeCar`` (read-only, ``gb32960_exchange_car_view``): which vehicles are forwarded to which platform,
each with its platform's link state. Both are guarded by the ``superiorPlatform`` code, as the JT/T 809 superior
platforms are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.errors import BadRequest
from api.query.entities_exchange import link_settings
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec

F = FieldSpec
PERMISSION = "superiorPlatform"
# The encryption rules a link runs (GB/T 32960.3-2016 table 2): 1 none, 3 AES-128. 2 (RSA) stays in the column's
# domain but is not written: the 2016 edition has no key exchange nor block rule for it (exchange/gb32960/service.py).
ENCRYPTIONS = (1, 3)
AES = 3
HEX_16_BYTES = r"^[0-9a-fA-F]{32}$"
VERSIONS = ("2016", "2025")
LINK_STATES = ("connecting", "connected", "disconnected", "error")


def _bytes_at_most(limit: int, zh: str, field: str) -> Any:
    def check(value: Any) -> str | None:
        if isinstance(value, str) and len(value.encode("utf-8")) > limit:
            return f"{zh}最多 {limit} 字节 (field '{field}': at most {limit} bytes, GB/T 32960.3-2016 table 17)"
        return None
    return check


MAX_CARS = 10_000


def _car_ids(value: Any) -> str | None:
    if not isinstance(value, list) or len(value) > MAX_CARS or any(
            isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value):
        return f"交换车辆不合法 (carIds is a list of at most {MAX_CARS} car ids)"
    return None


def _after_write(values: Mapping[str, Any], before: Mapping[str, Any] | None, field: str, column: str) -> Any:
    """A setting as the row will hold it: the written value, else the row's (``before``: the row on update)."""
    return values[field] if field in values else (before or {}).get(column)


def aes_pair(values: dict[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any]:
    """The AES key and IV as kept (lowercase hex), both set or both cleared (migration 0068's rule, said as a 400
    naming the missing one). ``before``: the row on update."""
    values = {**values, **{n: values[n].lower() for n in ("aesKey", "aesIv") if isinstance(values.get(n), str)}}
    key = _after_write(values, before, "aesKey", "aes_key")
    iv = _after_write(values, before, "aesIv", "aes_iv")
    if (key is None) != (iv is None):
        missing = "aesIv" if iv is None else "aesKey"
        raise BadRequest(f"AES 密钥与初始向量须同时设置或同时清除 (field '{missing}': the AES key and IV are set "
                         "together, 32 hex digits each)", data={"field": missing})
    return values


class PlatformHooks(EntityHooks):
    """A null on update would erase a setting the link runs on: refused; on create it takes the default. The
    virtual ``carIds`` replaces the platform's rows of gb32960_exchange_car (their tenant: the platform's). The
    encryption rule is one the link can run: none, or AES-128 with its key and IV."""

    cross_field_rules = True

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = aes_pair(link_settings(values, before, ("encryption", "version", "enabled")), before)
        if "carIds" in values and values["carIds"] is None:
            values["carIds"] = []
        encryption = _after_write(values, before, "encryption", "encryption")
        if encryption == AES and _after_write(values, before, "aesKey", "aes_key") is None:
            raise BadRequest("AES-128 加密须设置 AES 密钥与初始向量 (field 'aesKey': encryption 3 needs the AES key "
                             "and IV agreed with the platform)", data={"field": "aesKey"})
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if "carIds" not in values:
            return
        cars = sorted(set(values["carIds"]))
        conn.execute("DELETE FROM gb32960_exchange_car WHERE platform_id = %(id)s AND NOT car_id = ANY(%(cars)s)",
                     {"id": record_id, "cars": cars})
        conn.execute(
            """INSERT INTO gb32960_exchange_car (enterprise_id, platform_id, car_id)
               SELECT p.enterprise_id, p.id, c FROM gb32960_superior_platform p, unnest(%(cars)s::bigint[]) AS c
               WHERE p.id = %(id)s
               ON CONFLICT (platform_id, car_id) DO NOTHING""", {"id": record_id, "cars": cars})
        # the link service restarts a platform whose vehicles changed (it compares the rows it reads)
        conn.execute("UPDATE gb32960_superior_platform SET updated_at = now() WHERE id = %(id)s", {"id": record_id})

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        rows = conn.execute("SELECT car_id FROM gb32960_exchange_car WHERE platform_id = %(id)s ORDER BY car_id",
                            {"id": record["id"]}).fetchall()
        return {**record, "carIds": [int(r[0]) for r in rows]}


GB32960_SUPERIOR_PLATFORM = EntitySpec(
    name="gb32960SuperiorPlatform",
    relation="gb32960_superior_platform_view",
    table="gb32960_superior_platform",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="GB32960上级平台",
    hooks=PlatformHooks(),
    default_order="id",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "host": F("host", required=True, max_length=255, create=True, update=True, label="地址", exportable=True),
        "port": F("port", "int", required=True, minimum=1, maximum=65535, create=True, update=True, label="端口",
                  exportable=True),
        "username": F("username", required=True, max_length=12, check=_bytes_at_most(12, "用户名", "username"),
                      create=True, update=True, label="用户名", exportable=True),
        "password": F("password", required=True, max_length=20, check=_bytes_at_most(20, "密码", "password"),
                      secret=True, create=True, update=True, label="密码"),
        "encryption": F("encryption", "int", enum=ENCRYPTIONS, create=True, update=True, label="加密规则",
                        exportable=True),
        "aesKey": F("aes_key", pattern=HEX_16_BYTES, secret=True, create=True, update=True, label="AES 密钥"),
        "aesIv": F("aes_iv", pattern=HEX_16_BYTES, secret=True, create=True, update=True, label="AES 初始向量"),
        "aesKeySet": F("aes_key_set", "bool", expression="aes_key_set", label="已设 AES 密钥", exportable=True),
        "version": F("version", enum=VERSIONS, create=True, update=True, label="协议版本", exportable=True),
        "enabled": F("enabled", "bool", create=True, update=True, label="启用", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "carIds": F("car_ids", "json", virtual=True, ref="carView", check=_car_ids, create=True, update=True,
                    label="交换车辆"),
        "linkState": F("link_state", expression="link_state", enum=LINK_STATES, label="链路状态", exportable=True),
        "linkSince": F("link_since", "time", expression="link_since", label="状态时间", exportable=True),
        "lastHeartbeatAt": F("last_heartbeat_at", "time", expression="last_heartbeat_at", label="最近心跳"),
        "sent": F("sent", "int", expression="sent", label="实时上报数", exportable=True),
        "backfilled": F("backfilled", "int", expression="backfilled", label="补发数", exportable=True),
        "skipped": F("skipped", "int", expression="skipped", label="未转发数", exportable=True),
        "lastError": F("last_error", expression="last_error", filterable=False, sortable=False, label="最近错误",
                       exportable=True),
        "createdAt": F("created_at", "time", label="创建时间"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

GB32960_EXCHANGE_CAR = EntitySpec(
    name="gb32960ExchangeCar",
    relation="gb32960_exchange_car_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="GB32960交换车辆",
    default_order="id",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "platformId": F("platform_id", "int", ref="gb32960SuperiorPlatform", label="上级平台"),
        "platformName": F("platform_name", expression="platform_name", label="上级平台", exportable=True),
        "version": F("version", expression="version", enum=VERSIONS, label="协议版本", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", expression="plate_number", label="车牌号", exportable=True),
        "vin": F("vin", expression="vin", label="VIN", exportable=True),
        "linkState": F("link_state", expression="link_state", enum=LINK_STATES, label="链路状态", exportable=True),
        "linkSince": F("link_since", "time", expression="link_since", label="状态时间", exportable=True),
        "createdAt": F("created_at", "time", label="加入时间", exportable=True),
    },
)

class InferiorHooks(EntityHooks):
    cross_field_rules = True  # the AES key and IV together

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        return aes_pair(link_settings(values, before, ("enabled",)), before)


# Link state of an inferior platform on the GB gateways (migration 0062, aggregated over the gateways' rows)
INFERIOR_LINK_STATES = ("online", "offline")
# Its last error (gateway/gb/inferior_links.py): a login refused (wrong password, platform disabled), a relayed VIN
# refused (not a vehicle of its enterprise tree, or of several) or an AES data unit its key does not decrypt
INFERIOR_LAST_ERRORS = ("wrong_password", "platform_disabled", "unknown_vin", "ambiguous_vin", "undecryptable")

# A platform that relays its vehicles' data to us (the gb32960 exchange's inferiorPlatform): the GB gateway accepts
# its platform login 0x05 with this username (unique over all platforms: the login names the account) and password
# (write-only), then takes the frames of the vehicles of the owner's enterprise tree by VIN (gateway/README.md).
# Read from its view with the link state the GB gateways write every few seconds (online / offline since, peer,
# last frame, logins, frames relayed, vehicles of the latest session, refused logins, last error); its login,
# logout and refusals are in the exchange frame logs (platformKind gb32960_inferior).
GB32960_INFERIOR_PLATFORM = EntitySpec(
    name="gb32960InferiorPlatform",
    relation="gb32960_inferior_platform_view",
    table="gb32960_inferior_platform",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="GB32960下级平台",
    hooks=InferiorHooks(),
    default_order="id",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "username": F("username", required=True, max_length=12, unique=True,
                      check=_bytes_at_most(12, "用户名", "username"), create=True, update=True, label="用户名",
                      exportable=True),
        "password": F("password", required=True, max_length=20, check=_bytes_at_most(20, "密码", "password"),
                      secret=True, create=True, update=True, label="密码"),
        "aesKey": F("aes_key", pattern=HEX_16_BYTES, secret=True, create=True, update=True, label="AES 密钥"),
        "aesIv": F("aes_iv", pattern=HEX_16_BYTES, secret=True, create=True, update=True, label="AES 初始向量"),
        "aesKeySet": F("aes_key_set", "bool", expression="aes_key_set", label="已设 AES 密钥", exportable=True),
        "enabled": F("enabled", "bool", create=True, update=True, label="启用", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "linkState": F("link_state", expression="link_state", enum=INFERIOR_LINK_STATES, label="链路状态",
                       exportable=True),
        "linkSince": F("link_since", "time", expression="link_since", label="状态时间", exportable=True),
        "peer": F("peer", expression="peer", filterable=False, label="来源地址", exportable=True),
        "lastFrameAt": F("last_frame_at", "time", expression="last_frame_at", label="最近报文", exportable=True),
        "logins": F("logins", "int", expression="logins", label="登入次数", exportable=True),
        "frames": F("frames", "int", expression="frames", label="转发报文数", exportable=True),
        "vehicles": F("vehicles", "int", expression="vehicles", label="车辆数", exportable=True),
        "refused": F("refused", "int", expression="refused", label="拒绝登入次数", exportable=True),
        "lastError": F("last_error", expression="last_error", enum=INFERIOR_LAST_ERRORS, label="最近错误",
                       exportable=True),
        "lastErrorAt": F("last_error_at", "time", expression="last_error_at", label="错误时间", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

GB32960_EXCHANGE_WRITABLE = (GB32960_SUPERIOR_PLATFORM, GB32960_INFERIOR_PLATFORM)
GB32960_EXCHANGE_READ_ONLY = (GB32960_EXCHANGE_CAR,)
