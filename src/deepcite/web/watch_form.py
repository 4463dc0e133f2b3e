"""The new-watch form of the Watches page: what was typed, and the pieces
:meth:`~deepcite.watches.service.WatchService.add` takes.

Only *reading* the form lives here. Every check of what a watch may be - the schedule
(:func:`~deepcite.watches.schedule.parse_schedule`), the delivery targets, the request's
collections and engines - is the service's, so the page and the REST API refuse the same
watches with the same one-line words. What was typed is kept (:class:`WatchFields`) so
a refused form comes back filled in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from starlette.datastructures import FormData

from deepcite.runs import RunRequest
from deepcite.web.page_forms import field_label, page_words

__all__ = ["NO_ATTACHMENT", "WatchFields", "read_fields", "request_of", "targets_of_fields"]

#: The attach choice meaning "email the summary alone".
NO_ATTACHMENT = "none"
#: Longest text field kept from the form (the question has its own, larger cap).
MAX_FIELD_CHARS = 2000
MAX_QUESTION_CHARS = 4000
_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class WatchFields:
    """The new-watch form as typed (trimmed, cut to size), shown again when refused."""

    question: str = ""
    name: str = ""
    mode: str = "quick"
    schedule: str = ""
    collections: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    #: Email addresses, separated by commas or spaces: one email target for all.
    emails: str = ""
    attach: str = "markdown"
    #: Webhook URLs, one a line: one webhook target each.
    webhooks: str = ""


def _text(form: FormData, name: str, limit: int = MAX_FIELD_CHARS) -> str:
    value = form.get(name)
    return value.strip()[:limit] if isinstance(value, str) else ""


def _names(form: FormData, name: str) -> tuple[str, ...]:
    return tuple(v.strip()[:200] for v in form.getlist(name)
                 if isinstance(v, str) and v.strip())


def read_fields(form: FormData) -> WatchFields:
    """What the posted new-watch form says."""
    return WatchFields(
        question=_text(form, "question", MAX_QUESTION_CHARS), name=_text(form, "name", 200),
        mode=_text(form, "mode") or "quick", schedule=_text(form, "schedule", 200),
        collections=_names(form, "collections"), engines=_names(form, "engines"),
        emails=_text(form, "emails"), attach=_text(form, "attach", 32) or NO_ATTACHMENT,
        webhooks=_text(form, "webhooks"))


def request_of(fields: WatchFields) -> tuple[RunRequest | None, list[str]]:
    """The run request the form describes, or ``None`` with the problems to show (in
    the form's words, as the research form says them)."""
    try:
        request = RunRequest.model_validate({
            "question": fields.question, "mode": fields.mode,
            "collections": list(fields.collections), "engines": list(fields.engines),
            "origin": "web"})
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "form"
            problems.append(f"{field_label(where)}: {page_words(str(error['msg']))}")
        return None, problems
    return request, []


def targets_of_fields(fields: WatchFields) -> list[dict[str, Any]]:
    """The delivery targets typed: one email target for every address given (with the
    chosen attachment), one webhook target a URL. Unchecked: the service checks them."""
    targets: list[dict[str, Any]] = []
    addresses = [part for part in _SPLIT.split(fields.emails) if part]
    if addresses:
        attach = None if fields.attach == NO_ATTACHMENT else fields.attach
        targets.append({"kind": "email", "to": addresses, "attach": attach})
    targets.extend({"kind": "webhook", "url": url}
                   for url in (line.strip() for line in fields.webhooks.splitlines()) if url)
    return targets
