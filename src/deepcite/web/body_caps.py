"""Every route's request-body cap, in one table the front door (:mod:`deepcite.web.front_door`)
looks up before it reads a byte of a body.

Each route that takes a body (POST, PUT, PATCH, DELETE) is written here with a cap
chosen for it; a test enumerates the app's routes and fails for one left out (or for an
entry that names no route), so no route gets the fallback :data:`SMALL_BODY` by
accident. The upload caps are made of the very constants the pages promise
(``page_forms.MAX_UPLOAD_BYTES`` and its kin), so the promise and the cap cannot drift
apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepcite.materials.limits import MAX_TOTAL_CHARS
from deepcite.runs.request import MAX_DOCUMENT_CHARS
from deepcite.web.page_forms import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_TOTAL_BYTES
from deepcite.web.upload_form import MAX_UPLOAD_FIELD_BYTES

KIB = 1024
MIB = 1024 * KIB

API_PREFIX = "/api/v1"
#: Page posts a visitor makes before (or while) logging in: no logged-in session needed.
LOGIN_PATH, LOGOUT_PATH, REGISTER_PATH = "/login", "/logout", "/register"

#: Forms with a few short fields (login, logout, cancel, delete, reindex, a collection's
#: name and folder, a watch, the admin's settings) and small JSON; also the cap of a
#: route missing from :data:`BODY_CAPS` (a test keeps that list complete).
SMALL_BODY = 64 * KIB
#: ``POST /api/v1/research``: a question and materials given inline. Their content is at
#: most ``MAX_TOTAL_CHARS`` characters in all, and JSON writes a non-ASCII character as a
#: six-byte ``\uXXXX`` escape by default (``json.dumps``, ``requests``); 8 MiB more
#: hold the other fields and the materials' URLs and titles.
API_RESEARCH_BODY = 6 * MAX_TOTAL_CHARS + 8 * MIB
#: The research form's fields other than files: the pasted text (``pages.MAX_FIELD_BYTES``,
#: 5 MiB), the short fields and the multipart framing of every file.
FORM_FIELDS_BODY = 6 * MIB
#: ``POST /``: the research form, with all the uploads it may carry together
#: (``MAX_UPLOAD_TOTAL_BYTES``; each at most ``MAX_UPLOAD_BYTES``).
RESEARCH_FORM_BODY = MAX_UPLOAD_TOTAL_BYTES + FORM_FIELDS_BODY
#: ``POST /collections/upload`` and ``POST /api/v1/collections/{name}/files``: the files
#: the collections page promises (each at most ``MAX_UPLOAD_BYTES``,
#: ``MAX_UPLOAD_TOTAL_BYTES`` together), their multipart framing (a part's headers: well
#: under 8 KiB each) and the two short fields; each route itself refuses a file past its
#: own cap as it streams (:mod:`deepcite.web.upload_form`).
COLLECTION_UPLOAD_BODY = (MAX_UPLOAD_TOTAL_BYTES + (MAX_UPLOAD_FILES + 2) * 8 * KIB
                          + 2 * MAX_UPLOAD_FIELD_BYTES)

#: ``POST /api/v1/checks`` and ``POST /check``: one document - a file of at most
#: ``MAX_UPLOAD_BYTES`` with a few short fields and their multipart framing, or its
#: text (``MAX_DOCUMENT_CHARS``, each character at most a six-byte ``\uXXXX`` escape in
#: JSON) with its collections and engines.
CHECK_BODY = max(MAX_UPLOAD_BYTES, 6 * MAX_DOCUMENT_CHARS) + MIB


@dataclass(frozen=True)
class BodyCap:
    """The most bytes a request body to ``method path`` may have; ``{name}`` in ``path``
    stands for one path segment. ``hint`` says what fits, for the 413 message."""

    method: str
    path: str
    limit: int
    hint: str = ""

    def matches(self, method: str, path: str) -> bool:
        """Whether the cap is the one of ``method path``."""
        return method == self.method and _template(self.path).fullmatch(path) is not None


_UPLOADS_HINT = (f"up to {MAX_UPLOAD_FILES} files, {MAX_UPLOAD_TOTAL_BYTES // MIB} MiB "
                 f"together and {MAX_UPLOAD_BYTES // MIB} MiB each")

#: Every route's body cap, in one place: each route taking a body is listed (a test
#: checks the app against this table both ways).
BODY_CAPS: tuple[BodyCap, ...] = (
    # the API
    BodyCap("POST", f"{API_PREFIX}/research", API_RESEARCH_BODY,
            f"materials of up to {MAX_TOTAL_CHARS:,} characters in all"),
    BodyCap("POST", f"{API_PREFIX}/research/{{run_id}}/cancel", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/checks", CHECK_BODY,
            f"one document of up to {MAX_UPLOAD_BYTES // MIB} MiB"),
    BodyCap("DELETE", f"{API_PREFIX}/runs/{{run_id}}", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/runs/{{run_id}}/follow-ups", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/collections", SMALL_BODY),
    BodyCap("DELETE", f"{API_PREFIX}/collections/{{name}}", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/collections/{{name}}/files", COLLECTION_UPLOAD_BODY,
            _UPLOADS_HINT),
    BodyCap("POST", f"{API_PREFIX}/watches", SMALL_BODY),
    BodyCap("PATCH", f"{API_PREFIX}/watches/{{watch_id}}", SMALL_BODY),
    BodyCap("DELETE", f"{API_PREFIX}/watches/{{watch_id}}", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/watches/{{watch_id}}/run", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/watches/{{watch_id}}/feed-token", SMALL_BODY),
    BodyCap("POST", f"{API_PREFIX}/watches/{{watch_id}}/webhook-secret", SMALL_BODY),
    # the pages
    BodyCap("POST", "/", RESEARCH_FORM_BODY, f"{_UPLOADS_HINT}, plus pasted text"),
    BodyCap("POST", "/check", CHECK_BODY, f"one document of up to {MAX_UPLOAD_BYTES // MIB} MiB"),
    BodyCap("POST", LOGIN_PATH, SMALL_BODY),
    BodyCap("POST", LOGOUT_PATH, SMALL_BODY),
    BodyCap("POST", REGISTER_PATH, SMALL_BODY),
    BodyCap("POST", "/runs/{run_id}/cancel", SMALL_BODY),
    BodyCap("POST", "/history/{run_id}/delete", SMALL_BODY),
    BodyCap("POST", "/history/{run_id}/restore", SMALL_BODY),
    BodyCap("POST", "/reports/{run_id}/rerun", SMALL_BODY),
    BodyCap("POST", "/reports/{run_id}/follow-up", SMALL_BODY),
    BodyCap("POST", "/collections", SMALL_BODY),
    BodyCap("POST", "/collections/upload", COLLECTION_UPLOAD_BODY, _UPLOADS_HINT),
    BodyCap("POST", "/collections/{name}/reindex", SMALL_BODY),
    BodyCap("POST", "/collections/{name}/share", SMALL_BODY),
    BodyCap("POST", "/collections/{name}/delete", SMALL_BODY),
    BodyCap("POST", "/collections/{name}/documents/{doc_id}/delete", SMALL_BODY),
    BodyCap("POST", "/watches", SMALL_BODY),
    BodyCap("POST", "/watches/{watch_id}/{action}", SMALL_BODY),
    BodyCap("POST", "/account/password", SMALL_BODY),
    BodyCap("POST", "/account/tokens", SMALL_BODY),
    BodyCap("POST", "/account/tokens/{token_id}/revoke", SMALL_BODY),
    BodyCap("POST", "/admin/users", SMALL_BODY),
    BodyCap("POST", "/admin/users/{name}/{verb}", SMALL_BODY),
    BodyCap("POST", "/settings", SMALL_BODY),
)

_TEMPLATES: dict[str, re.Pattern[str]] = {}


def _template(path: str) -> re.Pattern[str]:
    pattern = _TEMPLATES.get(path)
    if pattern is None:
        parts = re.split(r"\{[^/{}]+\}", path)
        pattern = _TEMPLATES[path] = re.compile("[^/]+".join(re.escape(p) for p in parts))
    return pattern


def body_cap(method: str, path: str) -> BodyCap:
    """The cap of a request body to ``method path`` (a trailing slash ignored)."""
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    for cap in BODY_CAPS:
        if cap.matches(method, path):
            return cap
    return BodyCap(method, path, SMALL_BODY)
