"""The demo fleet's numbering, shared by the seed (warehouse/seed.py) and the simulator (simulator/fleet.py):
which enterprise owns simulated terminal ``i``, its phone, plate, VIN and whether it has cameras. Pure
functions of ``i``, so the simulator's terminals match the seeded rows without reading the database."""

from __future__ import annotations

from dataclasses import dataclass

from fleet.phones import canonical_phone


@dataclass(frozen=True)
class DemoEnterprise:
    key: str  # "parent", "a", "b"
    name: str
    short_name: str
    admin: str
    plate_letter: str


PARENT = DemoEnterprise("parent", "北京示范运输集团有限公司", "北京示范运输集团", "admin", "A")
SUBSIDIARY_A = DemoEnterprise("a", "北京示范运输集团第一分公司", "示范一分公司", "admin_a", "B")
SUBSIDIARY_B = DemoEnterprise("b", "北京示范运输集团第二分公司", "示范二分公司", "admin_b", "C")
DRIVER_NAMES = ("张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵军", "黄敏", "周强", "吴涛")


def terminal_phone(i: int) -> str:
    """JT/T 808 phone of simulated terminal ``i`` (1-based): 12 digits, as the simulator uses."""
    return f"0138{i:08d}"


def device_phone(i: int) -> str:
    """``device.phone`` (and the SIM's msisdn) of terminal ``i``: its canonical form (fleet.phones)."""
    return canonical_phone(terminal_phone(i))


def terminal_enterprise(i: int) -> str:
    """Which demo enterprise owns terminal ``i``: every 10th the parent, else odd A, even B."""
    if i % 10 == 0:
        return PARENT.key
    return SUBSIDIARY_A.key if i % 2 == 1 else SUBSIDIARY_B.key


def terminal_has_video(i: int) -> bool:
    return i % 4 == 1


def terminal_plate(i: int) -> str:
    letter = {"parent": PARENT, "a": SUBSIDIARY_A, "b": SUBSIDIARY_B}[terminal_enterprise(i)].plate_letter
    return f"京{letter}·{i:05d}"


def terminal_vin(i: int) -> str:
    return f"LFVSM{i:012d}"  # 17 characters, no I/O/Q
