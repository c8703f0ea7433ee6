"""Route guards: bearer token -> Principal, permission check, tenant scope of the request."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from flask import current_app, g, request

from api.auth import Principal, verify_access_token
from api.errors import AuthError, Forbidden
from api.query.values import parse_flag
from warehouse.queries.scope import Scope

F = TypeVar("F", bound=Callable[..., Any])


def bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("缺少访问令牌 (missing bearer access token)")
    return token.strip()


def requires(code: str, action: str) -> Callable[[F], F]:
    """The route needs a valid access token whose principal holds ``action`` on ``code``.

    Raises AuthError (40002) without a valid token, Forbidden (403) without the permission.
    The view reads the caller with ``current_principal()`` and its scope with ``request_scope()``.
    """

    def decorate(view: F) -> F:
        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            principal = verify_access_token(current_app, bearer_token())
            if not principal.can(code, action):
                raise Forbidden(f"没有权限 (permission denied: {code}:{action})")
            g.principal = principal
            return view(*args, **kwargs)

        guarded.required_permission = (code, action)  # type: ignore[attr-defined]
        return cast(F, guarded)

    return decorate


def current_principal() -> Principal:
    principal: Principal = g.principal
    return principal


def request_scope() -> Scope:
    """The caller's enterprise; its whole subtree when the query parameter isParent is true."""
    principal = current_principal()
    return Scope(
        enterprise_id=principal.enterprise_id,
        enterprise_path=principal.enterprise_path,
        subtree=parse_flag("isParent", request.args.get("isParent")),
    )
