"""What a run is asked to do: one typed request every front end builds.

The CLI, the Python API, the REST API and the pages, the MCP tools, the queue and the
benchmark runner all describe a run with a :class:`RunRequest`, so a feature a request
can carry (a follow-up, materials, an outline review, budgets) is a field here and
works from every front end at once. The request is data: it is stored with the run
(the queue hands it to a worker, ``deepcite rerun`` runs it again), so it holds names
and values, never functions - an outline review is asked for by a flag and answered by
the front end's sink (:class:`~deepcite.runs.sink.RunSink`).

Every string and list is capped, so a request cannot make the server hold or echo a
megabyte "model name"; whether the names are *known* is checked at submit by
:func:`deepcite.runs.settings.checked_settings` (see :mod:`deepcite.runs.checks`).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from deepcite.collections.collection import validate_name
from deepcite.errors import CollectionError, InputError, MaterialError
from deepcite.materials.limits import MAX_MATERIALS, MAX_TOTAL_CHARS
from deepcite.materials.model import MAX_FIELD_CHARS, MAX_URL_CHARS, UserMaterial
from deepcite.materials.normalize import validate_materials
from deepcite.runs.checks import (
    MAX_COLLECTIONS,
    MAX_ENGINES,
    MAX_MODEL_CHARS,
    MAX_NAME_CHARS,
    MAX_QUESTION_CHARS,
    has_visible_text,
    question_problem,
)
from deepcite.store.read_models import UserInfo
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import ReportMode

__all__ = ["MAX_DOCUMENT_CHARS", "MAX_MATERIAL_PAGES", "MAX_REQUEST_MATERIALS",
           "PER_RUN_SETTINGS", "AnswerMode", "CheckDocument", "Origin", "RunBudget",
           "RunRequest", "per_run_setting"]


def _collection_name(name: str) -> str:
    """A collection name, never a path (``CollectionError`` is not a ValueError, so it is
    turned into one for pydantic to report against the list item)."""
    try:
        return validate_name(name)
    except CollectionError as exc:
        raise ValueError(str(exc)) from None


_Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
_CollectionName = Annotated[str, AfterValidator(_collection_name)]
#: Optional text fields of a material, and their cap (the material model's own).
_MATERIAL_TEXT: dict[str, int] = {"url": MAX_URL_CHARS, "material_id": 64,
                                  "title": MAX_FIELD_CHARS, "publish_time": MAX_FIELD_CHARS,
                                  "content_time": MAX_FIELD_CHARS}
#: Fields a material may have at all (the material model refuses others, by name).
_MATERIAL_FIELDS = len(_MATERIAL_TEXT) + 2  # + content, pages
#: Materials one request may carry: beyond :data:`MAX_MATERIALS` duplicates and extras
#: are dropped with a notice, far beyond it the request is refused.
MAX_REQUEST_MATERIALS = 4 * MAX_MATERIALS
#: Page spans one material may carry (a long PDF has a few thousand pages).
MAX_MATERIAL_PAGES = 20_000

AnswerMode = Literal["auto", "abstractive", "grounded"]
#: Which front end asked for a run (the history can be filtered by it). Set by the
#: front end itself, never taken from a client: the REST API and the pages overwrite it.
#: ``watch``: a run a watch started (on its schedule or by ``watch run``), whichever
#: front end made the watch - its stored request keeps that one.
Origin = Literal["cli", "web", "api", "mcp", "python", "bench", "watch"]

#: What a request may set besides its named fields: whole sections that shape the
#: research and its writing (``research.``, ``report.``, ``citations.``) and the search
#: filters. Never where data is kept, the model's server, the egress policy, the engines'
#: keys or URLs: a request from the web must not redirect the server.
PER_RUN_SETTINGS = frozenset({
    "research.*", "report.*", "citations.*", "search.since", "search.until",
    "search.include_domains", "search.exclude_domains", "search.fetch_full_text",
    "search.max_results"})


def per_run_setting(key: str) -> bool:
    """Whether dotted setting ``key`` may be chosen by a request."""
    section = key.split(".", 1)[0]
    return key in PER_RUN_SETTINGS or (f"{section}.*" in PER_RUN_SETTINGS and "." in key)


class RunOwner(BaseModel):
    """The user a run belongs to, set by the server from who asked (never by the
    client: every front end overwrites it), and carried to the worker of a queued run.

    It names the user; it never says what they may do. What a run may read is decided
    by :func:`deepcite.runs.admission.admit` from the account as it is *now* (admin or
    not, disabled, removed), looked up in the store each time a run is admitted - at
    submit, again when a worker takes a queued run, and for every run of a watch - so
    a stored request cannot keep rights its owner has lost.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    name: str = Field(max_length=200)
    #: Written into requests stored before the owner was looked up at admission; still
    #: read (so those requests parse), never trusted and never written again.
    admin: bool = Field(default=False, exclude=True)

    @property
    def access(self) -> Access:
        """What this owner may see as a user (never as an admin: whether they are one
        is the store's to say, at admission)."""
        return Access(user_id=self.id, name=self.name)

    @classmethod
    def of(cls, user: UserInfo | None) -> RunOwner | None:
        """The owner of the runs ``user`` starts (``None``: no one in particular)."""
        if user is None:
            return None
        return cls(id=user.id, name=user.name)


class RunBudget(BaseModel):
    """Limits of one run (``research.max_*``); ``None`` keeps the configured limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_model_calls: int | None = Field(default=None, ge=1, le=10_000)
    max_tokens: int | None = Field(default=None, ge=100, le=100_000_000)
    max_seconds: float | None = Field(default=None, gt=0, le=86_400)
    max_searches: int | None = Field(default=None, ge=1, le=10_000)

    def limits(self) -> dict[str, int | float]:
        """The limits this budget sets, by their ``research.*`` name."""
        return {name: value for name, value in self.model_dump().items()
                if value is not None}


#: Characters of a document one check may check (about forty pages of prose): every
#: claim in it is researched, so a longer text is split and checked in parts.
MAX_DOCUMENT_CHARS = 100_000
#: Characters of a checked document's title and of its file name.
MAX_DOCUMENT_TITLE_CHARS = 300
MAX_FILENAME_CHARS = 255
#: Control characters a document may keep (others become spaces: see CheckDocument).
_DOCUMENT_CONTROLS = frozenset("\t\n\r")
#: Characters of a check's label in the history (its title's in full, up to 200), the
#: start of its first line cut at a word when it has no title or file name.
_LABEL_CHARS = 200
_FIRST_LINE_CHARS = 80


class CheckDocument(BaseModel):
    """The document a check (``mode="check"``) verifies claim by claim: its text, and
    the title or file name it is known by.

    The text is kept with the run (in its stored request), so the check can be shown
    again, run again (``deepcite rerun``) and compared with a later version
    (``previous``). Claims point into it by character offsets, so it is never reflowed:
    a control character other than tab and line ends (a PDF's form feed between pages)
    becomes one space - same length, same offsets - rather than refusing a document
    for what a converter left in it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Capped by :data:`MAX_DOCUMENT_CHARS` with a message saying what to do; pydantic's
    #: own cap far above it only so that a huge body is never scanned.
    text: str = Field(min_length=1, max_length=8 * MAX_DOCUMENT_CHARS)
    title: Annotated[str, Field(max_length=MAX_DOCUMENT_TITLE_CHARS)] | None = None
    #: The uploaded file's name (never a path: only its last part is kept).
    filename: Annotated[str, Field(max_length=4 * MAX_FILENAME_CHARS)] | None = None

    @field_validator("text")
    @classmethod
    def _checkable(cls, value: str) -> str:
        if len(value) > MAX_DOCUMENT_CHARS:
            raise ValueError(f"The document is {len(value):,} characters; at most "
                             f"{MAX_DOCUMENT_CHARS:,} are checked at once - split it and "
                             "check each part")
        if not has_visible_text(value):
            raise ValueError("The document is empty - it has no text to check")
        return "".join(" " if unicodedata.category(char) == "Cc"
                       and char not in _DOCUMENT_CONTROLS else char for char in value)

    @field_validator("title")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        folded = " ".join(value.split()) if value is not None else ""
        return folded or None

    @field_validator("filename")
    @classmethod
    def _base_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = value.replace("\\", "/").rsplit("/", 1)[-1].strip()
        name = "".join(char for char in name if unicodedata.category(char)[0] != "C")
        return name[:MAX_FILENAME_CHARS] or None

    @property
    def label(self) -> str:
        """What the check is called in the history: its title, else its file name,
        else the start of its first line."""
        if self.title:
            return self.title[:_LABEL_CHARS]
        if self.filename:
            return self.filename
        first = next((line for line in self.text.splitlines() if line.strip()), "")
        first = " ".join(first.lstrip("#>*- ").split())
        if len(first) > _FIRST_LINE_CHARS:
            first = first[:_FIRST_LINE_CHARS].rsplit(" ", 1)[0] + "…"
        return first or "document"


class RunRequest(BaseModel):
    """One research request: the question and everything a caller may choose for it.

    ``materials`` are the user's own documents (cited like any source); ``parent_id``
    makes the run a follow-up of a stored run (a quick answer that builds on it);
    ``review_outline`` asks the front end to approve the outline of a detailed report
    before the parts are written; ``budget``, ``answer_mode``, ``settings`` and the
    named fields override the settings for this run only (see :func:`deepcite.runs.settings.
    settings_for_run`).
    """

    model_config = ConfigDict(extra="forbid")

    #: Capped by :func:`~deepcite.runs.checks.question_problem` (whitespace folded),
    #: with pydantic's cap far above it only so a megabyte never reaches the check.
    question: str = Field(min_length=1, max_length=64 * MAX_QUESTION_CHARS)
    mode: ReportMode = "quick"
    strategy: _Name | None = None
    handler: _Name | None = None
    engines: list[_Name] = Field(default_factory=list, max_length=MAX_ENGINES)
    collections: list[_CollectionName] = Field(default_factory=list,
                                               max_length=MAX_COLLECTIONS)
    provider: _Name | None = None
    model: Annotated[str, Field(min_length=1, max_length=MAX_MODEL_CHARS)] | None = None
    iterations: int | None = Field(default=None, ge=1, le=20)
    #: The user's materials: :class:`~deepcite.materials.UserMaterial` objects (or the
    #: ``{url, content, material_id?, title?, ...}`` mappings they are read from).
    materials: list[UserMaterial] = Field(default_factory=list,
                                          max_length=MAX_REQUEST_MATERIALS)
    #: ``False``: the materials are ignored, with a notice (a switch a UI can offer).
    materials_enabled: bool = True
    #: The stored run this one follows up (its full id): a quick answer's parent, or
    #: the previous check of a document check's earlier version.
    parent_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    review_outline: bool = False
    budget: RunBudget | None = None
    #: The document a check checks (``mode="check"``, and only then).
    document: CheckDocument | None = None
    answer_mode: AnswerMode | None = None
    #: Other settings for this run only, by dotted key (``{"search.since": "2024-01-01",
    #: "report.max_sections": 3}``); only :data:`PER_RUN_SETTINGS` may be given.
    settings: dict[str, Any] = Field(default_factory=dict, max_length=64)
    origin: Origin = "python"
    #: Whose run it is (``None``: no accounts). Set by the server, like ``origin``.
    owner: RunOwner | None = None

    @model_validator(mode="before")
    @classmethod
    def _check_label(cls, data: Any) -> Any:
        """A check needs no question: it is labelled from its document."""
        if not isinstance(data, dict) or data.get("question") or data.get("mode") != "check":
            return data
        document = data.get("document")
        try:  # without a usable document, the document's own field says what is wrong
            label = (document if isinstance(document, CheckDocument)
                     else CheckDocument.model_validate(document)).label
        except ValidationError:
            label = "document"
        return {**data, "question": f"Check: {label}"}

    @field_validator("settings")
    @classmethod
    def _per_run(cls, value: dict[str, Any]) -> dict[str, Any]:
        for key in value:
            if not per_run_setting(key):
                raise ValueError(
                    f"settings: {key!r} cannot be chosen per run - per-run settings are "
                    f"{', '.join(sorted(PER_RUN_SETTINGS))}; the others are the "
                    "operator's (deepcite.toml, DEEPCITE_* variables)")
        return value

    @field_validator("question")
    @classmethod
    def _has_text(cls, value: str) -> str:
        problem = question_problem(value)  # the same test as every front end
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("materials", mode="before")
    @classmethod
    def _material_sizes(cls, value: Any) -> Any:
        """Size caps before anything is parsed; what a material must hold is checked by
        the material model (and its duplicates are dropped, with notices, at the run)."""
        if not isinstance(value, list):
            return value
        total = 0
        for number, item in enumerate(value, 1):
            fields = item.model_dump() if isinstance(item, UserMaterial) else item
            if not isinstance(fields, dict):
                continue
            if len(fields) > _MATERIAL_FIELDS:
                raise ValueError(f"material {number} has {len(fields)} fields; a material "
                                 f"has at most {_MATERIAL_FIELDS}")
            for key, most in _MATERIAL_TEXT.items():
                text = fields.get(key)
                if isinstance(text, str) and len(text) > most:
                    raise ValueError(f"material {number}: {key} is longer than {most:,} "
                                     "characters")
            content = fields.get("content")
            total += len(content) if isinstance(content, str) else 0
            pages = fields.get("pages")
            if isinstance(pages, list) and len(pages) > MAX_MATERIAL_PAGES:
                raise ValueError(f"material {number} has {len(pages):,} pages; at most "
                                 f"{MAX_MATERIAL_PAGES:,}")
        if total > MAX_TOTAL_CHARS:
            raise ValueError(f"the materials hold more than {MAX_TOTAL_CHARS:,} characters "
                             "of content together - hand in fewer or shorter ones")
        try:  # the message names the material (``Material 3 (notes.md): ...``)
            return validate_materials(value)
        except MaterialError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _fits_mode(self) -> RunRequest:
        if self.parent_id is not None and self.mode == "detailed":
            raise ValueError("a follow-up builds a quick answer on a stored run; ask a "
                             "detailed report as a new question instead")
        if self.review_outline and self.mode != "detailed":
            raise ValueError("review_outline is for detailed reports (mode detailed)")
        if self.mode == "check" and self.document is None:
            raise ValueError("document: a check (mode check) needs the document to check "
                             "- give its text, or use POST /api/v1/checks")
        if self.document is not None and self.mode != "check":
            raise ValueError("document: a document is checked with mode check, not "
                             f"{self.mode}")
        return self

    @classmethod
    def parse(cls, **fields: Any) -> RunRequest:
        """A request from keyword fields, its first problem as one line: an
        :class:`~deepcite.errors.InputError` (``iterations: ...``), or a
        :class:`~deepcite.errors.MaterialError` naming the material - for front ends
        that report errors to a person rather than as a 422."""
        try:
            return cls.model_validate(fields)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            message = str(problem["msg"]).removeprefix("Value error, ")
            if where == "materials":  # the message names the material already
                raise MaterialError(message) from None
            if problem["type"] == "value_error" or not where:  # ours name their field
                raise InputError(message) from None
            raise InputError(f"{where}: {message}") from None

    @property
    def access(self) -> Access:
        """What the run's owner may see (everything on a server without accounts)."""
        return self.owner.access if self.owner is not None else EVERYTHING

    @property
    def owner_id(self) -> int | None:
        """The id of the user the run belongs to (``None``: no one)."""
        return self.owner.id if self.owner is not None else None

    def asked_by(self, origin: Origin, owner: RunOwner | None) -> RunRequest:
        """This request as the server records it: from front end ``origin``, owned by
        ``owner`` - whatever the client sent for either."""
        return self.model_copy(update={"origin": origin, "owner": owner})

    def stored(self) -> dict[str, Any]:
        """The request as JSON-ready data, kept with the run (``deepcite rerun``).

        The materials are left out: their text is the user's, handed in for one
        request, and the history (a file users copy and share) never keeps it - the
        run's sources still name them by id, title and url."""
        return self.model_dump(mode="json", exclude_defaults=True, exclude={"materials"})

    def queued(self) -> dict[str, Any]:
        """The request as JSON-ready data for the worker that will run it, materials
        included (a queued run cannot be done without them)."""
        return self.model_dump(mode="json", exclude_defaults=True)
