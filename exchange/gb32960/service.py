"""Forwarding to one GB/T 32960 superior platform (in ``fleet exchange``): its link (exchange.gb32960.link) and
a Kafka consumer of ``gb32960.uplink.v1`` in the group ``fleet-gb32960-exchange-<platform id>``.

Nothing dropped (at-least-once, platform-spec §2 "Data exchange"; GB/T 32960.3-2016 §7.2.4 back-filled data):
while the link is down nothing is consumed; a frame received by the gateway more than ``backfill_after_s`` ago
goes as back-filled data 0x03, so the gap of an outage arrives as 0x03 in the order the vehicle sent it (a
vehicle's frames share a partition: the record key is the VIN); a written frame may still sit unread in socket
buffers when the link is lost, so the records written in the resend window before the loss (exchange.link.resend,
shared with the JT/T 809 link) are read again and sent as 0x03; a record's offset is committed only once its
frames were written and the window is behind it. The link state is saved in gb32960_link_state every second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from exchange.gb32960 import forwarding as f
from exchange.gb32960.link import SuperiorLink
from exchange.link import forward_loop
from exchange.link.backoff import Backoff
from exchange.link.resend import SentWindow
from fleet import topics
from fleet.gb32960_records import GbUplink
from fleet.settings import Gb32960ExchangeSettings
from fleet.uplink_records import split_value
from protocols.gb32960 import Encryption
from protocols.gb32960.cipher import AesKey
from warehouse.db import PooledCalls
from warehouse.queries import gb32960_exchange as q

log = logging.getLogger(__name__)
STATE_SAVE_S = 1.0


def link_key(platform: q.Gb32960Superior) -> AesKey | None:
    """The AES key of a platform whose login's encryption rule is AES-128 (3) and that has one, else None."""
    if platform.encryption != Encryption.AES128 or not platform.aes_key or not platform.aes_iv:
        return None
    return AesKey.from_hex(platform.aes_key, platform.aes_iv)


def _unlinked(platform: q.Gb32960Superior) -> str | None:
    """Why a platform cannot be linked, or None. The login's encryption rule says how every data unit is encrypted
    (GB/T 32960.3-2016 table 2) with a key the two platforms agree: AES-128 runs with the key configured on the
    row; RSA has no key exchange in the 2016 edition nor a block rule anyone agrees on, so it is not offered."""
    if platform.encryption == Encryption.RSA:
        return "encryption rule RSA is not supported (use none or AES-128 with a key): not linked"
    if platform.encryption == Encryption.AES128 and link_key(platform) is None:
        return "encryption rule AES-128 without an AES key and IV: not linked"
    return None


class Gb32960PlatformService:
    """One gb32960 superior platform. ``run()`` until cancelled."""

    def __init__(self, platform: q.Gb32960Superior, db_url: str, bootstrap: str, settings: Gb32960ExchangeSettings,
                 kafka_options: dict[str, Any] | None = None) -> None:
        self.platform = platform
        self.db_url = db_url
        self._db = PooledCalls(db_url, name=f"gb32960-exchange-{platform.id}")  # the link state every few seconds
        self.bootstrap = bootstrap
        self.settings = settings
        self.kafka_options = kafka_options or {}
        self.key = link_key(platform)
        self.counters: dict[str, Any] = {"state": "disconnected", "since": datetime.now(UTC),
                                         "last_heartbeat_at": None, "sent": 0, "backfilled": 0, "skipped": 0,
                                         "last_error": None}
        self._left_out_told: set[tuple[str, ...]] = set()
        self.link = SuperiorLink(platform.host, platform.port, platform.username, platform.password,
                                 platform.encryption, platform.version, heartbeat_s=settings.heartbeat_s,
                                 login_timeout_s=settings.login_timeout_s,
                                 backoff=Backoff(settings.reconnect_min_s, settings.reconnect_max_s),
                                 on_state=self._state)

    def _state(self, state: str, error: str | None) -> None:
        if self.counters["state"] != state:
            self.counters["state"], self.counters["since"] = state, datetime.now(UTC)
            log.info("gb32960 superior %s: %s%s", self.platform.id, state, f" ({error})" if error else "")
        if error:
            self.counters["last_error"] = error[:500]

    async def run(self) -> None:
        async with self._db.kept():
            unlinked = _unlinked(self.platform)
            if unlinked is not None:
                self._state("error", unlinked)
                await asyncio.to_thread(self._save_state)
                await asyncio.Event().wait()
            tasks = [asyncio.create_task(self.link.run(), name=f"gb32960-link-{self.platform.id}"),
                     asyncio.create_task(self._forward(), name=f"gb32960-forward-{self.platform.id}"),
                     asyncio.create_task(self._save_states(), name=f"gb32960-state-{self.platform.id}")]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for task in done:
                    task.result()  # a failed task fails the service; `fleet exchange` restarts it at the next reload
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                with contextlib.suppress(Exception):
                    self._state("disconnected", None)
                    await asyncio.to_thread(self._save_state)

    def _save_state(self) -> None:
        self.counters["last_heartbeat_at"] = self.link.last_heartbeat_at
        self._db(q.save_link_state, self.platform.id, dict(self.counters))

    async def _save_states(self) -> None:
        while True:
            try:
                await asyncio.to_thread(self._save_state)
            except Exception:
                log.exception("gb32960 superior %s: link state not saved", self.platform.id)
            await asyncio.sleep(STATE_SAVE_S)

    async def handle_record(self, value: bytes, resend: bool) -> None:
        """Send the frames of one record (``resend``: read again after a link loss: they go as 0x03). Raises
        LinkDown when a frame cannot be written (the record is then read again)."""
        try:
            items = split_value(value)
        except ValueError:
            return
        now = datetime.now(UTC)
        for item in items:
            try:
                uplink = GbUplink.from_json(item)
            except ValueError:
                continue
            backfill = resend or f.is_late(uplink, now, self.settings.backfill_after_s)
            outgoing = f.relay(uplink, self.platform.car_ids, self.platform.version, backfill, self.key)
            if outgoing is None:
                continue
            if isinstance(outgoing, str):
                self.counters["skipped"] += 1
                log.debug("gb32960 superior %s: %s not sent: %s", self.platform.id, uplink.vin, outgoing)
                continue
            await self.link.send(outgoing.frame)
            self.counters["backfilled" if outgoing.command == f.BACKFILL else "sent"] += 1
            if outgoing.left_out and outgoing.left_out not in self._left_out_told and len(self._left_out_told) < 64:
                # once per distinct set (at most 64 a link): what a terminal of the other edition sends that this
                # superior's edition has no place for
                self._left_out_told.add(outgoing.left_out)
                log.info("gb32960 superior %s: %s's frames go in the %s edition without: %s", self.platform.id,
                         uplink.vin, self.platform.version, "; ".join(outgoing.left_out))

    async def _forward(self) -> None:
        from aiokafka import AIOKafkaConsumer

        consumer = AIOKafkaConsumer(
            topics.GB32960_UPLINK, bootstrap_servers=self.bootstrap,
            group_id=f"fleet-gb32960-exchange-{self.platform.id}", enable_auto_commit=False,
            auto_offset_reset=self.settings.offset_reset, **self.kafka_options)
        await consumer.start()
        window: SentWindow[Any] = SentWindow(self.settings.resend_window_s, self.settings.resend_window_bytes)
        try:
            await forward_loop.forward(consumer, self.link, window,
                                       lambda record, resend: self.handle_record(record.value, resend),
                                       f"GB/T 32960 platform {self.platform.id}")
        finally:
            await consumer.stop()
