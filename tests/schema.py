"""The protocol's published JSON Schema (app/web/schema.py) as a test oracle.

``check_sent(text)`` validates one server → client frame against the schema (draft 2020-12),
independently of the pydantic models the schema was generated from; ``check_received`` the
same for a client → server frame. The test client (tests/web/wsclient.py) runs it on every
frame a socket receives, and the golden test on every frame it produces.

The validator is ``jsonschema_rs`` (tens of microseconds a frame: the tests check tens of
thousands); tests/web/test_schema.py checks that the reference implementation
(``jsonschema``) gives the same verdicts on a sample.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs

from app.web.schema import schemas


@cache
def validator(direction: str) -> Any:
    return jsonschema_rs.Draft202012Validator(schemas()[direction])


def _check(direction: str, message: str | bytes | dict[str, Any]) -> dict[str, Any]:
    data = json.loads(message) if isinstance(message, str | bytes) else message
    try:
        validator(direction).validate(data)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(p) for p in exc.instance_path)
        text = json.dumps(data)[:300]
        raise AssertionError(
            f"not in the published schema at /{where}: {exc.message}: {text}"
        ) from None
    return data  # type: ignore[no-any-return]


def check_sent(message: str | bytes | dict[str, Any]) -> dict[str, Any]:
    """``message`` (a server → client frame) as JSON; AssertionError if the schema refuses it."""
    return _check("server_to_client", message)


def check_received(message: str | bytes | dict[str, Any]) -> dict[str, Any]:
    """The same for a client → server frame."""
    return _check("client_to_server", message)
