"""Jiangsu 2017 (T/JSATL12-2017, 苏标): the default active-safety layout, registered by the item and
message modules themselves; this variant lets a process switch back to it."""

from __future__ import annotations

from protocols.jt808.alarm_number import JIANGSU_2017
from protocols.jt808.extras.x64_adas_alarm import adas_item
from protocols.jt808.extras.x65_dsm_alarm import dsm_item
from protocols.jt808.extras.x66_tpms_alarm import tpms_item
from protocols.jt808.extras.x67_bsd_alarm import bsd_item
from protocols.jt808.messages.t1210_alarm_attachment_list import AlarmAttachmentList
from protocols.jt808.messages.t9208_alarm_attachment_upload_request import AlarmAttachmentUploadRequest
from protocols.jt808.variants import Variant, register_variant

JIANGSU = register_variant(Variant(
    "jiangsu2017",
    "苏标 T/JSATL12-2017 (Jiangsu 2017)",
    tuple(make(JIANGSU_2017) for make in (adas_item, dsm_item, tpms_item, bsd_item)),
    (AlarmAttachmentUploadRequest, AlarmAttachmentList),
))
