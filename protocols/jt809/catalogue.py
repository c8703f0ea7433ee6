"""The JT/T 809 message catalogue: every inter-platform message id with its name, defined once.

Main-link messages (``0x1xxx``) go from the lower platform to the superior one, sub-link messages
(``0x9xxx``) back. The ids overlap JT/T 808's (0x1003, 0x9003), so they live in their own table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


@dataclass(frozen=True, slots=True)
class ExchangeMessage:
    msg_id: int
    name: str  # as the standard names it (zh-CN)
    name_en: str

    @property
    def main_link(self) -> bool:
        """True for the main link (lower platform -> superior), False for the sub link."""
        return self.msg_id < 0x9000


MESSAGES: Final[tuple[ExchangeMessage, ...]] = (
    ExchangeMessage(0x1001, "主链路登录请求", "Main link login request"),
    ExchangeMessage(0x1002, "主链路登录应答", "Main link login response"),
    ExchangeMessage(0x1003, "主链路注销请求", "Main link logout request"),
    ExchangeMessage(0x1004, "主链路注销应答", "Main link logout response"),
    ExchangeMessage(0x1005, "主链路连接保持请求", "Main link keep-alive request"),
    ExchangeMessage(0x1006, "主链路连接保持应答", "Main link keep-alive response"),
    ExchangeMessage(0x1007, "主链路断开通知", "Main link disconnect notice"),
    ExchangeMessage(0x1008, "下级平台主动关闭链路通知", "Inferior platform closes the link"),
    ExchangeMessage(0x1200, "主链路动态信息交换", "Main link dynamic information exchange"),
    ExchangeMessage(0x1300, "主链路平台间信息交互", "Main link platform information exchange"),
    ExchangeMessage(0x1400, "主链路报警信息交互", "Main link alarm information exchange"),
    ExchangeMessage(0x1500, "主链路车辆监管", "Main link vehicle supervision"),
    ExchangeMessage(0x1600, "主链路静态信息交换", "Main link static information exchange"),
    ExchangeMessage(0x9001, "从链路连接请求", "Sub link connect request"),
    ExchangeMessage(0x9002, "从链路连接应答", "Sub link connect response"),
    ExchangeMessage(0x9003, "从链路注销请求", "Sub link logout request"),
    ExchangeMessage(0x9004, "从链路注销应答", "Sub link logout response"),
    ExchangeMessage(0x9005, "从链路连接保持请求", "Sub link keep-alive request"),
    ExchangeMessage(0x9006, "从链路连接保持应答", "Sub link keep-alive response"),
    ExchangeMessage(0x9007, "从链路断开通知", "Sub link disconnect notice"),
    ExchangeMessage(0x9008, "上级平台主动关闭链路通知", "Superior platform closes the link"),
    ExchangeMessage(0x9200, "从链路动态信息交换", "Sub link dynamic information exchange"),
    ExchangeMessage(0x9300, "从链路平台间信息交互", "Sub link platform information exchange"),
    ExchangeMessage(0x9400, "从链路报警信息交互", "Sub link alarm information exchange"),
    ExchangeMessage(0x9500, "从链路车辆监管", "Sub link vehicle supervision"),
    ExchangeMessage(0x9600, "从链路静态信息交换", "Sub link static information exchange"),
)

BY_ID: Final[Mapping[int, ExchangeMessage]] = MappingProxyType({msg.msg_id: msg for msg in MESSAGES})
