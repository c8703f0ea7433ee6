"""Generate ``docs/configuration.md`` from the settings models in ``fleet/settings.py``.

``fleet config-doc > docs/configuration.md`` (or ``make config-doc``); a unit test fails when the
committed file differs from what this produces.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from fleet import settings as settings_module
from fleet.settings import REPO_ROOT

HEADER = """# Configuration

Generated from `fleet/settings.py` by `fleet config-doc` (`make config-doc`); do not edit by hand.
A unit test fails when this file is out of date.

Every key is read from the environment when a service starts (never at import). The variable name
derives mechanically from the settings class and key: `GatewaySettings.idle_timeout_s` is
`FLEET_GATEWAY_IDLE_TIMEOUT_S`. Paths shown as `<repo>/...` default to the repository checkout.
"""


def settings_classes() -> list[type[BaseSettings]]:
    """The settings models of fleet/settings.py, in source order."""
    found = [
        obj for obj in vars(settings_module).values()
        if inspect.isclass(obj) and issubclass(obj, BaseSettings) and obj.__module__ == settings_module.__name__
        and not obj.__name__.startswith("_")
    ]
    return sorted(found, key=lambda cls: inspect.getsourcelines(cls)[1])


def _type_name(annotation: Any) -> str:
    if annotation is None:
        return "None"
    if isinstance(annotation, type):
        return "path" if issubclass(annotation, Path) else annotation.__name__
    return str(annotation).replace("typing.", "")


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if isinstance(value, Path):
        try:
            return f"`<repo>/{value.relative_to(REPO_ROOT)}`"
        except ValueError:
            return f"`{value}`"
    if isinstance(value, str):
        return f'`"{value}"`' if value else '`""` (empty)'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def render() -> str:
    """The whole Markdown document."""
    parts = [HEADER]
    for cls in settings_classes():
        prefix = str(cls.model_config.get("env_prefix", ""))
        doc = inspect.getdoc(cls) or ""
        own_doc = doc if cls.__doc__ else ""
        parts.append(f"\n## {cls.__name__} (`{prefix}*`)\n")
        if own_doc:
            parts.append(f"\n{own_doc}\n")
        parts.append("\n| variable | type | default | meaning |\n|---|---|---|---|\n")
        for name, field in cls.model_fields.items():
            description = (field.description or "").replace("|", "\\|")
            parts.append(
                f"| `{prefix}{name.upper()}` | {_type_name(field.annotation)} | {_default(field)} | {description} |\n"
            )
    return "".join(parts)


@click.command("config-doc")
def config_doc_command() -> None:
    """Print docs/configuration.md (every settings key, its variable, type, default and meaning)."""
    click.echo(render(), nl=False)
