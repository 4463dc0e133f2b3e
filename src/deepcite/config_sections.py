"""The sections of :class:`deepcite.config.Settings`, one typed model per table.

Kept apart from the layering code in :mod:`deepcite.config` so that each file stays
about one thing; ``deepcite.config`` re-exports every model here.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import date
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_core import PydanticCustomError

from deepcite.plugins import LLM_PROVIDERS_GROUP, closest, entry_point_names, kebab_case

#: ``llm.provider`` values that need no plugin (``deepcite.llm.PROVIDERS`` plus ``auto``).
BUILTIN_PROVIDERS = ("auto", "local", "ollama", "openai", "anthropic")

#: A collection name: it becomes a file name under the data folder, so never a path.
#: The one rule, here at the bottom of the layers so that the settings refuse what
#: :func:`deepcite.collections.collection.validate_name` refuses, with its words.
COLLECTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: An Elasticsearch index name as the cluster takes one (lower case, none of
#: ``\ / * ? " < > | , #`` or blanks, not ``.``/``..``, not starting ``-_+``); it goes
#: into the path of every search request.
_INDEX_NAME = re.compile(r"(?![-_+])(?!\.{1,2}$)[^A-Z\\/*?\"<>|,#\s:]{1,255}")


def _shown(name: str) -> str:
    """``name`` quoted for a message, cut short: a request may send a megabyte."""
    return repr(name if len(name) <= 80 else name[:77] + "...")


def collection_name_problem(name: object) -> str | None:
    """Why ``name`` is not a collection name, in one line saying what to use; ``None``
    when it is one."""
    if not isinstance(name, str):
        kind = "None" if name is None else type(name).__name__
        return f"A collection name must be text (str), not {kind}"
    if "/" in name or "\\" in name:
        # Said before anything looks at the file system, so the reply is the same
        # whether or not something exists at that path.
        return (f"Invalid collection name {_shown(name)}: a collection is named, not a "
                "path - use 1-64 characters from letters, digits, '_', '.' and '-' (a "
                "folder is indexed under a name with `deepcite collection add FOLDER "
                "--name NAME`)")
    if not COLLECTION_NAME.fullmatch(name):
        return (f"Invalid collection name {_shown(name)}: use 1-64 characters from "
                "letters, digits, '_', '.' and '-', starting with a letter or digit")
    return None


def http_url_problem(value: str) -> str | None:
    """Why ``value`` is not an ``http``/``https`` URL with a host, or ``None``.

    Every URL setting names a service deepcite connects to (or links to, for
    ``watches.base_url``); the egress policy would refuse any other scheme at connect
    time, so the setting is refused where it is written - the config file, the
    environment, the settings page - instead of failing each run.
    """
    hint = "use http://host:port or https://host"
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        return f"not an http(s) URL (it does not parse) - {hint}"
    if parts.scheme.lower() not in ("http", "https"):
        shown = f"{parts.scheme}:" if parts.scheme else "no scheme"
        return f"not an http(s) URL ({shown}) - {hint}"
    if not parts.hostname:
        return f"not an http(s) URL (it has no host) - {hint}"
    return None


def _checked_url(value: str | None) -> str | None:
    if value is None:
        return None
    problem = http_url_problem(value)
    if problem is not None:
        raise PydanticCustomError("http_url", problem)
    return value


def proxy_entry_problem(entry: str) -> str | None:
    """Why ``entry`` cannot name proxies in ``web.trusted_proxies`` (``None``: it can):
    an address (``10.0.0.5``, ``::1``) or a network (``10.1.0.0/16``) is wanted."""
    try:
        ipaddress.ip_network(entry.strip(), strict=False)
    except ValueError:
        return (f"{entry[:100]!r} is not an IP address or network - name each proxy by "
                "its address (10.0.0.5, ::1) or a CIDR (10.1.0.0/16)")
    return None


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelPrice(_Section):
    """What a hosted model charges, in US dollars per million tokens, as its provider
    publishes it. deepcite knows no prices of its own: a cost is shown only for models
    given one here (``llm.prices``), so a figure is never invented."""

    input: float = Field(ge=0, description="USD per million prompt tokens")
    output: float = Field(ge=0, description="USD per million completion tokens")
    cached_input: float | None = Field(
        default=None, ge=0, description="USD per million prompt tokens read from the "
        "provider's prompt cache; default: the input price")

    @classmethod
    def parse(cls, value: object) -> object:
        """``"2.5/10"`` or ``"2.5/10/1.25"`` (input/output[/cached input]), as a
        ``DEEPCITE_LLM_PRICES`` variable writes a price; anything else as it is."""
        if not isinstance(value, str):
            return value
        parts = [part.strip() for part in value.split("/")]
        if len(parts) not in (2, 3):
            raise PydanticCustomError(
                "price", "a price is INPUT/OUTPUT[/CACHED] in USD per million tokens "
                "(e.g. 2.5/10), not {value}", {"value": _shown(value)})
        names = ("input", "output", "cached_input")
        return dict(zip(names, parts, strict=False))

    def __str__(self) -> str:
        cached = "" if self.cached_input is None else f"/{self.cached_input:g}"
        return f"{self.input:g}/{self.output:g}{cached}"


class LLMSettings(_Section):
    """Which chat model answers, and how it is called."""

    provider: str = Field(default="auto", description="auto, local, ollama, openai, "
                          "anthropic or a plugin's (deepcite.llm_providers)")
    model: str | None = Field(
        default=None, description="model name for ollama/openai/anthropic (e.g. llama3.2)"
    )
    gguf_path: Path | None = Field(
        default=None, description="GGUF file for the local provider; default: bundled SmolLM2"
    )
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible server URL (vLLM, LM Studio, llama.cpp)"
    )
    ollama_url: str = "http://localhost:11434"
    api_key: SecretStr | None = Field(
        default=None, description="key for openai/anthropic; else OPENAI_API_KEY/ANTHROPIC_API_KEY"
    )
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    max_tokens: int = Field(default=400, ge=16, le=65536, description="reply length limit")
    context_size: int | None = Field(
        default=None, ge=512, le=2_000_000,
        description="context window in tokens; default: asked of the server (Ollama, "
        "llama.cpp, vLLM, LM Studio) or known for hosted models, else 2048 local / 8192",
    )
    threads: int | None = Field(default=None, ge=1, description="CPU threads (local)")
    timeout_seconds: float = Field(default=120.0, gt=0)
    prices: dict[str, ModelPrice] = Field(
        default_factory=dict, description="USD per million tokens by model name pattern "
        "(fnmatch, case-insensitive), as INPUT/OUTPUT[/CACHED]: the usage page's cost; "
        "none by default, and local models cost nothing")

    _urls = field_validator("base_url", "ollama_url")(_checked_url)

    @field_validator("prices", mode="before")
    @classmethod
    def _price_texts(cls, value: object) -> object:
        """A price may be written ``"2.5/10"`` (an environment variable's only way)."""
        if isinstance(value, dict):
            return {str(name): ModelPrice.parse(price) for name, price in value.items()}
        return value

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        name = kebab_case(value)
        if name in BUILTIN_PROVIDERS:
            return name  # without an entry point scan, which is slow
        known = [*BUILTIN_PROVIDERS, *entry_point_names(LLM_PROVIDERS_GROUP)]
        if name in known:
            return name
        near = closest(name, known)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise PydanticCustomError(
            "unknown_provider", "unknown provider - {hint}known: {known} "
            "(see `deepcite models`)",
            {"hint": hint, "known": ", ".join(repr(k) for k in known)})


class SearchSettings(_Section):
    """Where research looks, and which results count."""

    engines: tuple[str, ...] = Field(
        default=(),
        description="search engines; default: duckduckgo, or none when collections are given",
    )
    collections: tuple[str, ...] = Field(default=(), description="collections to search")
    include_domains: tuple[str, ...] = Field(
        default=(), description="only results from these domains (and their subdomains)"
    )
    exclude_domains: tuple[str, ...] = Field(default=(), description="never these domains")
    since: date | None = Field(default=None, description="only results published on/after")
    until: date | None = Field(default=None, description="only results published on/before")
    fetch_full_text: bool = Field(
        default=False, description="download result pages for full text (web engines)"
    )
    chunk_tokens: int = Field(default=300, ge=20, le=4000,
                              description="target chunk size when indexing collections")
    chunk_overlap_tokens: int = Field(default=40, ge=0, le=1000,
                                      description="tokens repeated between chunks")
    dense: bool = Field(default=False, description="embed chunks for hybrid BM25 + dense "
                        "search (needs deepcite[embeddings])")
    dense_model: Path | None = Field(default=None, description="sentence-transformers model "
                                     "folder; default: the bundled all-MiniLM-L6-v2")
    max_results: int = Field(default=5, ge=1, le=100, description="results per query")
    concurrency: int = Field(default=4, ge=1, le=64, description="parallel searches")

    @field_validator("collections")
    @classmethod
    def _collection_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            problem = collection_name_problem(name)
            if problem is not None:
                raise PydanticCustomError("collection_name", problem)
        return value


#: The API key settings of the built-in engines (``engines.<name>``).
EngineKey = Literal["tavily_api_key", "perplexity_api_key", "brave_api_key",
                    "semantic_scholar_api_key", "pubmed_api_key", "elasticsearch_api_key"]


class EngineSettings(_Section):
    """Options of the built-in search engines; keys also come from their usual env vars."""

    timeout_seconds: float = Field(default=10.0, gt=0, description="per request")
    max_retries: int = Field(default=2, ge=0, le=10, description="retries on 429/5xx/timeout")
    rate_per_second: dict[str, float] = Field(
        default_factory=dict, description="requests per second by engine name"
    )
    circuit_failures: int = Field(
        default=3, ge=1, description="failures after which an engine is skipped for the run"
    )
    searxng_url: str | None = Field(default=None, description="SearXNG instance (SEARXNG_URL)")
    tavily_api_key: SecretStr | None = Field(default=None, description="or TAVILY_API_KEY")
    perplexity_api_key: SecretStr | None = Field(default=None, description="or PERPLEXITY_API_KEY")
    perplexity_model: str = "sonar"
    brave_api_key: SecretStr | None = Field(default=None, description="or BRAVE_API_KEY")
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None, description="optional; or SEMANTIC_SCHOLAR_API_KEY"
    )
    pubmed_api_key: SecretStr | None = Field(default=None, description="optional; or NCBI_API_KEY")
    openalex_email: str | None = Field(default=None, description="polite pool e-mail")
    wikipedia_language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[a-z]+)?$")
    elasticsearch_url: str | None = Field(default=None, description="or ELASTICSEARCH_URL")
    elasticsearch_index: str = "documents"
    elasticsearch_api_key: SecretStr | None = Field(
        default=None, description="or ELASTICSEARCH_API_KEY"
    )
    elasticsearch_title_field: str = "title"
    elasticsearch_text_field: str = "content"
    elasticsearch_url_field: str = "url"
    elasticsearch_date_field: str | None = None
    plugins: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="settings of plugin engines by engine name; in "
        "deepcite.toml as [engines.NAME] tables")

    _urls = field_validator("searxng_url", "elasticsearch_url")(_checked_url)

    @field_validator("elasticsearch_index")
    @classmethod
    def _index_name(cls, value: str) -> str:
        if not _INDEX_NAME.fullmatch(value):
            raise PydanticCustomError(
                "index_name", "{name} is not an Elasticsearch index name - use lower-case "
                "letters, digits, '-', '_' and '.', not starting with '-', '_' or '+'",
                {"name": _shown(value)})
        return value

    @field_validator("rate_per_second", "plugins")
    @classmethod
    def _engine_spelling(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Engine names as the registry spells them (``semantic_scholar`` still works)."""
        return {kebab_case(name): item for name, item in value.items()}

    def api_key(self, name: EngineKey) -> SecretStr | None:
        """The API key setting ``name`` (``engines.<name>``), typed rather than looked up
        by attribute name, so a built-in engine naming a setting that does not exist is a
        type error; a plugin's own key lives in ``engines.plugins`` (``None`` here)."""
        keys: dict[EngineKey, SecretStr | None] = {
            "tavily_api_key": self.tavily_api_key,
            "perplexity_api_key": self.perplexity_api_key,
            "brave_api_key": self.brave_api_key,
            "semantic_scholar_api_key": self.semantic_scholar_api_key,
            "pubmed_api_key": self.pubmed_api_key,
            "elasticsearch_api_key": self.elasticsearch_api_key,
        }
        return keys.get(name)


class CitationSettings(_Section):
    """How answers cite, and how citations are checked."""

    handler: str = Field(default="standard",
                         description="standard, forced (benchmarks) or precision (short facts)")
    verify: bool = Field(default=True, description="check every cited claim against its source")
    verify_with_model: bool = Field(
        default=False, description="ask the model about citations the cheap checks cannot decide")
    unsupported: Literal["remove", "flag"] = Field(
        default="remove", description="what happens to citations their source does not support")
    links: Literal["none", "number", "domain", "domain-id", "domain-id-always",
                   "source-tagged"] = Field(
        default="none", description="inline hyperlinks in Markdown output")
    answer_mode: Literal["auto", "abstractive", "grounded"] = Field(
        default="auto", description="grounded: answer with the sources' own sentences; "
        "auto: grounded for small models (under 1B parameters, local with <= 4k context)")
    mark_unsupported: bool = Field(
        default=False, description="mark answer sentences no source supports ^(unsupported)")
    sentence_meaning: Literal["auto", "on", "off"] = Field(
        default="auto", description="score grounded answers' sentences by meaning too "
        "(the meaning or embeddings extra's local encoder); auto: whenever one is installed")
    evidence_chars: int = Field(
        default=3600, ge=0, le=200_000, description="source text a model-written answer "
        "is sent: each source's passages bearing on the question, within this many "
        "characters in all (0: whole sources, cut to fit the context window)")


class SecuritySettings(_Section):
    """The egress policy: where deepcite may connect."""

    offline: bool = Field(
        default=False, description="no web engines or cloud models; only local services and "
        "allow_private_hosts; never widens what may be contacted"
    )
    allow_private_networks: bool = Field(
        default=False, description="allow every private/loopback address (not recommended)"
    )
    allow_private_hosts: tuple[str, ...] = Field(
        default=(), description="private hosts, IPs or CIDRs that fetched pages and redirects "
        "may reach, optionally with :port (configured service URLs need no entry)"
    )
    max_download_bytes: int = Field(default=5_000_000, ge=1024, description="page fetch cap")
    redact_material_text: bool = Field(
        default=False, description="no text of the user's materials in any log line "
        "(ids, titles and counts only)")


class ResearchSettings(_Section):
    """How a run iterates."""

    strategy: str = "source-based"
    iterations: int = Field(default=2, ge=1, le=50)
    questions_per_iteration: int = Field(default=3, ge=0, le=20)
    followups_per_iteration: int = Field(default=2, ge=0, le=20)
    search_original_query: bool = True
    query_planning: Literal["results", "plan", "model"] = Field(
        default="results", description="who writes the search queries: results: the "
        "question, then follow-ups from the text it found (no model call); plan: one call "
        "writes sub-queries and the later follow-ups; model: one call per iteration")
    max_query_chars: int = Field(
        default=300, ge=1, description="longer questions are not searched verbatim"
    )
    question_context_limit: int = Field(
        default=30, ge=1, description="recent results shown when generating follow-ups"
    )
    max_sources: int = Field(default=10, ge=1, le=200, description="sources given to synthesis")
    relevance_filter: bool = Field(
        default=False, description="one model call keeps and ranks this run's results")
    max_model_calls: int | None = Field(default=None, ge=1, description="run budget")
    max_tokens: int | None = Field(default=None, ge=100, description="run budget (prompt + reply)")
    max_seconds: float | None = Field(default=None, gt=0, description="run budget, wall clock")
    max_searches: int | None = Field(default=None, ge=1, description="run budget")


class ReportSettings(_Section):
    """The detailed report: outline size, per-section research, what the writer sees."""

    section_iterations: int = Field(
        default=1, ge=1, le=20, description="search iterations of each section's research")
    max_sections: int = Field(default=5, ge=1, le=20, description="top-level sections kept")
    max_subsections: int = Field(
        default=3, ge=0, le=10, description="subsections kept per section (0: none)")
    max_context_sections: int = Field(
        default=3, ge=0, le=20, description="recent written parts the writer is shown")
    max_context_chars: int = Field(
        default=4000, ge=0, le=100_000, description="at most this much already-written text, "
        "cut at a sentence boundary")
    parallel_parts: int = Field(
        default=3, ge=1, le=16, description="parts researched at the same time, ahead of "
        "their writing (written in order all the same; 1: one part after another)")


class StoreSettings(_Section):
    """Where runs are kept: a SQLite file in the data dir, or a database URL."""

    url: str | None = Field(
        default=None, description="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db; "
        "default: sqlite file history.db in data_dir")
    save: bool = Field(default=True, description="store every ask and report (--no-save)")
    keep_material_text: bool = Field(
        default=True, description="keep the cited passages of the user's materials with "
        "a run (for follow-ups, replay and re-verification); false: none of their text")
    pool_size: int = Field(default=5, ge=1, le=100, description="connections kept open "
                           "per process (PostgreSQL)")
    max_overflow: int = Field(default=10, ge=0, le=200, description="extra connections "
                              "opened under load (PostgreSQL)")
    pool_timeout_seconds: float = Field(default=10.0, gt=0, le=300, description="wait for "
                                        "a free connection before failing the request")


class QueueSettings(_Section):
    """Where queued research runs go: Redis for RQ workers, or (unset) this process."""

    url: str | None = Field(
        default=None, description="Redis URL, e.g. redis://localhost:6379/0; set, `deepcite "
        "serve` queues runs for `deepcite worker` processes (needs deepcite[queue])")
    queue_name: str = Field(default="deepcite", min_length=1, max_length=64,
                            description="RQ queue name")
    heartbeat_seconds: float = Field(default=5.0, gt=0, le=300,
                                     description="how often a worker says a run is alive")
    heartbeat_timeout_seconds: float = Field(
        default=30.0, gt=0, le=3600, description="silence after which a running run's "
        "worker is taken for dead: the run is re-queued or marked interrupted")
    max_attempts: int = Field(default=2, ge=1, le=10, description="tries of a run whose "
                              "worker died (2: re-queued once)")
    job_timeout_seconds: int = Field(default=3600, ge=10, le=86400,
                                     description="longest a queued run may work")


class WebSettings(_Section):
    """Accounts on a shared server: sessions, self-registration, single sign-on."""

    session_idle_minutes: int = Field(
        default=480, ge=5, le=43200, description="a logged-in session unused this long "
        "ends (accounts)")
    session_max_hours: int = Field(
        default=168, ge=1, le=8760, description="a logged-in session ends this long after "
        "login, however it is used")
    registration: bool = Field(
        default=False, description="let visitors create their own account at /register")
    registration_approval: bool = Field(
        default=True, description="a self-registered account stays disabled until an "
        "admin enables it (`deepcite users enable NAME` or the admin page)")
    trusted_user_header: str | None = Field(
        default=None, max_length=100, description="a header naming the logged-in user, "
        "set by a reverse proxy that authenticated them (e.g. X-Forwarded-User)")
    trusted_proxies: tuple[str, ...] = Field(
        default=(), description="addresses or CIDRs of the reverse proxies in front of "
        "the server: only they may send trusted_user_header (from any other address it "
        "is refused), and only their X-Forwarded-For / X-Forwarded-Proto are believed")
    trusted_header_creates_users: bool = Field(
        default=False, description="a trusted-header user with no account gets one "
        "(else they are refused until an admin adds them)")

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        """Addresses or networks only: the peer is always an address, so a host name
        would silently never match."""
        for entry in value:
            problem = proxy_entry_problem(entry)
            if problem:
                raise PydanticCustomError("not_an_address", "{problem}", {"problem": problem})
        return tuple(entry.strip() for entry in value)


class WatchSettings(_Section):
    """Watches: questions researched again on a schedule (``deepcite watch``)."""

    tick_seconds: float = Field(
        default=30.0, ge=1, le=3600, description="how often the scheduler looks for due "
        "watches, ended watch runs and deliveries to send")
    max_watches_per_owner: int = Field(
        default=20, ge=1, le=10_000, description="watches one user may have")
    max_runs_per_owner_per_day: int = Field(
        default=50, ge=1, le=100_000, description="watch runs one user's watches may start "
        "in 24 hours (scheduled and on demand together)")
    max_runs_per_watch_per_day: int = Field(
        default=24, ge=1, le=10_000, description="runs one watch may start in 24 hours, "
        "unless the watch sets a lower limit of its own")
    base_url: str | None = Field(
        default=None, max_length=2000, description="the server's public address, for "
        "links in notices, e.g. https://research.example.org")

    _urls = field_validator("base_url")(_checked_url)


class DeliverySettings(_Section):
    """How watches deliver their notices: email over SMTP, webhooks, and the tables
    of plugin channels (``docs/watch-delivery.md``). No ``smtp_host``: no email
    delivery."""

    smtp_host: str | None = Field(
        default=None, max_length=253, description="SMTP server that sends watch emails; "
        "unset: watches have no email targets")
    smtp_port: int | None = Field(
        default=None, ge=1, le=65535, description="default: 587 (starttls), 465 (ssl), "
        "25 (none)")
    smtp_security: Literal["starttls", "ssl", "none"] = Field(
        default="starttls", description="starttls: upgrade to TLS, refused if the server "
        "does not offer it; ssl: TLS from the start (port 465); none: plain text")
    smtp_username: str | None = Field(default=None, description="log in as this user "
                                      "(unset: no login)")
    smtp_password: SecretStr | None = Field(default=None, description="password of "
                                            "smtp_username")
    smtp_from: str | None = Field(
        default=None, max_length=254, description="From: address; default: smtp_username "
        "when it is an address")
    smtp_ca_file: Path | None = Field(
        default=None, description="CA certificates (PEM) the server's certificate is "
        "checked against; default: the system's")
    smtp_timeout_seconds: float = Field(default=30.0, gt=0, le=600,
                                        description="per SMTP connection and command")
    webhook_timeout_seconds: float = Field(default=10.0, gt=0, le=300,
                                           description="per webhook request")
    webhook_allow_private_hosts: tuple[str, ...] = Field(
        default=(), description="private hosts, IPs or CIDRs (optionally :port) webhooks "
        "may reach, as security.allow_private_hosts but for webhooks only")
    max_attempts: int = Field(default=6, ge=1, le=50,
                              description="tries of one delivery before it is failed")
    backoff_base_seconds: float = Field(
        default=60.0, gt=0, le=86400, description="wait before the first retry; doubled "
        "for each next one (with jitter, at most backoff_max_seconds)")
    backoff_max_seconds: float = Field(default=6 * 3600.0, gt=0, le=7 * 86400,
                                       description="longest wait between two tries")
    plugins: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="settings of plugin delivery channels by channel "
        "name; in deepcite.toml as [delivery.NAME] tables")

    @field_validator("plugins")
    @classmethod
    def _channel_spelling(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Channel names as the registry spells them."""
        return {kebab_case(name): item for name, item in value.items()}
