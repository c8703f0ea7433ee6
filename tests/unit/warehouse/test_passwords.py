"""Password hashing (argon2id), with the product's parameters (the suite otherwise stores cheap hashes:
tests/conftest.py)."""

from __future__ import annotations

import pytest

import warehouse.passwords as passwords
from tests.conftest import PRODUCT_HASHER
from warehouse.passwords import hash_password, needs_rehash, verify_password


@pytest.fixture(autouse=True)
def _product_hasher(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "_hasher", PRODUCT_HASHER)


def test_hash_is_argon2id_with_the_rfc_9106_low_memory_parameters_and_salted() -> None:
    first, second = hash_password("Fleet@2026"), hash_password("Fleet@2026")
    assert first.startswith("$argon2id$v=19$m=65536,t=3,p=4$") and first != second
    assert not needs_rehash(first)


def test_a_cheaper_hash_still_verifies_and_is_due_for_rehashing() -> None:
    from argon2 import PasswordHasher

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("Fleet@2026")
    assert verify_password(cheap, "Fleet@2026") and not verify_password(cheap, "fleet@2026")
    assert needs_rehash(cheap)


def test_verify_accepts_the_right_password_only() -> None:
    hashed = hash_password("Fleet@2026")
    assert verify_password(hashed, "Fleet@2026")
    assert not verify_password(hashed, "fleet@2026")
    assert not verify_password(hashed, "")


def test_malformed_hash_answers_false_instead_of_raising() -> None:
    assert not verify_password("not-a-hash", "x")
    assert not verify_password("", "x")
    assert needs_rehash("plain")
