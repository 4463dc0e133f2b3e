"""What a user material is, and why one is refused.

A material is a document the user hands in with the request: its ``content`` is the
only text the run will ever use, and its ``url`` only names it - for citations, for
deduplication and for the reader - and is never fetched. So the url must be something a
reader can follow without surprise: an absolute local path (POSIX ``/...`` or Windows
``C:\\...``) or an http(s) URL with a host. ``javascript:``, ``data:``, ``file:``,
relative paths and anything else are refused, because a url ends up as a link in
reports.

Validation messages are one line and say which field is wrong; the caller that knows
the material's position (:func:`~deepcite.materials.normalize_materials`) prefixes it,
giving ``Material 3 (notes.md): url must be an absolute path or an http(s) URL, not
'javascript:alert(1)'``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from deepcite.errors import MaterialError
from deepcite.search.urls import source_url_problem
from deepcite.security.terminal import one_line

_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Ids appear in prompts as ``[M1]`` and in citations: letters, digits, ``_ . : -``.
_ID = re.compile(r"^[^\W][\w.:-]{0,63}$")
MAX_URL_CHARS = 4096
MAX_FIELD_CHARS = 1000

DropReason = Literal["duplicate_material_id", "duplicate_url", "duplicate_content", "over_limit"]


def shown(value: str, limit: int = 40) -> str:
    """``value`` quoted for a message: one line, at most ``limit`` characters."""
    text = one_line(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def is_local_path(url: str) -> bool:
    """Whether ``url`` is an absolute local path (POSIX ``/x`` or Windows ``C:\\x``)."""
    return (url.startswith("/") and not url.startswith("//")) or bool(_WINDOWS_PATH.match(url))


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot name a material (``None`` when it can)."""
    if not url:
        return "url is required"
    if len(url) > MAX_URL_CHARS:
        return f"url is longer than {MAX_URL_CHARS:,} characters"
    if _CONTROL.search(url):
        return f"url contains control characters: {shown(url)}"
    if is_local_path(url):
        return None
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in ("http", "https") and source_url_problem(url) is None:
        return None
    return f"url must be an absolute path or an http(s) URL, not {shown(url)}"


class PageSpan(BaseModel):
    """Where page ``page`` (1-based) lies in a material's content: ``content[start:end]``.

    Materials loaded from paged files (PDF, EPUB) carry one per page, so a citation of
    a passage can name the page it came from.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    page: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> PageSpan:
        if self.end < self.start:
            raise ValueError(f"page {self.page} ends ({self.end}) before it starts ({self.start})")
        return self


class UserMaterial(BaseModel):
    """A document handed in with a request, used as evidence and cited like any source.

    ``url`` names it (never fetched); ``content`` is its whole text (required, not
    blank; kept exactly as given so that ``pages`` offsets stay valid); the other
    fields are optional strings - ``material_id`` is the id it is cited and bound by
    (``M1``, ``M2`` ... when absent), ``publish_time`` when it was published,
    ``content_time`` the period it covers. Blank optional strings count as absent.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    content: str
    material_id: str | None = None
    title: str | None = None
    publish_time: str | None = None
    content_time: str | None = None
    pages: list[PageSpan] = Field(default_factory=list)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip()
        problem = url_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content is empty")
        return value

    @field_validator("material_id")
    @classmethod
    def _material_id(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if not _ID.match(value):
            raise ValueError(
                f"material_id must be 1-64 letters, digits, '_', '.', ':' or '-', "
                f"not {shown(value)}"
            )
        return value

    @field_validator("title", "publish_time", "content_time")
    @classmethod
    def _optional_text(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if len(value) > MAX_FIELD_CHARS:
            raise ValueError(f"is longer than {MAX_FIELD_CHARS:,} characters")
        return value.strip()

    @model_validator(mode="after")
    def _spans_inside(self) -> UserMaterial:
        for span in self.pages:
            if span.end > len(self.content):
                raise ValueError(
                    f"pages: page {span.page} ends at {span.end:,}, beyond the content "
                    f"({len(self.content):,} characters)"
                )
        return self

    @property
    def label(self) -> str:
        """How messages name this material: its id, else its file name or url."""
        return self.material_id or url_label(self.url)


class DroppedMaterial(BaseModel):
    """A material left out by :func:`~deepcite.materials.normalize_materials`.

    ``index`` is its 0-based position in the input list; ``reason`` says why. Nothing
    of its content is kept, so the record is safe to log and store.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    reason: DropReason


def url_label(url: str) -> str:
    """A short name for a url: a local file's name, or the url itself (cut to 60)."""
    if is_local_path(url):
        name = re.split(r"[\\/]", url.rstrip("\\/"))[-1]
        if name:
            return one_line(name)
    text = one_line(url)
    return text if len(text) <= 60 else text[:57] + "..."


def _label(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("material_id", "url"):
            value = item.get(key)
            if isinstance(value, str) and value.strip():
                return url_label(value.strip()) if key == "url" else one_line(value.strip())[:64]
    return ""


def _describe(error: dict[str, Any]) -> str:
    field = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "is not valid"))
    kind = error.get("type")
    if message.startswith("Value error, "):
        message = message.removeprefix("Value error, ")
        return message if not field or message.startswith(field.split(".")[0]) else (
            f"{field} {message}")
    if kind == "missing":
        return f"{field} is required"
    if kind == "extra_forbidden":
        return f"unknown field {shown(field)}"
    return f"{field}: {message[0].lower() + message[1:]}" if field else message


def validation_message(error: ValidationError) -> str:
    """The first problem of ``error`` as one line; a count of the others, if any."""
    problems = error.errors()
    first = _describe(dict(problems[0])) if problems else "is not valid"
    more = len(problems) - 1
    return first + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def validate_material(item: Any, index: int) -> UserMaterial:
    """``item`` (a :class:`UserMaterial` or a mapping) as a material, or :class:`MaterialError`.

    ``index`` is the 0-based position; the message says ``Material <index + 1>``.
    """
    if isinstance(item, UserMaterial):
        return item
    if not isinstance(item, Mapping):
        raise MaterialError(
            f"Material {index + 1}: expected an object with url and content, "
            f"not {type(item).__name__}"
        )
    item = dict(item)
    label = _label(item)
    prefix = f"Material {index + 1}" + (f" ({label})" if label else "")
    try:
        return UserMaterial.model_validate(item)
    except ValidationError as exc:
        raise MaterialError(f"{prefix}: {validation_message(exc)}") from None
