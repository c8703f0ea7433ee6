"""jt808.uplink.v1 record shapes: batches, their keys, and the partition of each phone."""

import orjson
from aiokafka.partitioner import DefaultPartitioner
from hypothesis import given
from hypothesis import strategies as st

from fleet.uplink_records import batch_key, batch_value, is_batch, partition_of, split_value


@given(st.binary(min_size=0, max_size=40), st.integers(min_value=1, max_value=64))
def test_partition_of_a_key_is_kafkas_default_partitioners(key: bytes, partitions: int) -> None:
    every = list(range(partitions))
    assert partition_of(key, partitions) == DefaultPartitioner()(key, every, every)


def test_a_batch_value_is_a_json_array_of_the_uplinks_in_order_and_a_single_value_an_object() -> None:
    uplinks = [{"phone": "013800000001", "seq": 1}, {"phone": "013800000002", "seq": 1},
               {"phone": "013800000001", "seq": 2}]
    value = batch_value([orjson.dumps(u) for u in uplinks])
    assert is_batch(value) and split_value(value) == uplinks
    single = orjson.dumps(uplinks[0])
    assert not is_batch(single) and split_value(single) == [uplinks[0]]
    assert is_batch(b"  \n[]") and split_value(b"[]") == []


def test_a_batch_key_names_each_phone_once_in_first_appearance_order() -> None:
    assert batch_key(["013800000002", "013800000001", "013800000002"]) == b"013800000002,013800000001"
    assert batch_key(["013800000001"]) == b"013800000001"  # one terminal: its phone, as a single record


def test_fleet_decode_record_prints_the_uplinks_of_a_batch_or_single_record_and_refuses_others() -> None:
    from click.testing import CliRunner

    from fleet.cli import main

    frame = "7E0200002611223344556622B8000000010000000200BA7F0E07E4F11C0028003C000018071510101001040000006402020037577E"
    uplinks = [{"phone": "112233445566", "seq": 1, "raw_hex": frame}, {"phone": "013800000002", "seq": 7}]
    batch = batch_value([orjson.dumps(u) for u in uplinks])
    result = CliRunner().invoke(main, ["decode-record", "--frames", "-"], input=batch)
    assert result.exit_code == 0, result.output
    printed = orjson.loads(result.stdout)
    assert [(u["phone"], u["seq"]) for u in printed] == [("112233445566", 1), ("013800000002", 7)]
    assert printed[0]["frame"]["body"]["speed_kmh"] == 6.0  # raw_hex decoded as `fleet decode` does
    assert "error" in printed[1]["frame"]  # no frame to decode: said, not crashed
    single = CliRunner().invoke(main, ["decode-record", "-"], input=orjson.dumps(uplinks[1]))
    assert single.exit_code == 0 and orjson.loads(single.stdout) == [uplinks[1]]
    for bad in (b"{broken", b"[1, 2]", b"\xff\xfe"):
        refused = CliRunner().invoke(main, ["decode-record", "-"], input=bad)
        assert refused.exit_code == 2 and refused.stderr.startswith("error: ") and refused.stdout == ""
