"""Terminal media files as a read-only declared entity: the evidence list (platform-spec §2 lists).

``deviceUploadFile``: one row per photo, audio or video clip a terminal uploaded (``device_upload_file_view``,
migration 0014), with its vehicle's plate and terminal name; newest first. Filters of the console spec
(``enterpriseId.eq``, ``deviceId.eq``, ``bizId.eq``) and any other declared field (``carId``, a ``time``
range, ``mediaType``; ``alarmId`` / ``warnUuid``: an active-safety alarm's attachments, migration 0020). The bytes: ``/file{objectKey}`` or the download routes (api/routes/media.py).
Tenant: the enterprise of the terminal when it uploaded.
"""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec

F = FieldSpec
MEDIA_TYPES = (0, 1, 2, 3, 4)  # photo, audio, video; 3 text, 4 other (alarm attachments, 0x1211)
RESOURCE_TYPES = (1, 2, 4)  # image, video, audio (console-spec §3: below 4 previews)

DEVICE_UPLOAD_FILE = EntitySpec(
    name="deviceUploadFile",
    relation="device_upload_file_view",
    tenant_column="enterprise_id",
    permission="evidence",
    id_field="id",
    tiebreak=("time", "id"),
    default_order="time",
    default_desc=True,
    max_page_size=500,
    label="多媒体证据",
    fields={
        "id": F("id", "int", label="编号", exportable=True),
        "time": F("created_at", "time", label="上传时间", exportable=True),
        "objectKey": F("object_key", label="文件", exportable=True),
        "resourceType": F("resource_type", "int", enum=RESOURCE_TYPES, label="资源类型"),
        "fileStoreType": F("file_store_type", "int", label="存储类型"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "bizId": F("biz_id", "int", label="业务类型"),
        "deviceId": F("device_id", "int", label="终端编号"),
        "deviceName": F("device_name", label="终端名称", exportable=True),
        "devicePhone": F("device_phone", label="终端手机号", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "mediaId": F("media_id", "int", label="多媒体ID", exportable=True),
        "mediaType": F("media_type", "int", enum=MEDIA_TYPES, label="多媒体类型", exportable=True),
        "mediaFormat": F("media_format", "int", label="格式", exportable=True),
        "eventCode": F("event_code", "int", label="事件项编码", exportable=True),
        "channel": F("channel", "int", label="通道", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "fixTime": F("fix_time", "time", label="定位时间", exportable=True),
        "size": F("size", "int", label="大小(字节)", exportable=True),
        "sha256": F("sha256", filterable=False, sortable=False, label="SHA-256", exportable=True),
        "alarmId": F("alarm_id", "int", label="报警编号", exportable=True),
        "warnUuid": F("warn_uuid", label="报警UUID", exportable=True),
        "fileName": F("file_name", label="文件名", exportable=True),
    },
)

MEDIA_ENTITIES = (DEVICE_UPLOAD_FILE,)
