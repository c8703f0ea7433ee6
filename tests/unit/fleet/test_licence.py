"""Licence documents: Ed25519 signature, terms and validity (fleet/licence.py), and the vendor CLI."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from fleet.cli import main
from fleet.licence import (
    BEGIN,
    END,
    LicenceError,
    LicenceTerms,
    generate_keypair,
    issue,
    load_public_key,
    verify,
)

TERMS = LicenceTerms(licensee="示范物流", enterprise="示范物流有限公司", max_vehicles=500,
                     valid_from=date(2026, 1, 1), valid_to=date(2026, 12, 31), features=("video", "reports"),
                     machine_code="AAAAA-BBBBB")


@pytest.fixture(scope="module")
def keys() -> tuple[bytes, bytes]:
    return generate_keypair()


def test_signed_licence_verifies_to_its_terms(keys: tuple[bytes, bytes]) -> None:
    private, public = keys
    text = issue(private, TERMS)
    assert text.startswith(BEGIN) and text.rstrip().endswith(END)
    assert verify(text, load_public_key(public)) == TERMS


def test_verifies_with_surrounding_text_and_rewrapped_lines(keys: tuple[bytes, bytes]) -> None:
    private, public = keys
    text = issue(private, TERMS)
    pasted = "licence follows:\r\n" + text.replace("\n", "\r\n  ") + "\nthanks"
    assert verify(pasted, load_public_key(public)).licensee == "示范物流"


def test_refuses_a_licence_signed_by_another_key(keys: tuple[bytes, bytes]) -> None:
    other_private, _ = generate_keypair()
    with pytest.raises(LicenceError, match="signature is invalid"):
        verify(issue(other_private, TERMS), load_public_key(keys[1]))


def test_refuses_altered_terms(keys: tuple[bytes, bytes]) -> None:
    private, public = keys
    text = issue(private, TERMS)
    body = "".join(text.split("\n")[1:-2])
    payload, _, signature = body.partition(".")
    forged_payload = issue(private, LicenceTerms(**{**TERMS.__dict__, "max_vehicles": 99999})).split("\n")[1:-2]
    forged = "".join(forged_payload).partition(".")[0]
    with pytest.raises(LicenceError, match="signature is invalid"):
        verify(f"{BEGIN}\n{forged}.{signature}\n{END}", load_public_key(public))
    assert payload != forged


@pytest.mark.parametrize("text", ["", "hello", f"{BEGIN}\n{END}", f"{BEGIN}\nabc.d*f\n{END}", f"{BEGIN}\nnodot\n{END}",
                                  "x" * 20_000])
def test_refuses_damaged_text_with_a_clear_error(keys: tuple[bytes, bytes], text: str) -> None:
    with pytest.raises(LicenceError, match="许可证格式不正确"):
        verify(text, load_public_key(keys[1]))


def test_refuses_a_signed_document_whose_terms_are_invalid(keys: tuple[bytes, bytes]) -> None:
    backwards = LicenceTerms(**{**TERMS.__dict__, "valid_from": date(2027, 1, 1)})
    with pytest.raises(LicenceError, match="validTo is before validFrom"):
        verify(issue(keys[0], backwards), load_public_key(keys[1]))


@pytest.mark.parametrize(("today", "machine", "problem"), [
    (date(2026, 1, 1), "AAAAA-BBBBB", None),
    (date(2026, 12, 31), "AAAAA-BBBBB", None),  # the last day is still valid
    (date(2025, 12, 31), "AAAAA-BBBBB", "尚未生效"),
    (date(2027, 1, 1), "AAAAA-BBBBB", "已过期"),
    (date(2026, 6, 1), "CCCCC-DDDDD", "不属于本机"),
])
def test_validity_by_date_and_machine_code(today: date, machine: str, problem: str | None) -> None:
    found = TERMS.validity_problem(today, machine)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_a_licence_without_machine_code_fits_any_installation() -> None:
    unbound = LicenceTerms(**{**TERMS.__dict__, "machine_code": ""})
    assert unbound.validity_problem(date(2026, 6, 1), "ANY") is None


def test_public_key_must_be_ed25519() -> None:
    with pytest.raises(LicenceError, match="厂商公钥无效"):
        load_public_key(b"-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n")


def test_cli_keygen_and_issue_make_a_verifiable_licence(tmp_path: Path) -> None:
    runner = CliRunner()
    made = runner.invoke(main, ["license", "keygen", "--out", str(tmp_path)])
    assert made.exit_code == 0, made.output
    assert (tmp_path / "vendor-private.pem").stat().st_mode & 0o077 == 0
    issued = runner.invoke(main, [
        "license", "issue", "--key", str(tmp_path / "vendor-private.pem"), "--licensee", "Demo",
        "--enterprise", "Demo Co", "--max-vehicles", "50", "--valid-from", "2026-01-01",
        "--valid-to", "2026-06-30", "--feature", "video"])
    assert issued.exit_code == 0, issued.output
    terms = verify(issued.output, load_public_key((tmp_path / "vendor-public.pem").read_bytes()))
    assert (terms.max_vehicles, terms.valid_to, terms.features) == (50, date(2026, 6, 30), ("video",))
    again = runner.invoke(main, ["license", "keygen", "--out", str(tmp_path)])
    assert again.exit_code != 0 and "refusing to overwrite" in again.output
