"""``refusedRegistration``: refused registrations / authentications of terminals whose phone no device has
(table ``refused_registration``, migration 0039, written by the gateway: gateway/unknown_terminals.py).

Such a phone belongs to no enterprise, so only the platform's own administrators read it: a caller of a
root enterprise holding ``device:add`` (who may register the terminal it shows); anyone else gets a 403
(``EntitySpec.root_only``, api/routes/common.py). The relation ``refused_registration_view`` also carries
each root enterprise as its tenant, so the generic scope alone already shows the rows to no one else, and
leaves out phones registered since.
"""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec
from fleet.phones import phone_search_text
from protocols.jt808.catalogue import AUTHENTICATION, REGISTRATION

F = FieldSpec
# Why the gateway refused it (gateway/unknown_terminals.py): no active device has the phone, or the header's
# phone is no number
REFUSED_REASONS = ("unknown_phone", "invalid_phone")
MSG_IDS = (REGISTRATION, AUTHENTICATION)

REFUSED_REGISTRATION = EntitySpec(
    name="refusedRegistration",
    relation="refused_registration_view",
    tenant_column="enterprise_id",
    permission="device",
    root_only=True,
    id_field="id",
    tiebreak=("id",),
    default_order="lastSeen",
    default_desc=True,
    max_page_size=500,
    label="未接入终端",
    fields={
        "id": F("id", "int", label="编号"),
        "phone": F("phone", label="终端手机号", normalize=phone_search_text),
        "reason": F("reason", enum=REFUSED_REASONS, label="拒绝原因"),
        "msgId": F("msg_id", "int", enum=MSG_IDS, label="消息ID"),
        "result": F("result", "int", label="应答结果"),
        "terminalId": F("terminal_id", label="终端ID"),
        "manufacturerId": F("manufacturer_id", label="制造商ID"),
        "terminalModel": F("terminal_model", label="终端型号"),
        "plateNumber": F("plate_number", label="车牌号"),
        "plateColor": F("plate_color", "int", label="车牌颜色"),
        "imei": F("imei", label="IMEI"),
        "protocolVersion": F("protocol_version", label="协议版本"),
        "peer": F("peer", label="来源地址"),
        "gatewayId": F("gateway_id", label="网关"),
        "firstSeen": F("first_seen", "time", label="首次时间"),
        "lastSeen": F("last_seen", "time", label="最近时间"),
        "attempts": F("attempts", "int", label="次数"),
    },
)
