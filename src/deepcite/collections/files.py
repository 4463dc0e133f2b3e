"""Find the files an ``add`` should index, and fingerprint them.

Folders are walked recursively in a stable (sorted) order so reports and progress are
reproducible; hidden files and folders (``.git``, ``.venv``, editor swap files) are
skipped because they are almost never documents a user means to search. Explicitly
named files are taken as given, hidden or not.

Inside a folder only regular files are indexed. Symbolic links are not followed, to
files or to folders: a link can lead anywhere (``notes/passwords.txt -> ~/.ssh/...``),
and a collection should hold what is in the folder the user named, nothing the folder
merely points at. FIFOs, sockets and devices are skipped because reading one blocks
forever or never ends. Both are reported (:attr:`Discovery.ignored`) when their name
looks like a document, so nothing is dropped silently. A path named on the command
line is different: the user chose it, so a symlink given there is resolved and its
target indexed (a folder's contents then follow the rule above).

A *server folder* (one the web app indexes under its ``--folder-root``, or a folder of
uploads) is indexed with ``refuse_hard_links``: a regular file with more than one hard
link (``st_nlink > 1``) is passed over and reported, as a symlink is. A hard link is
the same file under another name - possibly a name outside the folder (``ln
/etc/secrets root/docs/notes.txt``) - and nothing about its path can tell: every name
of an inode is equally its own, so the only safe rule is that a file under a server
folder has exactly one. The check is made when the folder is walked and again on the
opened file (:func:`hash_file`), so a file linked after the walk is refused too. Files
a server writes (uploads) have one link; a folder of hard-linked copies (a backup
made with ``cp -l``/``rsync --link-dest``) must be copied in, not linked, to be indexed
by the server. The command line indexes what its user names and is not affected.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_mode
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepcite.collections.loaders import is_supported
from deepcite.collections.paths import display_path, document_key
from deepcite.errors import CollectionError

_HASH_BLOCK = 1 << 20
LINK_TO_FILE = "symbolic link, not followed - add its target itself to index it"
LINK_TO_FOLDER = "symbolic link to a folder, not followed - add the folder itself to index it"
HARD_LINK = ("hard link (the file has other names, which may lie outside this folder), not "
             "indexed from a server folder - copy the file into the folder instead of linking it")


class HardLinkError(OSError):
    """A file under a server folder turned out to have more than one hard link."""

    def __init__(self) -> None:
        super().__init__(errno.EPERM, HARD_LINK)


@dataclass
class Discovery:
    """What the inputs of one ``add`` expand to (all paths absolute and resolved).

    ``ignored`` holds what was deliberately not indexed, with the reason: symbolic links
    inside folders, special files, and a second file whose name maps to the same key.
    """

    files: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    ignored: list[tuple[Path, str]] = field(default_factory=list)


def _as_paths(inputs: Path | str | Sequence[Path | str]) -> list[Path]:
    if isinstance(inputs, str | os.PathLike):
        return [Path(inputs)]
    return [Path(item) for item in inputs]


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def _special_kind(mode: int) -> str:
    if stat_mode.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat_mode.S_ISSOCK(mode):
        return "a socket"
    if stat_mode.S_ISCHR(mode) or stat_mode.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def special_reason(mode: int) -> str:
    """Why a file of this ``st_mode`` is not read: it is no regular file."""
    return f"{_special_kind(mode)}, not a regular file - skipped (reading it could hang)"


def walk_folder(
    folder: Path, ignored: list[tuple[Path, str]] | None = None, *,
    refuse_hard_links: bool = False,
) -> Iterator[Path]:
    """Supported, non-hidden regular files under ``folder``, recursively, in sorted order.

    Symbolic links (to files or folders) are not followed and special files are not
    read; those whose name looks like a document, and every linked folder, are appended
    to ``ignored`` with the reason. With ``refuse_hard_links`` (a server folder, see the
    module doc) so is every file with more than one hard link.
    """
    notes: list[tuple[Path, str]] = [] if ignored is None else ignored
    for root, dirs, names in os.walk(folder):  # followlinks=False: linked folders stay out
        kept = []
        for name in sorted(dirs):
            if _is_hidden(name):
                continue
            if (Path(root) / name).is_symlink():
                notes.append((Path(root) / name, LINK_TO_FOLDER))
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            path = Path(root) / name
            if _is_hidden(name) or not is_supported(path):
                continue
            try:
                status = path.lstat()
                mode = status.st_mode
            except OSError:  # vanished since the listing; the stale check handles it
                continue
            if stat_mode.S_ISLNK(mode):
                notes.append((path, LINK_TO_FILE))
            elif not stat_mode.S_ISREG(mode):
                notes.append((path, special_reason(mode)))
            elif refuse_hard_links and status.st_nlink > 1:
                notes.append((path, HARD_LINK))
            else:
                yield path


def discover(inputs: Path | str | Sequence[Path | str], *,
             refuse_hard_links: bool = False) -> Discovery:
    """Expand folders and files; raise :class:`CollectionError` if any input is missing.

    Everything is checked before anything is indexed, so a typo in the last argument
    does not leave a half-done ``add`` behind. Inputs are resolved (a symlink named here
    is followed, see the module doc); what is inside folders is not.
    ``refuse_hard_links``: a server folder's rule (see the module doc).
    """
    paths = _as_paths(inputs)
    if not paths:
        raise CollectionError("Nothing to add: give at least one folder or file")
    for path in paths:
        if not path.exists():
            kind = "File" if path.suffix and is_supported(path) else "Folder"
            raise CollectionError(f"{kind} not found: {display_path(path)}")
    found = Discovery()
    keys: dict[str, Path] = {}
    for path in paths:
        resolved = path.resolve()
        status = resolved.stat()
        mode = status.st_mode
        if stat_mode.S_ISDIR(mode):
            found.folders.append(resolved)
            candidates: list[Path] = list(walk_folder(
                resolved, found.ignored, refuse_hard_links=refuse_hard_links))
        elif not stat_mode.S_ISREG(mode):
            found.ignored.append((resolved, special_reason(mode)))
            continue
        elif refuse_hard_links and status.st_nlink > 1:
            found.ignored.append((resolved, HARD_LINK))
            continue
        elif is_supported(resolved):
            candidates = [resolved]
        else:
            found.unsupported.append(resolved)
            continue
        for candidate in candidates:
            key = document_key(candidate)
            first = keys.get(key)
            if first is None:
                keys[key] = candidate
                found.files.append(candidate)
            elif first != candidate:  # (the same file named twice is simply taken once)
                found.ignored.append((candidate, (
                    f"its name is not valid UTF-8 and reads the same as "
                    f"{display_path(first)} once escaped - rename one of them")))
    return found


@dataclass(frozen=True)
class FileStat:
    """Size and modification time of one file, read without opening it."""

    size: int
    mtime: float
    mtime_ns: int
    links: int = 1
    inode: tuple[int, int] = (0, 0)


def stat_file(path: Path) -> FileStat:
    """Size and mtime of ``path``; raises ``OSError``.

    Re-adding a folder compares these with what the index stored and hashes only the
    files whose size or mtime changed, so an unchanged folder costs one ``stat`` per
    file instead of reading every byte.
    """
    stat = path.stat()
    return FileStat(stat.st_size, stat.st_mtime, stat.st_mtime_ns, stat.st_nlink,
                    (stat.st_dev, stat.st_ino))


def hash_file(path: Path, *, refuse_hard_links: bool = False) -> str:
    """SHA-256 of the file's bytes, read in blocks so memory stays flat; raises ``OSError``
    (:class:`HardLinkError` with ``refuse_hard_links`` for a file of several links)."""
    # O_NONBLOCK: should the path have become a FIFO since discovery, opening it must
    # not wait for a writer; the fstat below then refuses it.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(fd, "rb", closefd=True) as fh:
        status = os.fstat(fh.fileno())
        mode = status.st_mode
        if not stat_mode.S_ISREG(mode):
            raise OSError(errno.EINVAL, special_reason(mode))
        if refuse_hard_links and status.st_nlink > 1:
            raise HardLinkError
        digest = hashlib.sha256()
        while block := fh.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Fingerprint:
    """Content hash and stat data of one file."""

    sha256: str
    size: int
    mtime: float
    mtime_ns: int = 0


def fingerprint(path: Path) -> Fingerprint:
    """SHA-256 of the file's bytes plus its size and mtime; raises ``OSError``."""
    stat = stat_file(path)
    return Fingerprint(hash_file(path), stat.size, stat.mtime, stat.mtime_ns)
