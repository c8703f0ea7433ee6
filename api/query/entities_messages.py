"""Message logs (platform-spec §2 logs) as read-only declared entities, listed, filtered, paged and exported
by the generic routes and the one list page:

- ``originalMessage``: every frame kept (``message_log_view``, migration 0015): uplinks and the frames
  the gateway wrote, each with its hex (``rawHex``) and the codec's JSON (``decoded``, as text).
  Needs a vehicle and a time range (``Window``: the log holds every frame of every terminal).
- ``upstreamMessage``: the uplinks only (``upstream_message_view``), same window.
- ``downstreamMessage``: the commands sent to terminals (the ``command`` table, contract C): what was
  asked, by whom, and its outcome; newest first, per vehicle or for the whole scope.

Tenant: the enterprise that recorded the row (the terminal's at the time).
"""

from __future__ import annotations

from api.query.entities_logs import history_max_days
from api.query.grammar import EntitySpec, FieldSpec, Window
from fleet.gb32960_records import GB_PROTOCOLS
from fleet.phones import phone_search_text

F = FieldSpec
DIRECTIONS = (0, 1)  # 0 up (terminal -> platform), 1 down
COMMAND_STATES = ("created", "sent", "answered", "timed_out", "failed")
COMMAND_RESULTS = (0, 1, 2, 3)  # success, failure, message error, unsupported
# Why a command failed or timed out: the gateway's failed records (streams/commands.py), the timer, and
# the API when Kafka refused the downlink (api/routes/commands.py)
COMMAND_REASONS = ("offline", "closed", "queue_full", "encode_error", "reply_timeout", "reply_malformed",
                   "kafka_unavailable")
# What the gateway answered a 0x0100 / 0x0102 of a known device, and why (gateway/login.py)
# and why it refused a frame of an authenticated terminal (gateway/connection.py _log_refused)
ACCESS_REASONS = ("accepted", "wrong_code", "not_registered", "disabled", "imei_mismatch", "identity_mismatch",
                  "reregistration_pending", "terminal_taken", "refused", "malformed", "unsupported")
FRAME_KEY = ("concat_ws('-', device_id, (extract(epoch FROM time) * 1000000)::bigint, direction, msg_id, seq)")
MSG_ID_HEX = "'0x' || upper(lpad(to_hex(msg_id), 4, '0'))"
# a frame's id as its protocol writes it: 0x0200 (JT/T 808), 0x02 (a GB header command)
FRAME_MSG_ID_HEX = f"CASE WHEN protocol = 'jt808' THEN {MSG_ID_HEX} ELSE '0x' || upper(lpad(to_hex(msg_id), 2, '0')) END"
FRAME_PROTOCOLS = ("jt808", *GB_PROTOCOLS)


def _frame_fields(with_direction: bool) -> dict[str, FieldSpec]:
    fields = {
        # A frame's identity (the console's row key): device, time (µs), direction, message id, serial.
        "key": F("key", expression=FRAME_KEY, filterable=False, sortable=False, label="报文标识"),
        "time": F("time", "time", label="时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "phone": F("phone", label="终端手机号", exportable=True, normalize=phone_search_text),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "direction": F("direction", "int", enum=DIRECTIONS, label="方向", exportable=True),
        # the frame's family (migration 0071): a JT/T 808 message id, or a GB terminal's header command
        "protocol": F("protocol", enum=FRAME_PROTOCOLS, label="协议", exportable=True),
        "msgId": F("msg_id", "int", label="消息ID"),
        "msgIdHex": F("msg_id_hex", expression=FRAME_MSG_ID_HEX, filterable=False, sortable=False, label="消息ID",
                      exportable=True),
        "seq": F("seq", "int", label="流水号", exportable=True),
        "rawHex": F("raw_hex", filterable=False, sortable=False, label="原始报文", exportable=True),
        "rawTruncated": F("raw_truncated", "bool", label="报文已截断", exportable=True),
        "decoded": F("decoded", expression="decoded::text", filterable=False, sortable=False, label="解析结果",
                     exportable=True),
        "access": F("access", expression="coalesce(decoded->'access'->>'reason', decoded->'refused'->>'reason')",
                    enum=ACCESS_REASONS, sortable=False, label="接入结果", exportable=True),
        "commandId": F("command_id", "int", label="指令编号", exportable=True),
        "gatewayId": F("gateway_id", label="网关", exportable=True),
    }
    if not with_direction:
        del fields["direction"], fields["commandId"]
    return fields


ORIGINAL_MESSAGE = EntitySpec(
    name="originalMessage",
    relation="message_log_view",
    tenant_column="enterprise_id",
    permission="originalMessage",
    id_field="key",
    tiebreak=("time", "deviceId", "direction", "msgId", "seq"),
    default_order="time",
    default_desc=True,
    max_page_size=500,
    window=Window("carId", "time", history_max_days),
    label="原始报文",
    fields=_frame_fields(with_direction=True),
)

UPSTREAM_MESSAGE = EntitySpec(
    name="upstreamMessage",
    relation="upstream_message_view",
    tenant_column="enterprise_id",
    permission="upstreamMessage",
    id_field="key",
    tiebreak=("time", "deviceId", "msgId", "seq"),
    default_order="time",
    default_desc=True,
    max_page_size=500,
    window=Window("carId", "time", history_max_days),
    label="上行消息",
    fields=_frame_fields(with_direction=False),
)

DOWNSTREAM_MESSAGE = EntitySpec(
    name="downstreamMessage",
    relation="command",
    tenant_column="enterprise_id",
    permission="downstreamMessage",
    id_field="id",
    tiebreak=("id",),
    default_order="createTime",
    default_desc=True,
    label="下行消息",
    fields={
        "id": F("id", "int", label="指令编号", exportable=True),
        "createTime": F("created_at", "time", label="下发时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", expression="SELECT c.plate_number FROM car c WHERE c.id = command.car_id",
                         filterable=False, sortable=False, label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "phone": F("phone", label="终端手机号", exportable=True, normalize=phone_search_text),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "msgId": F("msg_id", "int", label="消息ID"),
        "msgIdHex": F("msg_id_hex", expression=MSG_ID_HEX, filterable=False, sortable=False, label="消息ID",
                      exportable=True),
        "seq": F("seq", "int", label="流水号", exportable=True),
        "payload": F("payload", expression="payload::text", filterable=False, sortable=False, label="指令参数",
                     exportable=True),
        "state": F("state", enum=COMMAND_STATES, label="状态", exportable=True),
        "result": F("result", "int", enum=COMMAND_RESULTS, label="结果", exportable=True),
        "reason": F("reason", enum=COMMAND_REASONS, label="原因", exportable=True),
        "replyMsgId": F("reply_msg_id", "int", label="应答消息ID", exportable=True),
        "createdByName": F("created_by_name", label="发送人", exportable=True),
        "sentAt": F("sent_at", "time", label="发送时间", exportable=True),
        "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
    },
)

MESSAGE_ENTITIES = (ORIGINAL_MESSAGE, UPSTREAM_MESSAGE, DOWNSTREAM_MESSAGE)
