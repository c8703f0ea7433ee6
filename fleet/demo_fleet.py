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


def terminal_has_tpms(i: int) -> bool:
    """Whether demo terminal ``i`` has tyre sensors (its 0x66 reports: fleet.tyre_model, live and seeded)."""
    return i % 5 == 2


def phone_has_tpms(phone: str) -> bool:
    """``terminal_has_tpms`` of the demo terminal with this phone, as sent (``terminal_phone``) or stored
    (``device_phone``); False for any other phone."""
    digits = phone.lstrip("0")
    return (len(digits) == 11 and digits.isascii() and digits.isdigit() and digits.startswith("138")
            and terminal_has_tpms(int(digits[3:])))


def terminal_plate(i: int) -> str:
    letter = {"parent": PARENT, "a": SUBSIDIARY_A, "b": SUBSIDIARY_B}[terminal_enterprise(i)].plate_letter
    return f"京{letter}·{i:05d}"


def terminal_vin(i: int) -> str:
    return f"LFVSM{i:012d}"  # 17 characters, no I/O/Q


# ---------------------------------------------------------------- GB/T 32960 and GB 17691 / HJ 1239 vehicles

@dataclass(frozen=True)
class GbDemoVehicle:
    """A demo vehicle whose terminal speaks GB/T 32960 (electric buses and vans) or GB 17691 / HJ 1239
    (heavy diesel trucks) to the GB gateway, seeded as a car and a device of that protocol
    (warehouse/seed.py) and driven by ``simulator.gb32960``."""

    index: int        # 1-based, its own numbering (not the JT/T 808 terminals')
    kind: str         # bus | fcbus (fuel cell) | van | truck
    protocol: str     # device.protocol: gb32960 | gb17691 | hj1239 (fleet.gb32960_records.GB_PROTOCOLS)
    protocol_version: str  # gb32960: 2016 (## frames) or 2025 ($$ frames); gb17691 2018; hj1239 2021

    @property
    def electric(self) -> bool:
        return self.protocol == "gb32960"

    @property
    def enterprise(self) -> str:
        return terminal_enterprise(self.index)

    @property
    def vin(self) -> str:
        """17 characters whose 9th is the GB 16735 check digit (fleet.vin), distinct from the 808 fleet's."""
        from fleet.vin import with_check_digit

        body = "LZYTBEV" if self.electric else "LZZ5CHD"
        return with_check_digit(f"{body}00T{self.index:07d}")

    @property
    def plate(self) -> str:
        letter = {"parent": PARENT, "a": SUBSIDIARY_A, "b": SUBSIDIARY_B}[self.enterprise].plate_letter
        # new-energy plates carry D (pure electric) or F (not pure electric: a fuel cell) before five digits; the
        # trucks a G series of their own
        if not self.electric:
            return f"京{letter}·G{self.index:04d}"
        return f"京{letter}·{'F' if self.kind == 'fcbus' else 'D'}{self.index:05d}"

    @property
    def phone(self) -> str:
        """``device.phone`` (the SIM's msisdn, canonical): GB terminals do not send it, the rows need one."""
        return canonical_phone(f"0147{self.index:08d}")

    @property
    def iccid(self) -> str:
        return f"898604{self.index:014d}"

    @property
    def device_sn(self) -> str:
        return f"GB{self.index:07d}"


# Six new-energy vehicles (battery-electric buses and vans, both framings, and a fuel-cell bus of the 2025
# edition) and four heavy diesel trucks (both emission standards).
GB_DEMO_VEHICLES: tuple[GbDemoVehicle, ...] = (
    GbDemoVehicle(1, "bus", "gb32960", "2016"),
    GbDemoVehicle(2, "bus", "gb32960", "2016"),
    GbDemoVehicle(3, "fcbus", "gb32960", "2025"),
    GbDemoVehicle(4, "van", "gb32960", "2016"),
    GbDemoVehicle(5, "van", "gb32960", "2025"),
    GbDemoVehicle(6, "van", "gb32960", "2016"),
    GbDemoVehicle(7, "truck", "gb17691", "2018"),
    GbDemoVehicle(8, "truck", "gb17691", "2018"),
    GbDemoVehicle(9, "truck", "hj1239", "2021"),
    GbDemoVehicle(10, "truck", "hj1239", "2021"),
)


def gb_demo_vehicles(count: int) -> tuple[GbDemoVehicle, ...]:
    """The first ``count`` of GB_DEMO_VEHICLES (``fleet up`` seeds and simulates these)."""
    return GB_DEMO_VEHICLES[: max(0, count)]
