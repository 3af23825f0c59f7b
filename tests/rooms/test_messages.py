"""The outgoing set (app/rooms/messages.py): builders, models and their schema agree."""

from __future__ import annotations

from typing import NotRequired, get_origin, get_type_hints

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
    # "lobby_table" is LobbyTableOut
    assert {
        "".join(part.capitalize() for part in t.split("_")) + "Out" for t in out.outgoing_types()
    } <= names
    assert {"CardPlayedEvent", "DealScoredEvent", "MatchOverEvent", "NextDealModel"} <= names
    assert {"SeatView", "BelaSpectatorView", "DuelSeatView", "ViewDelta", "PassAction"} <= names
    assert set(schema["discriminator"]["mapping"]) == set(out.outgoing_types())
    update = schema["$defs"]["UpdateOut"]["properties"]["events"]["items"]
    assert set(update["discriminator"]["mapping"]) == set(out.event_types())
    assert (
        len(out.event_types()) == 21
    )  # declining the bela-2p exchange is no event: nothing happens


# Each builder's TypedDict and the model of its message must describe the same fields: the
# builders are what is sent, the models what is published (docs/schema).
TYPED = [
    (out.ErrorMsg, out.ErrorOut),
    (out.AckMsg, out.AckOut),
    (out.StateMsg, out.StateOut),
    (out.RoomMsg, out.RoomOut),
    (out.RematchMsg, out.RematchOut),
    (out.HintMsg, out.HintOut),
    (out.PongMsg, out.PongOut),
    (out.RoomInfo, out.RoomModel),
    (out.SeatInfo, out.SeatModel),
    (out.ConsentInfo, out.ConsentModel),
    (out.NextDealInfo, out.NextDealModel),
    (out.RematchInfo, out.RematchInfoModel),
    (out.ChatMsg, out.ChatOut),
    (out.ChatLine, out.ChatLineModel),
    (out.TableSettings, out.TableSettingsModel),
]


@pytest.mark.parametrize("typed, model", TYPED, ids=[t.__name__ for t, _ in TYPED])
def test_each_typeddict_has_the_fields_of_its_model(typed: type, model: type) -> None:
    hints = get_type_hints(typed, vars(out), include_extras=True)
    assert set(hints) == set(model.model_fields)
    optional = {name for name, hint in hints.items() if get_origin(hint) is NotRequired}
    defaulted = {name for name, info in model.model_fields.items() if not info.is_required()}
    assert optional == defaulted, typed.__name__


def test_every_builder_of_the_set_has_a_model() -> None:
    builders = {"error", "ack", "state", "room", "rematch", "hint", "pong", "update", "chat"}
    builders |= {"lobby", "lobby_table", "lobby_remove", "lobby_counts"}  # the home page's
    assert set(out.outgoing_types()) == builders
