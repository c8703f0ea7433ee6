"""Tenant scope: which enterprises' rows a caller may see (platform-spec §6).

Own enterprise by exact id; with ``subtree`` (the API's ``isParent``, true unless a request says
false: api/query/values.py ``subtree_requested``) every enterprise whose
materialised path starts with the caller's (the caller's own included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import sql


def like_prefix(value: str) -> str:
    """A LIKE pattern matching strings that start with ``value`` (metacharacters escaped)."""
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


@dataclass(frozen=True)
class Scope:
    enterprise_id: int
    enterprise_path: str
    subtree: bool = False
    # No tenant restriction: only for a read already proven in scope by other means (the caller's
    # own enterprise record, ``EntitySpec.self_readable``). Never built from request input.
    unrestricted: bool = False
    # The caller's user id: rows kept per user (``EntitySpec.owner_column``, e.g. followed cars) are read
    # only by their user. None outside a request: such rows are then not read at all.
    user_id: int | None = None

    def clause(self, tenant_column: sql.Composable) -> tuple[sql.Composed, list[Any]]:
        """SQL restricting ``tenant_column`` (an enterprise id) to this scope, and its parameters."""
        if self.unrestricted:
            return sql.Composed([sql.SQL("TRUE")]), []
        if not self.subtree:
            return sql.SQL("{} = %s").format(tenant_column), [self.enterprise_id]
        return (
            sql.SQL("{} IN (SELECT id FROM enterprise WHERE path LIKE %s)").format(tenant_column),
            [like_prefix(self.enterprise_path)],
        )

    def contains_path(self, path: str) -> bool:
        """Whether an enterprise with materialised ``path`` is inside this scope."""
        if self.subtree:
            return path.startswith(self.enterprise_path)
        return path == self.enterprise_path
