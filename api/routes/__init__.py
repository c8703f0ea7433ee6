"""Blueprints, one module per area of the spec's call list."""
