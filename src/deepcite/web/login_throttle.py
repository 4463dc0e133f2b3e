"""Throttling of wrong passwords: the login form and the API's bearer token.

Without it the token could be guessed hundreds of times a second. Each client address
may fail :data:`CLIENT_FAILURES` times in :data:`WINDOW_S` seconds, and all clients
together :data:`GLOBAL_FAILURES` times (so many addresses cannot share the work); past
either limit every attempt is refused with 429 and ``Retry-After`` *before* the
password is compared - even the right one - so a throttled guesser learns nothing. A
successful login clears that client's failures.

IPv6 clients are counted by their /64 network: one host usually has a whole /64 and
could otherwise change address for every guess. The address is the socket peer's, or
behind a proxy named in ``web.trusted_proxies`` the one it forwards
(:mod:`deepcite.security.client_address`); behind a proxy not named there every client
shares the proxy's count, and no client can pick a new address by sending
``X-Forwarded-For``.

The counts are in memory: each web process throttles on its own, so N processes allow
N times the limits, and a restart clears them.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import deque
from collections.abc import Callable

#: Wrong passwords one client address (an IPv6 /64) may send in :data:`WINDOW_S`
#: seconds before it is refused: a person mistyping gets several tries, a guesser
#: a few dozen an hour.
CLIENT_FAILURES = 5
#: Wrong passwords all clients together may send in :data:`WINDOW_S` seconds before
#: every login is refused, so guessing from many addresses is as slow. An attacker
#: can hold logins shut this way; sessions already logged in are unaffected.
GLOBAL_FAILURES = 100
#: Wrong passwords for one account, from any address, in :data:`WINDOW_S` seconds.
ACCOUNT_FAILURES = 10
#: The sliding window the failures are counted in, in seconds.
WINDOW_S = 300.0


def client_key(host: str | None) -> str:
    """Whom failures are counted against: the IPv4 address, the IPv6 /64, or ``host``
    as given when it is not an address (a test client, a unix socket)."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _account_key(account: str) -> str:
    """Whom an account's failures are counted against (never an address's key)."""
    return "account:" + account.casefold()


class LoginThrottle:
    """Counts wrong passwords per client and overall (see the module docstring);
    thread-safe. ``clock`` (monotonic seconds) is injectable for tests."""

    def __init__(self, *, client_failures: int = CLIENT_FAILURES,
                 global_failures: int = GLOBAL_FAILURES, window_s: float = WINDOW_S,
                 account_failures: int = ACCOUNT_FAILURES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Limits default to the module constants."""
        self.client_failures, self.global_failures = client_failures, global_failures
        self.account_failures = account_failures
        self.window_s, self.clock = window_s, clock
        self._lock = threading.Lock()
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def retry_after(self, host: str | None, account: str | None = None) -> int | None:
        """Seconds until ``host`` (for ``account``, when given) may try again, or
        ``None`` when it may try now."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            waits = []
            mine = self._clients.get(client_key(host))
            if mine is not None and len(mine) >= self.client_failures:
                waits.append(mine[-self.client_failures] + self.window_s - now)
            theirs = self._clients.get(_account_key(account)) if account else None
            if theirs is not None and len(theirs) >= self.account_failures:
                waits.append(theirs[-self.account_failures] + self.window_s - now)
            if len(self._all) >= self.global_failures:
                waits.append(self._all[-self.global_failures] + self.window_s - now)
        return max(1, math.ceil(max(waits))) if waits else None

    def failed(self, host: str | None, account: str | None = None) -> None:
        """Count a wrong password from ``host`` (for ``account``, when given)."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            self._clients.setdefault(client_key(host), deque()).append(now)
            if account:
                self._clients.setdefault(_account_key(account), deque()).append(now)
            self._all.append(now)

    def succeeded(self, host: str | None, account: str | None = None) -> None:
        """``host`` logged in (as ``account``): forget their failures (the global count
        keeps them)."""
        with self._lock:
            self._clients.pop(client_key(host), None)
            if account:
                self._clients.pop(_account_key(account), None)

    def _expire(self, now: float) -> None:
        """Drop failures older than the window; memory stays bounded by the failures
        a window can hold, which the global limit caps."""
        cutoff = now - self.window_s
        while self._all and self._all[0] <= cutoff:
            self._all.popleft()
        for key in [key for key, times in self._clients.items() if times[-1] <= cutoff]:
            del self._clients[key]
        for times in self._clients.values():
            while times and times[0] <= cutoff:
                times.popleft()
