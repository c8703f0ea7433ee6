"""Messages (0x9302) and warning tips (0x9402) of the superior stored as notices, a message acknowledged with
0x1302 (2011), over a scripted superior (database calls answered by a stand-in; the regulator in a box runs
them against PostgreSQL in tests/integration/exchange/test_regulator_e2e.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from exchange.link.links import MAIN
from protocols.jt809 import Message, decode_frame, encode_frame
from protocols.jt809 import messages as m
from tests.unit.exchange.test_alarm_requests import FakeDb
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from tests.unit.exchange.test_service import run, service


def _down(msg_id: int, body: Any, version: str) -> Message:
    return decode_frame(encode_frame(msg_id, body, sn=12, centre_id=CENTRE, version=version), version=version)


def test_a_message_is_stored_and_acknowledged_and_a_warning_tip_stored() -> None:
    async def scenario() -> None:
        superior = Superior("2011")
        svc = service(await superior.start(), version="2011")
        stored: list[dict[str, Any]] = []
        db = FakeDb({"store_notice": lambda row: stored.append(row) or len(stored)})
        svc._db = db  # type: ignore[method-assign]
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        message = m.PlatformMessage(1, str(CENTRE), 77, "请加强夜间值守")
        await svc.request("sub", _down(m.PlatformExchangeDown.MSG_ID, m.PlatformExchangeDown(0x9302, message), "2011"))
        tip = m.WarningTip(3, 1, datetime(2026, 12, 2, 8, 0, tzinfo=UTC), "前方路段结冰")
        await svc.request("sub", _down(m.AlarmExchangeDown.MSG_ID, m.AlarmExchangeDown(0x9402, tip, "京A12345", 2),
                                       "2011"))
        await eventually(lambda: len(stored) == 2)
        first, second = stored
        assert (first["data_type"], first["info_id"], first["content"], first["plate"]) == (0x9302, 77, "请加强夜间值守",
                                                                                           None)
        assert (second["data_type"], second["plate"], second["warn_type"], second["content"]) == (
            0x9402, "京A12345", 1, "前方路段结冰")
        assert first["owner"] == 5 and first["enterprises"] == [5] and first["source_sn"] == 12
        await eventually(lambda: any(x.header.msg_id == m.PlatformExchange.MSG_ID for x in superior.received))
        answers = [x.body for x in superior.received if x.header.msg_id == m.PlatformExchange.MSG_ID]
        assert [a.data for a in answers] == [m.PlatformMessageAnswer(77)]  # the tip has no answer
        assert db.calls["mark_notice_answered"] == [(1,)]
        task.cancel()

    run(scenario())


def test_a_2019_message_is_stored_without_an_acknowledgement_of_unknown_layout() -> None:
    async def scenario() -> None:
        svc = service(1)  # 2019, no superior listening: nothing may be sent
        stored: list[dict[str, Any]] = []
        svc._db = FakeDb({"store_notice": lambda row: stored.append(row) or 1})  # type: ignore[method-assign]
        message = m.PlatformMessage(1, str(CENTRE), 78, "通知")
        await svc.request("sub", _down(m.PlatformExchangeDown.MSG_ID, m.PlatformExchangeDown(0x9302, message), "2019"))
        assert stored[0]["info_id"] == 78

    asyncio.run(scenario())
