"""Which column DEFAULTs a new record's form can start with: the constants, as information_schema writes them
(warehouse/queries/records.py ``literal_default``); a computed one (a clock, a sequence) is none."""

from __future__ import annotations

from warehouse.queries.records import literal_default


def test_a_default_is_read_only_when_it_is_a_constant() -> None:
    assert [literal_default(d) for d in ("true", "30", "(-1)", "'2019'::text", "'[]'::jsonb", "(0)::double precision",
                                         "now()", "nextval('car_id_seq'::regclass)")] == [
        (True, True), (True, 30), (True, -1), (True, "2019"), (True, []), (True, 0), (False, None), (False, None)]
