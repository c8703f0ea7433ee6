"""Password hashing (argon2id)."""

from __future__ import annotations

from warehouse.passwords import hash_password, needs_rehash, verify_password


def test_hash_is_argon2id_and_salted() -> None:
    first, second = hash_password("Fleet@2026"), hash_password("Fleet@2026")
    assert first.startswith("$argon2id$") and first != second
    assert not needs_rehash(first)


def test_verify_accepts_the_right_password_only() -> None:
    hashed = hash_password("Fleet@2026")
    assert verify_password(hashed, "Fleet@2026")
    assert not verify_password(hashed, "fleet@2026")
    assert not verify_password(hashed, "")


def test_malformed_hash_answers_false_instead_of_raising() -> None:
    assert not verify_password("not-a-hash", "x")
    assert not verify_password("", "x")
    assert needs_rehash("plain")
