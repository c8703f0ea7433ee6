"""Two attachment servers behind HAProxy, as `fleet up --topology cluster` and docker/compose.yaml run them
(fleet/cluster.py ``balancer_config``: TCP, PROXY protocol v2), on the real PostgreSQL and Kafka. The
session address check keeps its meaning behind the balancer: the servers compare the address the PROXY
header names, not HAProxy's, with the terminal's 7611 session address. Needs HAProxy (fails, not skips)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from fleet.cluster import balancer_config
from simulator.attachments import AttachmentRefused, upload
from tests.integration.gateway.attachment_support import (
    ask_for_attachments,
    attachment_server,
    insert_alarm,
    record_session,
)
from tests.integration.gateway.support import insert_devices, unique_phones
from tests.support.processes import Balancer

pytestmark = pytest.mark.timeout(90)

TERMINAL_ADDRESS = "127.0.0.5"  # the terminal's session address; HAProxy connects to the servers from 127.0.0.1


def test_an_upload_through_haproxy_is_stored_and_the_session_address_check_still_holds(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    device_id = insert_devices(pg_url, [phone.lstrip("0")])[phone.lstrip("0")]
    record_session(pg_url, device_id, TERMINAL_ADDRESS)
    warn_uuid = secrets.token_hex(16)
    alarm_id, _ = insert_alarm(pg_url, device_id, phone.lstrip("0"), warn_uuid)
    ports, front = [free_port(), free_port()], free_port()
    balancer = Balancer(balancer_config(terminals_at=("127.0.0.1", free_port()), gateway_ports=[],
                                        browsers_at=("127.0.0.1", free_port()), api_ports=[], stats_port=free_port(),
                                        attachments_at=("127.0.0.1", front), attachment_ports=ports),
                        tmp_path, front)

    async def main() -> list[str]:
        asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, front)
        async with attachment_server(pg_url, kafka_bootstrap, ports[0], tmp_path / "media", proxy_protocol=True,
                                     server_id="att-b1") as first, \
                attachment_server(pg_url, kafka_bootstrap, ports[1], tmp_path / "media", proxy_protocol=True,
                                  server_id="att-b2") as second:
            await asyncio.to_thread(balancer.start)
            try:
                with pytest.raises(AttachmentRefused):  # through the balancer, but not from the session's address
                    await upload("127.0.0.1", front, asked, [("a.jpg", 0, b"from elsewhere")], "SIM0001",
                                 phone=phone)
                with pytest.raises((AttachmentRefused, ConnectionError)):  # past the balancer: no PROXY header
                    await upload("127.0.0.1", ports[0], asked, [("a.jpg", 0, b"bypassing")], "SIM0001", phone=phone,
                                 local_host=TERMINAL_ADDRESS)
                done = await upload("127.0.0.1", front, asked, [("a.jpg", 0, b"genuine")], "SIM0001", phone=phone,
                                    local_host=TERMINAL_ADDRESS)
            finally:
                await asyncio.to_thread(balancer.stop)
            assert first.counters.proxy_header_rejected + second.counters.proxy_header_rejected == 1
            assert first.counters.att_files_stored + second.counters.att_files_stored == 1
            return done.files_done

    assert asyncio.run(main()) == ["a.jpg"], balancer.log_tail()
    assert [p.read_bytes() for p in (tmp_path / "media").rglob("a.jpg")] == [b"genuine"]
