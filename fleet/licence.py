"""Vendor-signed licences: the document, its Ed25519 signature, and the vendor's ``fleet license``
commands.

A licence is JSON terms (licensee, enterprise, max vehicles, valid from/to, features, optionally the
machine code of the one installation it is for) signed with the vendor's Ed25519 private key. The
platform holds only the vendor's public key (``FLEET_API_LICENSE_PUBLIC_KEY_FILE``); the repository
holds no private key. The text form::

    -----BEGIN FLEETWATCH LICENCE-----
    <base64url(terms JSON)>.<base64url(signature over those exact bytes)>, wrapped at 64
    -----END FLEETWATCH LICENCE-----

Every failure to read or trust a document is a ``LicenceError`` whose message is the user's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

BEGIN = "-----BEGIN FLEETWATCH LICENCE-----"
END = "-----END FLEETWATCH LICENCE-----"
MAX_DOCUMENT_CHARS = 16_000
_FEATURE = re.compile(r"[a-z][a-z0-9_.-]{0,31}")


class LicenceError(ValueError):
    """A document that cannot be read or trusted; ``str(exc)`` is the bilingual user message."""


@dataclass(frozen=True)
class LicenceTerms:
    licensee: str
    enterprise: str
    max_vehicles: int
    valid_from: date
    valid_to: date
    features: tuple[str, ...] = ()
    machine_code: str = ""  # empty: any installation
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    issued_at: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "licensee": self.licensee, "enterprise": self.enterprise,
            "maxVehicles": self.max_vehicles, "validFrom": self.valid_from.isoformat(),
            "validTo": self.valid_to.isoformat(), "features": list(self.features),
            "machineCode": self.machine_code, "issuedAt": self.issued_at,
        }

    @classmethod
    def from_json(cls, data: Any) -> LicenceTerms:
        """Raises LicenceError naming the first bad term."""
        if not isinstance(data, dict):
            raise LicenceError("许可证内容无效 (licence terms are not a JSON object)")
        try:
            terms = cls(
                licensee=_text(data, "licensee"), enterprise=_text(data, "enterprise"),
                max_vehicles=_count(data.get("maxVehicles")),
                valid_from=date.fromisoformat(str(data.get("validFrom"))),
                valid_to=date.fromisoformat(str(data.get("validTo"))),
                features=tuple(_features(data.get("features", []))),
                machine_code=str(data.get("machineCode") or ""),
                id=_text(data, "id"), issued_at=str(data.get("issuedAt") or ""),
            )
        except (TypeError, ValueError) as exc:
            raise LicenceError(f"许可证内容无效 (licence terms are invalid: {exc})") from None
        if terms.valid_to < terms.valid_from:
            raise LicenceError("许可证内容无效 (licence validTo is before validFrom)")
        return terms

    def validity_problem(self, today: date, machine_code: str) -> str | None:
        """Why the terms do not apply on ``today`` to installation ``machine_code``; None when they do."""
        if self.machine_code and self.machine_code != machine_code:
            return f"许可证不属于本机 (licence is for machine code {self.machine_code}, this installation is {machine_code})"
        if today < self.valid_from:
            return f"许可证尚未生效 (licence is valid from {self.valid_from.isoformat()})"
        if today > self.valid_to:
            return f"许可证已过期 (licence expired on {self.valid_to.isoformat()})"
        return None


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ValueError(f"{key} must be a non-empty text of at most 200 characters")
    return value.strip()


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10_000_000:
        raise ValueError("maxVehicles must be an integer from 1 to 10000000")
    return value


def _features(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and _FEATURE.fullmatch(v) for v in value):
        raise ValueError("features must be a list of lower-case names")
    return value


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def generate_keypair() -> tuple[bytes, bytes]:
    """(private PEM, public PEM) of a new Ed25519 vendor key."""
    private = Ed25519PrivateKey.generate()
    private_pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption())
    public_pem = private.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)
    return private_pem, public_pem


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    """Raises LicenceError when ``pem`` is not an Ed25519 public key."""
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError as exc:
        raise LicenceError(f"厂商公钥无效 (vendor public key unreadable: {exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise LicenceError("厂商公钥无效 (vendor public key is not an Ed25519 key)")
    return key


def issue(private_pem: bytes, terms: LicenceTerms) -> str:
    """The signed licence text of ``terms``."""
    key = serialization.load_pem_private_key(private_pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise LicenceError("厂商私钥无效 (vendor private key is not an Ed25519 key)")
    payload = json.dumps(terms.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    body = f"{_b64(payload)}.{_b64(key.sign(payload))}"
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def verify(text: str, public_key: Ed25519PublicKey) -> LicenceTerms:
    """The terms of a licence text signed by ``public_key``'s owner (validity dates are not checked
    here: ``LicenceTerms.validity_problem``). Raises LicenceError for any other text."""
    if not isinstance(text, str) or len(text) > MAX_DOCUMENT_CHARS:
        raise LicenceError("许可证格式不正确 (not a fleetwatch licence text)")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise LicenceError("许可证格式不正确 (not a fleetwatch licence text: BEGIN/END lines missing)")
    body = "".join(text[start + len(BEGIN):end].split())
    payload_b64, dot, signature_b64 = body.partition(".")
    try:
        if not dot or not re.fullmatch(r"[A-Za-z0-9_-]+", payload_b64 + signature_b64):
            raise ValueError("malformed")
        payload, signature = _unb64(payload_b64), _unb64(signature_b64)
    except (ValueError, binascii.Error):
        raise LicenceError("许可证格式不正确 (licence text is damaged)") from None
    try:
        public_key.verify(signature, payload)
    except InvalidSignature:
        raise LicenceError("许可证签名无效 (licence signature is invalid: not issued by the vendor or altered)") from None
    try:
        data = json.loads(payload)
    except ValueError:
        raise LicenceError("许可证内容无效 (licence terms are not JSON)") from None
    return LicenceTerms.from_json(data)


# --- the vendor's commands (fleet license keygen | issue) -----------------------------------------


@click.group("license")
def license_command() -> None:
    """Vendor side: make the signing key pair and issue licences."""


@license_command.command("keygen")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="directory for vendor-private.pem (mode 0600) and vendor-public.pem")
def keygen_command(out_dir: Path) -> None:
    """Write a new Ed25519 key pair; ship only the public key with installations."""
    out_dir.mkdir(parents=True, exist_ok=True)
    private_path, public_path = out_dir / "vendor-private.pem", out_dir / "vendor-public.pem"
    if private_path.exists():
        raise click.ClickException(f"{private_path} exists; refusing to overwrite a vendor key")
    private_pem, public_pem = generate_keypair()
    private_path.touch(mode=0o600)
    private_path.write_bytes(private_pem)
    public_path.write_bytes(public_pem)
    click.echo(f"private key: {private_path}\npublic key:  {public_path} (FLEET_API_LICENSE_PUBLIC_KEY_FILE)")


@license_command.command("issue")
@click.option("--key", "key_path", type=click.Path(dir_okay=False, exists=True, path_type=Path), required=True,
              help="the vendor's private key (PEM)")
@click.option("--licensee", required=True)
@click.option("--enterprise", required=True, help="the licensee's company as shown on the licence")
@click.option("--max-vehicles", type=click.IntRange(1, 10_000_000), required=True)
@click.option("--valid-from", type=click.DateTime(["%Y-%m-%d"]), required=True)
@click.option("--valid-to", type=click.DateTime(["%Y-%m-%d"]), required=True)
@click.option("--feature", "features", multiple=True, help="a licensed feature (repeatable)")
@click.option("--machine-code", default="", help="bind to one installation (shown on /user/license)")
def issue_command(key_path: Path, licensee: str, enterprise: str, max_vehicles: int, valid_from: datetime,
                  valid_to: datetime, features: tuple[str, ...], machine_code: str) -> None:
    """Print a signed licence."""
    try:
        terms = LicenceTerms.from_json(LicenceTerms(
            licensee=licensee, enterprise=enterprise, max_vehicles=max_vehicles, valid_from=valid_from.date(),
            valid_to=valid_to.date(), features=features, machine_code=machine_code).to_json())
        click.echo(issue(key_path.read_bytes(), terms), nl=False)
    except LicenceError as exc:
        raise click.ClickException(str(exc)) from None
