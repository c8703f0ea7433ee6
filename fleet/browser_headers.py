"""The browser security headers every HTTP reply of the platform carries (the API and the media server)."""

from __future__ import annotations

PERMISSIONS_POLICY = (
    "microphone=(self), geolocation=(self), camera=(), payment=(), usb=(), serial=(), bluetooth=(), "
    "midi=(), magnetometer=(), gyroscope=(), accelerometer=(), display-capture=()"
)
STATIC_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",  # tile servers (OSM) want the origin
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Cross-Origin-Opener-Policy": "same-origin",
}
