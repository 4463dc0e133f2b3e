"""The new-watch form of the Watches page: what was typed, and the pieces
:meth:`~deepcite.watches.service.WatchService.add` takes.

Only *reading* the form lives here. Every check of what a watch may be - the schedule
(:func:`~deepcite.watches.schedule.parse_schedule`), the delivery targets, the request's
collections and engines - is the service's, so the page and the REST API refuse the same
watches with the same one-line words. What was typed is kept (:class:`WatchFields`) so
a refused form comes back filled in.

The delivery fields are the channels' (:mod:`deepcite.watches.channels`): each channel
with a :class:`~deepcite.watches.channels.FormInput` has its field, read here and turned
into its targets by the channel itself, so a plugin channel appears on the form without
a change to this module or the template.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError
from starlette.datastructures import FormData

from deepcite.config import Settings
from deepcite.runs import RunRequest
from deepcite.watches.channels import (
    DeliveryTarget,
    FormInput,
    loaded_channels,
    targets_from_input,
)
from deepcite.web.page_forms import field_label, page_words

__all__ = ["NO_ATTACHMENT", "ChannelInput", "WatchFields", "channel_inputs", "read_fields",
           "request_of", "targets_of_fields"]

#: The attach choice meaning "email the summary alone".
NO_ATTACHMENT = "none"
#: Longest text field kept from the form (the question has its own, larger cap).
MAX_FIELD_CHARS = 2000
MAX_QUESTION_CHARS = 4000


@dataclass(frozen=True)
class ChannelInput:
    """One channel's field on the form, and why this server cannot send on it now."""

    channel: str
    form: FormInput
    unavailable: str | None = None


def channel_inputs(settings: Settings) -> list[ChannelInput]:
    """The delivery fields of the form: every channel that has one, in order."""
    return [ChannelInput(cls.channel(), cls.form, cls.unavailable_reason(settings))
            for cls in loaded_channels() if cls.form is not None and not cls.implicit]


@dataclass(frozen=True)
class WatchFields:
    """The new-watch form as typed (trimmed, cut to size), shown again when refused."""

    question: str = ""
    name: str = ""
    mode: str = "quick"
    schedule: str = ""
    collections: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    #: What was typed in each channel's field, by field name (``emails``: addresses
    #: separated by commas, one email target for all; ``webhooks``: a URL a line).
    deliver: Mapping[str, str] = field(default_factory=dict)
    attach: str = "markdown"

    def typed(self, name: str) -> str:
        """What was typed in the delivery field ``name``."""
        return self.deliver.get(name, "")

    @property
    def delivers(self) -> bool:
        """Whether any delivery field was filled in (the form then opens them)."""
        return any(self.deliver.values())


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
        deliver={cls.form.name: _text(form, cls.form.name) for cls in loaded_channels()
                 if cls.form is not None},
        attach=_text(form, "attach", 32) or NO_ATTACHMENT)


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


def targets_of_fields(fields: WatchFields) -> list[DeliveryTarget]:
    """The delivery targets typed, each channel making its own from its field (one
    email target for every address given, with the chosen attachment; one webhook
    target a URL). Checked against the server's settings by the service."""
    attach = None if fields.attach == NO_ATTACHMENT else fields.attach
    given = {cls.channel(): cls.form.values(fields.typed(cls.form.name))
             for cls in loaded_channels() if cls.form is not None}
    return targets_from_input(given, attach=attach)
