"""Reading a collection upload's multipart body with the promised caps kept *as it streams*.

The collections page promises files of up to :data:`~deepcite.web.page_forms.
MAX_UPLOAD_BYTES` each, :data:`~deepcite.web.page_forms.MAX_UPLOAD_TOTAL_BYTES`
together and :data:`~deepcite.web.page_forms.MAX_UPLOAD_FILES` per request - the same
constants the front door's body cap (``COLLECTION_UPLOAD_BODY`` in
:mod:`deepcite.web.body_caps`) is made of, so the promise and the cap cannot drift
apart. Starlette's own form parser caps only fields that are not files, and would spool
a file of any size to disk before the route could look at it;
:class:`CappedUploadParser` counts each part's bytes as they arrive and stops at the
first byte over a cap, so an oversized file is refused (413) without the rest of it
being read, let alone held in memory. Files below the cap are spooled (in memory up to
1 MiB each, then on disk) as usual.
"""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from deepcite.web.page_forms import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_TOTAL_BYTES

#: The longest field that is not a file (the collection's name, the CSRF token).
MAX_UPLOAD_FIELD_BYTES = 64 * 1024
_MB = 1024 * 1024


class UploadRefused(Exception):
    """An upload refused: HTTP ``status``, a one-line ``message``, the API's machine
    ``code`` and, for files refused one by one, each one's ``problems``. Raised while
    the form is read (here) and while its files are checked and kept
    (:func:`deepcite.web.collection_uploads.keep_uploads`)."""

    def __init__(self, status: int, message: str, code: str = "bad_upload",
                 problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.problems = status, message, code, problems


def caps_line() -> str:
    """The caps, as the page promises them and the refusals repeat them."""
    return (f"at most {MAX_UPLOAD_BYTES // _MB} MB each, {MAX_UPLOAD_FILES} files and "
            f"{MAX_UPLOAD_TOTAL_BYTES // _MB} MB together")


class CappedUploadParser(MultiPartParser):
    """Starlette's multipart parser, refusing a part past :data:`MAX_UPLOAD_BYTES` and
    parts past :data:`MAX_UPLOAD_TOTAL_BYTES` together at the byte that passes them.

    Fields that are not files are capped far lower by the parser itself
    (``max_part_size``), so any part this large is a file.
    """

    def __init__(self, request: Request) -> None:
        super().__init__(request.headers, request.stream(), max_files=MAX_UPLOAD_FILES,
                         max_part_size=MAX_UPLOAD_FIELD_BYTES)
        self._part_bytes = 0
        self._all_bytes = 0

    def on_part_begin(self) -> None:
        super().on_part_begin()
        self._part_bytes = 0

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        self._part_bytes += end - start
        self._all_bytes += end - start
        if self._part_bytes > MAX_UPLOAD_BYTES:
            raise UploadRefused(413, f"A file is larger than the {MAX_UPLOAD_BYTES // _MB} MB "
                                     f"limit per file - upload files of {caps_line()}",
                                "file_too_large")
        if self._all_bytes > MAX_UPLOAD_TOTAL_BYTES:
            raise UploadRefused(413, f"The files pass the {MAX_UPLOAD_TOTAL_BYTES // _MB} MB "
                                     f"limit per upload - upload {caps_line()}, "
                                     "in several goes", "upload_too_large")
        super().on_part_data(data, start, end)


async def read_upload_form(request: Request) -> FormData:
    """The upload form of ``request``, read with the caps kept as it streams; the caller
    closes it (``await form.close()``). :class:`UploadRefused`: 413 for a file or files
    over the caps (nothing more is read), 400 for more than :data:`MAX_UPLOAD_FILES`
    files, a long field or a body that is not a multipart form."""
    if not request.headers.get("content-type", "").lower().startswith("multipart/form-data"):
        raise UploadRefused(400, "Send the files as a multipart/form-data form "
                                 "(the collections page does)")
    try:
        return await CappedUploadParser(request).parse()
    except MultiPartException as exc:  # too many files, a long field, broken framing
        raise UploadRefused(400, f"The upload was refused: {str(exc).rstrip('.')} - upload "
                                 f"{caps_line()}") from None
