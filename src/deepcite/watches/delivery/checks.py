"""What a watch's delivery targets must be when the watch is made: the checks that
need the settings (:func:`checked_targets`).

The target models (:mod:`deepcite.watches.notice`) check what a value looks like; what
it may be depends on the server, and is checked here, once, for every front end that
makes watches (the web form, the REST API, ``deepcite watch add``), since all of them
go through :meth:`~deepcite.watches.service.WatchService.add`:

* a webhook URL must be one the sender would post to: the webhook egress policy
  (:func:`~deepcite.watches.delivery.webhook.webhook_policy`) decides, the same policy
  and the same function its transport applies at every send - loopback, private and
  shared addresses unless allowed, link-local and metadata addresses never, names that
  resolve to them included;
* an email's ``attach`` is an export format the report is attached in (``markdown``,
  ``pdf``, any spelling or alias the exporters take), stored under its canonical name;
  anything else - a path such as ``../../etc/passwd`` included - is refused.

A refusal is one :class:`~deepcite.errors.InputError` line naming the target and its
field, as the models' own refusals do (``Delivery target 1.url: ...``).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.config import Settings
from deepcite.errors import ConfigError, InputError, error_line
from deepcite.export import EXPORTER_REGISTRY
from deepcite.watches.delivery.webhook import webhook_policy, webhook_refusal
from deepcite.watches.notice import DeliveryTarget, EmailTarget, WebhookTarget

__all__ = ["checked_targets"]


def checked_targets(targets: Sequence[DeliveryTarget], settings: Settings
                    ) -> list[DeliveryTarget]:
    """``targets`` as they are stored (attach formats by their canonical name), or an
    InputError naming the first one the server would never deliver to."""
    policy = webhook_policy(settings) if any(
        isinstance(target, WebhookTarget) for target in targets) else None
    checked: list[DeliveryTarget] = []
    for index, target in enumerate(targets):
        if isinstance(target, WebhookTarget) and policy is not None:
            problem = webhook_refusal(target.url, policy)
            if problem is not None:
                raise InputError(f"Delivery target {index}.url: {problem}")
        elif isinstance(target, EmailTarget) and target.attach is not None:
            target = target.model_copy(update={"attach": _format(index, target.attach)})
        checked.append(target)
    return checked


def _format(index: int, attach: str) -> str:
    """The export format ``attach`` names, by its canonical name."""
    try:
        return EXPORTER_REGISTRY.resolve(attach)
    except ConfigError as exc:
        raise InputError(f"Delivery target {index}.attach: {error_line(exc)} (or none "
                         "for no attachment)") from None
