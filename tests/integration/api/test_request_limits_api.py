"""Request bodies are capped per route: a 200 MiB body is refused with 413 in the
envelope before the API reads it, signed in or not. The body is generated lazily and counted."""

from __future__ import annotations

import io
from typing import Any

from flask import Flask

from tests.integration.api.conftest import error_text

HUGE = 200 * 1024 * 1024


class CountingBody(io.RawIOBase):
    """A lazily generated body of ``size`` bytes that counts what the server reads."""

    def __init__(self, size: int, fill: bytes = b"x") -> None:
        self.size = size
        self.fill = fill
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.size - self.read_bytes)
        buffer[:n] = self.fill * n
        self.read_bytes += n
        return n


def send(app: Flask, path: str, body: CountingBody, content_type: str, *, length: int | None) -> Any:
    environ: dict[str, Any] = {"wsgi.input": body, "CONTENT_TYPE": content_type, "HTTP_X_FLEET_LANGUAGE": "en-US"}
    if length is None:
        environ["wsgi.input_terminated"] = True  # chunked: the server announces no length
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    else:
        environ["CONTENT_LENGTH"] = str(length)
    return app.test_client().open(path, method="POST", environ_overrides=environ)


def assert_too_large(reply: Any) -> None:
    assert reply.status_code == 413, reply.data[:300]
    assert reply.json["code"] == 413 and "request body" in error_text(reply, "en-US")


def test_a_200_mib_form_body_on_the_token_endpoint_is_refused_unread(app: Flask) -> None:
    body = CountingBody(HUGE)
    reply = send(app, "/oauth2/token.json", body, "application/x-www-form-urlencoded", length=HUGE)
    assert_too_large(reply)
    assert body.read_bytes == 0


def test_a_200_mib_multipart_upload_to_the_token_endpoint_is_refused_unread(app: Flask) -> None:
    body = CountingBody(HUGE)
    reply = send(app, "/oauth2/token.json", body, "multipart/form-data; boundary=x", length=HUGE)
    assert_too_large(reply)
    assert body.read_bytes == 0


def test_a_200_mib_json_body_is_refused_unread_before_authentication(app: Flask) -> None:
    body = CountingBody(HUGE)
    reply = send(app, "/api/common/query/carView.json", body, "application/json", length=HUGE)
    assert_too_large(reply)
    assert body.read_bytes == 0


def test_a_chunked_body_without_length_is_read_only_up_to_the_cap(app: Flask) -> None:
    body = CountingBody(HUGE)
    reply = send(app, "/oauth2/token.json", body, "application/x-www-form-urlencoded", length=None)
    assert reply.status_code == 413 and reply.json["code"] == 413
    assert body.read_bytes <= 64 * 1024


def test_a_json_body_under_the_cap_still_works(app: Flask, login: Any) -> None:
    reply = app.test_client().post("/api/common/count/carView.json", headers=login("admin_a"),
                                   json={"plateNumber.like": "x" * 1000})
    assert reply.status_code == 200 and reply.json["code"] == 0
