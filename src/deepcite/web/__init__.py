"""deepcite's web app and REST API (``deepcite serve``; the ``web`` extra).

Kept free of imports: ``deepcite.web.contracts`` is read by code that must work without
FastAPI installed, so the app is built by importing :mod:`deepcite.web.app` itself.
"""
