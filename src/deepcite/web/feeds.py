"""Atom feeds of watches: ``GET /feeds/watches/<token>.atom``.

A feed reader cannot log in, so the feed's address is its credential: the watch's feed
token (``dcf_...``, shown once when the watch is made or its token rotated; the store
keeps only its hash). A token that matches no watch is a plain 404, the same as a
rotated one, so an address says nothing about whether a watch exists. The host check of
the front door still applies (a page elsewhere cannot read a feed through a rebinding
name), and the answer is marked private and sent without a referrer.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse

from deepcite.watches.delivery import atom_feed
from deepcite.watches.service import WatchService, feed_path
from deepcite.web.contracts import WebState
from deepcite.web.rest.common import history_store

__all__ = ["FEED_LIMIT", "feeds_router"]

FEED_LIMIT = 50
"""Entries in a feed: the watch's newest ended runs."""
ATOM_TYPE = "application/atom+xml; charset=utf-8"


def feeds_router(state: WebState) -> APIRouter:
    """The feed route for ``state`` (outside ``/api/v1``: its token is its login)."""
    router = APIRouter()

    @router.get(feed_path("{token}"), include_in_schema=False)
    def feed(token: str, request: Request) -> Response:
        store = history_store(state)
        watch = store.watch_for_feed_token(token) if len(token) <= 100 else None
        if watch is None:
            return PlainTextResponse("No such feed - ask the watch's owner for its current "
                                     "address (`deepcite watch feed ID` makes a new one)",
                                     status_code=404)
        service = WatchService(store, state.settings)
        base = state.settings.watches.base_url or str(request.base_url)
        # the feed's page is the watch's own (its inbox), not the app's front page
        watch_url = f"{base.rstrip('/')}/watches/{quote(watch.id, safe='')}"
        body = atom_feed(watch.id, watch.name, service.notices(watch, limit=FEED_LIMIT),
                         feed_url=str(request.url), base_url=base, watch_url=watch_url)
        return Response(body, media_type=ATOM_TYPE,
                        headers={"Cache-Control": "private, no-store",
                                 "Referrer-Policy": "no-referrer"})

    return router
