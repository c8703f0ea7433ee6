"""The regulator's link management (JT/T 809 §5.2): login result codes, the sub link opened back with
the verify code, heartbeats on both links, reconnecting the sub link, requests on the main link while
the sub link is down."""

from __future__ import annotations

import asyncio

import pytest

from exchange.regulator import Account, Regulator, Timing
from protocols.jt809 import messages as m
from tests.unit.exchange.inferior import KEYS, Inferior, run, until

FAST = Timing(sub_heartbeat_s=0.1, sub_reply_timeout_s=1.0, reconnect_min_s=0.05, reconnect_max_s=0.2)


def regulator(*accounts: Account, timing: Timing = FAST) -> Regulator:
    return Regulator(accounts or (Account(1001, "secret", 7001),), timing=timing)


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_good_login_is_answered_with_a_verify_code_the_sub_link_then_presents(version: str) -> None:
    async def scenario() -> None:
        reg = regulator(Account(1001, "secret", 7001, version))
        await reg.start()
        inferior = Inferior(version=version)
        try:
            answer = await inferior.connect(reg.port)
            assert answer.result == m.LoginResult.OK
            sub_login = await inferior.expect_sub(m.SubLinkLoginRequest)
            assert sub_login.verify_code == answer.verify_code
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            link = reg.status()["links"][0]
            assert link["main"]["state"] == "up" and link["user_id"] == 1001
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


@pytest.mark.parametrize(("kwargs", "account", "result"), [
    ({"user_id": 9999}, Account(1001, "secret", 7001), m.LoginResult.USER_NOT_REGISTERED),
    ({"password": "wrong"}, Account(1001, "secret", 7001), m.LoginResult.PASSWORD_WRONG),
    ({"centre_id": 1234}, Account(1001, "secret", 7001), m.LoginResult.ACCESS_CODE_INCORRECT),
    ({}, Account(1001, "secret", 7001, allowed_hosts=("10.9.9.9",)), m.LoginResult.IP_INCORRECT),
    # the inferior speaks 2019 to an account agreed as 2011: answered in the layout it spoke
    ({"inferior_version": "2019"}, Account(1001, "secret", 7001, "2011"), m.LoginResult.OTHER),
])
def test_bad_login_gets_its_result_code_then_the_link_is_closed(kwargs: dict, account: Account, result: int) -> None:
    async def scenario() -> None:
        reg = regulator(account)
        await reg.start()
        login = dict(kwargs)
        inferior = Inferior(version=login.pop("inferior_version", "2011"))
        try:
            answer = await inferior.connect(reg.port, **login)
            assert answer.result == result and answer.verify_code == 0
            await asyncio.wait_for(inferior.main_closed.wait(), 3)  # closed by the regulator
            assert inferior.sub_connections == 0
            assert reg.status()["login_results"] == {m.LoginResult(result).name: 1}
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_main_link_heartbeat_is_answered_and_logout_closes_the_links() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            inferior.send(m.Heartbeat.MSG_ID, m.Heartbeat())
            await inferior.expect_main(m.HeartbeatResponse)
            inferior.send(m.LogoutRequest.MSG_ID, m.LogoutRequest(1001, "secret"))
            await inferior.expect_main(m.LogoutResponse)
            await until(lambda: reg.status()["links"][0]["main"]["state"] == "down")
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_sub_link_heartbeats_are_sent_at_the_interval_and_answers_recorded() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            for _ in range(3):
                await inferior.expect_sub(m.SubLinkHeartbeat, timeout=2)
            await until(lambda: reg.status()["links"][0]["sub"]["last_heartbeat"] is not None)
            assert reg.status()["links"][0]["sub"]["state"] == "up"
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_unanswered_sub_heartbeat_drops_the_sub_link_notifies_0x9007_and_reconnects() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior(answer_heartbeats=False)
        try:
            await inferior.connect(reg.port)
            notice = await inferior.expect_main(m.SubLinkDisconnectNotice, timeout=5)
            assert notice.code == 0
            await until(lambda: inferior.sub_connections >= 2)
            assert reg.status()["links"][0]["sub"]["failures"] >= 1
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_inspection_goes_on_the_sub_link_and_on_the_main_link_when_the_sub_link_is_down() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            sent = reg.send_inspection("在岗吗?")
            assert sent["link"] == "sub"
            asked = await inferior.expect_sub(m.InspectionRequest)
            assert (asked.info_id, asked.content) == (sent["info_id"], "在岗吗?")

            await inferior.close_sub()
            await until(lambda: reg.status()["links"][0]["sub"]["state"] != "up")
            frames = reg.status()["links"][0]["frames"]
            sent = reg.send_inspection("还在吗?")
            assert sent["link"] == "main"
            asked = await inferior.expect_main(m.InspectionRequest)
            assert asked.content == "还在吗?"
            after = reg.status()["links"][0]["frames"]
            assert after["main_down"] >= frames["main_down"] + 1 and after["sub_down"] == frames["sub_down"]
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_encrypted_link_logs_in_and_our_frames_are_encrypted_with_the_accounts_keys() -> None:
    async def scenario() -> None:
        reg = regulator(Account(1001, "secret", 7001, keys=KEYS, key=256178))
        await reg.start()
        inferior = Inferior(keys=KEYS, key=4321)
        try:
            answer = await inferior.connect(reg.port)
            assert answer.result == m.LoginResult.OK
            await inferior.expect_sub(m.SubLinkLoginRequest)
            inferior.send(m.Heartbeat.MSG_ID, m.Heartbeat())
            await inferior.expect_main(m.HeartbeatResponse)
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_stop_tells_the_inferior_the_superior_closes() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            await reg.stop()
            notice = await inferior.expect_sub(m.SuperiorClosingNotice)
            assert notice.code == 0
        finally:
            await inferior.close()
    run(scenario)


def test_a_silent_main_link_is_closed_after_the_idle_time() -> None:
    async def scenario() -> None:
        timing = Timing(sub_heartbeat_s=0.1, sub_reply_timeout_s=1.0, reconnect_min_s=0.05, reconnect_max_s=0.2,
                        main_idle_s=0.5)
        reg = regulator(timing=timing)
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            for _ in range(4):  # heartbeats keep it open past the idle time
                await asyncio.sleep(0.2)
                inferior.send(m.Heartbeat.MSG_ID, m.Heartbeat())
            assert reg.status()["links"][0]["main"]["state"] == "up"
            await asyncio.wait_for(inferior.main_closed.wait(), 3)  # then silence: closed by the regulator
            await until(lambda: reg.status()["links"][0]["main"]["state"] == "down")
            assert "silent" in reg.status()["links"][0]["main"]["error"]
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_refused_sub_link_login_is_retried_and_the_main_link_told() -> None:
    async def scenario() -> None:
        reg = regulator()
        await reg.start()
        inferior = Inferior(sub_result=m.SubLinkLoginResult.RESOURCES_BUSY)
        try:
            await inferior.connect(reg.port)
            assert (await inferior.expect_main(m.SubLinkDisconnectNotice)).code == 0
            await until(lambda: inferior.sub_connections >= 2)
            sub = reg.status()["links"][0]["sub"]
            assert sub["state"] != "up" and sub["logins"] == 0 and "0x9002 result 2" in sub["error"]
            sent = reg.send_inspection("主链路上的查岗")
            assert sent["link"] == "main"
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_login_beyond_max_platforms_is_refused_as_busy_and_a_relogin_replaces_the_old_link() -> None:
    async def scenario() -> None:
        reg = Regulator([Account(1001, "secret", 7001), Account(1002, "other", 7002)], timing=FAST, max_platforms=1)
        await reg.start()
        first, second, again = Inferior(), Inferior(1002, "other", 7002), Inferior()
        try:
            assert (await first.connect(reg.port)).result == m.LoginResult.OK
            assert (await second.connect(reg.port)).result == m.LoginResult.RESOURCES_BUSY
            assert (await again.connect(reg.port)).result == m.LoginResult.OK  # the same platform, reconnected
            await asyncio.wait_for(first.main_closed.wait(), 3)
            assert [link["user_id"] for link in reg.status()["links"]] == [1001]
            assert reg.status()["links"][0]["main"]["state"] == "up"
        finally:
            for inferior in (first, second, again):
                await inferior.close()
            await reg.stop()
    run(scenario)
