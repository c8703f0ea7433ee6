"""The link messages of an inferior platform, as every superior platform answers them (JT/T 809 §5.2): 0x1005
heartbeats answered on the main link, 0x1003 logout answered and both links closed, 0x1007 / 0x1008 noted as
link events, the 0x9002 / 0x9006 answers to our sub link login and heartbeats handed to the links. Shared by the
regulator in a box and fleetwatch's superior service."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from exchange.superior.links import LinkDown, PlatformLinks, now
from protocols.jt809 import Message
from protocols.jt809 import messages as m

if TYPE_CHECKING:
    from exchange.superior.server import MainLinkServer

log = logging.getLogger("exchange.superior")


def _heartbeat(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    links.main.last_heartbeat = now()
    try:
        links.send_main(m.HeartbeatResponse.MSG_ID, m.HeartbeatResponse())
    except LinkDown:
        log.info("0x1005 from user=%s on the %s link while the main link is down", links.account.user_id, link)


def _logout(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    server.event(links, "logout", "the inferior logged out (0x1003)")
    try:
        links.send_main(m.LogoutResponse.MSG_ID, m.LogoutResponse())
    except LinkDown:
        pass
    server.spawn(links.close())


def _main_link_broken(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    server.event(links, "main_link_broken", f"0x1007 code {message.body.code}")


def _inferior_closing(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    server.event(links, "inferior_closing", f"0x1008 code {message.body.code}")


def _sub_login_answer(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    links.sub_answered(int(message.body.code))


def _sub_heartbeat_answer(server: MainLinkServer, links: PlatformLinks, link: str, message: Message) -> None:
    links.sub_heartbeat_answered()


LINK_HANDLERS: dict[type, Callable[[MainLinkServer, PlatformLinks, str, Message], None]] = {
    m.Heartbeat: _heartbeat,
    m.LogoutRequest: _logout,
    m.DisconnectNotice: _main_link_broken,
    m.InferiorClosingNotice: _inferior_closing,
    m.SubLinkLoginResponse: _sub_login_answer,
    m.SubLinkHeartbeatResponse: _sub_heartbeat_answer,
}
