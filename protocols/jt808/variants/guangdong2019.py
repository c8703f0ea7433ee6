"""Guangdong 2019 (粤标): the Jiangsu layout with a wider alarm number (terminal id BYTE[30], reserved
BYTE[2]: 40 bytes instead of 16) in items 0x64-0x67 and messages 0x9208/0x1210, and a BYTE[30]
terminal id at the head of 0x1210. Selected with ``use_variant("guangdong2019")``."""

from __future__ import annotations

from typing import ClassVar

from protocols.jt808.alarm_number import GUANGDONG_2019, AlarmNumberLayout
from protocols.jt808.extras.x64_adas_alarm import adas_item
from protocols.jt808.extras.x65_dsm_alarm import dsm_item
from protocols.jt808.extras.x66_tpms_alarm import tpms_item
from protocols.jt808.extras.x67_bsd_alarm import bsd_item
from protocols.jt808.messages.t1210_alarm_attachment_list import AlarmAttachmentList
from protocols.jt808.messages.t9208_alarm_attachment_upload_request import AlarmAttachmentUploadRequest
from protocols.jt808.variants import Variant, register_variant


class GuangdongAlarmAttachmentUploadRequest(AlarmAttachmentUploadRequest):
    ALARM_NO_LAYOUT: ClassVar[AlarmNumberLayout] = GUANGDONG_2019


class GuangdongAlarmAttachmentList(AlarmAttachmentList):
    ALARM_NO_LAYOUT: ClassVar[AlarmNumberLayout] = GUANGDONG_2019


GUANGDONG = register_variant(Variant(
    "guangdong2019",
    "粤标 2019 (Guangdong 2019)",
    tuple(make(GUANGDONG_2019) for make in (adas_item, dsm_item, tpms_item, bsd_item)),
    (GuangdongAlarmAttachmentUploadRequest, GuangdongAlarmAttachmentList),
))
