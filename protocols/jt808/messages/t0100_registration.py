"""0x0100 terminal registration, in its three layouts.

| field | 2011 | 2013 | 2019 |
|---|---|---|---|
| province id, city id | WORD, WORD | WORD, WORD | WORD, WORD |
| manufacturer id | BYTE[5] | BYTE[5] | BYTE[11] |
| terminal model | BYTE[8] | BYTE[20] | BYTE[30] |
| terminal id | BYTE[7] | BYTE[7] | BYTE[30] |
| plate colour | BYTE | BYTE | BYTE |
| plate | STRING (rest of body) | STRING | STRING |

2011 and 2013 share a header, so only the body length tells them apart: 25 + plate vs 37 + plate
bytes. The ranges overlap for plates of 12+ bytes, which real plates never reach (GBK 粤A12345 is 8,
UTF-8 粤AD12345 is 10), so a body of at most 36 bytes is read as 2011 and anything longer as 2013.
Pass version '2011' to force the 2011 layout.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import (
    check_version,
    decode_fixed_text,
    decode_text,
    encode_fixed_text,
    encode_text,
)
from protocols.jt808.registry import register_body

_IDS = struct.Struct(">HH")
# layout -> (manufacturer, model, terminal id) widths
WIDTHS = {"2011": (5, 8, 7), "2013": (5, 20, 7), "2019": (11, 30, 30)}
_LONGEST_2011_BODY = 4 + 5 + 8 + 7 + 1 + 11  # plate of at most 11 bytes


def layout_for(body_length: int, version: str) -> str:
    """Which layout a body of this length uses under a header of ``version``."""
    if version == "2019":
        return "2019"
    if version == "2011" or body_length <= _LONGEST_2011_BODY:
        return "2011"
    return "2013"


@register_body
@dataclass(frozen=True)
class Registration:
    """``layout`` records which layout was decoded ('2011', '2013', '2019'); it is informative only
    (encoding follows the header version) and not compared."""

    MSG_ID: ClassVar[int] = 0x0100
    province_id: int
    city_id: int
    manufacturer_id: str
    terminal_model: str
    terminal_id: str
    plate_color: int
    plate_number: str
    layout: str | None = field(default=None, compare=False)

    @classmethod
    def decode(cls, body: bytes, version: str) -> Registration:
        layout = layout_for(len(body), version)
        maker_w, model_w, id_w = WIDTHS[layout]
        fixed = 4 + maker_w + model_w + id_w + 1
        if len(body) < fixed:
            raise BodyError(f"0x0100 ({layout} layout) needs at least {fixed} bytes, got {len(body)}")
        province_id, city_id = _IDS.unpack_from(body)
        pos = 4
        maker = body[pos : pos + maker_w]
        pos += maker_w
        model = body[pos : pos + model_w]
        pos += model_w
        terminal_id = body[pos : pos + id_w]
        pos += id_w
        return cls(
            province_id=province_id,
            city_id=city_id,
            manufacturer_id=decode_fixed_text(maker),
            terminal_model=decode_fixed_text(model),
            terminal_id=decode_fixed_text(terminal_id),
            plate_color=body[pos],
            plate_number=decode_text(body[pos + 1 :]),
            layout=layout,
        )

    def encode(self, version: str) -> bytes:
        maker_w, model_w, id_w = WIDTHS[check_version(version)]
        return b"".join(
            (
                _IDS.pack(self.province_id, self.city_id),
                encode_fixed_text(self.manufacturer_id, maker_w),
                encode_fixed_text(self.terminal_model, model_w),
                encode_fixed_text(self.terminal_id, id_w),
                bytes((self.plate_color,)),
                encode_text(self.plate_number),
            )
        )
