"""The settings page: providers, which keys are set (never their values), every setting."""

from __future__ import annotations

import os

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from deepcite.errors import DeepciteError
from deepcite.web.page_kit import PageKit
from deepcite.web.pages_views import key_status, settings_rows


def routes(kit: PageKit) -> APIRouter:
    """The routes of this area of the pages."""
    router = APIRouter(include_in_schema=False)

    @router.get("/settings", response_class=HTMLResponse)
    def settings_page(request: Request) -> Response:
        from deepcite.llm import describe_providers

        session = kit.session_for(request)
        try:
            providers = describe_providers(kit.state.settings)
        except DeepciteError:
            providers = []
        return kit.render(request, session, "settings.html", title="Settings",
                      providers=providers, keys=key_status(kit.state.settings, dict(os.environ)),
                      rows=settings_rows(kit.state.settings))

    return router
