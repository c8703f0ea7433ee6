"""Domain enumerations shared by every service (platform-spec.md §4, §9)."""

from enum import IntEnum


class BizState(IntEnum):
    """Vehicle business state (platform-spec §4). 4 is also the default when unknown."""

    OFFLINE = 0
    DRIVING = 1
    PARKED = 2
    ENGINE_OFF = 3
    NO_SIGNAL = 4


class DeviceState(IntEnum):
    UNREGISTERED = 0
    REGISTERED = 1
    OFFLINE = 2
    ONLINE = 3
    DEREGISTERED = 4
    DISABLED = 5


class PlateColor(IntEnum):
    BLUE = 1
    YELLOW = 2
    BLACK = 3
    WHITE = 4
    AGRI_YELLOW = 5
    AGRI_BLUE = 6
    AGRI_GREEN = 7
    OTHER = 8


class PushType(IntEnum):
    """STOMP push types (console-spec §7)."""

    ONLINE_OFFLINE = 1
    ALARM = 2
    GATEWAY_RESTART = 4
    TRAFFIC_ABNORMAL = 5
    BIZ_STATE = 6
    MEDIA_UPLOADED = 9
    MEDIA_RESULT = 10
    COMMAND_RESULT = 11
    COMMAND_SEND_ERROR = 12
    AI_ALARM = 13
    VIDEO_CHANNEL = 14
    EXCHANGE_INSPECTION = 16  # a 0x9301 inspection from a superior platform (exchange/link)


class RecordState(IntEnum):
    DISABLED = 0
    NORMAL = 1


# device.protocol -> the protocol versions a device of it may declare, the default first (platform-spec §9
# "protocol versions"; the device form and import check the pair, api/query/fleet_hooks.py). jt808: the three
# headers the JT/T 808 gateway speaks; gb32960: the 2016 (##) and 2025 ($$) editions, both taken on one port;
# gb17691: GB 17691-2018 annex Q; hj1239: HJ 1239-2021; db4403t363: DB4403/T 363's own layout is not public to
# us and the GB gateway reads its frames with the HJ 1239-2021 layout, so its one version names that layout.
DEVICE_PROTOCOL_VERSIONS: dict[str, tuple[str, ...]] = {
    "jt808": ("2013", "2011", "2019"),
    "gb32960": ("2016", "2025"),
    "gb17691": ("2018",),
    "hj1239": ("2021",),
    "db4403t363": ("2021",),
}
