"""Data exchange (platform-spec §2 superiorPlatform; JT/T 809, exchange/link) as declared entities.

``superiorPlatform`` (table ``superior_platform``, migration 0045): a superior platform the link service
(``fleet exchange``) keeps its main and sub links to. ``password`` is write-only (the 0x1001 login sends it in
clear, so it is stored as given; no read, list, export or audit shows it). ``exchangedEnterpriseIds``: the
enterprise subtrees whose vehicles are forwarded (empty: the owner's whole subtree). A change is picked up by
the link service within FLEET_EXCHANGE_RELOAD_S and restarts that platform's links.
Every route checks the ``superiorPlatform`` permission code; the link operations (link state, answering an
inspection: api/routes/exchange.py) need its ``superior`` action (platform-spec §6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.errors import BadRequest
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec

F = FieldSpec
PERMISSION = "superiorPlatform"
U32 = 4_294_967_295


def _enterprise_ids(value: Any) -> str | None:
    if not isinstance(value, list) or len(value) > 1000 or any(
            isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value):
        return "交换企业不合法 (exchangedEnterpriseIds is a list of enterprise ids)"
    return None


DEFAULTED = ("version", "encrypted", "m1", "ia1", "ic1", "encryptKey", "downLinkHost", "positionInterval",
             "exchangedEnterpriseIds", "enabled")


class SuperiorPlatformHooks(EntityHooks):
    cross_field_rules = True

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = {**values, "remark": ""} if "remark" in values and values["remark"] is None else dict(values)
        # Columns with a default (migration 0045) are NOT NULL: a null on create takes the default; on update
        # it would erase the setting the link runs on, so it is refused.
        for name in [n for n in DEFAULTED if n in values and values[n] is None]:
            if before is None:
                del values[name]
            else:
                raise BadRequest(f"{name} 不能为空 (field '{name}' cannot be null)", data={"field": name})
        old = dict(before or {})
        encrypted = values.get("encrypted", old.get("encrypted"))
        m1 = values.get("m1", old.get("m1")) or 0
        # The cipher divides by M1 (JT/T 809-2011 §4.3): an encrypted link needs one.
        if encrypted and not m1:
            raise BadRequest("加密链路须设置 M1 (field 'm1': an encrypted link needs M1 greater than 0)",
                             data={"field": "m1"})
        return values


SUPERIOR_PLATFORM = EntitySpec(
    name="superiorPlatform",
    relation="superior_platform",
    table="superior_platform",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="上级平台",
    hooks=SuperiorPlatformHooks(),
    default_order="id",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "host": F("host", required=True, max_length=255, create=True, update=True, label="地址", exportable=True),
        "port": F("port", "int", required=True, minimum=1, maximum=65535, create=True, update=True, label="端口",
                  exportable=True),
        "userId": F("user_id", "int", required=True, minimum=0, maximum=U32, create=True, update=True,
                    label="用户名", exportable=True),
        "password": F("password", required=True, max_length=8, secret=True, create=True, update=True, label="密码"),
        "centreId": F("centre_id", "int", required=True, minimum=0, maximum=U32, create=True, update=True,
                      label="接入码", exportable=True),
        "version": F("version", enum=("2011", "2019"), create=True, update=True, label="协议版本", exportable=True),
        "encrypted": F("encrypted", "bool", create=True, update=True, label="加密"),
        "m1": F("m1", "int", minimum=0, maximum=U32, create=True, update=True, example=30000000, label="M1"),
        "ia1": F("ia1", "int", minimum=0, maximum=U32, create=True, update=True, example=20000000, label="IA1"),
        "ic1": F("ic1", "int", minimum=0, maximum=U32, create=True, update=True, example=20000000, label="IC1"),
        "encryptKey": F("encrypt_key", "int", minimum=0, maximum=U32, create=True, update=True, label="密钥"),
        "downLinkHost": F("down_link_host", max_length=32, create=True, update=True, label="从链路地址"),
        "downLinkPort": F("down_link_port", "int", required=True, minimum=1, maximum=65535, create=True,
                          update=True, label="从链路端口", exportable=True),
        "positionInterval": F("position_interval_s", "int", minimum=0, maximum=3600, create=True, update=True,
                              label="定位上报间隔(秒)", exportable=True),
        "exchangedEnterpriseIds": F("exchanged_enterprise_ids", "json", create=True, update=True,
                                    check=_enterprise_ids, example=[], filterable=False, sortable=False,
                                    label="交换企业"),
        "enabled": F("enabled", "bool", create=True, update=True, label="启用", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

EXCHANGE_WRITABLE = (SUPERIOR_PLATFORM,)
