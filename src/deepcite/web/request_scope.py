"""What a router hands its routes through the request's state.

The page areas and the REST routers are modules of plain functions on module-level
routers; the objects of one server (its :class:`~deepcite.web.contracts.WebState`, the
pages' kit) reach them through a router-level dependency made by :func:`binder`, which
FastAPI runs before a route's own dependencies, and are read back with :func:`bound`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from fastapi import Request

__all__ = ["binder", "bound"]

_T = TypeVar("_T")


def binder(**values: object) -> Callable[[Request], None]:
    """A dependency leaving ``values`` in each request's state, by name."""

    def bind(request: Request) -> None:
        for name, value in values.items():
            setattr(request.state, name, value)
    return bind


def bound(request: Request, name: str, kind: type[_T]) -> _T:
    """The ``kind`` a :func:`binder` left as ``name``; a route served outside the router
    that binds it is a wiring bug, said as such."""
    found = getattr(request.state, name, None)
    if not isinstance(found, kind):
        raise RuntimeError(f"no {name} in the request: include the route through its router")
    return found
