"""Notice payloads between processes (app/persistence/notify.py): ids only, never game data."""

from __future__ import annotations

from app.persistence.notify import decode, encode


def test_identity_notices_carry_integer_ids() -> None:
    assert encode("renamed", [12]) == "renamed:12"
    assert decode("levels:12,40") == ("levels", [12, 40])
    assert decode("levels:12,x") is None


def test_a_handover_carries_game_ids_and_nothing_else() -> None:
    assert encode("handover", ["AbC12"]) == "handover:AbC12"
    assert decode("handover:AbC12") == ("handover", ["AbC12"])
    assert decode("handover:AbC12,d-_9") == ("handover", ["AbC12", "d-_9"])
    assert decode("handover:<script>") is None
    assert decode("handover:" + "x" * 33) is None


def test_unknown_kinds_are_ignored() -> None:
    assert decode("deal:AbC12") is None
    assert decode("nothing") is None
