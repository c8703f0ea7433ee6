"""``fleet exchange-sim``: accounts and keys from the command line, the status served on loopback HTTP,
and the demo schedule (a greeting message, an urging for the first real alarm, inspections)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from exchange.regulator import Account, parse_account, parse_keys
from exchange.regulator.cli import exchange_sim_command
from exchange.regulator.schedule import Schedule, Scheduled
from exchange.regulator.status_http import StatusServer
from protocols.jt809 import CipherKeys
from protocols.jt809 import messages as m
from tests.unit.exchange.inferior import Inferior, position, run, until
from tests.unit.exchange.test_regulator_links import FAST


def test_account_and_keys_are_parsed_and_bad_ones_named() -> None:
    keys = parse_keys("30000000:20000000:0x1312D00")
    assert keys == CipherKeys(30000000, 20000000, 20000000)
    assert parse_account("1001:pw:7001:2019", keys, 9) == Account(1001, "pw", 7001, "2019", keys, 9)
    assert parse_account("1001:pw:7001").version == "2011"
    for bad in ("1001:pw", "x:pw:7001", "1001:pw:7001:2013", "1001:toolongpassword:7001"):
        with pytest.raises(ValueError):
            parse_account(bad)


def test_command_refuses_a_bad_account_with_a_clear_message() -> None:
    result = CliRunner().invoke(exchange_sim_command, ["--account", "1001:pw", "--duration", "0"])
    assert result.exit_code == 2
    assert "USER:PASSWORD:CENTRE[:VERSION]" in result.output


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_status_is_served_on_loopback_http_and_the_schedule_greets_and_urges() -> None:
    async def scenario() -> None:
        reg = Scheduled([Account(1001, "secret", 7001)], timing=FAST,
                        schedule=Schedule(inspection_minutes=0.005, count_minutes=0, urge_alarms=True))
        await reg.start()
        status = StatusServer(reg, asyncio.get_running_loop())
        status.start()
        schedule = asyncio.get_running_loop().create_task(reg.run_schedule())
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            assert (await inferior.expect_sub(m.PlatformMessage)).content.startswith("欢迎")
            await inferior.expect_sub(m.InspectionRequest, timeout=3)  # every 0.3 s here
            report = m.AlarmReport2011(1, 2, datetime(2026, 3, 1, tzinfo=UTC), 5, "疲劳驾驶")
            inferior.send(m.AlarmExchange.MSG_ID, m.AlarmExchange(report.DATA_TYPE, report, "京A12345", 2))
            assert (await inferior.expect_sub(m.UrgingRequest)).supervision_id == "00000005"
            assert (await inferior.expect_sub(m.WarningTip)).content.startswith("监管提示")
            assert (await inferior.expect_sub(m.StaticInfoDown)).plate == "京A12345"
            assert (await inferior.expect_sub(m.TextRequest)).msg_sequence == 5
            inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position("京A12345", 2, position(0)))
            await until(lambda: reg.tally.positions_total == 1)

            code, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{status.port}/status")
            assert code == 200
            assert body["counts"]["real_time"] == 1 and body["links"][0]["sub"]["state"] == "up"
            assert any(e["event"] == "urging_sent" for e in body["events"])
            code, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{status.port}/status?vehicles=0")
            assert code == 200 and body["vehicles"] == [] and body["counts"]["vehicles"] == 1
            code, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{status.port}/status?vehicles=x")
            assert code == 400 and "vehicles" in body["error"]
            code, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{status.port}/nope")
            assert code == 404 and "GET /status" in body["error"]
        finally:
            schedule.cancel()
            status.stop()
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_class_alone_sends_nothing_unasked() -> None:
    async def scenario() -> None:
        reg = Scheduled([Account(1001, "secret", 7001)], timing=FAST)  # no run_schedule(): off
        await reg.start()
        inferior = Inferior()
        try:
            await inferior.connect(reg.port)
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            await asyncio.sleep(0.3)
            sent = [msg["msg_id"] for msg in reg.status()["messages"] if msg["direction"] == "down"]
            assert set(sent) <= {"0x1002", "0x9001", "0x9005"}
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_the_command_runs_as_its_own_process_and_serves_its_status() -> None:
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from tests.support.ports import free_port

    port, status_port = free_port(), free_port()
    fleet = Path(sys.executable).parent / "fleet"
    proc = subprocess.Popen([str(fleet), "exchange-sim", "--port", str(port), "--status-port", str(status_port),
                             "--account", "1001:secret:7001:2019", "--duration", "20"],
                            env={**os.environ}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                code, body = _get(f"http://127.0.0.1:{status_port}/status")
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr and proc.stderr.read()
                time.sleep(0.1)
        assert code == 200 and body["port"] == port and body["links"] == []

        async def scenario() -> None:
            inferior = Inferior(version="2019")
            try:
                assert (await inferior.connect(port)).result == m.LoginResult.OK
                assert (await inferior.expect_sub(m.PlatformMessage)).content.startswith("欢迎")  # schedule on
                inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position("京A12345", 2, position(0, "2019")))
                await until(lambda: _get(f"http://127.0.0.1:{status_port}/status")[1]["counts"]["real_time"] == 1)
            finally:
                await inferior.close()
        run(scenario)
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "link event user=1001 main_link_up" in stderr
