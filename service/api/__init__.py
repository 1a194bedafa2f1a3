"""The HTTP service: the `/v1` API and the web page (FastAPI). See :mod:`service.api.app`."""

from service.api.app import create_app, create_app_from_env
from service.api.settings import Settings

__all__ = ["Settings", "create_app", "create_app_from_env"]
