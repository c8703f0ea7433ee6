"""STOMP 1.2 framing: byte-level vectors, escaping, partial input, heart-beat EOLs, limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.stomp import (
    Frame,
    FrameParser,
    StompError,
    escape_header,
    negotiate_heartbeat,
    parse_heartbeat,
    serialize,
    unescape_header,
)


def parse_one(data: bytes) -> Frame:
    frames = FrameParser().feed(data)
    assert len(frames) == 1
    return frames[0]


def test_serializes_message_with_content_length_and_nul():
    frame = Frame("MESSAGE", {"destination": "/user/3/message", "subscription": "sub-0"}, b'{"type":1}')
    assert serialize(frame) == (
        b'MESSAGE\ndestination:/user/3/message\nsubscription:sub-0\ncontent-length:10\n\n{"type":1}\x00'
    )


def test_serializes_frame_without_body_without_content_length():
    assert serialize(Frame("RECEIPT", {"receipt-id": "7"})) == b"RECEIPT\nreceipt-id:7\n\n\x00"


def test_parses_connect_frame_from_stompjs():
    data = b"CONNECT\naccept-version:1.2,1.1,1.0\nheart-beat:10000,10000\nAuthorization:Bearer a:b\n\n\x00"
    frame = parse_one(data)
    assert frame.command == "CONNECT"
    assert frame.headers == {
        "accept-version": "1.2,1.1,1.0",
        "heart-beat": "10000,10000",
        "Authorization": "Bearer a:b",
    }
    assert frame.body == b""


def test_parses_crlf_line_endings():
    frame = parse_one(b"SUBSCRIBE\r\nid:0\r\ndestination:/user/1/message\r\n\r\n\x00")
    assert frame.headers == {"id": "0", "destination": "/user/1/message"}


def test_escapes_and_unescapes_header_octets():
    raw = "a\\b\nc:d\re"
    assert escape_header(raw) == "a\\\\b\\nc\\cd\\re"
    assert unescape_header(escape_header(raw)) == raw


def test_message_headers_are_escaped_on_the_wire():
    frame = Frame("MESSAGE", {"x:y": "line1\nline2"})
    assert b"x\\cy:line1\\nline2\n" in serialize(frame)
    assert parse_one(serialize(frame)).headers == {"x:y": "line1\nline2"}


def test_connect_and_connected_headers_are_not_escaped():
    assert serialize(Frame("CONNECTED", {"server": "a\\b"})) == b"CONNECTED\nserver:a\\b\n\n\x00"
    assert parse_one(b"CONNECT\npasscode:x\\cy\n\n\x00").headers["passcode"] == "x\\cy"


def test_rejects_undefined_escape_sequence():
    with pytest.raises(StompError, match="undefined escape"):
        FrameParser().feed(b"SUBSCRIBE\nid:a\\tb\n\n\x00")


def test_rejects_trailing_backslash_in_header():
    with pytest.raises(StompError, match="undefined escape"):
        FrameParser().feed(b"SUBSCRIBE\nid:ab\\\n\n\x00")


def test_repeated_header_keeps_first_value():
    assert parse_one(b"SUBSCRIBE\nid:first\nid:second\n\n\x00").headers["id"] == "first"


def test_header_value_may_contain_colons_in_connect():
    assert (
        parse_one(b"CONNECT\nAuthorization:Bearer x:y:z\n\n\x00").headers["Authorization"] == "Bearer x:y:z"
    )


def test_content_length_allows_nul_inside_body():
    frame = parse_one(b"SEND\ncontent-length:3\n\na\x00b\x00")
    assert frame.body == b"a\x00b"


def test_rejects_body_longer_than_content_length():
    with pytest.raises(StompError, match="not terminated by NUL"):
        FrameParser().feed(b"SEND\ncontent-length:2\n\nabc\x00")


def test_rejects_non_numeric_content_length():
    with pytest.raises(StompError, match="invalid content-length"):
        FrameParser().feed(b"SEND\ncontent-length:-1\n\n\x00")


def test_rejects_header_line_without_colon():
    with pytest.raises(StompError, match="without ':'"):
        FrameParser().feed(b"SUBSCRIBE\nid\n\n\x00")


def test_rejects_lowercase_or_garbage_command():
    with pytest.raises(StompError, match="invalid command"):
        FrameParser().feed(b"connect\n\n\x00")


def test_rejects_non_utf8_headers():
    with pytest.raises(StompError, match="UTF-8"):
        FrameParser().feed(b"SUBSCRIBE\nid:\xff\n\n\x00")


def test_rejects_frame_larger_than_limit_even_while_incomplete():
    parser = FrameParser(max_frame_bytes=100)
    with pytest.raises(StompError, match="larger than 100"):
        parser.feed(b"SEND\n\n" + b"x" * 200)
    with pytest.raises(StompError, match="larger than 100"):
        FrameParser(max_frame_bytes=100).feed(b"SEND\ncontent-length:500\n\n")
    with pytest.raises(StompError, match="larger than 100"):
        FrameParser(max_frame_bytes=100).feed(b"SEND\nh:" + b"x" * 200)


def test_rejects_too_many_headers():
    data = b"SEND\n" + b"".join(b"h%d:v\n" % i for i in range(100)) + b"\n\x00"
    with pytest.raises(StompError, match="headers"):
        FrameParser().feed(data)


def test_incomplete_frame_waits_for_more_bytes_at_every_split():
    data = serialize(Frame("SEND", {"destination": "/x", "a": "b\nc"}, b"hello")) + serialize(
        Frame("DISCONNECT", {"receipt": "9"})
    )
    for split in range(len(data) + 1):
        parser = FrameParser()
        frames = parser.feed(data[:split]) + parser.feed(data[split:])
        assert [f.command for f in frames] == ["SEND", "DISCONNECT"], split
        assert frames[0].body == b"hello"
        assert frames[0].headers["a"] == "b\nc"


def test_byte_by_byte_feed_yields_the_same_frames():
    data = b"\n\r\nCONNECT\naccept-version:1.2\n\n\x00\n" + b"SEND\ncontent-length:1\n\n\x00\x00\r\n"
    parser = FrameParser()
    frames = [f for i in range(len(data)) for f in parser.feed(data[i : i + 1])]
    assert [f.command for f in frames] == ["CONNECT", "SEND"]
    assert frames[1].body == b"\x00"
    assert parser.heartbeats == 4


def test_heartbeat_eols_yield_no_frames_and_are_counted():
    parser = FrameParser()
    assert parser.feed(b"\n") == []
    assert parser.feed(b"\r\n\n") == []
    assert parser.feed(b"\r") == []  # half of a CRLF: wait
    assert parser.feed(b"\n") == []
    assert parser.heartbeats == 4


def test_several_frames_in_one_websocket_message():
    data = b"SUBSCRIBE\nid:0\ndestination:/a\n\n\x00\nSUBSCRIBE\nid:1\ndestination:/b\n\n\x00"
    assert [f.headers["id"] for f in FrameParser().feed(data)] == ["0", "1"]


header_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)


@given(
    command=st.sampled_from(["MESSAGE", "RECEIPT", "ERROR", "SEND", "SUBSCRIBE"]),
    headers=st.dictionaries(header_text.filter(bool), header_text, max_size=5),
    body=st.binary(max_size=200),
)
def test_serialize_then_parse_round_trips(command, headers, body):
    headers.pop("content-length", None)
    frame = Frame(command, headers, body)
    parsed = parse_one(serialize(frame))
    expected = dict(headers)
    if body:
        expected["content-length"] = str(len(body))
    assert (parsed.command, parsed.headers, parsed.body) == (command, expected, body)


def test_parse_heartbeat_header():
    assert parse_heartbeat(None) == (0, 0)
    assert parse_heartbeat("10000,5000") == (10000, 5000)
    for bad in ("10000", "a,b", "-1,0", "1,2,3"):
        with pytest.raises(StompError):
            parse_heartbeat(bad)


@pytest.mark.parametrize(
    ("client", "server", "expected"),
    [
        ((0, 0), (10000, 10000), (0, 0)),  # client wants none: none either way
        ((10000, 10000), (10000, 10000), (10000, 10000)),
        ((4000, 20000), (10000, 10000), (20000, 10000)),  # the larger interval wins per direction
        ((30000, 0), (10000, 10000), (0, 30000)),  # client does not want our beats
        ((5000, 5000), (0, 0), (0, 0)),  # a server that offers none
    ],
)
def test_negotiates_heartbeat_per_stomp_1_2(client, server, expected):
    assert negotiate_heartbeat(client, server) == expected
