"""The REST API of watches (``/api/v1/watches``): create, list, show, pause, resume,
delete, run now, read each run's change, and make a new feed token or webhook secret.

Every route goes through :class:`~deepcite.watches.service.WatchService` with the
caller's :class:`~deepcite.store.user_rights.Access`: a user sees and changes only their own
watches (another user's is 404 ``unknown_watch``, as for one that never existed), an
admin everyone's. A watch's request is stamped with who asked (``asked_by``), whatever
the client sent, so its runs are the owner's. A budget used up is 429
``budget_exceeded``; a bad schedule or target 422 ``invalid_request``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from deepcite.errors import BudgetError, InputError, RequestError, UnknownWatchError
from deepcite.runs import RunRequest
from deepcite.store.watch_records import WatchInfo, WatchRunInfo
from deepcite.watches.channels import TargetField
from deepcite.watches.notice import MAX_TARGETS
from deepcite.watches.service import WatchService, feed_path
from deepcite.web.contracts import WebState
from deepcite.web.rest.common import ApiError, AskedBy, State, history_store

_T = TypeVar("_T")


class WatchCreate(BaseModel):
    """``POST /watches``: the request to run, when, and where to send what changed."""

    model_config = ConfigDict(extra="forbid")

    request: RunRequest
    #: ``every 6h``, a 5-field cron expression (UTC), or ``on demand``.
    schedule: str = Field(min_length=1, max_length=200)
    #: Any channel's target: ``{"kind": "webhook", "url": ...}``, ``{"kind": "email",
    #: "to": [...], "attach": "pdf"}`` or a plugin channel's (``docs/watch-delivery.md``).
    targets: list[TargetField] = Field(default_factory=list, max_length=MAX_TARGETS)
    name: str | None = Field(default=None, max_length=200)
    max_runs_per_day: int | None = Field(default=None, ge=1, le=10_000)


class WatchPatch(BaseModel):
    """``PATCH /watches/{id}``: pause or resume."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["active", "paused"]


class WatchCreated(BaseModel):
    watch: WatchInfo
    #: Shown once: only its hash is kept (``POST .../feed-token`` makes a new one).
    feed_token: str
    #: The feed's address on this server: ``/feeds/watches/<feed_token>.atom``.
    feed_path: str
    #: The key webhook bodies are signed with (``X-Deepcite-Signature``, see
    #: ``docs/watch-delivery.md``): give it to the receiver. Shown here and by
    #: ``POST .../webhook-secret`` (which makes a new one), never by a read.
    webhook_secret: str


class WatchDetail(BaseModel):
    watch: WatchInfo
    latest: WatchRunInfo | None = None


router = APIRouter(prefix="/watches", tags=["watches"])


def service(state: WebState) -> WatchService:
    return WatchService(history_store(state), state.settings, state.executor)


@router.get("", response_model=list[WatchInfo])
def list_watches(state: State, caller: AskedBy) -> list[WatchInfo]:
    return service(state).list(caller.access)


@router.post("", status_code=201, response_model=WatchCreated)
def create(state: State, body: WatchCreate, caller: AskedBy) -> WatchCreated:
    request = body.request.asked_by("api", caller.owner)
    watch, token = _answered(lambda: service(state).add(
        request, body.schedule, targets=body.targets, name=body.name,
        max_runs_per_day=body.max_runs_per_day))
    history_store(state).audit("watch.add", actor=caller.name, target=watch.id,
                               detail={"schedule": watch.schedule})
    return WatchCreated(watch=watch, feed_token=token, feed_path=feed_path(token),
                        webhook_secret=history_store(state).webhook_secret(watch.id) or "")


@router.get("/{watch_id}", response_model=WatchDetail)
def show(state: State, watch_id: str, caller: AskedBy) -> WatchDetail:
    view = _answered(lambda: service(state).view(watch_id, caller.access))
    return WatchDetail(watch=view.watch, latest=view.latest)


@router.patch("/{watch_id}", response_model=WatchInfo)
def change(state: State, watch_id: str, body: WatchPatch, caller: AskedBy) -> WatchInfo:
    watches = service(state)
    if body.status == "paused":
        return _answered(lambda: watches.pause(watch_id, caller.access))
    return _answered(lambda: watches.resume(watch_id, caller.access))


@router.delete("/{watch_id}")
def remove(state: State, watch_id: str, caller: AskedBy) -> dict[str, Any]:
    removed = _answered(lambda: service(state).remove(watch_id, caller.access))
    history_store(state).audit("watch.delete", actor=caller.name, target=removed)
    return {"id": removed, "deleted": True}


@router.post("/{watch_id}/run", status_code=202, response_model=WatchRunInfo)
def run(state: State, watch_id: str, caller: AskedBy) -> WatchRunInfo:
    """Start a run now; its change is stored when it ends (``GET .../runs``)."""
    return _answered(lambda: service(state).run_now(watch_id, caller.access))


@router.get("/{watch_id}/runs", response_model=list[WatchRunInfo])
def runs(state: State, watch_id: str, caller: AskedBy) -> list[WatchRunInfo]:
    """The watch's runs, newest first, each with its stored change and summary."""
    watches = service(state)
    watch = _answered(lambda: watches.get(watch_id, caller.access))
    return watches.store.watch_runs(watch.id)


@router.post("/{watch_id}/feed-token")
def rotate(state: State, watch_id: str, caller: AskedBy) -> dict[str, str]:
    token = _answered(lambda: service(state).rotate_feed_token(watch_id, caller.access))
    return {"feed_token": token}


@router.post("/{watch_id}/webhook-secret")
def rotate_secret(state: State, watch_id: str, caller: AskedBy) -> dict[str, str]:
    """A new webhook secret, shown this once; the old one signs nothing more."""
    watches = service(state)
    watch = _answered(lambda: watches.get(watch_id, caller.access))
    secret = _answered(lambda: watches.rotate_webhook_secret(watch.id, caller.access))
    history_store(state).audit("watch.secret", actor=caller.name, target=watch.id)
    return {"webhook_secret": secret}


def _answered(call: Callable[[], _T]) -> _T:
    """``call()``, with the watch errors as the API's replies."""
    try:
        return call()
    except UnknownWatchError as exc:
        raise ApiError(404, "unknown_watch", str(exc)) from None
    except BudgetError as exc:
        raise ApiError(429, "budget_exceeded", str(exc)) from None
    except RequestError:
        raise  # the app's 422 with the field it names
    except InputError as exc:
        raise ApiError(422, "invalid_request", str(exc)) from None
