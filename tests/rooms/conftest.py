from collections.abc import AsyncIterator

import pytest

from tests.rooms.harness import close_made
from tests.web.conftest import module_server, start_server  # noqa: F401  (shared fixtures)


@pytest.fixture(autouse=True)
async def _close_rooms() -> AsyncIterator[None]:
    """Rooms a test built with ``make_room`` are closed when it ends (harness.py ``MADE``)."""
    yield
    await close_made()
