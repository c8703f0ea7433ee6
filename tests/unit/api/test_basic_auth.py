"""Authorization protocol 1's Basic credentials (api/basic_auth.py): parsing and the verified-credentials cache."""

from __future__ import annotations

import base64

import pytest

from api.auth import Principal
from api.basic_auth import WRONG_BASIC, CredentialCache, basic_credentials
from api.errors import InvalidCredentials


def encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_basic_credentials_split_at_the_first_colon():
    assert basic_credentials(encoded("张三:pa:ss")) == ("张三", "pa:ss")


@pytest.mark.parametrize("value", ["%%%", encoded("no-colon"), encoded(":pw"), encoded("name:"),
                                   base64.b64encode(b"\xff:\xfe").decode()])
def test_malformed_basic_credentials_are_the_spec_401(value):
    with pytest.raises(InvalidCredentials) as refused:
        basic_credentials(value)
    assert refused.value.message == WRONG_BASIC


def test_cache_trusts_an_entry_for_its_ttl_only():
    now = [100.0]
    cache = CredentialCache(60.0, clock=lambda: now[0])
    alice = Principal(7, "alice", 3, "/1/3/")
    key = cache.key("YWxpY2U6cHc=")
    assert key != cache.key("YWxpY2U6cHd4") and len(key) == 64 and "YWxp" not in key
    cache.put(key, alice, 4)
    now[0] += 59.9
    assert cache.get(key) == (alice, 4)
    now[0] += 0.1
    assert cache.get(key) is None
    cache.put(key, alice, 5)
    cache.drop(key)
    assert cache.get(key) is None


def test_cache_is_bounded():
    cache = CredentialCache(60.0, max_entries=2)
    alice = Principal(7, "alice", 3, "/1/3/")
    for n in range(3):
        cache.put(str(n), alice, 0)
    assert cache.get("0") is None and cache.get("2") == (alice, 0)


def test_the_protocol_is_read_from_the_environment(monkeypatch):
    from pydantic import ValidationError

    from fleet.settings import ApiSettings

    assert ApiSettings().auth_protocol == 3  # platform-spec §9: protocol 3 by default
    monkeypatch.setenv("FLEET_API_AUTH_PROTOCOL", "1")
    assert ApiSettings().auth_protocol == 1
    monkeypatch.setenv("FLEET_API_AUTH_PROTOCOL", "4")
    with pytest.raises(ValidationError):
        ApiSettings()
