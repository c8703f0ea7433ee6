"""The Flask API: REST per the spec, OAuth2-style tokens, generic queries. See api/README.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(*args: Any, **kwargs: Any) -> Flask:
    """See ``api.app.create_app`` (imported lazily so ``import api.auth`` stays light)."""
    from api.app import create_app as factory

    return factory(*args, **kwargs)
