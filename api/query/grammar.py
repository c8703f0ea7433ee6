"""Parsing and validation of a generic query against an entity's whitelist.

Request (documented in api/README.md):

- body: a JSON object of conditions ``{"field.op": value}`` (a bare ``"field"`` means ``eq``),
  optionally nested as ``{"conditions": {...}}``, plus ``"rangeConditions": [{fieldName, ...}]``.
- query: ``select``, ``orderBy`` (comma lists), ``desc``, ``pageNo``, ``pageSize``, ``countable``,
  ``isParent``. Other query parameters are ignored.

Every unknown field, operator, sort key or bad value raises BadRequest naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.errors import BadRequest
from api.query.values import (
    MAX_TEXT_CHARS,
    FieldType,
    coerce,
    parse_flag,
    parse_positive_int,
    subtree_requested,
)

SCALAR_OPS = frozenset({"eq", "ne", "gt", "gte", "lt", "lte"})
LIST_OPS = frozenset({"in", "nin"})
TEXT_OPS = frozenset({"like", "rlike"})
OPERATORS = SCALAR_OPS | LIST_OPS | TEXT_OPS | {"exists"}
MAX_LIST_VALUES = 1000
RANGE_TYPES = {"closed": (True, True), "closedOpen": (True, False), "openClosed": (False, True), "open": (False, False)}
_BOUNDS = ("start", "end", "gte", "gt", "lte", "lt")
_RANGE_KEYS = {"fieldName", "type", *_BOUNDS}


@dataclass(frozen=True)
class FieldSpec:
    """One exposed field. ``column`` is a column of the entity's relation; ``expression`` (trusted
    SQL written here in code, never from a request) replaces it for derived fields.

    Reading: ``listable`` (selectable, in the default select), ``filterable``, ``sortable``.
    Writing (``api/query/records.py``): ``create`` / ``update`` (accepted in the body), ``required``
    (on create, never null), ``max_length`` / ``pattern`` (whole value, no anchors) / ``enum`` /
    ``minimum`` / ``maximum``, ``unique`` (among the live rows of the enterprise: 409 on a clash),
    ``ref`` (name of another declared entity: the value must be the id of a live record of it inside
    the caller's scope, else 404 naming the field), ``check`` (a callable ``value -> message | None``:
    a rule beyond the declarative ones, e.g. the national ID check digit; the message is the user's).
    ``many``: the value is a comma list of ``enum`` values (each checked), kept as that text.
    ``secret``: write-only (a password): never selected, filtered, sorted, exported or audited in clear.
    ``normalize``: applied to filter values (so a phone is found in any of its written forms).
    ``virtual``: accepted in bodies but not a column; the entity's hooks consume it (a role's
    permission list, a car's devices). ``label``: the zh-CN name used as spreadsheet header and as the
    console's fallback title; ``importable`` / ``exportable``: in spreadsheet import / export.
    ``localised``: for a derived field that is a server text a user reads (an alarm's name), the
    expression in the caller's language (``language -> SQL``, zh-CN / zh-HK / en-US); ``expression``
    is then its zh-CN form.
    ``type="json"``: an object or list written and read whole (``check`` judges its shape); it is
    never filtered nor sorted. ``example``: a valid value of it.
    ``display`` / ``choices``: how the value is shown, on screen and in an export alike
    (``api/query/display.py``: day, month, duration, decimal, percent, flag; codes as their labels)."""

    column: str
    type: FieldType = "str"
    sortable: bool = True
    expression: str | None = None
    listable: bool = True
    filterable: bool = True
    create: bool = False
    update: bool = False
    required: bool = False
    max_length: int | None = None
    pattern: str | None = None
    enum: tuple[Any, ...] | None = None
    many: bool = False
    minimum: float | None = None
    maximum: float | None = None
    unique: bool = False
    ref: str = ""
    check: Callable[[Any], str | None] | None = None
    secret: bool = False
    virtual: bool = False
    label: str = ""
    importable: bool = False
    exportable: bool = False
    # a filter value in the form the column keeps (e.g. a phone as sent in a 2013 header -> canonical)
    normalize: Callable[[Any], Any] | None = None
    localised: Callable[[str], str] | None = None
    display: str = ""
    choices: tuple[tuple[Any, str], ...] = ()
    # A valid value (a "json" field's shape: the OpenAPI example and the generated tests' value).
    example: Any = None

    def __post_init__(self) -> None:
        if self.type == "json":  # no filter or sort grammar for a structure
            object.__setattr__(self, "filterable", False)
            object.__setattr__(self, "sortable", False)
        if self.secret or self.virtual:  # never readable: not selectable, filterable or sortable
            for name in ("listable", "filterable", "sortable", "exportable"):
                object.__setattr__(self, name, False)


class EntityHooks:
    """Entity-specific steps of a write, inside its transaction (api/query/records.py). The default
    does nothing; an entity overrides what it needs (hash a password, keep a path, write child rows)."""

    # True when ``before_write`` refuses bodies a schema cannot describe (a rule across fields, such
    # as a start hour before an end hour): the contract fuzzer then expects a 400 for some valid bodies.
    cross_field_rules: bool = False

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        """``values`` (field -> checked value) about to be written; return what to write.
        ``before``: the locked row's columns on update, None on create."""
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        """Runs after the row is written (virtual fields are in ``values``)."""

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        """The detail record (GET, create and update answers) completed with what is not a column."""
        return record

    def after_list(self, conn: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A page of the list (the query route) completed with what is not a column."""
        return rows

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        """Raise an ApiError to refuse the delete (e.g. a record still in use)."""


NO_HOOKS = EntityHooks()


@dataclass(frozen=True)
class Window:
    """Reads of a history entity name one vehicle and a bounded time range: an ``eq`` condition on
    ``key`` and both bounds on ``time`` (a range or gte/gt + lte/lt conditions), at most
    ``max_days()`` days apart (a callable: the limit is a setting, read per request). Anything else
    is a 400 saying so; history tables are too large to scan for a list page."""

    key: str
    time: str
    max_days: Callable[[], int]


# Rows of a computed entity: every row of the query's window (``window_of``) in the caller's scope,
# as dicts of field -> value; the framework filters, sorts, pages, counts and exports them
# (``api/query/provided.py``), so a computed log is listed like any table.
RowProvider = Callable[[Any, "Query", Any], list[dict[str, Any]]]


@dataclass(frozen=True)
class EntitySpec:
    name: str
    relation: str
    fields: Mapping[str, FieldSpec]
    tenant_column: str
    id_field: str = "id"
    tiebreak: tuple[str, ...] = ()  # appended to ORDER BY for a stable page order; empty: id_field
    default_select: tuple[str, ...] = ()  # empty: every field
    default_order: str = "id"
    default_desc: bool = False
    default_page_size: int = 10
    max_page_size: int = 1000
    # Writable entities (generic create/get/update/delete routes):
    permission: str = ""  # permission code guarding every route of the entity
    table: str = ""  # written table; empty: read-only entity
    record_state_column: str = ""  # soft delete: 1 normal, 0 deleted (hidden from every read)
    hooks: EntityHooks = NO_HOOKS
    label: str = ""  # zh-CN name (spreadsheet file names, audit screen)
    # The caller's own enterprise reads by id (GET only) although its tenant column is its parent:
    # the ``enterprise`` entity, whose list shows subsidiaries (platform-spec §7 GET enterprise/{id}).
    self_readable: bool = False
    # History entities: reads need one vehicle and a bounded time range (``Window``).
    window: Window | None = None
    # Computed read-only entities: rows come from this function, not from ``relation``.
    provider: RowProvider | None = None
    # Platform-wide rows (no enterprise owns them): read only by a caller of a root enterprise holding
    # ``permission``:add, the platform's administrators (api/routes/common.py); anyone else gets a 403.
    root_only: bool = False
    # The action every read route (query, count, meta, export) needs on ``permission`` instead of query /
    # export: the data-exchange logs are the ``superior`` action's (platform-spec §6), not a code of their own.
    read_action: str = ""
    # Per-user rows (the column holding the user id): every read is limited to the caller's own rows, on top
    # of the tenant scope (followed cars, platform-spec §7 carUserView).
    owner_column: str = ""
    # With ``owner_column``: a row whose owner is NULL is everyone's in the tenant scope (the notices: an
    # announcement is one row per user of its audience with that user's read mark, an alarm is shared).
    shared_rows: bool = False

    def spec(self, name: str) -> FieldSpec:
        return self.fields[name]

    @property
    def listable(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.fields.items() if f.listable)

    @property
    def filterable(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.fields.items() if f.filterable)


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: Any


@dataclass(frozen=True)
class RangeCondition:
    field: str
    lower: Any = None
    lower_inclusive: bool = True
    upper: Any = None
    upper_inclusive: bool = True


@dataclass(frozen=True)
class Query:
    entity: EntitySpec
    select: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()
    ranges: tuple[RangeCondition, ...] = ()
    order_by: tuple[str, ...] = ()
    desc: bool = False
    page_no: int = 1
    page_size: int = 10
    countable: bool = False
    is_parent: bool = True  # the caller's subtree unless isParent=false (values.subtree_requested)

    @property
    def offset(self) -> int:
        return (self.page_no - 1) * self.page_size


def parse_query(entity: EntitySpec, params: Mapping[str, str], body: Any) -> Query:
    """A validated Query; raises BadRequest naming the first class of problem found."""
    raw_conditions, raw_ranges = _split_body(body)
    order_by = _names(entity, params.get("orderBy"), "sort key", sortable_only=True) or (entity.default_order,)
    desc_default = entity.default_desc if not params.get("orderBy") else False
    page_size = parse_positive_int("pageSize", params.get("pageSize"), entity.default_page_size)
    if page_size > entity.max_page_size:
        raise BadRequest(f"每页条数 {page_size} 超过上限 {entity.max_page_size} "
                         f"(pageSize {page_size} exceeds the maximum {entity.max_page_size} for {entity.name})")
    return _windowed(Query(
        entity=entity,
        select=_names(entity, params.get("select"), "field") or entity.default_select or entity.listable,
        conditions=tuple(_parse_conditions(entity, raw_conditions)),
        ranges=tuple(_parse_range(entity, item, i) for i, item in enumerate(raw_ranges)),
        order_by=order_by,
        desc=parse_flag("desc", params.get("desc"), desc_default),
        page_no=parse_positive_int("pageNo", params.get("pageNo"), 1),
        page_size=page_size,
        countable=parse_flag("countable", params.get("countable")),
        is_parent=subtree_requested(params.get("isParent")),
    ))


def parse_conditions_only(entity: EntitySpec, params: Mapping[str, str], body: Any) -> Query:
    """For count endpoints: conditions, ranges and isParent; paging and sorting are ignored."""
    raw_conditions, raw_ranges = _split_body(body)
    return _windowed(Query(
        entity=entity,
        select=(),
        conditions=tuple(_parse_conditions(entity, raw_conditions)),
        ranges=tuple(_parse_range(entity, item, i) for i, item in enumerate(raw_ranges)),
        is_parent=subtree_requested(params.get("isParent")),
    ))


def window_of(query: Query) -> tuple[Any, Any, Any]:
    """(key value, lower, upper) of a history entity's query: the vehicle and the tightest time
    bounds its conditions and ranges give (None where absent)."""
    window = query.entity.window
    assert window is not None
    key = next((c.value for c in query.conditions if c.field == window.key and c.op == "eq"), None)
    lowers = [r.lower for r in query.ranges if r.field == window.time and r.lower is not None]
    uppers = [r.upper for r in query.ranges if r.field == window.time and r.upper is not None]
    for c in query.conditions:
        if c.field == window.time and c.value is not None:
            if c.op in ("gt", "gte", "eq"):
                lowers.append(c.value)
            if c.op in ("lt", "lte", "eq"):
                uppers.append(c.value)
    return key, max(lowers) if lowers else None, min(uppers) if uppers else None


def _windowed(query: Query) -> Query:
    """The query, when it names what its entity's window needs; else a BadRequest saying what."""
    window = query.entity.window
    if window is None:
        return query
    key, lower, upper = window_of(query)
    if key is None or lower is None or upper is None:
        raise BadRequest(f"请选择车辆和时间范围 (a {query.entity.name} query needs {window.key} and a "
                         f"{window.time} range with a start and an end)")
    check_history_range(lower, upper, window.max_days())
    return query


def check_history_range(start: datetime, end: datetime, days: int) -> None:
    """The one range limit of history reads (logs, track, its exports): a 400 past ``days``."""
    if (end - start).total_seconds() > days * 86400:
        raise BadRequest(f"查询时间范围不能超过 {days} 天 (the time range may not exceed {days} days)")


def _split_body(body: Any) -> tuple[list[tuple[str, Any]], list[Any]]:
    """(conditions, ranges): the top-level ``field.op`` keys and those under ``conditions``, all
    kept (a key in both places is two conditions, ANDed: every value sent is checked)."""
    if body is None:
        return [], []
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是查询条件的 JSON 对象 (request body must be a JSON object of conditions)")
    conditions = [(k, v) for k, v in body.items() if k not in ("conditions", "rangeConditions")]
    nested = body.get("conditions")
    if nested is not None:
        if not isinstance(nested, dict):
            raise BadRequest("conditions 必须是 JSON 对象 ('conditions' must be a JSON object of field.op keys)")
        conditions.extend(nested.items())
    ranges = body.get("rangeConditions")
    if ranges is None:
        ranges = []
    if not isinstance(ranges, list):
        raise BadRequest("rangeConditions 必须是列表 ('rangeConditions' must be a list of {fieldName, start, end, ...} objects)")
    return conditions, ranges


def _names(entity: EntitySpec, raw: str | None, what: str, *, sortable_only: bool = False) -> tuple[str, ...]:
    """A comma list of field names, exactly (no blanks, no empty items); empty or absent: ()."""
    if not raw:
        return ()
    names = tuple(dict.fromkeys(raw.split(",")))
    unknown = [n for n in names if n not in entity.fields or (what == "field" and not entity.fields[n].listable)]
    if unknown:
        shown = ", ".join(repr(n) if n.strip() != n or not n else n for n in unknown)
        raise BadRequest(f"未知的{'字段' if what == 'field' else '排序字段'}：{shown[:200]} "
                         f"(unknown {what}(s) for {entity.name}: {shown[:200]})")
    if sortable_only:
        unsortable = [n for n in names if not entity.fields[n].sortable]
        if unsortable:
            raise BadRequest(f"不能按该字段排序：{', '.join(unsortable)} "
                             f"({entity.name} cannot be sorted by: {', '.join(unsortable)})")
    return names


def _parse_conditions(entity: EntitySpec, raw: list[tuple[str, Any]]) -> list[Condition]:
    unknown_fields = []
    parsed = []
    for key, value in raw:
        name, _, op = key.rpartition(".") if "." in key else (key, "", "eq")
        if name not in entity.fields or not entity.fields[name].filterable:
            unknown_fields.append(name or key)
            continue
        if op not in OPERATORS:
            raise BadRequest(
                f"未知的运算符 '{op}' (unknown operator '{op}' in condition '{key}'; "
                f"known: {', '.join(sorted(OPERATORS))})"
            )
        parsed.append(_condition(entity, name, op, value))
    if unknown_fields:
        raise BadRequest(f"未知字段：{', '.join(unknown_fields)} "
                         f"(unknown field(s) for {entity.name}: {', '.join(unknown_fields)})")
    return parsed


def _condition(entity: EntitySpec, name: str, op: str, value: Any) -> Condition:
    condition = _typed_condition(entity, name, op, value)
    normalize = entity.fields[name].normalize
    if normalize is None or op == "exists" or condition.value is None:
        return condition
    if isinstance(condition.value, list):
        return Condition(name, op, [normalize(v) for v in condition.value])
    return Condition(name, op, normalize(condition.value))


def _typed_condition(entity: EntitySpec, name: str, op: str, value: Any) -> Condition:
    ftype = entity.fields[name].type
    if op == "exists":
        return Condition(name, op, coerce(f"{name}.exists", "bool", value) if value is not None else True)
    if op in LIST_OPS:
        return Condition(name, op, [coerce(name, ftype, v) for v in _list_items(name, op, ftype, value)])
    if op in TEXT_OPS:
        if ftype != "str":
            raise BadRequest(f"运算符 '{op}' 只适用于文本字段 (operator '{op}' applies to text fields only; "
                             f"'{name}' is {ftype})")
        if not isinstance(value, str) or value == "":
            raise BadRequest(f"'{name}.{op}' 需要非空文本 ('{name}.{op}' expects a non-empty string)")
        return Condition(name, op, coerce(name, ftype, value))
    if value is None and op not in ("eq", "ne"):
        raise BadRequest(f"'{name}.{op}' 需要一个值 ('{name}.{op}' needs a value, got null)")
    if isinstance(value, list | dict):
        raise BadRequest(f"'{name}.{op}' 只接受单个值 ('{name}.{op}' expects a single value, "
                         f"got a {type(value).__name__})")
    return Condition(name, op, coerce(name, ftype, value))


def _list_items(name: str, op: str, ftype: str, value: Any) -> list[Any]:
    """A JSON list, or comma text for integer and text fields (``"1,2,3"``)."""
    if isinstance(value, str) and ftype == "str" and len(value) <= MAX_TEXT_CHARS:
        return value.split(",")  # bounded by its length
    items = value.split(",") if isinstance(value, str) and ftype == "int" else value
    if not isinstance(items, list) or len(items) > MAX_LIST_VALUES:
        text = " or comma text" if ftype in ("int", "str") else ""
        raise BadRequest(f"'{name}.{op}' 需要至多 {MAX_LIST_VALUES} 个值的列表 "
                         f"('{name}.{op}' expects a list{text} of at most {MAX_LIST_VALUES} values)")
    return items


def _parse_range(entity: EntitySpec, item: Any, index: int) -> RangeCondition:
    where = f"rangeConditions[{index}]"
    if not isinstance(item, dict):
        raise BadRequest(f"{where} 必须是对象 ({where} must be an object with fieldName and bounds)")
    unknown_keys = sorted(set(item) - _RANGE_KEYS)
    if unknown_keys:
        raise BadRequest(f"{where} 含未知的键：{', '.join(unknown_keys)} "
                         f"({where}: unknown key(s) {', '.join(unknown_keys)})")
    name = item.get("fieldName")
    if not isinstance(name, str) or name not in entity.fields or not entity.fields[name].filterable:
        raise BadRequest(f"{where} 的字段未知：{name} ({where}: unknown field for {entity.name}: {name})")
    rtype = item.get("type")
    if rtype is None:
        rtype = "closed"
    if not isinstance(rtype, str) or rtype not in RANGE_TYPES:
        raise BadRequest(f"{where} 的范围类型未知：{rtype!r} "
                         f"({where}: unknown range type {rtype!r}; known: {', '.join(RANGE_TYPES)})")
    lower_inc, upper_inc = RANGE_TYPES[rtype]
    ftype = entity.fields[name].type
    # Every bound given is checked, also one that another overrides.
    bounds = {key: coerce(f"{where}.{key} ({name})", ftype, item.get(key)) for key in _BOUNDS}
    lower, upper = bounds["start"], bounds["end"]
    if bounds["gte"] is not None or bounds["gt"] is not None:
        lower, lower_inc = (bounds["gte"], True) if bounds["gte"] is not None else (bounds["gt"], False)
    if bounds["lte"] is not None or bounds["lt"] is not None:
        upper, upper_inc = (bounds["lte"], True) if bounds["lte"] is not None else (bounds["lt"], False)
    if lower is None and upper is None:
        raise BadRequest(f"{where} 至少需要一个边界 ({where}: give at least one bound: start/end or gte/gt/lte/lt)")
    return RangeCondition(name, lower, lower_inc, upper, upper_inc)
