"""Delivery channels: one class per way a watch's notices reach someone.

A channel is a subclass of :class:`DeliveryTarget`, a pydantic model whose fields are
where one watch sends (an email target's addresses, a webhook's URL) and whose class
says everything else about the channel, so that adding one is adding that class:

- its **name**, the default of its ``kind`` field (``kind: Literal["pager"] =
  "pager"``), also the ``kind`` stored with the target and with each delivery;
- how a target is **read** from what a person typed (:meth:`~DeliveryTarget.from_input`:
  the values of ``--deliver NAME=VALUE`` / ``--email`` on the command line, the lines of
  its field in the web form (:attr:`~DeliveryTarget.form`)) and from JSON (its fields,
  validated by pydantic: the REST API, the stored watch);
- how it is **checked** against the server's settings when a watch is made
  (:meth:`~DeliveryTarget.checked`: a webhook URL the egress policy refuses, an
  attachment that is no export format), each refusal one line naming the target and
  field (``Delivery target 1.url: ...``);
- how it is **shown** (:meth:`~DeliveryTarget.shown` on the watch's page,
  :meth:`~DeliveryTarget.where` on the command line);
- how it **sends** (:meth:`~DeliveryTarget.sender`: a :class:`Sender` built once per
  process from the settings, or ``None`` where this process cannot send; by default
  one that calls the target's own :meth:`~DeliveryTarget.send`).

Channels are named through :class:`deepcite.plugins.Registry` (:data:`CHANNELS`): the
built-ins ``email``, ``webhook`` and ``atom`` (the feed every watch has, read rather
than sent: :attr:`~DeliveryTarget.implicit`) and plugins of the
``deepcite.delivery_channels`` entry point group, through the same mechanism. The CLI,
the web form, the REST API, the service and the scheduler know channels only through
this module, so a new one is usable from all of them without touching them
(``docs/watch-delivery.md``, "Adding a channel").

What is stored is unchanged: a watch's targets are the models' JSON (``{"kind":
"webhook", "url": ...}``), each delivery its ``kind`` and that JSON; they are read
back into the channel's class here (:func:`parse_target`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from deepcite.config import Settings
from deepcite.errors import ConfigError, DeliveryError, InputError, error_line
from deepcite.plugins import DELIVERY_CHANNELS_GROUP, Registry, table_options
from deepcite.watches.notice import MAX_TARGETS, Notice

__all__ = [
    "CHANNELS",
    "Attachment",
    "DeliveryTarget",
    "FormInput",
    "SecretFor",
    "SendContext",
    "Sender",
    "TargetField",
    "TargetProblem",
    "channel_class",
    "channel_names",
    "check_channel_tables",
    "checked_targets",
    "loaded_channels",
    "parse_target",
    "senders_from_settings",
    "targets_from_input",
    "targets_of",
]

logger = logging.getLogger(__name__)

Attachment = tuple[str, bytes]
"""``(filename, content)`` of a report export sent with a notice."""

SecretFor = Callable[[str], str | bytes | None]
"""``secret_for(watch_id)``: the watch's webhook secret, or ``None`` when it has none."""

_LINES = re.compile(r"\n")


class Sender(Protocol):
    """Sends one notice to one target; the watch store calls it once per attempt.

    ``send`` returns once the target has the notice (the SMTP server took the mail, the
    webhook answered 2xx) and raises :class:`deepcite.errors.DeliveryError` otherwise,
    its ``retryable`` saying whether a later attempt may succeed. It never retries by
    itself: attempts, backoff and the outbox are the store's
    (:func:`deepcite.watches.delivery.retry.next_attempt`).
    """

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None: ...


@dataclass(frozen=True)
class SendContext:
    """What a channel's sender is built from: the process's settings, and the watch
    store's lookup of each watch's signing secret."""

    settings: Settings
    secret_for: SecretFor


@dataclass(frozen=True)
class FormInput:
    """How the web form asks for a channel's targets: one text field.

    ``name`` is the form field's name, ``label`` and ``hint`` what it says, ``phrase``
    how the form's introduction names the channel ("It can also send each change by
    email"); what is typed is cut into values by ``split`` (a line each by default) and
    handed to the channel's :meth:`DeliveryTarget.from_input`. With ``attachment`` the
    form's "Attach the report as" choice follows the field and is passed as ``attach``.
    """

    name: str
    label: str
    hint: str = ""
    phrase: str = ""
    multiline: bool = True
    split: re.Pattern[str] = _LINES
    autocomplete: str = "off"
    attachment: bool = False

    def values(self, text: str) -> list[str]:
        """The values typed in the field, blanks dropped."""
        return [part.strip() for part in self.split.split(text) if part.strip()]


class TargetProblem(ValueError):
    """Why :meth:`DeliveryTarget.checked` refuses a target: ``field`` and one line,
    said as ``Delivery target <index>.<field>: <message>``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class DeliveryTarget(BaseModel):
    """One place a watch sends its notices to; its class is the channel.

    Subclasses declare ``kind: Literal["<name>"] = "<name>"`` and their fields, and
    override what differs from the defaults below (see the module docstring).
    """

    model_config = ConfigDict(extra="forbid")

    kind: str

    #: What the channel is, for listings and the docs.
    description: ClassVar[str] = ""
    #: How the web form asks for targets (``None``: the form does not offer it).
    form: ClassVar[FormInput | None] = None
    #: The field one typed value fills (:meth:`from_input`'s default).
    input_field: ClassVar[str | None] = None
    #: Its sends are signed with the watch's secret, shown to the owner once.
    signed: ClassVar[bool] = False
    #: A channel every watch has and that is read, not sent (the Atom feed): it has no
    #: targets, and nothing is queued for it.
    implicit: ClassVar[bool] = False
    #: The model of a plugin channel's own settings, the ``[delivery.<name>]`` table
    #: of ``deepcite.toml`` (:meth:`options`); ``None``: it takes no table.
    settings_model: ClassVar[type[BaseModel] | None] = None

    # ------------------------------------------------------------------ the name

    @classmethod
    def channel(cls) -> str:
        """The channel's name: the default of its ``kind`` field."""
        default = cls.model_fields["kind"].default
        return default if isinstance(default, str) else ""

    @classmethod
    def options(cls, settings: Settings) -> BaseModel | None:
        """The channel's validated ``[delivery.<name>]`` table as its
        :attr:`settings_model` (its defaults when there is none); ``None`` for a
        channel without one. ConfigError, one line naming the key, when it is bad."""
        if cls.settings_model is None:
            return None
        name = cls.channel()
        return table_options(settings.delivery.plugins.get(name, {}), f"delivery.{name}",
                             f"delivery channel {name!r}", cls.settings_model)

    # ------------------------------------------------------------------ reading

    @classmethod
    def from_input(cls, values: Sequence[str], *, attach: str | None = None
                   ) -> Iterator[DeliveryTarget]:
        """Targets from values a person typed (``--deliver NAME=VALUE``, a form line):
        by default one target per value, filling :attr:`input_field`. ``attach`` is the
        export format asked for attachments (channels that attach nothing ignore it).
        A value that does not validate raises pydantic's ValidationError."""
        if cls.input_field is None:
            raise TargetProblem("kind", f"the {cls.channel()} channel takes no typed "
                                "values - give its targets as JSON (the REST API)")
        for value in values:
            yield cls.model_validate({"kind": cls.channel(), cls.input_field: value})

    def checked(self, settings: Settings) -> DeliveryTarget:
        """This target as stored, or :class:`TargetProblem` when the server would never
        deliver to it with ``settings`` (by default: as it is)."""
        return self

    # ------------------------------------------------------------------ showing

    def where(self) -> str:
        """Where it sends, as the command line shows it (an address, a URL)."""
        if self.input_field is not None:
            return str(getattr(self, self.input_field, ""))
        return ""

    def shown(self) -> str:
        """One line for the watch's page: ``<channel> <where>`` by default."""
        return f"{self.channel()} {self.where()}".strip()

    def attachment_format(self) -> str | None:
        """The export format a report is attached in (``None``: no attachment)."""
        return None

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """Why this server cannot send on the channel now (deliveries then wait,
        visibly pending), or ``None``; shown beside its form field."""
        return None

    # ------------------------------------------------------------------ sending

    @classmethod
    def sender(cls, context: SendContext) -> Sender | None:
        """The channel's sender in this process, or ``None`` when it cannot send here
        (its deliveries wait for a process that can). ConfigError for unusable
        settings. By default one that calls :meth:`send` on each target."""
        return _SelfSending(context)

    def send(self, notice: Notice, *, attachment: Attachment | None,
             context: SendContext) -> None:
        """Deliver ``notice`` here, or raise :class:`DeliveryError` (its ``retryable``
        says whether a later attempt may pass). Used by the default :meth:`sender`."""
        raise DeliveryError(f"the {self.channel()} channel has no way to send")


class _SelfSending:
    """The default sender: each target sends itself."""

    def __init__(self, context: SendContext) -> None:
        self.context = context

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None:
        target.send(notice, attachment=attachment, context=self.context)


# ---------------------------------------------------------------------- registry


def _channel_class(name: str, obj: object) -> type[DeliveryTarget]:
    """``obj`` as a channel class, or a ConfigError saying why it is not one."""
    if isinstance(obj, type) and issubclass(obj, DeliveryTarget):
        if obj.channel() == name:
            return obj
        problem = (f"its kind field defaults to {obj.channel()!r}, not {name!r} - declare "
                   f"kind: Literal[{name!r}] = {name!r}")
    else:
        problem = "it is not a subclass of deepcite.watches.channels.DeliveryTarget"
    raise ConfigError(f"The delivery channel {name!r} ({CHANNELS.origin(name)}) is not "
                      f"a channel: {problem}")


#: The built-in channels, imported on first use.
BUILTIN_CHANNELS: dict[str, str] = {
    "email": "deepcite.watches.delivery.email:EmailTarget",
    "webhook": "deepcite.watches.delivery.webhook:WebhookTarget",
    "atom": "deepcite.watches.delivery.atom:AtomFeed",
}

CHANNELS: Registry[type[DeliveryTarget]] = Registry(
    "delivery channel", group=DELIVERY_CHANNELS_GROUP, builtins=BUILTIN_CHANNELS,
    check=_channel_class, hint="See docs/watch-delivery.md")
"""Every delivery channel; see :class:`deepcite.plugins.Registry`."""


def channel_names() -> list[str]:
    """Every channel's name: built-ins in order (email, webhook, atom), then plugins."""
    return CHANNELS.names()


def channel_class(name: str) -> type[DeliveryTarget]:
    """The channel ``name``; InputError naming the closest ones when unknown."""
    try:
        return CHANNELS.load(name)
    except ConfigError as exc:
        raise InputError(error_line(exc)) from None


def loaded_channels() -> list[type[DeliveryTarget]]:
    """Every channel that loads (a plugin that cannot is logged and left out)."""
    found = []
    for name in channel_names():
        try:
            found.append(CHANNELS.load(name))
        except ConfigError as exc:
            logger.error("delivery channel %s left out: %s", name, error_line(exc))
    return found


# ---------------------------------------------------------------------- parsing


def _where(index: int, error: ValidationError) -> str:
    problem = error.errors()[0]
    loc = ".".join(str(part) for part in problem["loc"])
    message = str(problem["msg"]).removeprefix("Value error, ")
    return f"Delivery target {index}{'.' + loc if loc else ''}: {message}"


def parse_target(data: Mapping[str, Any] | DeliveryTarget, index: int = 0
                 ) -> DeliveryTarget:
    """A target from its JSON (a stored one, a REST body's): the class of its ``kind``
    validates the rest. InputError naming the target and field otherwise."""
    if isinstance(data, DeliveryTarget):
        return data
    if not isinstance(data, Mapping):
        raise InputError(f"Delivery target {index}: an object with a kind, e.g. "
                         '{"kind": "webhook", "url": "https://..."}')
    kind = data.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError(f"Delivery target {index}.kind: missing - one of "
                         f"{', '.join(channel_names())}")
    try:
        cls = CHANNELS.load(kind)
    except ConfigError as exc:
        raise InputError(f"Delivery target {index}.kind: {error_line(exc)}") from None
    try:
        return cls.model_validate({**data, "kind": cls.channel()})
    except ValidationError as exc:
        raise InputError(_where(index, exc)) from None


def targets_of(data: Sequence[Mapping[str, Any] | DeliveryTarget]) -> list[DeliveryTarget]:
    """Targets from JSON-ready data (or typed already); an InputError naming the first
    bad one."""
    if len(data) > MAX_TARGETS:
        raise InputError(f"A watch has at most {MAX_TARGETS} delivery targets, not "
                         f"{len(data)}")
    return [parse_target(item, index) for index, item in enumerate(data)]


def targets_from_input(given: Mapping[str, Sequence[str]], *, attach: str | None = None
                       ) -> list[DeliveryTarget]:
    """The targets of typed values by channel name (``{"email": [...], "webhook":
    [...]}``), in the channels' order; InputError naming the first bad one."""
    wanted = {CHANNELS.canonical(name): list(values) for name, values in given.items()
              if values}
    order = [name for name in channel_names() if name in wanted]
    order += [name for name in wanted if name not in order]  # unknown: refused below
    targets: list[DeliveryTarget] = []
    for name in order:
        cls = channel_class(name)
        if cls.implicit:
            raise InputError(f"Every watch has its {name} channel already - nothing to add "
                             f"(remove {name}=...)")
        produced = iter(cls.from_input(wanted[name], attach=attach))
        while True:
            try:
                target = next(produced)
            except StopIteration:
                break
            except ValidationError as exc:
                raise InputError(_where(len(targets), exc)) from None
            except TargetProblem as exc:
                raise InputError(f"Delivery target {len(targets)}.{exc.field}: "
                                 f"{exc.message}") from None
            targets.append(target)
    return targets


def checked_targets(targets: Sequence[DeliveryTarget], settings: Settings
                    ) -> list[DeliveryTarget]:
    """``targets`` as they are stored (each channel's :meth:`~DeliveryTarget.checked`),
    or an InputError naming the first one the server would never deliver to."""
    checked = []
    for index, target in enumerate(targets):
        if target.implicit:
            raise InputError(f"Delivery target {index}.kind: every watch has its "
                             f"{target.channel()} channel already - remove this target")
        try:
            checked.append(target.checked(settings))
        except TargetProblem as exc:
            raise InputError(f"Delivery target {index}.{exc.field}: {exc.message}") from None
    return checked


def senders_from_settings(settings: Settings, *, secret_for: SecretFor
                          ) -> dict[str, Sender]:
    """The senders by channel name of the channels that can send from this process
    (email only when ``delivery.smtp_host`` is set). ConfigError for settings a
    built-in channel cannot use and for a ``[delivery.<name>]`` table no channel takes;
    a plugin that fails is logged and left out."""
    check_channel_tables(settings)
    context = SendContext(settings, secret_for)
    senders: dict[str, Sender] = {}
    for name in channel_names():
        try:
            sender = CHANNELS.load(name).sender(context)
        except ConfigError as exc:
            if CHANNELS.is_builtin(name):
                raise
            logger.error("delivery channel %s sends nothing from here: %s", name,
                         error_line(exc))
            continue
        if sender is not None:
            senders[name] = sender
    return senders


def check_channel_tables(settings: Settings) -> None:
    """Every ``[delivery.<name>]`` table belongs to a channel that takes one, and is
    valid (a table for no channel - a typo, an uninstalled plugin - is an error, not
    silently ignored)."""
    for name in settings.delivery.plugins:
        if name not in CHANNELS:
            raise ConfigError(f"The settings have a [delivery.{name}] table but no delivery "
                              f"channel is called {name!r} - {CHANNELS.unknown_message(name)}")
        cls = CHANNELS.load(name)
        if cls.settings_model is None:
            raise ConfigError(f"The delivery channel {name!r} takes no [delivery.{name}] "
                              "table - remove it")
        cls.options(settings)


# ---------------------------------------------------------------------- REST


class _AnyChannel:
    """Pydantic hooks of :data:`TargetField` (see there)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _validated, serialization=core_schema.plain_serializer_function_ser_schema(
                _dumped, when_used="always"))

    def __get_pydantic_json_schema__(self, schema: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        shapes = [handler(model.__pydantic_core_schema__)
                  for model in loaded_channels() if not model.implicit]
        return {"oneOf": shapes, "description": "A delivery target: its kind names the "
                "channel (docs/watch-delivery.md)"}


TargetField = Annotated[DeliveryTarget, _AnyChannel()]
"""The pydantic type of a target in a request body (``list[TargetField]``): any
channel's JSON, validated by the class its ``kind`` names (a typed
:class:`DeliveryTarget` after validation), serialised whole, and described in the
OpenAPI schema as one of the channels' shapes."""


def _validated(value: object) -> DeliveryTarget:
    try:
        return parse_target(value)  # type: ignore[arg-type]  # checked inside
    except InputError as exc:
        message = str(exc)
        for prefix in ("Delivery target 0.", "Delivery target 0: "):
            message = message.removeprefix(prefix)
        raise ValueError(message) from None


def _dumped(value: DeliveryTarget) -> dict[str, Any]:
    return value.model_dump(mode="json")
