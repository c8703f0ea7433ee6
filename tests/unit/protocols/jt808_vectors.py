"""JT/T 808 hex vectors: each frame with the source it comes from and the fields it must yield.

Copied (hex and facts only) from /work/shared/reference/jt808-vectors.md, where every vector's
provenance and our independent checksum/length check are recorded. ``expect`` keys are paths into
``to_json(decode_frame(frame))`` (``body.items.1.lat``), plus a few checks the test spells out:
``body_type``, ``unknown_ids``, ``unknown_sizes`` (bytes), ``item_count``, ``extras_order``.
A bug found in the field becomes a new row here.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Vector(NamedTuple):
    tag: str
    source: str
    hex: str
    expect: dict[str, Any]


class BadVector(NamedTuple):
    tag: str
    source: str
    hex: str
    error: str  # name of the JT808Error subclass decode_frame must raise


VECTORS: list[Vector] = [
    Vector(
        "ESC-1",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0002Test.cs:44",
        "7E00020000040021679287002B7D027E",
        {
            "header.msg_id": 2, "header.phone": "040021679287", "header.seq": 43,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 0,
            "body_type": "Heartbeat",
        },
    ),
    Vector(
        "ESC-2",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/option_test.go:13",
        "7E0002000000000000067800017D017E",
        {
            "header.msg_id": 2, "header.phone": "000000000678", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "Heartbeat",
        },
    ),
    Vector(
        "ESC-3",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessagePack/JT808MessagePackReaderTest.cs:20",
        (
            "7E02000026123456789012007D02000000010000000200BA7F0E07E4F11C0028003C0000181015101010010400000064"
            "0202007D01137E"
        ),
        {
            "header.msg_id": 512, "header.phone": "123456789012", "header.seq": 126,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 38,
            "body.alarm_flags": 1, "body.status_flags": 2, "body.lat": 12.222222, "body.lng": 132.444444,
            "body.altitude_m": 40, "body.speed_kmh": 6.0, "body.direction_deg": 0,
            "body.fix_at": "2018-10-15T02:10:10+00:00",
            "body.extras": {"mileage_km": 10.0, "fuel_l": 12.5},
        },
    ),
    Vector(
        "ESC-4",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/model/parse_test.go:164",
        "7E0200001C0123456789010000000004000000080007203B7D0202633DF70138000300632410012359591C7E",
        {
            "header.msg_id": 512, "header.phone": "012345678901", "header.seq": 0,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 28,
            "body.alarm_flags": 1024, "body.status_flags": 2048, "body.lat": 119.552894,
            "body.lng": 40.058359, "body.altitude_m": 312, "body.speed_kmh": 0.3,
            "body.direction_deg": 99, "body.fix_at": "2024-10-01T15:59:59+00:00", "body.extras": {},
        },
    ),
    Vector(
        "REG-2011",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0100]-JT2011-终端-注册.txt:1",
        (
            "7E010000241234567820110001001F006E63643132337777772E3830382E3736353433323101B2E24131323334353637"
            "38347E"
        ),
        {
            "header.msg_id": 256, "header.phone": "123456782011", "header.seq": 1,
            "header.version": "2011", "header.protocol_version": None, "header.body_length": 36,
            "body.province_id": 31, "body.city_id": 110, "body.manufacturer_id": "cd123",
            "body.terminal_model": "www.808.", "body.terminal_id": "7654321", "body.plate_color": 1,
            "body.plate_number": "测A12345678", "body.layout": "2011",
        },
    ),
    Vector(
        "REG-2011b",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0100Test.cs:180",
        "7E01000021000123456789000A002800323132333400746B3132333435004348493132330001D4C1413132333435857E",
        {
            "header.msg_id": 256, "header.phone": "000123456789", "header.seq": 10,
            "header.version": "2011", "header.protocol_version": None, "body.province_id": 40,
            "body.city_id": 50, "body.manufacturer_id": "1234", "body.terminal_model": "tk12345",
            "body.terminal_id": "CHI123", "body.plate_color": 1, "body.plate_number": "粤A12345",
            "body.layout": "2011",
        },
    ),
    Vector(
        "REG-2013",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0100Test.cs:35",
        (
            "7E0100002D000123456789000A002800323132333400736D616C6C636869313233000000000000000000434849313233"
            "0001D4C14131323334358A7E"
        ),
        {
            "header.msg_id": 256, "header.phone": "000123456789", "header.seq": 10,
            "header.version": "2013", "header.protocol_version": None, "body.province_id": 40,
            "body.city_id": 50, "body.manufacturer_id": "1234", "body.terminal_model": "smallchi123",
            "body.terminal_id": "CHI123", "body.plate_color": 1, "body.plate_number": "粤A12345",
            "body.layout": "2013",
        },
    ),
    Vector(
        "REG-2013b",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:86",
        (
            "7E0100002E1234567890120001001F0073797A6800007777772E6A74743830382E636E00000000000000373635343332"
            "3101B2E241383838383838A37E"
        ),
        {
            "header.msg_id": 256, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body.province_id": 31,
            "body.city_id": 115, "body.manufacturer_id": "yzh", "body.terminal_model": "www.jtt808.cn",
            "body.terminal_id": "7654321", "body.plate_color": 1, "body.plate_number": "测A888888",
            "body.layout": "2013",
        },
    ),
    Vector(
        "REG-2019",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0100]-JT2019-终端-注册.txt:1",
        (
            "7E0100405701123456789012345620190001001F006E63643132333435363738397777772E3830382E636F6D00000000"
            "00000000000000000000000000000037363534333231000000000000000000000000000000000000000000000001B2E2"
            "4131323334353637388E7E"
        ),
        {
            "header.msg_id": 256, "header.phone": "12345678901234562019", "header.seq": 1,
            "header.version": "2019", "header.protocol_version": 1, "header.body_length": 87,
            "body.province_id": 31, "body.city_id": 110, "body.manufacturer_id": "cd123456789",
            "body.terminal_model": "www.808.com", "body.terminal_id": "7654321", "body.plate_color": 1,
            "body.plate_number": "测A12345678", "body.layout": "2019",
        },
    ),
    Vector(
        "REG-2019b",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0100Test.cs:83",
        (
            "7E010040540100000000000123456789000A002800323132333400000000000000736D616C6C63686931323300000000"
            "00000000000000000000000000000043484931323300000000000000000000000000000000000000000000000001D4C1"
            "413132333435B27E"
        ),
        {
            "header.msg_id": 256, "header.phone": "00000000000123456789", "header.seq": 10,
            "header.version": "2019", "header.protocol_version": 1, "body.province_id": 40,
            "body.city_id": 50, "body.manufacturer_id": "1234", "body.terminal_model": "smallchi123",
            "body.terminal_id": "CHI123", "body.plate_color": 1, "body.plate_number": "粤A12345",
            "body.layout": "2019",
        },
    ),
    Vector(
        "REG-2019c",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:118",
        (
            "7E010040550112345678901234567890FFFF001F0073797A6800000000000000007777772E6A74743830382E636E0000"
            "00000000000000000000000000000030393837363534333231303938373635343332310000000000000000000001B2E2"
            "41383838383838227E"
        ),
        {
            "header.msg_id": 256, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "body.province_id": 31,
            "body.city_id": 115, "body.manufacturer_id": "yzh", "body.terminal_model": "www.jtt808.cn",
            "body.terminal_id": "09876543210987654321", "body.plate_color": 1,
            "body.plate_number": "测A888888", "body.layout": "2019",
        },
    ),
    Vector(
        "AUTH-2013",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0102]-JT2013-终端-注册鉴权.txt:1",
        "7E010200091234567820130001393837363534333231017E",
        {
            "header.msg_id": 258, "header.phone": "123456782013", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body.auth_code": "987654321",
            "body.imei": None, "body.software_version": None,
        },
    ),
    Vector(
        "AUTH-2019",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0102]-JT2019-终端-注册鉴权.txt:1",
        (
            "7E0102402D0112345678901234562019000109393837363534333231313233343536373839303132333435332E372E31"
            "350000000000000000000000000000B77E"
        ),
        {
            "header.msg_id": 258, "header.phone": "12345678901234562019", "header.seq": 1,
            "header.version": "2019", "header.protocol_version": 1, "body.auth_code": "987654321",
            "body.imei": "123456789012345", "body.software_version": "3.7.15",
        },
    ),
    Vector(
        "AUTH-2019b",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:170",
        (
            "7E010240500112345678901234567890FFFF2C706D59477A47756B4F384B345A356C70494F5467386471623365707259"
            "614842625853504C7464627947383D3132333435363738393031323334357777772E6A74743830382E636E0000000000"
            "0000557E"
        ),
        {
            "header.msg_id": 258, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1,
            "body.auth_code": "pmYGzGukO8K4Z5lpIOTg8dqb3eprYaHBbXSPLtdbyG8=",
            "body.imei": "123456789012345", "body.software_version": "www.jtt808.cn",
        },
    ),
    Vector(
        "HB-2013",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0002]-JT2013-终端-心跳.txt:1",
        "7E000200001234567820130001387E",
        {
            "header.msg_id": 2, "header.phone": "123456782013", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "Heartbeat",
        },
    ),
    Vector(
        "HB-2019",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:68",
        "7E000240000112345678901234567890FFFF437E",
        {
            "header.msg_id": 2, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "body_type": "Heartbeat",
        },
    ),
    Vector(
        "LOC-1",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0200Test.cs:270 (Test5 asserts)",
        (
            "7E0200002611223344556622B8000000010000000200BA7F0E07E4F11C0028003C000018071510101001040000006402"
            "020037577E"
        ),
        {
            "header.msg_id": 512, "header.phone": "112233445566", "header.seq": 8888,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 38,
            "header.package_total": None, "header.encrypted": False, "body.alarm_flags": 1,
            "body.status_flags": 2, "body.lat": 12.222222, "body.lng": 132.444444, "body.altitude_m": 40,
            "body.speed_kmh": 6.0, "body.direction_deg": 0, "body.fix_at": "2018-07-15T02:10:10+00:00",
            "body.extras": {"mileage_km": 10.0, "fuel_l": 5.5},
        },
    ),
    Vector(
        "LOC-ALL",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0200Test.cs:591 (Test_all_attcahids)",
        (
            "7E0200005C11223344556622B8000000010000000200BA7F0E07E4F11C0028003C000018071510101001040000006402"
            "02003703020038040200011105010000000112060100000001011307000000020022012504000000172A0200F42B0400"
            "0000F2300102310105167E"
        ),
        {
            "header.msg_id": 512, "header.phone": "112233445566", "header.seq": 8888,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 92,
            "body.alarm_flags": 1, "body.status_flags": 2, "body.lat": 12.222222, "body.lng": 132.444444,
            "body.altitude_m": 40, "body.speed_kmh": 6.0, "body.direction_deg": 0,
            "body.fix_at": "2018-07-15T02:10:10+00:00",
            "body.extras": {"mileage_km": 10.0, "fuel_l": 5.5, "record_speed_kmh": 5.6, "alarm_event_id_to_confirm": 1, "overspeed_alarm": {"location_type": 1, "area_id": 1}, "area_alarm": {"location_type": 1, "area_id": 1, "direction": 1}, "road_section_time_alarm": {"section_id": 2, "driving_time_s": 34, "result": 1}, "vehicle_signal_status": 23, "io_status": 244, "analog": {"ad0": 242, "ad1": 0}, "rssi": 2, "gnss_satellites": 5},
            "body.unknown_items": [],
        },
    ),
    Vector(
        "LOC-YZH13",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:962",
        (
            "7E020000801234567890120001000004000000080006EEB6AD02633DF701380003006320070719235901040000000B02"
            "020016030200210402002C051E3737370000000000000000000000000000000000000000000000000000000602000211"
            "05420000004212064D0000004D4D1307000000580058582504000000632A02000A2B040000001430011E310128127E"
        ),
        {
            "header.msg_id": 512, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 128,
            "body.alarm_flags": 1024, "body.status_flags": 2048, "body.lat": 116.307629,
            "body.lng": 40.058359, "body.altitude_m": 312, "body.speed_kmh": 0.3,
            "body.direction_deg": 99, "body.fix_at": "2020-07-07T11:23:59+00:00",
            "body.extras.mileage_km": 1.1, "body.extras.fuel_l": 2.2,
            "body.extras.record_speed_kmh": 3.3, "body.extras.alarm_event_id_to_confirm": 44,
            "body.extras.tyre_pressure_raw": [55, 55, 55, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "body.extras.carriage_temp_c": 2,
            "body.extras.overspeed_alarm": {"location_type": 66, "area_id": 66},
            "body.extras.area_alarm": {"location_type": 77, "area_id": 77, "direction": 77},
            "body.extras.road_section_time_alarm": {"section_id": 88, "driving_time_s": 88, "result": 88},
            "body.extras.vehicle_signal_status": 99, "body.extras.io_status": 10,
            "body.extras.analog": {"ad0": 20, "ad1": 0}, "body.extras.rssi": 30,
            "body.extras.gnss_satellites": 40, "body.unknown_items": [],
        },
    ),
    Vector(
        "LOC-YZH19",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:1116",
        (
            "7E020040800112345678901234567890FFFF000004000000080006EEB6AD02633DF70138000300632007071923590104"
            "0000000B02020016030200210402002C051E373737000000000000000000000000000000000000000000000000000000"
            "060200021105420000004212064D0000004D4D1307000000580058582504000000632A02000A2B040000001430011E31"
            "0128D87E"
        ),
        {
            "header.msg_id": 512, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "header.body_length": 128,
            "body.alarm_flags": 1024, "body.status_flags": 2048, "body.lat": 116.307629,
            "body.lng": 40.058359, "body.altitude_m": 312, "body.speed_kmh": 0.3,
            "body.direction_deg": 99, "body.fix_at": "2020-07-07T11:23:59+00:00",
            "body.extras.mileage_km": 1.1, "body.extras.fuel_l": 2.2,
            "body.extras.record_speed_kmh": 3.3, "body.extras.alarm_event_id_to_confirm": 44,
            "body.extras.tyre_pressure_raw": [55, 55, 55, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "body.extras.carriage_temp_c": 2,
            "body.extras.overspeed_alarm": {"location_type": 66, "area_id": 66},
            "body.extras.area_alarm": {"location_type": 77, "area_id": 77, "direction": 77},
            "body.extras.road_section_time_alarm": {"section_id": 88, "driving_time_s": 88, "result": 88},
            "body.extras.vehicle_signal_status": 99, "body.extras.io_status": 10,
            "body.extras.analog": {"ad0": 20, "ad1": 0}, "body.extras.rssi": 30,
            "body.extras.gnss_satellites": 40, "body.unknown_items": [],
        },
    ),
    Vector(
        "LOC-GO19",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0200]-JT2019-终端-位置上报.txt:1",
        "7E0200401C01123456789012345620190001000004000000080006EEB6AD02633DF7013800030063241001235959947E",
        {
            "header.msg_id": 512, "header.phone": "12345678901234562019", "header.seq": 1,
            "header.version": "2019", "header.protocol_version": 1, "header.body_length": 28,
            "body.alarm_flags": 1024, "body.status_flags": 2048, "body.lat": 116.307629,
            "body.lng": 40.058359, "body.altitude_m": 312, "body.speed_kmh": 0.3,
            "body.direction_deg": 99, "body.fix_at": "2024-10-01T15:59:59+00:00", "body.extras": {},
            "body.unknown_items": [],
        },
    ),
    Vector(
        "LOC-HUABAO",
        "https://huabaotelematics.com/blog/jt808-common-message-parsing-of-gps-electronic-lock-huabaotelematics-com_b9 (blog, real GPS e-lock)",
        (
            "7E0200005200200260432300A400020000000C00020158B91B06CB706100460000005921092216375801040000000103"
            "020000250400000001300111310110E30100D51B02200260432327959378616000122000001234279593786158001286"
            "7E"
        ),
        {
            "header.msg_id": 512, "header.phone": "002002604323", "header.seq": 164,
            "header.version": "2013", "header.protocol_version": None, "body.alarm_flags": 131072,
            "body.status_flags": 786434, "body.lat": 22.591771, "body.lng": 113.995873,
            "body.altitude_m": 70, "body.speed_kmh": 0.0, "body.direction_deg": 89,
            "body.fix_at": "2021-09-22T08:37:58+00:00",
            "body.extras": {"mileage_km": 0.1, "record_speed_kmh": 0.0, "vehicle_signal_status": 1, "rssi": 17, "gnss_satellites": 16},
            "unknown_ids": [227, 213], "body.unknown_items.0.hex": "00",
        },
    ),
    Vector(
        "LOC-ADAS-DSM",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:7946",
        (
            "7E020000D41234567890120001000004000000080006EEB6AD02633DF7013800030063200707192359642F0000004001"
            "01010A0A01010A0A00640001B2070003640E200707192359000137363534333231200707192359010101652F00000041"
            "02020214000000141400C8000516150006C81C2007071923590002373635343332312007071923590202026629000000"
            "42031E012C00087A23000A2C2A2007071923590003373635343332312007071923590303030067290000004304042801"
            "90000BDE31000D9038200707192359000437363534333231200707192359040404347E"
        ),
        {
            "header.msg_id": 512, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 212,
            "body.alarm_flags": 1024, "body.status_flags": 2048, "body.lat": 116.307629,
            "body.lng": 40.058359, "body.altitude_m": 312, "body.speed_kmh": 0.3,
            "body.direction_deg": 99, "body.fix_at": "2020-07-07T11:23:59+00:00", "unknown_ids": [],
            "extras_order": ["adas_alarm", "dsm_alarm", "tpms_alarm", "bsd_alarm"],
            "body.extras.adas_alarm.alarm_id": 64, "body.extras.adas_alarm.flag": 1, "body.extras.adas_alarm.type": 1,
            "body.extras.adas_alarm.level": 1, "body.extras.adas_alarm.front_speed_kmh": 10,
            "body.extras.adas_alarm.headway_s": 1.0, "body.extras.adas_alarm.lat": 0.111111,
            "body.extras.adas_alarm.time": "2020-07-07T11:23:59+00:00",
            "body.extras.adas_alarm.alarm_no": {"terminal_id": "7654321", "time": "2020-07-07T11:23:59+00:00", "seq": 1, "attachments": 1},
            "body.extras.dsm_alarm.type": 2, "body.extras.dsm_alarm.level": 2, "body.extras.dsm_alarm.fatigue_degree": 20,
            "body.extras.tpms_alarm.events": [], "body.extras.tpms_alarm.level": None,
            "body.extras.bsd_alarm.speed_kmh": 40, "body.extras.bsd_alarm.alarm_no.attachments": 4,
        },
    ),
    Vector(
        "LOC-ADAS-2019",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/model/example_test.go:43",
        (
            "7E0200407D0201000000000202326095590A4F00002000004C100301E0D7F2073E6EAC00640214001424112715423001"
            "04000000CC020201D425040000000030010831010914040000007F150400000001160400000001170200011803000709"
            "642F0000001F000201323201000035006401E0D40A073E6AC4241127154210FFFF696430303030332411271542170005"
            "00767E"
        ),
        {
            "header.msg_id": 512, "header.phone": "00000000020232609559", "header.seq": 2639,
            "header.version": "2019", "header.protocol_version": 1, "body.alarm_flags": 8192,
            "body.status_flags": 4984835, "body.lat": 31.512562, "body.lng": 121.532076,
            "body.altitude_m": 100, "body.speed_kmh": 53.2, "body.direction_deg": 20,
            "body.fix_at": "2024-11-27T07:42:30+00:00",
            "body.extras": {"mileage_km": 20.4, "fuel_l": 46.8, "vehicle_signal_status": 0, "rssi": 8, "gnss_satellites": 9, "video_alarm_flags": 127, "video_signal_lost_channels": 1, "video_signal_blocked_channels": 1, "storage_fault_flags": 1, "abnormal_driving": {"behaviour_flags": 7, "fatigue_level": 9},
                            "adas_alarm": {"alarm_id": 31, "flag": 0, "type": 2, "level": 1, "speed_kmh": 53, "altitude_m": 100,
                                           "lat": 31.511562, "lng": 121.531076, "time": "2024-11-27T07:42:10+00:00",
                                           "vehicle_status": 65535, "front_speed_kmh": 50, "headway_s": 5.0, "deviation_type": 1,
                                           "road_sign_type": 0, "road_sign_data": 0,
                                           "alarm_no": {"terminal_id": "id00003", "time": "2024-11-27T07:42:17+00:00", "seq": 0, "attachments": 5}}},
            "unknown_ids": [],
        },
    ),
    Vector(
        "LOC-DSM-REAL",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/TJSATL.txt:1",
        (
            "7E020000AE04085359895000AC000000000004000101DC9F7B073C3CF800000000008C2104291206410104000000C603"
            "0200001404000000001504000000001604000000001702000018030000002504000000002B0400000000300105310100"
            "B70400000000320150B1040B050100B40100B6020000BA020202BD0E0000801E80F4803A000A00098005652F08322CCF"
            "010101000000000000000001DC9F7B073C3CF8210429120639000133353938393530210429120639000500C17E"
        ),
        {
            "header.msg_id": 512, "header.phone": "040853598950", "header.seq": 172,
            "header.version": "2013", "header.protocol_version": None, "body.alarm_flags": 0,
            "body.status_flags": 262145, "body.lat": 31.235963, "body.lng": 121.38828,
            "body.altitude_m": 0, "body.speed_kmh": 0.0, "body.direction_deg": 140,
            "body.fix_at": "2021-04-29T04:06:41+00:00", "body.extras.mileage_km": 19.8,
            "body.extras.record_speed_kmh": 0.0,
            "body.extras.abnormal_driving": {"behaviour_flags": 0, "fatigue_level": 0},
            "body.extras.analog": {"ad0": 0, "ad1": 0}, "body.extras.rssi": 5,
            "body.extras.gnss_satellites": 0, "unknown_ids": [183, 50, 177, 180, 182, 186, 189],
            "body.extras.dsm_alarm.type": 1, "body.extras.dsm_alarm.flag": 1, "body.extras.dsm_alarm.level": 1,
            "body.extras.dsm_alarm.time": "2021-04-29T04:06:39+00:00", "body.extras.dsm_alarm.lat": 31.235963,
            "body.extras.dsm_alarm.alarm_no": {"terminal_id": "3598950", "time": "2021-04-29T04:06:39+00:00", "seq": 0, "attachments": 5},
        },
    ),
    Vector(
        "BATCH-1",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0704Test.cs:123",
        (
            "7E0704005311223344556622B80002000026000000010000000200BA7F0E07E4F11C0028003C00001807151010100104"
            "00000064020200370026000000020000000100CB735507E6A32300290036007818071510103001040000006002020042"
            "D47E"
        ),
        {
            "header.msg_id": 1796, "header.phone": "112233445566", "header.seq": 8888,
            "header.version": "2013", "header.protocol_version": None, "body.kind": 0, "item_count": 2,
            "body.items.0.alarm_flags": 1, "body.items.0.lat": 12.222222,
            "body.items.0.fix_at": "2018-07-15T02:10:10+00:00",
            "body.items.0.extras": {"mileage_km": 10.0, "fuel_l": 5.5}, "body.items.1.alarm_flags": 2,
            "body.items.1.status_flags": 1, "body.items.1.lat": 13.333333,
            "body.items.1.lng": 132.555555, "body.items.1.altitude_m": 41, "body.items.1.speed_kmh": 5.4,
            "body.items.1.direction_deg": 120, "body.items.1.fix_at": "2018-07-15T02:10:30+00:00",
            "body.items.1.extras": {"mileage_km": 9.6, "fuel_l": 6.6},
        },
    ),
    Vector(
        "BATCH-2",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:1464",
        (
            "7E0704007B1234567890120001000401001C000004000000080006EEB6AD02633DF7013800030063200707192359001C"
            "00000800000010000DDD6D5A04C67BEE0270000600C6200707192359001C000004000000080006EEB6AD02633DF70138"
            "00030063200707192359001C00000800000010000DDD6D5A04C67BEE0270000600C6200707192359F67E"
        ),
        {
            "header.msg_id": 1796, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body.kind": 1, "item_count": 4,
            "body.items.0.alarm_flags": 1024, "body.items.0.lat": 116.307629,
            "body.items.0.speed_kmh": 0.3, "body.items.1.alarm_flags": 2048,
            "body.items.1.status_flags": 4096, "body.items.1.lat": 232.615258,
            "body.items.1.lng": 80.116718, "body.items.1.altitude_m": 624, "body.items.1.speed_kmh": 0.6,
            "body.items.1.direction_deg": 198, "body.items.3.fix_at": "2020-07-07T11:23:59+00:00",
        },
    ),
    Vector(
        "BATCH-3",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0704]-JT2013-终端-位置批量上传.txt:1",
        (
            "7E0704003F1234567820130001000200001C000004000000080006EEB6AD02633DF7013800030063241001235959001C"
            "000004000000080006EEB6AD02633DF7013800030063241001235959047E"
        ),
        {
            "header.msg_id": 1796, "header.phone": "123456782013", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 63,
            "body.kind": 0, "item_count": 2, "body.items.1.lat": 116.307629,
            "body.items.1.fix_at": "2024-10-01T15:59:59+00:00",
        },
    ),
    Vector(
        "SUB-1",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/jt808/jt808_test.go:31 (\"正确的分包数据\")",
        "7E0801200500123456789002DE001A00022808000102537E",
        {
            "header.msg_id": 2049, "header.phone": "001234567890", "header.seq": 734,
            "header.version": "2013", "header.protocol_version": None, "header.package_total": 26,
            "header.package_index": 2, "header.body_length": 5, "body.hex": "2808000102",
        },
    ),
    Vector(
        "SUB-2a",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.JT1078.Test/JT808_0x1205Test.cs:106 (package 1/2)",
        (
            "7E120523A204066657506200EB00020001015A0000002301201219104205201219105019000000000000000000010106"
            "4446D10120121910221720121910420500000000000000000001010F1FE8EB0120121910023420121910221700000000"
            "000000000001010F182D5C0120121909471120121910015500000000000000000001010B38F243012012190927402012"
            "1909471100000000000000000001010F056DB40120121909080920121909274000000000000000000001010F07243801"
            "20121908483820121909080900000000000000000001010F0530AB012012190829072012190848380000000000000000"
            "0001010F05896C0120121908093720121908290700000000000000000001010F02CD3B01201219075005201219080937"
            "00000000000000000001010F056FEF0120121907303420121907500500000000000000000001010F043C340120121907"
            "2541201219073034000000000000000000010103C26C5F0120121907061120121907254100000000000000000001010F"
            "03F0C10120121906464220121907061100000000000000000001010F02F6330120121906271220121906464200000000"
            "000000000001010F02E43B0120121906074220121906271200000000000000000001010F033D67012012190548112012"
            "1906074200000000000000000001010F088BF20120121905284120121905481100000000000000000001010F03F9FE01"
            "20121905091020121905284100000000000000000001010F05B104012012190449402012190509100000000000000000"
            "0001010F02B3540120121904301020121904494000000000000000000001010F0417B001201219041039201219043010"
            "00000000000000000001010F0538970120121903510820121904103900000000000000000001010F054E9E0120121903"
            "313820121903510800000000000000000001010F016ECB0120121903120820121903313800000000000000000001010F"
            "0333C00120121902523820121903120700000000000000000001010F029D230120121902330720121902523700000000"
            "000000000001010F0354E40120121902133720121902330700000000000000000001010F03303D012012190154072012"
            "1902133700000000000000000001010F04981E0120121901343720121901540700000000000000000001010F02AD9401"
            "20121901150820121901343700000000000000000001010EFFD7CF012012190055372012190115080000000000000000"
            "0001010F07D9330120121900360720121900553700000000000000000001010F040E740C7E"
        ),
        {
            "header.msg_id": 4613, "header.phone": "040666575062", "header.seq": 235,
            "header.version": "2013", "header.protocol_version": None, "header.package_total": 2,
            "header.package_index": 1, "header.body_length": 930,
        },
    ),
    Vector(
        "SUB-2b",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.JT1078.Test/JT808_0x1205Test.cs:107 (package 2/2)",
        (
            "7E1205203804066657506200EC000200020120121900163320121900360700000000000000000001010F0CE4CD012012"
            "1900002220121900163300000000000000000001010C6F9E7B5D7E"
        ),
        {
            "header.msg_id": 4613, "header.phone": "040666575062", "header.seq": 236,
            "header.version": "2013", "header.protocol_version": None, "header.package_total": 2,
            "header.package_index": 2, "header.body_length": 56,
        },
    ),
    Vector(
        "P-8001",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x8001Test.cs:39",
        "7E80010005012345678900000A0064020000617E",
        {
            "header.msg_id": 32769, "header.phone": "012345678900", "header.seq": 10,
            "header.version": "2013", "header.protocol_version": None, "body.reply_seq": 100,
            "body.reply_msg_id": 512, "body.result": 0,
        },
    ),
    Vector(
        "P-8001-19",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:26",
        "7E800140050112345678901234567890FFFF007B01C803747E",
        {
            "header.msg_id": 32769, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "body.reply_seq": 123,
            "body.reply_msg_id": 456, "body.result": 3,
        },
    ),
    Vector(
        "P-8100",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x8100Test.cs:39",
        "7E81000009012345678900000A006400313233343536687E",
        {
            "header.msg_id": 33024, "header.phone": "012345678900", "header.seq": 10,
            "header.version": "2013", "header.protocol_version": None, "body.reply_seq": 100,
            "body.result": 0, "body.auth_code": "123456",
        },
    ),
    Vector(
        "P-8100-4",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x8100Test.cs:85 (Test4 asserts)",
        "7E81000003012345678900000A006404617E",
        {
            "header.msg_id": 33024, "header.phone": "012345678900", "header.seq": 10,
            "header.version": "2013", "header.protocol_version": None, "body.reply_seq": 100,
            "body.result": 4, "body.auth_code": None,
        },
    ),
    Vector(
        "P-8100-19",
        "cuteLittleDevil/go-jt808@e80a7d3 terminal/testdata/[0100]-JT2019-终端-注册.txt (reply block)",
        "7E810040170112345678901234562019000100010031323334353637383930313233343536323031390A7E",
        {
            "header.msg_id": 33024, "header.phone": "12345678901234562019", "header.seq": 1,
            "header.version": "2019", "header.protocol_version": 1, "body.reply_seq": 1,
            "body.result": 0, "body.auth_code": "12345678901234562019",
        },
    ),
    Vector(
        "P-8103",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x8103Test.cs:46",
        "7E8103000A000123456789000A0100000001040000000A057E",
        {
            "header.msg_id": 33027, "header.phone": "000123456789", "header.seq": 10,
            "header.version": "2013", "header.protocol_version": None,
            "body.params": [{"id": 1, "name": "heartbeat_interval_s", "value": 10, "value_hex": "0000000A"}],
        },
    ),
    Vector(
        "P-8300",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:4176",
        "7E8300001812345678901200013FB2E2CAD43132334034353623616263212E2E2EBDE1CAF8047E",
        {
            "header.msg_id": 33536, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "TextMessage",
            "body.flags": 0x3F, "body.text": "测试123@456#abc!...结束", "body.text_type": 1,
        },
    ),
    Vector(
        "P-8300-19",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:4200",
        "7E830040190112345678901234567890FFFF3F01B2E2CAD43132334034353623616263212E2E2EBDE1CAF8CE7E",
        {
            "header.msg_id": 33536, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "body_type": "TextMessage",
            "body.flags": 0x3F, "body.text_type": 1, "body.text": "测试123@456#abc!...结束",
        },
    ),
    Vector(
        "P-8801",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:6058",
        "7E8801000C12345678901200010100020003010405FF7F7FFF0E7E",
        {
            "header.msg_id": 34817, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None,
            "body_type": "CameraShoot", "body.channel": 1, "body.command": 2, "body.interval_s": 3,
            "body.save_flag": 1, "body.resolution": 4, "body.quality": 5, "body.brightness": 255,
            "body.contrast": 127, "body.saturation": 127, "body.chroma": 255,
        },
    ),
    Vector(
        "P-9101",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:6346",
        "7E9101001712345678901200010F3132332E3132332E3132332E313233030440C60C0100A17E",
        {
            "header.msg_id": 37121, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "RealtimeAvRequest",
            "body.server_ip": "123.123.123.123", "body.tcp_port": 772, "body.udp_port": 16582, "body.channel": 12,
            "body.data_type": 1, "body.stream_type": 0,
        },
    ),
    Vector(
        "P-9101b",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.JT1078.Test/JT808_0x9101Test.cs:71",
        "7E910100110123456798100001093132372E302E302E31076000000101014C7E",
        {
            "header.msg_id": 37121, "header.phone": "012345679810", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "RealtimeAvRequest",
            "body.server_ip": "127.0.0.1", "body.tcp_port": 1888, "body.udp_port": 0, "body.channel": 1,
            "body.data_type": 1, "body.stream_type": 1,
        },
    ),
    Vector(
        "P-9102",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:6406",
        "7E91020004123456789012000108010203147E",
        {
            "header.msg_id": 37122, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "body_type": "AvTransmissionControl",
            "body.channel": 8, "body.command": 1, "body.close_type": 2, "body.stream_type": 3,
        },
    ),
    Vector(
        "ATT-9208",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:6838",
        (
            "7E9208005212345678901200010D34372E3130342E39372E313639200A200B3736353433323120070719235901010161"
            "643732313331353739653534626530623066373337636663373263356462380000000000000000000000000000000042"
            "7E"
        ),
        {
            "header.msg_id": 37384, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 82,
            "body_type": "AlarmAttachmentUploadRequest", "body.server_ip": "47.104.97.169", "body.tcp_port": 8202,
            "body.udp_port": 8203, "body.alarm_uuid": "ad72131579e54be0b0f737cfc72c5db8",
            "body.alarm_no": {"terminal_id": "7654321", "time": "2020-07-07T11:23:59+00:00", "seq": 1, "attachments": 1},
        },
    ),
    Vector(
        "ATT-1210",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:2988",
        (
            "7E1210003912345678901200013736353433323137363534333231200707192359010301616437323133313537396535"
            "34626530623066373337636663373263356462380000A77E"
        ),
        {
            "header.msg_id": 4624, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 57,
            "body.terminal_id": "7654321", "body.alarm_uuid": "ad72131579e54be0b0f737cfc72c5db8",
            "body.alarm_no.attachments": 3, "body.info_type": 0, "body.files": [],
        },
    ),
    Vector(
        "ATT-1210-19",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:3022",
        (
            "7E121040680112345678901234567890FFFF303938373635343332313039383736353433323100000000000000000000"
            "303938373635343332313039383736353433323100000000000000000000200707192359010300016164373231333135"
            "37396535346265306230663733376366633732633564623800003C7E"
        ),
        {
            "header.msg_id": 4624, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1, "header.body_length": 104,
            # 粤标: 30-byte terminal ids, read only with the Guangdong 2019 variant selected
            "variant": "guangdong2019", "body.terminal_id": "09876543210987654321",
            "body.alarm_no": {"terminal_id": "09876543210987654321", "time": "2020-07-07T11:23:59+00:00", "seq": 1, "attachments": 3},
        },
    ),
    Vector(
        "ATT-1211",
        "yezhihao/jt808-server@309beff jtt808-protocol/src/test/resources/单元测试记录.txt:3056",
        "7E1211001312345678901200010D7777772E6A74743830382E636E0100000400B37E",
        {
            "header.msg_id": 4625, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None,
            "body.name": "www.jtt808.cn", "body.file_type": 1, "body.size": 1024,
        },
    ),
    Vector(
        "ATT-1212",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/model/parse_test.go:1023",
        "7E1212001312345678901200010D7777772E6A74743830382E636E0100000400B07E",
        {
            "header.msg_id": 4626, "header.phone": "123456789012", "header.seq": 1,
            "header.version": "2013", "header.protocol_version": None,
            "body.name": "www.jtt808.cn", "body.file_type": 1, "body.size": 1024,
        },
    ),
    Vector(
        "ATT-9212",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/model/parse_test.go (P0x9212 case)",
        "7E921240190112345678901234567890FFFF0D7777772E6A74743830382E636E0001010000000000000400F17E",
        {
            "header.msg_id": 37394, "header.phone": "12345678901234567890", "header.seq": 65535,
            "header.version": "2019", "header.protocol_version": 1,
            "body.name": "www.jtt808.cn", "body.file_type": 0, "body.result": 1, "body.missing": [[0, 1024]],
        },
    ),
    Vector(
        "QUIRK-7D",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/jt808/jt808_test.go (\"兼容部分错误情况\")",
        "7E0002000000000000067900007D7E",
        {
            "header.msg_id": 2, "header.phone": "000000000679", "header.seq": 0,
            "header.version": "2013", "header.protocol_version": None, "body_type": "Heartbeat",
        },
    ),
    Vector(
        "QUIRK-VER",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0200Test.cs:323 (Test5_3)",
        "7E0102400C01003000068109024A3130303330303030363831857E",
        {
            "header.msg_id": 258, "header.phone": "010030000681", "header.seq": 2306,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 12,
            "body.auth_code": "J10030000681",
        },
    ),
    Vector(
        "QUIRK-VER-0200",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0200Test.cs:332 (Test5_4)",
        (
            "7E0200406C010030000681090E00000000000C0003026C936F074C794C0004036300D721062515573901040000000005"
            "2801CC00210625155739054145BBC91E4145A2FA1141450000004145BBC8194145A1370A4145000000240200002A0200"
            "002B04000000003001153101125F0A89860418231870850620757E"
        ),
        {
            "header.msg_id": 512, "header.phone": "010030000681", "header.seq": 2318,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 108,
            "body.alarm_flags": 0, "body.status_flags": 786435, "body.lat": 40.670063,
            "body.lng": 122.4523, "body.altitude_m": 4, "body.speed_kmh": 86.7,
            "body.direction_deg": 215, "body.fix_at": "2021-06-25T07:57:39+00:00",
            "body.extras.mileage_km": 0.0, "body.extras.rssi": 21, "body.extras.gnss_satellites": 18,
            "unknown_ids": [5, 36, 95], "unknown_sizes": [40, 2, 10],
            "body.unknown_items.2.hex": "89860418231870850620",
        },
    ),
    Vector(
        "PEER-YBZ-0100",
        "captured from ybzwyrcld/jt808@542dd28 (C++ libjt808 client, our driver, 2013)",
        (
            "7E0100002B0133952795270000002C01314D4B5230314D4F44454C2D5800000000000000000000000000544944303030"
            "3101414243313233427E"
        ),
        {
            "header.msg_id": 256, "header.phone": "013395279527", "header.seq": 0,
            "header.version": "2013", "header.protocol_version": None, "body.province_id": 44,
            "body.city_id": 305, "body.manufacturer_id": "MKR01", "body.terminal_model": "MODEL-X",
            "body.terminal_id": "TID0001", "body.plate_color": 1, "body.plate_number": "ABC123",
            "body.layout": "2013",
        },
    ),
    Vector(
        "PEER-YBZ-0200-OK",
        "captured from ybzwyrcld/jt808@542dd28 (C++ libjt808 client, our driver, 2013)",
        (
            "7E0200003C013395279527000200000003000000030158656006CA8CA90036025D005A26112107155601040000303902"
            "0201F40302025D25040000000330011F31010BE00103EE0102457E"
        ),
        {
            "header.msg_id": 512, "header.phone": "013395279527", "header.seq": 2,
            "header.version": "2013", "header.protocol_version": None, "header.body_length": 60,
            "body.alarm_flags": 3, "body.status_flags": 3, "body.lat": 22.570336, "body.lng": 113.937577,
            "body.altitude_m": 54, "body.speed_kmh": 60.5, "body.direction_deg": 90,
            "body.fix_at": "2026-11-20T23:15:56+00:00",
            "body.extras": {"mileage_km": 1234.5, "fuel_l": 50.0, "record_speed_kmh": 60.5, "vehicle_signal_status": 3, "rssi": 31, "gnss_satellites": 11},
            "unknown_ids": [224, 238], "body.unknown_items.0.hex": "03",
            "body.unknown_items.1.hex": "02",
        },
    ),
    Vector(
        "PEER-YBZ-0104",
        "captured from ybzwyrcld/jt808@542dd28 (C++ libjt808 client, our driver, 2013)",
        "7E0104001A013395279527000500060200000001040000001E00000013093132372E302E302E31067E",
        {
            "header.msg_id": 260, "header.phone": "013395279527", "header.seq": 5,
            "header.version": "2013", "header.protocol_version": None, "body.reply_seq": 6,
            "body.params": [
                {"id": 1, "name": "heartbeat_interval_s", "value": 30, "value_hex": "0000001E"},
                {"id": 19, "name": "main_server_address", "value": "127.0.0.1", "value_hex": "3132372E302E302E31"},
            ],
        },
    ),
    Vector(
        "PEER-QUEC-0100-2013",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        (
            "7E0100002C0139123456780000002C01314D4B523031000000000000000000000000004D4F44454C2D58544944303030"
            "310100414243313233477E"
        ),
        {
            "header.msg_id": 256, "header.phone": "013912345678", "header.seq": 0,
            "header.version": "2013", "header.protocol_version": None, "body.province_id": 44,
            "body.city_id": 305, "body.manufacturer_id": "MKR01", "body.terminal_model": "MODEL-X",
            "body.terminal_id": "TID0001", "body.plate_color": 1, "body.plate_number": "ABC123",
            "body.layout": "2013",
        },
    ),
    Vector(
        "PEER-QUEC-0100-2019",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        (
            "7E0100406A01000000000139123456780000002C01310000000000004D4B523031000000000000000000000000000000"
            "00000000000000004D4F44454C2D58000000000000000000000000000000000000000000000054494430303031010000"
            "00000000000000000000000000000000000000000000414243313233407E"
        ),
        {
            "header.msg_id": 256, "header.phone": "00000000013912345678", "header.seq": 0,
            "header.version": "2019", "header.protocol_version": 1, "body.province_id": 44,
            "body.city_id": 305, "body.manufacturer_id": "MKR01", "body.terminal_model": "MODEL-X",
            "body.terminal_id": "TID0001", "body.plate_color": 1, "body.plate_number": "ABC123",
            "body.layout": "2019",
        },
    ),
    Vector(
        "PEER-QUEC-0200-2019",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        (
            "7E020040360100000000013912345678000300000003000000030158656006CA8CA90036025D005A2611210716063001"
            "1F250400000003010400003039020201F40302025D31010B517E"
        ),
        {
            "header.msg_id": 512, "header.phone": "00000000013912345678", "header.seq": 3,
            "header.version": "2019", "header.protocol_version": 1, "body.alarm_flags": 3,
            "body.status_flags": 3, "body.lat": 22.570336, "body.lng": 113.937577, "body.altitude_m": 54,
            "body.speed_kmh": 60.5, "body.direction_deg": 90, "body.fix_at": "2026-11-20T23:16:06+00:00",
            "extras_order": ["rssi", "vehicle_signal_status", "mileage_km", "fuel_l", "record_speed_kmh", "gnss_satellites"],
            "body.extras.mileage_km": 1234.5, "body.extras.gnss_satellites": 11,
        },
    ),
    Vector(
        "PEER-QUEC-0104-2019",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        "7E01044016010000000001391234567800050006020001040000001E0013093132372E302E302E31497E",
        {
            "header.msg_id": 260, "header.phone": "00000000013912345678", "header.seq": 5,
            "header.version": "2019", "header.protocol_version": 1, "body.reply_seq": 6,
            # WORD ids read as DWORDs: wrong ids, no names, raw values (cannot be detected)
            "body.params": [
                {"id": 66560, "name": None, "value": "", "value_hex": ""},
                {"id": 1966099, "name": None, "value": "3132372e302e302e31", "value_hex": "3132372E302E302E31"},
            ],
        },
    ),
    # Commands and their replies.
    Vector(
        "P-0001",
        "SmallChi/JT808@0e0b086 src/JT808.Protocol.Test/MessageBody/JT808_0x0001Test.cs:30",
        "7E0001000501234567890004B303E8000200D37E",
        {
            "header.msg_id": 1, "header.phone": "012345678900", "header.seq": 1203, "body_type": "TerminalResponse",
            "body.reply_seq": 1000, "body.reply_msg_id": 2, "body.result": 0,
        },
    ),
    Vector(
        "P-8104",
        "SmallChi/JT808@0325ad6 src/JT808.Protocol.Test/MessageBody/JT808_0x8104Test.cs:23",
        "7E8104000001234567890000010D7E",
        {"header.msg_id": 0x8104, "header.seq": 1, "header.body_length": 0, "body_type": "QueryParameters"},
    ),
    Vector(
        "P-0104-SHORT",
        # a user's terminal: count 9, seven parameters present; SmallChi reads it as a 0x0104
        "SmallChi/JT808@0325ad6 src/JT808.Protocol.Test/MessageBody/JT808_0x8104Test.cs:52 (user sample)",
        (
            "7E0104004B01801550511313AE00000900000001040000000F00000002040000000A00000013103232332E3130382E3133"
            "332E31363300000000170100000000180400000328000000550400000078000000560400000000027E"
        ),
        {
            "header.msg_id": 0x0104, "header.phone": "018015505113", "header.seq": 0x13AE, "body.reply_seq": 0,
            "body.params.0": {"id": 1, "name": "heartbeat_interval_s", "value": 15, "value_hex": "0000000F"},
            "body.params.2.value": "223.108.133.163", "body.params.3.value": "",
            "body.params.4": {"id": 0x18, "name": "server_tcp_port", "value": 808, "value_hex": "00000328"},
            "body.params.5.value": 120, "body.params.6.name": "overspeed_duration_s",
        },
    ),
    Vector(
        "P-8105",
        "SmallChi/JT808@06a09c0 src/JT808.Protocol.Test/MessageBody/JT808_0x8105Test.cs:47 (connect, ';' fields)",
        (
            "7E8105004B012345678900000101313B544B4E616D653B544B3B544B3132333B7777772E62616964752E636F6D3B383830"
            "363B333330363B31323334353B636F64653B322E303B312E303B7777772E544B2E636F6D3B3630227E"
        ),
        {
            "header.msg_id": 0x8105, "header.phone": "012345678900", "header.seq": 1, "body_type": "TerminalControl",
            "body.command": 1,
            "body.params": "1;TKName;TK;TK123;www.baidu.com;8806;3306;12345;code;2.0;1.0;www.TK.com;60",
        },
    ),
    Vector(
        "P-8105-5",
        "SmallChi/JT808@06a09c0 src/JT808.Protocol.Test/MessageBody/JT808_0x8105Test.cs:91 (factory reset)",
        "7E81050001012345678900000105087E",
        {"header.msg_id": 0x8105, "header.body_length": 1, "body.command": 5, "body.params": ""},
    ),
    Vector(
        "STD-8201",
        "JT/T 808-2013 §8.19 layout (empty body); checksum computed by hand: EF",
        "7E820100000139123456021234EF7E",
        {"header.msg_id": 0x8201, "header.seq": 0x1234, "header.body_length": 0, "body_type": "QueryLocation"},
    ),
    Vector(
        "STD-8201-19",
        "JT/T 808-2019 §8.19 layout (empty body, 2019 header); checksum computed by hand: AE",
        "7E8201400001000000000139123456021234AE7E",
        {"header.version": "2019", "header.phone": "00000000013912345602", "body_type": "QueryLocation"},
    ),
    Vector(
        "P-0201",
        "SmallChi/JT808@1924e87 src/JT808.Protocol.Test/MessageBody/JT808_0x0201Test.cs:52",
        (
            "7E0201002811223344556622B83039000000010000000200BA7F0E07E4F11C0028003C00001807151010100104000000"
            "6402020037517E"
        ),
        {
            "header.msg_id": 0x0201, "header.phone": "112233445566", "header.seq": 8888,
            "body_type": "LocationQueryResponse", "body.reply_seq": 12345, "body.location.alarm_flags": 1,
            "body.location.status_flags": 2, "body.location.lat": 12.222222, "body.location.lng": 132.444444,
            "body.location.altitude_m": 40, "body.location.speed_kmh": 6.0,
            "body.location.fix_at": "2018-07-15T02:10:10+00:00",  # 10:10:10 GMT+8
            "body.location.extras": {"mileage_km": 10.0, "fuel_l": 5.5},
        },
    ),
]

BAD_VECTORS: list[BadVector] = [
    BadVector(
        "PEER-QUEC-0805-2019",
        # body 000B 00 0000 0001: count 0 and the one id as a WORD (conformant: 000B 00 0001 00000001);
        # a malformed capture reply must not pass as "success, no photos"
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        "7E0805400701000000000139123456780008000B0000000001797E",
        "BodyError",
    ),
    BadVector(
        "NEG-CK",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/jt808/jt808_test.go (\"校验码错误\")",
        "7E0801200500123456789002DE001A00022808000102547E",
        "ChecksumError",
    ),
    BadVector(
        "NEG-LEN",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/jt808/jt808_test.go (\"body数据和解析头不符合\")",
        "7E0801200500123456789002DE001A000228080001517E",
        "LengthError",
    ),
    BadVector(
        "NEG-SHORT",
        "cuteLittleDevil/go-jt808@e80a7d3 protocol/jt808/jt808_test.go (\"头部情况不足\")",
        "7E0100002C0123454A7E",
        "LengthError",
    ),
    BadVector(
        "QUIRK-CK",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Test/MessageBody/JT808_0x0200Test.cs:408",
        (
            "7E020000520111111111100002000000000000000301789B3406238AFA0000018B00F62104020046090104000024C72B"
            "040B290B2930011731011B000400CE0B29000C00B222222222222222222222EB0E000C00B2222222222222222222226C"
            "7E"
        ),
        "ChecksumError",
    ),
    BadVector(
        "PEER-YBZ-0200-TRUNC",
        "captured from ybzwyrcld/jt808@542dd28 (C++ libjt808 client, our driver, 2013)",
        (
            "7E02000036013395279527000200000003000000030158656006CA8CA90036025D005A26112107155001040000303902"
            "0201F40302025D25040000000330011F31014D7E"
        ),
        "LengthError",
    ),
    BadVector(
        "PEER-QUEC-0102-NOCK",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        "7E010200070139123456780001415554483132337E",
        "ChecksumError",
    ),
    BadVector(
        "PEER-QUEC-0704-NOCK",
        "captured from QuecPython/jtt808@191c3ce (run on MicroPython unix port with shims)",
        (
            "7E0704407301000000000139123456780004000201003600000003000000030158656006CA8CA90036025D005A261121"
            "07160630011F250400000003010400003039020201F40302025D31010B003600000003000000030158656006CA8CA900"
            "36025D005A26112107160630011F250400000003010400003039020201F40302025D31010B7E"
        ),
        "ChecksumError",
    ),
]

# Body-only snippets (no header, no checksum): decode_body(msg_id, body) must yield these.
BODY_VECTORS: list[tuple[str, str, int, str]] = [
    (
        "BODY-0x64",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.SuBiao.Test/JT808_0x0200_0x64_Test.cs:61 (Serializer)",
        0x0200,
        (
            "000000010000000200BA7F0E07E4F11C0028003C0000180715101010642F000000010C0605120A0B100F110007000000"
            "0D0000000E191211183100001334343434343434191210183100030200"
        ),
    ),
    (
        "BODY-0x65",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.SuBiao.Test/JT808_0x0200_0x65_Test.cs:60",
        0x0200,
        (
            "000000010000000200BA7F0E07E4F11C0028003C0000180715101010652F000000010C06051201020304110007000000"
            "0D0000000E191211183100001334343434343434191210183100030200"
        ),
    ),
    (
        "ATT-1210-BODY",
        "SmallChi/JT808@c9552b0 src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.SuBiao.Test/JT808_0x1210_Test.cs:52",
        0x1210,
        (
            "343434343434343434343434343419121018310003020131313131313131313131313131313131313131313131313131"
            "3131313131313100020866696C656E616D65000000090966696C656E616D65310000000A"
        ),
    ),
]


class BodyVector(NamedTuple):
    """A body alone (as the source's test serialises it), decoded with ``version``; ``expect`` keys are
    paths into ``to_json_value(decode_body(...))``."""

    tag: str
    source: str
    msg_id: int
    version: str
    hex: str
    expect: dict[str, Any]


_SMALLCHI = "SmallChi/JT808@1924e87 src/JT808.Protocol.Test/MessageBody/"
_SMALLCHI_06A = "SmallChi/JT808@06a09c0 src/JT808.Protocol.Test/MessageBody/"

# Message bodies (commands, replies, media). Times in the sources are GMT+8.
COMMAND_BODY_VECTORS: list[BodyVector] = [
    BodyVector("BODY-8106", _SMALLCHI_06A + "JT808_0x8106Test.cs:20", 0x8106, "2013", "020000000100000002",
               {"ids": [1, 2]}),
    BodyVector("BODY-8202", _SMALLCHI_06A + "JT808_0x8202Test.cs:19", 0x8202, "2013", "00450000007B",
               {"interval_s": 69, "validity_s": 123}),
    BodyVector("BODY-8203", _SMALLCHI_06A + "JT808_0x8203Test.cs:19", 0x8203, "2013", "15B20000007B",
               {"alarm_seq": 5554, "alarm_type": 123}),
    BodyVector("BODY-8800", _SMALLCHI + "JT808_0x8800Test.cs:18 (ids as WORDs 0x0102, 0x0304)", 0x8800, "2013",
               "000000810201020304", {"media_id": 129, "retransmit_ids": [0x0102, 0x0304]}),
    BodyVector("BODY-8802", _SMALLCHI + "JT808_0x8802Test.cs:23", 0x8802, "2013", "027B03181116210008181116220008",
               {"media_type": 2, "channel": 123, "event_code": 3, "start": "2018-11-16T13:00:08+00:00",
                "end": "2018-11-16T14:00:08+00:00"}),
    BodyVector("BODY-8803", _SMALLCHI + "JT808_0x8803Test.cs:24", 0x8803, "2013", "00800018111622002118111623002101",
               {"media_type": 0, "channel": 128, "event_code": 0, "start": "2018-11-16T14:00:21+00:00",
                "end": "2018-11-16T15:00:21+00:00", "delete": 1}),
    # Driver identity: SmallChi/JT808 src/JT808.Protocol.Test/MessageBody/JT808_0x0702Test.cs
    # (the index does not name the commit); times GMT+8 2018-08-16 09:16:16 and 2019-12-01 11:11:11.
    BodyVector("BODY-0702-OUT", "SmallChi/JT808 JT808_0x0702Test.cs Test1_2", 0x0702, "2013", "02180816091616",
               {"status": 2, "time": "2018-08-16T01:16:16+00:00", "read_result": None}),
    BodyVector("BODY-0702-AUTH", "SmallChi/JT808 JT808_0x0702Test.cs Test2_2", 0x0702, "2013", "0118081609161601",
               {"status": 1, "read_result": 1, "driver_name": None}),
    BodyVector("BODY-0702-IN", "SmallChi/JT808 JT808_0x0702Test.cs Test3_1", 0x0702, "2013",
               "0118081609161600056B6F696B6571776531323334353661616100000000000000000671776572747820180816",
               {"status": 1, "read_result": 0, "driver_name": "koike", "qualification_no": "qwe123456aaa",
                "issuing_authority": "qwertx", "valid_until": "2018-08-16", "id_card": None}),
    BodyVector("BODY-0702-2019", "SmallChi/JT808 JT808_0x0702Test.cs Test_2019_2", 0x0702, "2019",
               "0119120111111100056B6F696B65717765313233343536616161000000000000000006717765727478201912013132333435"
               "363738393031323334353637000000",
               {"time": "2019-12-01T03:11:11+00:00", "driver_name": "koike", "valid_until": "2019-12-01",
                "id_card": "12345678901234567"}),
    BodyVector("BODY-0800", _SMALLCHI + "JT808_0x0800Test.cs:21", 0x0800, "2013", "000015C101020106",
               {"media_id": 5569, "media_type": 1, "media_format": 2, "event_code": 1, "channel": 6}),
    BodyVector("BODY-0801", "SmallChi/JT808@0e3a02c src/JT808.Protocol.Test/MessageBody/JT808_0x0801Test.cs:46",
               0x0801, "2013",
               "00000A070000017B000000010000000200BA7F0E07E4F11C0028003C000018111523261001020304",
               {"media_id": 2567, "media_type": 0, "media_format": 0, "event_code": 1, "channel": 123,
                "location.alarm_flags": 1, "location.status_flags": 2, "location.lat": 12.222222,
                "location.lng": 132.444444, "location.altitude_m": 40, "location.speed_kmh": 6.0,
                "location.fix_at": "2018-11-15T15:26:10+00:00", "data": "01020304"}),
    BodyVector("BODY-0801-2011", "SmallChi/JT808@0e3a02c src/JT808.Protocol.Test/MessageBody/JT808_0x0801Test.cs:122",
               0x0801, "2011", "00000A070000017B01020304",
               {"media_id": 2567, "channel": 123, "location": None, "data": "01020304"}),
    BodyVector("BODY-0801-2011-JPEG", "JT/T 808-2011 layout, a JPEG after the 8-byte head, read with a 2013 header",
               0x0801, "2013", "00000A070000017BFFD8FFE000104A464946",
               {"media_id": 2567, "location": None, "data": "ffd8ffe000104a464946"}),
    BodyVector("BODY-0802", _SMALLCHI + "JT808_0x0802Test.cs:58", 0x0802, "2013",
               "3051000200000102007B01000000010000000200BA7F0E07E4F11C0028003C000018111620202000000103027C000000"
               "00010000000200BA7F0E07E4F11C0028003C0000181116222222",
               {"reply_seq": 12369, "items.0.media_id": 258, "items.0.media_type": 0, "items.0.channel": 123,
                "items.0.event_code": 1, "items.0.location.fix_at": "2018-11-16T12:20:20+00:00",
                "items.1.media_id": 259, "items.1.media_type": 2, "items.1.channel": 124, "items.1.event_code": 0,
                "items.1.location.lat": 12.222222, "items.1.location.fix_at": "2018-11-16T14:22:22+00:00"}),
    BodyVector("BODY-0805", "SmallChi/JT808@183f2e2 src/JT808.Protocol.Test/MessageBody/JT808_0x0805Test.cs:24",
               0x0805, "2013", "30A80000020000301200003124",
               {"reply_seq": 12456, "result": 0, "media_ids": [12306, 12580]}),
    BodyVector("BODY-0805-FAIL", "JT/T 808-2013 §8.52 layout: result 2 (channel unsupported), no id list", 0x0805,
               "2013", "30A802", {"reply_seq": 12456, "result": 2, "media_ids": []}),
    BodyVector("BODY-8300-13", "JT/T 808-2013 §8.28 layout: flags 0x0C (display + TTS), GBK text 你好", 0x8300,
               "2013", "0CC4E3BAC3", {"flags": 12, "text": "你好", "text_type": 1}),
    BodyVector("BODY-8300-19", "JT/T 808-2019 §8.28 layout: flags 0x0D, text type 2 (service), GBK text 你好", 0x8300,
               "2019", "0D02C4E3BAC3", {"flags": 13, "text_type": 2, "text": "你好"}),
]


_SMALLCHI_1078 = "SmallChi/JT808@12562fd src/JT808.Protocol.Extensions/JT808.Protocol.Extensions.JT1078.Test/"

# JT/T 1078 808-side bodies. Times in the sources are GMT+8 ("2019-07-16 10:10:10").
VIDEO_BODY_VECTORS: list[BodyVector] = [
    BodyVector("BODY-1003", _SMALLCHI_1078 + "JT808_0x1003Test.cs:44", 0x1003, "2013", "03020504000101060708",
               {"audio_codec": 3, "audio_channels": 2, "audio_sample_rate": 5, "audio_sample_bits": 4,
                "audio_frame_length": 1, "audio_output": 1, "video_codec": 6, "max_audio_channels": 7,
                "max_video_channels": 8}),
    BodyVector("BODY-9102", _SMALLCHI_1078 + "JT808_0x9102Test.cs:34", 0x9102, "2013", "01010000",
               {"channel": 1, "command": 1, "close_type": 0, "stream_type": 0}),
    BodyVector("BODY-9105", _SMALLCHI_1078 + "JT808_0x9105Test.cs:47", 0x9105, "2013", "0102",
               {"channel": 1, "loss_pct": 2}),
    BodyVector("BODY-9201", _SMALLCHI_1078 + "JT808_0x9201Test.cs:57", 0x9201, "2013",
               "093132372E302E302E3100501F90010207050603190716101010190716101010",
               {"server_ip": "127.0.0.1", "tcp_port": 80, "udp_port": 8080, "channel": 1, "media_type": 2,
                "stream_type": 7, "storage": 5, "playback_mode": 6, "speed": 3,
                "start": "2019-07-16T02:10:10+00:00", "end": "2019-07-16T02:10:10+00:00"}),
    BodyVector("BODY-9202", _SMALLCHI_1078 + "JT808_0x9202Test.cs:48", 0x9202, "2013", "010302190716101010",
               {"channel": 1, "control": 3, "speed": 2, "seek_to": "2019-07-16T02:10:10+00:00"}),
    BodyVector("BODY-9205", _SMALLCHI_1078 + "JT808_0x9205Test.cs:50", 0x9205, "2013",
               "031907161010101907161010110000000000000001020504",
               {"channel": 3, "start": "2019-07-16T02:10:10+00:00", "end": "2019-07-16T02:10:11+00:00",
                "alarm_flags": 1, "media_type": 2, "stream_type": 5, "storage": 4}),
    BodyVector("BODY-1206", _SMALLCHI_1078 + "JT808_0x1206Test.cs:43", 0x1206, "2013", "000101",
               {"reply_seq": 1, "result": 1}),
]

# SmallChi writes 0x9206's alarm flags as a DWORD; the standard (and yezhihao's T9206: warnBit1 + warnBit2)
# has 64 bits, so this body is 4 bytes short for us: kept to show the divergence is deliberate.
BODY_9206_SMALLCHI = BodyVector(
    "BODY-9206-SMALLCHI", _SMALLCHI_1078 + "JT808_0x9206Test.cs:58", 0x9206, "2013",
    "093132372E302E302E31032802746B0631323334353608443A2F2F31313132031907161010101907161010110000000102050407", {})
