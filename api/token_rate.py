"""The token endpoint's limit on client credentials: every ``grant_type=client_credentials`` request
counts, minted or refused, per address (``token_address_per_min``, any client id, an IPv6 client by
its /64) and per client id (``token_client_per_min``, known or not). Past either: 429 in the API's
envelope, ``data = {retryAfter, limit}`` (the shape of an app's call limit), and no secret is
checked nor token minted. The address is counted first, so an address over its limit creates no
row for the client ids it makes up. Fixed one-minute windows in ``api_token_rate`` (migration 0035),
shared by every API process; rows of past minutes are swept at most once a minute per process.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from api.addresses import address_key
from api.errors import TooManyAttempts
from warehouse.queries import open_platform as q

SWEEP_INTERVAL_S = 60.0


class TokenRate:
    def __init__(self, per_client: int, per_address: int) -> None:
        self.per_client = per_client
        self.per_address = per_address
        self._last_sweep = 0.0
        self._lock = threading.Lock()

    def count(self, conn: Any, client_id: str, address: str) -> TooManyAttempts | None:
        """Counts one request; the TooManyAttempts to raise, once committed, when the address or the
        client id is over its limit (raising inside the transaction would roll the count back)."""
        self._sweep(conn)
        client = hashlib.sha256(client_id.encode("utf-8", "replace")).hexdigest()[:32]
        for key, limit in ((f"addr:{address_key(address)}", self.per_address), (f"client:{client}", self.per_client)):
            requests, left_s = q.count_token_request(conn, key)
            if requests > limit:
                wait_s = max(1, int(left_s + 0.999))
                return TooManyAttempts(
                    f"获取令牌过于频繁，请 {wait_s} 秒后再试 (too many token requests: {limit} per minute;"
                    f" retry in {wait_s} s)", data={"retryAfter": wait_s, "limit": limit})
        return None

    def _sweep(self, conn: Any) -> None:
        tick = time.monotonic()
        with self._lock:
            if tick - self._last_sweep < SWEEP_INTERVAL_S:
                return
            self._last_sweep = tick
        q.sweep_token_rate(conn)
