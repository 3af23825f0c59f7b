"""bench/views.py: the one merge of views that the scripted clients share (docs/protocol.md,
"update": an update's view holds only the fields that changed)."""

from __future__ import annotations

from bench.views import held_after, merge_view, merge_views

WHOLE = {"seat": 0, "phase": "play", "to_act": 1, "hand": ["AS", "7H"], "legal": []}


def test_an_update_changes_only_the_fields_it_names() -> None:
    after = merge_view(WHOLE, {"to_act": 0, "legal": [{"type": "play", "card": "AS"}]})
    assert after == {**WHOLE, "to_act": 0, "legal": [{"type": "play", "card": "AS"}]}
    assert WHOLE["to_act"] == 1  # the held view is not changed in place


def test_an_update_with_no_change_keeps_the_view() -> None:
    assert merge_view(WHOLE, {}) == WHOLE


def test_the_first_deal_is_whole_and_a_waiting_table_has_no_view() -> None:
    assert merge_view(None, WHOLE) == WHOLE  # the update that deals the first deal
    assert merge_view(None, None) is None and merge_view(WHOLE, None) is None


def test_the_views_of_several_seats_merge_seat_by_seat() -> None:
    held = {"0": WHOLE, "2": {**WHOLE, "seat": 2}}
    after = merge_views(held, {"0": {"to_act": 2}, "2": {}})
    assert after == {"0": {**WHOLE, "to_act": 2}, "2": {**WHOLE, "seat": 2}}


def test_a_state_replaces_the_view_and_other_messages_leave_it() -> None:
    state = {"type": "state", "version": 9, "view": {**WHOLE, "to_act": 3}}
    assert held_after(state, WHOLE) == {**WHOLE, "to_act": 3}
    assert held_after({"type": "update", "version": 10, "view": {"to_act": 0}}, WHOLE) == {
        **WHOLE,
        "to_act": 0,
    }
    assert held_after({"type": "room", "room": {}}, WHOLE) is WHOLE
