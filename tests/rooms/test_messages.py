"""The outgoing set (app/rooms/messages.py): builders, models and their schema agree."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.rooms import messages as out


def test_each_builder_makes_a_message_of_its_model() -> None:
    built = [
        out.error("bad_json", "not a JSON object"),
        out.error("illegal_action", "play: follow", "c-1", {"code": "must_follow", "suit": "H"}),
        out.ack("c-1", 3),
        out.rematch("g2", "/g/g2"),
        out.hint("h", {"type": "pass"}),
        out.pong(),
        {**out.update(4, [{"type": "card_played", "seat": 1, "card": "AS"}]), "view": {}},
    ]
    for message in built:
        model = out.validate_outgoing(out.dumps(message))
        assert model.model_dump(exclude_none=True) == {
            k: v for k, v in message.items() if v is not None
        }


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "ack", "id": "c", "version": "3"}',  # a string version
        '{"type": "error", "code": "x", "message": "m", "id": null, "extra": 1}',
        '{"type": "update", "version": 2, "events": [{"type": "nope"}], "view": {}}',
        '{"type": "update", "version": 2, "events": [{"type": "trick_won", "seat": 1}], "view": {}}',
        '{"type": "surprise"}',
    ],
)
def test_what_is_not_in_the_set_does_not_validate(text: str) -> None:
    with pytest.raises(ValidationError):
        out.validate_outgoing(text)


def test_the_schema_names_every_message_and_event() -> None:
    schema = out.outgoing_schema()
    names = set(schema["$defs"])
    assert {f"{t.capitalize()}Out" for t in out.OUTGOING_TYPES} <= names
    assert {"CardPlayedEvent", "DealScoredEvent", "MatchOverEvent", "NextDealModel"} <= names
    assert set(schema["discriminator"]["mapping"]) == set(out.OUTGOING_TYPES)
