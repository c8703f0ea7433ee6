"""The ``fleet`` command line: one small click group; each command's module is imported only when
that command runs, so ``fleet --help`` stays fast and a command's dependencies stay its own.

To add a command, map its name to ``"module:attribute"`` (a click command) in ``LAZY_COMMANDS``.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import BinaryIO

import click

# name -> "module:attribute" of a click.Command, imported on first use. Each command lives with
# its feature; this module only registers them.
LAZY_COMMANDS: dict[str, str] = {
    "up": "fleet.launcher:up_command",
    "attachments": "gateway.attachments:attachments_command",
    "config-doc": "fleet.config_doc:config_doc_command",
    "deadletters": "streams.replay:deadletters_command",
    "seed": "warehouse.seed:seed_command",
    "simulate": "simulator.cli:simulate_command",
    "simulate-gb": "simulator.gb32960.cli:simulate_gb_command",
    "exchange-sim": "exchange.regulator.cli:exchange_sim_command",
    "gb32960-exchange-sim": "exchange.gb32960.cli:gb32960_exchange_sim_command",
    "loadgen": "simulator.loadgen:loadgen_command",
    "license": "fleet.licence:license_command",
    "redecode": "warehouse.message_log:redecode_command",
    "retention": "warehouse.retention:retention_command",
    "summarise-days": "warehouse.track_days:summarise_days_command",
    "reports": "orchestration.cli:reports_command",
    "sql": "warehouse.lake:sql_command",
    "zh-hk": "fleet.zh_hk_build:zh_hk_command",
    "exchange": "exchange.link.command:exchange_command",
}


class LazyGroup(click.Group):
    """A click group that also lists, and imports on demand, the commands in LAZY_COMMANDS."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in LAZY_COMMANDS:
            return command
        module_name, _, attribute = LAZY_COMMANDS[cmd_name].partition(":")
        loaded = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(loaded, click.Command):
            raise click.ClickException(f"{LAZY_COMMANDS[cmd_name]} is not a click command")
        return loaded


@click.group(cls=LazyGroup)
def main() -> None:
    """fleetwatch: vehicle fleet platform tools."""


def frame_from_hex(parts: tuple[str, ...]) -> bytes:
    """Hex (spaces, colons and a 0x prefix allowed) -> frame bytes, adding missing 7e delimiters.

    A 7e can only be a delimiter (inside a frame it is escaped), so a missing one is unambiguous.
    Raises ValueError for text that is not hex.
    """
    data = bytes.fromhex(_hex_text(parts))
    if not data.startswith(b"\x7e"):
        data = b"\x7e" + data
    if len(data) < 2 or not data.endswith(b"\x7e"):
        data += b"\x7e"
    return data


def _hex_text(parts: tuple[str, ...]) -> str:
    return "".join(parts).replace(" ", "").replace(":", "").replace("\n", "").lower().removeprefix("0x")


@main.command()
@click.argument("hex_frame", nargs=-1, required=True)
@click.option("--variant", default=None, help="regional active-safety layout: jiangsu2017 (default), guangdong2019")
@click.option("--jt809-version", type=click.Choice(["2011", "2019"]), default=None,
              help="JT/T 809 header layout (default: the one whose length fits)")
@click.option("--jt809-keys", default=None, metavar="M1,IA1,IC1", help="JT/T 809 keys to decrypt an encrypted body")
@click.option("--gb17691", is_flag=True,
              help="read a ## frame as GB 17691 / HJ 1239 (emissions) instead of GB/T 32960 (new energy)")
def decode(hex_frame: tuple[str, ...], variant: str | None, jt809_version: str | None,
           jt809_keys: str | None, gb17691: bool) -> None:
    """Decode one JT/T 808 frame, a JT/T 809 frame (starting with 5b) or a GB/T 32960 / GB 17691 frame
    (starting with ## or $$, 2323 / 2424), given as hex; print it as JSON.

    Spaces are allowed (quoted or as separate arguments), and the 7e delimiters are optional.
    A frame that does not decode prints one line on stderr and exits with status 2.
    """
    from protocols.jt808 import JT808Error, decode_frame, to_json, use_variant
    from protocols.jt808.framing import looks_like_jt1078

    if _hex_text(hex_frame).startswith("5b"):  # a JT/T 808 frame starts with 7e, a JT/T 809 one with 5b
        _decode_jt809(hex_frame, jt809_version, jt809_keys)
        return
    if _hex_text(hex_frame)[:4] in ("2323", "2424"):  # GB/T 32960 / GB 17691 start bytes ## / $$
        _decode_gb32960(hex_frame, gb17691)
        return
    if variant:
        try:
            use_variant(variant)
        except KeyError as exc:
            click.echo(f"error: {exc.args[0]}", err=True)
            sys.exit(2)

    try:
        frame = frame_from_hex(hex_frame)
    except ValueError:
        click.echo("error: not a hex string", err=True)
        sys.exit(2)
    if looks_like_jt1078(frame):
        click.echo("error: not a JT/T 808 frame (looks like a JT/T 1078 RTP packet)", err=True)
        sys.exit(2)
    try:
        message = decode_frame(frame)
    except JT808Error as exc:
        click.echo(f"error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(to_json(message), ensure_ascii=False, indent=2))


def _decode_jt809(hex_frame: tuple[str, ...], version: str | None, key_text: str | None) -> None:
    """Print a JT/T 809 frame as JSON. The header does not say its layout: without ``version`` it is
    guessed from the 2019 time field (``guess_version``)."""
    from protocols.jt809 import CipherKeys, JT809Error, decode_frame, guess_version
    from protocols.jt809.jsonify import to_json

    try:
        frame = bytes.fromhex(_hex_text(hex_frame))
    except ValueError:
        click.echo("error: not a hex string", err=True)
        sys.exit(2)
    keys = None
    if key_text:
        try:
            m1, ia1, ic1 = (int(part, 0) for part in key_text.split(","))
            keys = CipherKeys(m1, ia1, ic1)
        except ValueError as exc:
            click.echo(f"error: --jt809-keys needs M1,IA1,IC1 as unsigned 32-bit integers ({exc})", err=True)
            sys.exit(2)
    chosen = version or guess_version(frame)
    try:
        message = decode_frame(frame, version=chosen, keys=keys)
    except JT809Error as exc:
        hint = "" if version else f" (read as {chosen}; --jt809-version sets the layout)"
        click.echo(f"error: JT/T 809 {type(exc).__name__}: {exc}{hint}", err=True)
        sys.exit(2)
    click.echo(json.dumps(to_json(message), ensure_ascii=False, indent=2))


def _decode_gb32960(hex_frame: tuple[str, ...], gb17691: bool) -> None:
    """Print a GB/T 32960 (## 2016, $$ 2025) or, with ``gb17691``, a GB 17691 / HJ 1239 frame as JSON.
    Both families start with ##: nothing in the frame tells them apart, so the flag does."""
    from protocols.gb32960 import GB32960Error, Protocol, decode_frame
    from protocols.gb32960.jsonify import to_json

    try:
        frame = bytes.fromhex(_hex_text(hex_frame))
    except ValueError:
        click.echo("error: not a hex string", err=True)
        sys.exit(2)
    try:
        message = decode_frame(frame, protocol=Protocol.GB17691 if gb17691 else None)
    except GB32960Error as exc:
        click.echo(f"error: GB/T 32960 {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(to_json(message), ensure_ascii=False, indent=2))


@main.command("decode-record")
@click.argument("source", type=click.File("rb"), default="-")
@click.option("--frames", is_flag=True, help="also decode each uplink's raw_hex into `frame` (as `fleet decode`)")
def decode_record(source: BinaryIO, frames: bool) -> None:
    """Print the uplinks of one ``jt808.uplink.v1`` record value (a file, or - for stdin) as a JSON array.

    A value is one uplink (a JSON object) or a gateway's batch of them (a JSON array, header
    ``fleet.batch``; docs/topics.md): either way the uplinks are printed in order. A value that is
    not JSON, or holds something other than uplink objects, prints one line on stderr and exits with
    status 2.
    """
    from fleet.uplink_records import split_value
    from protocols.jt808 import JT808Error, decode_frame, to_json

    try:
        uplinks = split_value(source.read())
    except ValueError as exc:
        click.echo(f"error: not a jt808.uplink.v1 record value (not JSON: {exc})", err=True)
        sys.exit(2)
    for index, uplink in enumerate(uplinks):
        if not isinstance(uplink, dict):
            click.echo(f"error: uplink {index} is not a JSON object", err=True)
            sys.exit(2)
        if frames:
            try:
                uplink["frame"] = to_json(decode_frame(bytes.fromhex(str(uplink.get("raw_hex", "")))))
            except (ValueError, JT808Error) as exc:
                uplink["frame"] = {"error": f"{type(exc).__name__}: {exc}"}
    click.echo(json.dumps(uplinks, ensure_ascii=False, indent=2))
