"""The JT/T 1078 media server: terminals' audio/video in, HTTP-FLV / WebSocket-FLV to many
viewers, the browser's talk audio back to the terminal. ``python -m gateway.video`` runs it."""
