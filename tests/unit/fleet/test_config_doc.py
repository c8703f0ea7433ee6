from pathlib import Path

from fleet.config_doc import render, settings_classes
from fleet.settings import REPO_ROOT


def test_configuration_doc_is_up_to_date() -> None:
    committed = (REPO_ROOT / "docs" / "configuration.md").read_text()
    assert committed == render(), "docs/configuration.md is stale: run `make config-doc`"


def test_every_settings_key_has_a_description() -> None:
    undocumented = [f"{cls.__name__}.{name}" for cls in settings_classes()
                    for name, field in cls.model_fields.items() if not field.description]
    assert undocumented == []


def test_doc_names_env_vars_mechanically() -> None:
    doc = render()
    assert "`FLEET_GATEWAY_IDLE_TIMEOUT_S`" in doc
    assert "`FLEET_DATABASE_URL`" in doc
    assert str(Path(REPO_ROOT)) not in doc  # machine-independent: paths are shown as <repo>/...
