"""The JT/T 809 data exchange in Chromium, end to end: a terminal's emergency alarm goes through the gateway and
the streams worker to the link service (its own process) and reaches the regulator in a box as 0x1402; the
regulator sends an inspection (0x9301); the dialog pops up for the signed-in operator with its question and
countdown; the operator types an answer and the regulator receives it as 0x1301 with that text. Then the five
data-exchange screens show what happened, in zh-CN, zh-HK and en-US: the link state of the platform, the
inspection (answered, who, latency; an expired one cannot be answered), the alarm forwarded with its
upper-platform type by name, and the 809 frames both ways, decoded and as hex."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from protocols.jt808 import Authentication, LocationReport
from tests.e2e.conftest import ConsoleStack
from tests.e2e.safety_terminal import Terminal, own_enterprise, wait_subscribed, watch_subscriptions
from tests.e2e.support import OPEN_OPTIONS, sign_in, stomp_frames
from tests.e2e.test_console import screenshot, switch_language, text
from tests.integration.exchange.test_link_service import LinkService
from tests.integration.exchange.test_regulator_e2e import CENTRE, PASSWORD, USER, RegulatorThread
from tests.integration.streams.support import commit_group_at_end, wait_for

PLATFORM = "省级监管平台(测试)"
QUESTION = "请报告当前值班人员姓名"
ANSWER = "值班员张三在岗"
EMERGENCY = 1  # 0x0200 alarm bit 0: forwarded as upper-platform alarm type 3 (exchange/link/forwarding.py)


class Exchange:
    def __init__(self, fleet: dict[str, Any], regulator: RegulatorThread, service: LinkService, platform_id: int,
                 db_url: str) -> None:
        self.fleet, self.regulator, self.service, self.platform_id, self.db_url = (
            fleet, regulator, service, platform_id, db_url)


@pytest.fixture
def exchange(console_stack: ConsoleStack, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
             tmp_path: Path) -> Iterator[Exchange]:
    fleet = own_enterprise(console_stack)
    regulator = RegulatorThread(free_port())
    regulator.call(regulator.regulator.start)
    with psycopg.connect(console_stack.db_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this test's platform is linked
        platform_id = int(conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "down_link_host, down_link_port, position_interval_s) VALUES (%s, %s, '127.0.0.1', %s, %s, %s, %s, "
            "'2019', '127.0.0.1', %s, 0) RETURNING id",
            (fleet["enterprise_id"], PLATFORM, regulator.regulator.port, USER, PASSWORD, CENTRE, free_port())
        ).fetchone()[0])  # type: ignore[index]
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_DATABASE_URL": console_stack.db_url, "FLEET_EXCHANGE_RELOAD_S": "1",
           "FLEET_EXCHANGE_POLL_S": "0.5", "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2",
           "FLEET_EXCHANGE_RECONNECT_MAX_S": "1"}  # heartbeats every 60 s: the frame logs' first page keeps the login
    service = LinkService(env, tmp_path / "exchange.log")
    service.start()
    try:
        wait_for(regulator.linked, 60, "main and sub link up at the regulator", service)
        yield Exchange(fleet, regulator, service, platform_id, console_stack.db_url)
    finally:
        service.stop()
        regulator.call(regulator.regulator.stop)
        regulator.loop.call_soon_threadsafe(regulator.loop.stop)
        with psycopg.connect(console_stack.db_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))


def _raise_emergency(stack: ConsoleStack, fleet: dict[str, Any]) -> None:
    terminal = Terminal(stack.gateway_port, fleet["phone"])
    try:
        assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
        report = LocationReport(EMERGENCY, 3, 39.9087, 116.3975, 50, 30.0, 90, terminal.next_fix_at(),
                                {"mileage_km": 100.0})
        assert terminal.reply_to(terminal.send(0x0200, report)).result == 0
    finally:
        terminal.close()


def _watch_received(page: Any) -> list[str]:
    """The STOMP frames the page's live socket receives, from now on."""
    received: list[str] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: received.extend(
        stomp_frames(payload))))
    return received


def _wait_live(page: Any, received: list[str], kafka_bootstrap: str, fleet: dict[str, Any]) -> None:
    """Until the console's socket relays this enterprise's pushes: a probe push (a type no screen handles) is
    produced every second until the page receives it, so the inspection is pushed to a live console (on a
    loaded machine the API's relay may take a while after the socket subscribed)."""
    from kafka import KafkaProducer

    probe = json.dumps({"kind": "push", "enterprise_id": fleet["enterprise_id"],
                        "enterprise_path": f"/{fleet['enterprise_id']}/",
                        "push": {"type": 99, "data": {"probe": "exchange-e2e"}}}).encode()
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        deadline = time.monotonic() + 60
        while not any("exchange-e2e" in frame for frame in received):
            assert time.monotonic() < deadline, "the console's socket relayed no push of its enterprise in 60 s"
            producer.send(CONSOLE_EVENTS, probe, key=str(fleet["enterprise_id"]).encode())
            producer.flush()
            page.wait_for_timeout(1000)  # lets Playwright deliver the socket's events
    finally:
        producer.close()


def _row(page: Any, entity: str, has_text: str) -> Any:
    row = page.get_by_test_id(f"list-page-{entity}").get_by_test_id("list-table").locator(
        "tr.ant-table-row", has_text=has_text).first
    row.wait_for()
    return row


def test_an_alarm_reaches_the_regulator_and_its_inspection_is_answered_in_the_browser(
        page: Any, console_stack: ConsoleStack, exchange: Exchange, kafka_bootstrap: str) -> None:
    regulator, fleet = exchange.regulator, exchange.fleet
    sent, received = watch_subscriptions(page), _watch_received(page)
    sign_in(page, fleet["user"], path="/dashboard/index")
    wait_subscribed(page, sent)  # an inspection pushed before would pop up only at the next sign-in
    _raise_emergency(console_stack, fleet)
    alarms = wait_for(lambda: [a for a in regulator.status()["alarms"] if a["plate"] == fleet["plate"]], 90,
                      "the terminal's alarm at the regulator", exchange.service)
    assert alarms[0]["warn_type"] == 3  # emergency

    _wait_live(page, received, kafka_bootstrap, fleet)
    regulator.call(regulator.regulator.send_inspection, QUESTION, user_id=USER, answer_minutes=10)
    wait_for(lambda: _one(exchange.db_url, "SELECT id FROM exchange_inspection WHERE platform_id = %s",
                          exchange.platform_id), 30, "the inspection stored by the link service", exchange.service)
    dialog = page.get_by_test_id("inspection-dialog")
    dialog.get_by_test_id("inspection-question").wait_for(timeout=45_000)  # pushed, not read at sign-in
    assert dialog.get_by_test_id("inspection-question").inner_text() == QUESTION
    assert PLATFORM in dialog.inner_text()
    countdown = dialog.get_by_test_id("inspection-countdown").inner_text()
    assert re.fullmatch(r"剩余应答时间 (09:\d\d|10:0\d)", countdown), countdown  # 10 minutes to answer
    screenshot(page, "exchange-inspection-dialog.png")
    dialog.get_by_test_id("inspection-answer").fill(ANSWER)
    page.get_by_test_id("inspection-submit").click()
    dialog.wait_for(state="hidden")
    answers = wait_for(lambda: regulator.status()["inspection_answers"], 60, "the 0x1301 at the regulator",
                       exchange.service)
    assert answers[0]["answer"] == ANSWER

    _screens_in_three_languages(page, exchange)
    assert page.errors == []  # type: ignore[attr-defined]


def _screens_in_three_languages(page: Any, exchange: Exchange) -> None:
    fleet = exchange.fleet
    with psycopg.connect(exchange.db_url, autocommit=True) as conn:  # one the operators let run out
        conn.execute(
            "INSERT INTO exchange_inspection (platform_id, enterprise_id, received_at, object_type, object_id, info_id,"
            " source_sn, question, deadline) VALUES (%s, %s, %s, 1, '7001', 99, 1, '过期的查岗', %s)",
            (exchange.platform_id, fleet["enterprise_id"], datetime.now(UTC) - timedelta(minutes=11),
             datetime.now(UTC) - timedelta(minutes=1)))
    wait_for(lambda: _one(exchange.db_url, "SELECT count(*) FROM exchange_inspection WHERE platform_id = %s AND "
                          "state = 'sent'", exchange.platform_id)[0] == 1, 30, "the answer marked sent", exchange.service)
    # the link service writes its frame log every few seconds: the upstream screen below searches it once
    wait_for(lambda: _one(exchange.db_url, "SELECT count(*) FROM exchange_message WHERE platform_id = %s AND "
                          "direction = 'up' AND msg_id = %s", exchange.platform_id, 0x1300)[0] == 1, 30,
             "the answer's 0x1300 in the frame log", exchange.service)
    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            switch_language(page, language)

        def t(key: str, namespace: str = "exchange", lng: str = language) -> str:
            return text(lng, namespace, key)

        page.goto("/exchange/superiorPlatform")
        platform = _row(page, "superiorPlatform", PLATFORM)
        platform.get_by_test_id("link-main").get_by_text(t("link.states.connected"), exact=True).wait_for()
        assert t("link.sub") in platform.get_by_test_id("link-states").inner_text()
        sent = re.search(r"\d+", platform.get_by_test_id("link-counts-main").inner_text())  # sent comes first
        assert sent is not None and int(sent.group()) > 0
        screenshot(page, f"exchange-superior-platform-{language}.png")

        page.goto("/exchange/inspectMessage")
        answered = _row(page, "inspectMessage", QUESTION)
        answered.get_by_text(t("inspectMessage.enums.state.sent"), exact=True).wait_for()
        assert ANSWER in answered.inner_text()
        expired = _row(page, "inspectMessage", "过期的查岗")
        expired.get_by_text(t("inspectMessage.enums.state.expired"), exact=True).wait_for()
        assert expired.get_by_role("button", name=t("inspection.answer")).count() == 0  # cannot be answered
        screenshot(page, f"exchange-inspect-message-{language}.png")

        page.goto("/exchange/alarmMessage")
        alarm = _row(page, "alarmMessage", fleet["plate"])
        alarm.get_by_text(t("alarmMessage.enums.warnType.3"), exact=True).first.wait_for()  # type, and the info
        assert t("alarmMessage.enums.dataType.5122") in alarm.inner_text()
        screenshot(page, f"exchange-alarm-message-{language}.png")

        page.goto("/exchange/upstreamMessage")
        upstream = page.get_by_test_id("list-page-exchangeUpstreamMessage")
        upstream.get_by_test_id("list-filter-msgId").click()  # by name from the exchange message descriptions
        page.locator(OPEN_OPTIONS, has_text="0x1300").first.click()
        upstream.get_by_test_id("list-search").click()
        # this platform's answer (other tests' platforms on the same stack may have sent 0x1300 frames too)
        answer_frame = upstream.get_by_test_id("list-table").locator("tr.ant-table-row", has_text="0x1300").filter(
            has_text=PLATFORM).first
        answer_frame.wait_for()
        answer_frame.get_by_role("button", name=t("frame.open")).click()
        drawer = page.get_by_test_id("exchange-frame-drawer")
        assert ANSWER in drawer.get_by_test_id("exchange-frame-decoded").inner_text()
        assert drawer.get_by_test_id("exchange-frame-hex").inner_text().startswith("5B ")
        page.keyboard.press("Escape")
        if language == "zh-CN":  # heartbeats push the login off the first page later
            upstream.get_by_test_id("list-reset").click()
            login = _row(page, "exchangeUpstreamMessage", "0x1001")
            assert PASSWORD not in login.inner_text()
        screenshot(page, f"exchange-upstream-message-{language}.png")

        page.goto("/exchange/downstreamMessage")
        _row(page, "exchangeDownstreamMessage", "0x9300")
        screenshot(page, f"exchange-downstream-message-{language}.png")


def _one(db_url: str, sql: str, *params: Any) -> Any:
    with psycopg.connect(db_url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchone()
