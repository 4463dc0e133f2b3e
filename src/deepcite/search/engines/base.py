"""The base of the built-in web and academic engines.

A subclass sets its class attributes and implements :meth:`WebEngine._search`; the
base gives it the shared HTTP client (egress, timeout, retries, rate limit), the
user's filters, API-key lookup (setting first, then the engine's usual environment
variable) and the availability check that ``deepcite engines`` shows.
"""

from __future__ import annotations

import os
from typing import ClassVar

from deepcite.config import Settings
from deepcite.config_sections import EngineKey
from deepcite.errors import ConfigError, EgressDenied
from deepcite.search.base import EngineBase, EngineClass
from deepcite.search.filters import SearchFilters, apply_filters
from deepcite.search.http import EngineHTTP
from deepcite.types import SearchResult


class WebEngine(EngineBase):
    """An engine that reaches a service over HTTP.

    Its class is an :class:`~deepcite.search.base.EngineClass` through
    :class:`~deepcite.search.base.EngineBase`: ``needs`` says what the user must
    provide, ``offline_capable`` stays false for internet services.
    """

    #: Requests per second unless ``engines.rate_per_second`` says otherwise.
    default_rate: ClassVar[float | None] = None
    #: EngineSettings field holding the API key, and its usual environment variables.
    key_setting: ClassVar[EngineKey | None] = None
    key_env: ClassVar[tuple[str, ...]] = ()
    #: Whether the key is required (Semantic Scholar and PubMed work without one).
    key_required: ClassVar[bool] = True

    def __init__(self, settings: Settings) -> None:
        reason = self.unavailable_reason(settings)
        if reason:
            raise ConfigError(reason)
        super().__init__(settings)
        self.filters = SearchFilters.from_settings(settings)
        services = self.service_urls(settings)
        self.http = EngineHTTP(self.name, settings, default_rate=self.default_rate,
                               services=services)
        for url in services:
            try:
                self.http.policy.check(url)
            except EgressDenied as exc:
                raise ConfigError(f"{self.name}: {exc}") from None

    @classmethod
    def service_urls(cls, settings: Settings) -> tuple[str, ...]:
        """The URLs of the user's own service this engine talks to (a SearXNG instance,
        a cluster). The egress policy allows exactly their origins, without an
        allow-list entry; everything else the engine touches is judged as a fetch."""
        return ()

    @classmethod
    def api_key(cls, settings: Settings) -> str | None:
        """The key from settings, else from the first of the engine's env vars set."""
        if cls.key_setting:
            value = settings.engines.api_key(cls.key_setting)
            if value is not None and value.get_secret_value():
                return value.get_secret_value()
        for var in cls.key_env:
            if os.environ.get(var):
                return os.environ[var]
        return None

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """Why the engine cannot run with these settings, or ``None`` when it can."""
        if cls.key_setting and cls.key_required and not cls.api_key(settings):
            env = " or ".join(cls.key_env) or "its environment variable"
            return (f"{cls.name} needs an API key - set engines.{cls.key_setting} "
                    f"or {env}")
        return None

    @property
    def engine_name(self) -> str:
        """Same as ``name``; the protocol asks for a property-like attribute."""
        return self.name

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Search, then apply the user's filters; SearchError on failure."""
        results = self._search(query, max_results)
        return apply_filters(results, self.filters)[:max_results]

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        raise NotImplementedError

    def close(self) -> None:
        """Release network resources."""
        self.http.close()


_CONFORMS: EngineClass = WebEngine  # mypy checks the class against the protocol
