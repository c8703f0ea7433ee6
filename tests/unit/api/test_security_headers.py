"""The Content-Security-Policy and the per-route body caps, as pure functions."""

from __future__ import annotations

from api.security import MAP_TILE_SOURCES, body_limit, content_security_policy
from fleet.settings import ApiSettings


def parse(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


def test_policy_allows_the_console_and_nothing_else() -> None:
    csp = parse(content_security_policy("console.example:8080", media_port=7612))
    assert csp["default-src"] == ["'self'"] and csp["script-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert set(MAP_TILE_SOURCES) <= set(csp["img-src"])
    assert {"ws://console.example:8080", "wss://console.example:8080", "ws://console.example:7612",
            "http://console.example:7612"} <= set(csp["connect-src"])
    assert csp["media-src"] == ["'self'", "blob:", "http://console.example:7612", "https://console.example:7612"]


def test_ipv6_host_keeps_its_brackets() -> None:
    csp = parse(content_security_policy("[::1]:8080", media_port=7612))
    assert "ws://[::1]:8080" in csp["connect-src"] and "http://[::1]:7612" in csp["connect-src"]


def test_a_forged_host_header_cannot_inject_directives() -> None:
    csp = parse(content_security_policy("evil.example; script-src *", media_port=7612))
    assert csp["script-src"] == ["'self'"] and csp["connect-src"] == ["'self'"]


def test_token_endpoint_gets_a_tiny_body_cap_and_json_routes_one_mib() -> None:
    settings = ApiSettings()
    assert body_limit(settings, "/oauth2/token.json") == 8 * 1024
    assert body_limit(settings, "/api/common/query/carView.json") == 1024 * 1024
