"""Notice payloads between processes (app/persistence/notify.py): ids only, never game data."""

from __future__ import annotations

from app.persistence.notify import decode, encode


def test_identity_notices_carry_integer_ids() -> None:
    assert encode("renamed", [12]) == "renamed:12"
    assert decode("levels:12,40") == ("levels", [12, 40])
    assert decode("levels:12,x") is None


def test_a_handover_names_a_game_its_epoch_and_owner_and_nothing_else() -> None:
    assert encode("handover", ["AbC12", 3, "atout1"]) == "handover:AbC12,3,atout1"
    assert decode("handover:AbC12,3,atout1") == ("handover", ["AbC12", "atout1", 3])
    assert decode("handover:AbC12,3,host:12:ab") == ("handover", ["AbC12", "host:12:ab", 3])
    assert decode("handover:AbC12,atout1") is None  # no epoch
    assert decode("handover:AbC12,3,") is None  # no owner
    assert decode("handover:<script>,3,atout1") is None
    assert decode("handover:" + "x" * 33 + ",3,atout1") is None


def test_unknown_kinds_are_ignored() -> None:
    assert decode("deal:AbC12") is None
    assert decode("nothing") is None
