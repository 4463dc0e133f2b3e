"""Decompression bombs built at run time, small on disk: for the upload and loader tests
and for ``bench/bench_hostile.py``, so both measure the same files."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

MB = 1024 * 1024
PARAGRAPH = b"<w:p><w:r><w:t>boom</w:t></w:r></w:p>"


def stream_entry(archive: zipfile.ZipFile, name: str, chunk: bytes, times: int) -> None:
    """Write ``chunk`` ``times`` times into entry ``name`` without holding it all."""
    with archive.open(name, "w", force_zip64=True) as entry:
        for _ in range(times):
            entry.write(chunk)


def docx_bomb(path: Path, unpacked: int = 300 * MB) -> Path:
    """A DOCX whose document.xml is ``unpacked`` bytes of repeated paragraphs."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        chunk = PARAGRAPH * (MB // len(PARAGRAPH))
        stream_entry(archive, "word/document.xml", chunk, unpacked // len(chunk))
    return path


def lie_about_size(path: Path, name: bytes, size: int) -> Path:
    """Rewrite the central directory so entry ``name`` declares ``size`` bytes unpacked."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + name_length] == name:
            struct.pack_into("<L", data, at + 24, size)
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))
    return path
