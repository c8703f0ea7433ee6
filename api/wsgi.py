"""WSGI entry point for gunicorn (``gunicorn api.wsgi:app``). Builds the app from the environment."""

from api.app import create_app

app = create_app()
