"""A simulated terminal against a fake gateway socket: commands that arrive in one burst are each
answered with their own serial, set parameters come back from the next query, and a photo goes up as
0x0805 then sub-packaged 0x0801, resending what 0x8800 lists, while positions keep flowing."""

from __future__ import annotations

import asyncio
import io
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

from PIL import Image

from protocols.jt808 import (
    CameraShoot,
    CameraShootResponse,
    FrameReader,
    MediaUpload,
    MediaUploadResponse,
    Message,
    PlatformResponse,
    QueryParameters,
    QueryParametersResponse,
    QuerySpecifiedParameters,
    RegistrationResponse,
    SetParameters,
    TerminalParam,
    TerminalResponse,
    decode_frame,
    encode_frame,
    merge_subpackages,
)
from simulator.driving import Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal

PHONE = "013800000001"
TIMEOUT = 10.0


@dataclass
class FakeGateway:
    """Acknowledges logins and positions; everything else is queued for the test to read."""

    drop_first_time: set[int] = field(default_factory=set)  # 0x0801 package indexes to lose once
    uplinks: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    packages: dict[int, Message] = field(default_factory=dict)
    package_log: list[int] = field(default_factory=list)
    positions: int = 0
    writer: asyncio.StreamWriter | None = None
    seq: int = 0

    def send(self, *bodies: tuple[int, object]) -> list[int]:
        """Write the messages in ONE write (one TCP segment burst); returns their serials."""
        assert self.writer is not None
        data, seqs = b"", []
        for msg_id, body in bodies:
            self.seq += 1
            seqs.append(self.seq)
            data += encode_frame(msg_id, body, phone=PHONE, seq=self.seq)  # type: ignore[arg-type]
        self.writer.write(data)
        return seqs

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        frames = FrameReader()
        while data := await reader.read(65536):
            for frame in frames.feed(data):
                assert isinstance(frame, bytes), frame
                self.on_message(decode_frame(frame))

    def on_message(self, msg: Message) -> None:
        h = msg.header
        if h.msg_id == 0x0100:
            self.send((0x8100, RegistrationResponse(h.seq, 0, "AUTH-1")))
        elif h.msg_id in (0x0102, 0x0200, 0x0704, 0x0002):
            self.positions += h.msg_id == 0x0200
            self.send((0x8001, PlatformResponse(h.seq, h.msg_id, 0)))
        elif h.msg_id == 0x0801 and h.package_index is not None:
            self.package_log.append(h.package_index)
            if h.package_index in self.drop_first_time:
                self.drop_first_time.discard(h.package_index)
            else:
                self.packages[h.package_index] = msg
        else:
            self.uplinks.put_nowait(msg)

    async def next_uplink(self) -> Message:
        return await asyncio.wait_for(self.uplinks.get(), TIMEOUT)

    async def until(self, condition: object) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not condition():  # type: ignore[operator]
                await asyncio.sleep(0.01)


def _terminal(port: int) -> VirtualTerminal:
    config = TerminalConfig(host="127.0.0.1", port=port, interval_s=0.05, heartbeat_interval_s=30, ack_timeout_s=10,
                            backlog_batch_items=20, reconnect_min_s=0.1, reconnect_max_s=1, reply_timeout_s=5,
                            media_package_bytes=900)
    rng = random.Random(7)
    return VirtualTerminal(index=1, phone=PHONE, terminal_id="SIM0000001", config=config,
                           vehicle=Vehicle(rng, 39.91, 116.39, 5), rng=rng, auth_store=MemoryAuthStore(),
                           fix_clock=datetime.now(UTC).replace(microsecond=0), plate="京A·00001")


async def _with_terminal(gateway: FakeGateway, scenario: object) -> VirtualTerminal:
    server = await asyncio.start_server(gateway.serve, "127.0.0.1", 0)
    terminal = _terminal(server.sockets[0].getsockname()[1])
    stop = asyncio.Event()
    task = asyncio.create_task(terminal.run(stop))
    try:
        await gateway.until(lambda: terminal.counters.authenticated)
        await scenario(terminal)  # type: ignore[operator]
    finally:
        stop.set()
        terminal.wake()
        await asyncio.wait_for(task, TIMEOUT)
        server.close()
    return terminal


def test_answers_each_downlink_of_one_burst_with_its_own_serial_and_applies_parameters() -> None:
    gateway = FakeGateway()

    async def scenario(terminal: VirtualTerminal) -> None:
        all_seq, some_seq = gateway.send((0x8104, QueryParameters()), (0x8106, QuerySpecifiedParameters((0x0055,))))
        first, second = await gateway.next_uplink(), await gateway.next_uplink()
        assert isinstance(first.body, QueryParametersResponse) and first.body.reply_seq == all_seq
        assert len(first.body.params) > 40
        assert second.body == QueryParametersResponse(some_seq, (TerminalParam(0x0055, 100),))

        (set_seq,) = gateway.send((0x8103, SetParameters((TerminalParam(0x0055, 80),))))
        assert (await gateway.next_uplink()).body == TerminalResponse(set_seq, 0x8103, 0)
        (query_seq,) = gateway.send((0x8106, QuerySpecifiedParameters((0x0055,))))
        assert (await gateway.next_uplink()).body == QueryParametersResponse(query_seq, (TerminalParam(0x0055, 80),))

    asyncio.run(_with_terminal(gateway, scenario))


def test_uploads_a_photo_in_packages_resends_what_0x8800_lists_and_keeps_reporting() -> None:
    gateway = FakeGateway(drop_first_time={3, 5})

    async def scenario(terminal: VirtualTerminal) -> None:
        shoot = CameraShoot(1, 1, 0, 0, 4, 5, 128, 64, 64, 128)  # one photo, 1024x768
        (seq,) = gateway.send((0x8801, shoot))
        reply = await gateway.next_uplink()
        assert isinstance(reply.body, CameraShootResponse)
        assert (reply.body.reply_seq, reply.body.result, len(reply.body.media_ids)) == (seq, 0, 1)
        (media_id,) = reply.body.media_ids

        def total() -> int:
            return next(iter(gateway.packages.values())).header.package_total or 0 if gateway.packages else -1

        await gateway.until(lambda: len(gateway.package_log) == total())  # every package sent once
        total_packages = total()
        assert total_packages > 10
        assert sorted(gateway.package_log) == list(range(1, total_packages + 1))  # each sent once, 3 and 5 lost
        assert set(gateway.packages) == set(range(1, total_packages + 1)) - {3, 5}
        serials = [gateway.packages[i].header.seq for i in sorted(gateway.packages)]
        assert serials == sorted(serials)  # consecutive serials, package i = first + i - 1
        first_seq = gateway.packages[1].header.seq
        assert all(m.header.seq == (first_seq + i - 1) & 0xFFFF for i, m in gateway.packages.items())

        positions = gateway.positions
        await gateway.until(lambda: gateway.positions >= positions + 2)  # reporting goes on meanwhile
        gateway.send((0x8800, MediaUploadResponse(media_id, (3, 5))))
        await gateway.until(lambda: set(gateway.packages) == set(range(1, total_packages + 1)))
        merged = merge_subpackages(gateway.packages.values())
        assert isinstance(merged.body, MediaUpload)
        assert (merged.body.media_id, merged.body.media_type, merged.body.event_code) == (media_id, 0, 0)
        assert merged.body.location is not None and abs(merged.body.location.lat - 39.91) < 0.1
        assert Image.open(io.BytesIO(merged.body.data)).size == (1024, 768)
        assert terminal.uploader.uploaded == 0  # not done before the platform says so
        gateway.send((0x8800, MediaUploadResponse(media_id)))
        await gateway.until(lambda: terminal.uploader.uploaded == 1)
        assert terminal.uploader.resent_packages == 2 and not terminal.media_queue

    asyncio.run(_with_terminal(gateway, scenario))
