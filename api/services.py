"""The API process's shared services, kept in ``app.extensions`` / ``app.config`` and built from the
settings on first use: the token service, the downlink producer, the media store, the geocoder and the
report settings. Tests put their own under these keys. Route modules reach them here, never through another
route module (the import contract in pyproject.toml)."""

from __future__ import annotations

from flask import current_app

from api import commands
from fleet.geo import Geocoder, default_geocoder
from fleet.media_store import MediaStore, build_media_store
from fleet.settings import CommandsSettings, ReportSettings

SERVICE_KEY = "fleet_token_service"  # api.tokens.TokenService, set by api.app.create_app
DOWNLINKS_KEY = "fleet.commands.downlinks"
STORE_KEY = "fleet.media_store"
GEOCODER_KEY = "fleet.geocoder"  # a Geocoder the app was built with (tests); absent: the process's default
REPORT_SETTINGS_KEY = "FLEET_REPORT_SETTINGS"


def downlinks() -> commands.Downlinks:
    """The process's downlink producer (tests may put their own in ``app.extensions``)."""
    found = current_app.extensions.get(DOWNLINKS_KEY)
    if found is None:
        from fleet.settings import kafka_bootstrap

        found = current_app.extensions[DOWNLINKS_KEY] = commands.Downlinks(
            kafka_bootstrap(), CommandsSettings().kafka_send_timeout_s)
    return found


def media_store() -> MediaStore:
    """The app's store (tests set ``app.extensions[STORE_KEY]``), built from the settings on first use."""
    store = current_app.extensions.get(STORE_KEY)
    if store is None:
        store = current_app.extensions[STORE_KEY] = build_media_store()
    return store


def geocoder() -> Geocoder:
    found = current_app.extensions.get(GEOCODER_KEY)
    return found if isinstance(found, Geocoder) else default_geocoder()


def v_max_kmh() -> float:
    """The reports' plausible top speed (``FLEET_REPORT_V_MAX_KMH``), the odometer rule's ceiling."""
    settings = current_app.config.get(REPORT_SETTINGS_KEY)
    if settings is None:
        settings = current_app.config[REPORT_SETTINGS_KEY] = ReportSettings()
    return float(settings.v_max_kmh)
