"""Reusable FastAPI dependencies: ``SettingsDep`` and ``SessionDep``.

@router.get("/thing")
async def thing(settings: SettingsDep, session: SessionDep) -> ...
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.persistence.db import SessionDep
from app.settings import Settings


def get_app_settings(request: Request) -> Settings:
    """The settings the running app was created with (``app.state.settings``)."""
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_app_settings)]

__all__ = ["SessionDep", "SettingsDep", "get_app_settings"]
