"""Password hashing for user accounts: Argon2id via argon2-cffi.

Hashes are argon2-cffi's :class:`~argon2.PasswordHasher` with its defaults (Argon2id,
RFC 9106's low-memory profile: 3 passes, 64 MiB, 4 lanes), encoded as
``$argon2id$v=19$m=...,t=...,p=...$salt$hash`` so the cost travels with each hash and
:func:`needs_rehash` can tell when a stored one is weaker than today's defaults.

argon2-cffi is an optional dependency (the ``web`` extra): it is imported when a hash
is made or checked, and its absence is one :class:`ConfigError` naming the extra.
Passwords are never logged, and never part of an error message.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from deepcite.errors import ConfigError

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = ["hash_password", "needs_rehash", "verify_password"]


@cache
def _hasher() -> PasswordHasher:
    try:
        from argon2 import PasswordHasher
    except ImportError:
        raise ConfigError("User accounts need argon2-cffi - pip install 'deepcite[web]'"
                          ) from None
    return PasswordHasher()


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (a fresh random salt each time)."""
    return _hasher().hash(password)


def verify_password(hashed: str, password: str) -> bool:
    """Whether ``password`` matches ``hashed``; ``False`` - never an exception - for a
    wrong password or a hash that is malformed or not an Argon2 hash at all."""
    hasher = _hasher()  # the ConfigError when argon2-cffi is missing, not a False
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError, ValueError, TypeError):
        return False


def needs_rehash(hashed: str) -> bool:
    """Whether ``hashed`` was made with other parameters than today's defaults (hash the
    password again after a successful check); ``True`` for a hash that cannot be read."""
    hasher = _hasher()
    from argon2.exceptions import InvalidHashError

    try:
        return hasher.check_needs_rehash(hashed)
    except (InvalidHashError, ValueError, TypeError):
        return True
