"""belote-record/1: round trips, the examples in tests/data, refusals and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine import InvalidAction, apply, get_rules, legal_actions
from app.engine.actions import Play
from app.engine.cards import parse_card
from app.engine.cli import random_record
from app.engine.record import (
    RecordRuleError,
    RecordSchemaError,
    dump,
    record_by,
    replay,
    replayed_states,
)

from . import helpers

DATA = Path(__file__).resolve().parent.parent / "data"
EXAMPLES = sorted(DATA.glob("*.json"))


def atout(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], input=stdin, capture_output=True, text=True
    )


def test_there_is_one_example_per_variant():
    names = {p.stem for p in EXAMPLES}
    assert {"classic", "coinche", "bulgarian", "bela2", "bela3", "bela4", "duel"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_replay_and_round_trip(path):
    record = json.loads(path.read_text())
    state = replay(record)
    again = dump(state, meta=record.get("meta"))
    assert again == record
    assert any(not r.thrown_in for r in state.results)


@pytest.mark.parametrize("variant,players", [("classic", 4), ("bela", 3), ("duel", 2)])
def test_random_records_are_deterministic_for_a_seed(variant, players):
    a = random_record(variant, players, {}, 5, 3)
    b = random_record(variant, players, {}, 5, 3)
    c = random_record(variant, players, {}, 6, 3)
    assert a == b and a != c


def test_whole_match_without_deals_ends_the_match():
    record = random_record("bela", 2, {}, 3, None)
    state = replay(record)
    assert state.winner is not None


def _tamper_first_play(record):
    deal = next(d for d in record["deals"] if any(a["type"] == "play" for a in d["actions"]))
    i = next(i for i, a in enumerate(deal["actions"]) if a["type"] == "play")
    return record["deals"].index(deal), i, deal


def test_a_rule_breaking_record_names_deal_action_and_rule():
    record = json.loads((DATA / "classic.json").read_text())
    d, i, deal = _tamper_first_play(record)
    seat = deal["actions"][i]["seat"]
    deal["actions"][i]["seat"] = (seat + 1) % 4
    with pytest.raises(RecordRuleError) as err:
        replay(record)
    assert str(err.value).startswith(f"deal {d}, action {i}: seat {(seat + 1) % 4} is not to act")


def test_a_card_not_in_hand_is_a_rule_error():
    record = json.loads((DATA / "classic.json").read_text())
    d, i, deal = _tamper_first_play(record)
    seat = deal["actions"][i]["seat"]
    others = [c for c in deal["deck"] if c != deal["actions"][i]["card"]]
    deal["actions"][i]["card"] = others[-1] if seat != 0 else others[0]
    with pytest.raises(RecordRuleError, match=rf"deal {d}, action {i}: seat {seat}: "):
        replay(record)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda r: r.update(format="belote-record/2"), "format"),
        (lambda r: r.update(variant="skat"), "variant"),
        (lambda r: r["options"].update(nonsense=True), "unknown option"),
        (lambda r: r["options"].update(declarations="yes"), "must be true or false"),
        (lambda r: r["deals"][0]["deck"].pop(), "32 cards"),
        (lambda r: r["deals"][0]["deck"].__setitem__(0, r["deals"][0]["deck"][1]), "exactly once"),
        (lambda r: r["deals"][0]["deck"].__setitem__(0, "1X"), "not a card"),
        (lambda r: r["deals"][0]["actions"][0].update(type="shout"), "unknown action type"),
        (lambda r: r["deals"][0]["actions"][0].update(seat=7), "seat must be"),
        (lambda r: r.update(first_dealer=True), "first_dealer"),
        (lambda r: r.update(extra=1), "unknown field"),
        (lambda r: r.update(deals=[]), "at least one deal"),
    ],
)
def test_schema_errors(mutate, message):
    record = json.loads((DATA / "classic.json").read_text())
    mutate(record)
    with pytest.raises(RecordSchemaError, match=message):
        replay(record)


def test_bulgarian_refuses_a_fixed_option():
    record = json.loads((DATA / "bulgarian.json").read_text())
    record["options"]["undertrump_required"] = True
    with pytest.raises(RecordSchemaError, match="bulgarian fixes undertrump_required = false"):
        replay(record)


@pytest.mark.parametrize(
    "options", [{"allow_sa_ta": True}, {"bidding_mode": "turn_up", "allow_sa_ta": True}]
)
def test_classic_refuses_sa_ta_with_the_turn_up(options):
    """RULES.md §11: SA and TA exist only in the free mode."""
    record = json.loads((DATA / "classic.json").read_text())
    record["options"].update(options)
    with pytest.raises(RecordSchemaError, match='allow_sa_ta exists only with bidding_mode "free"'):
        replay(record)
    with pytest.raises(InvalidAction, match="allow_sa_ta"):
        get_rules("classic", None, options)
    assert get_rules("classic", None, {"allow_sa_ta": False}).options["allow_sa_ta"] is False
    assert get_rules("classic", None, {}).options["allow_sa_ta"] is False
    free = get_rules("classic", None, {"bidding_mode": "free"})
    assert free.options["allow_sa_ta"] is True and "NT" in free.ladder


def test_cli_replay_valid_record_exit_0(tmp_path):
    out = atout("record", "replay", str(DATA / "bela3.json"))
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["variant"] == "bela" and len(summary["deals"]) == 2


def test_cli_replay_reads_stdin():
    out = atout("record", "replay", "-", stdin=(DATA / "duel.json").read_text())
    assert out.returncode == 0 and json.loads(out.stdout)["variant"] == "duel"


def test_cli_replay_rule_error_exit_1_one_line():
    record = json.loads((DATA / "classic.json").read_text())
    _, i, deal = _tamper_first_play(record)
    deal["actions"][i]["seat"] = (deal["actions"][i]["seat"] + 1) % 4
    out = atout("record", "replay", "-", stdin=json.dumps(record))
    assert out.returncode == 1
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert "action" in out.stderr


@pytest.mark.parametrize(
    "text", ["", "not json", "[1, 2", '{"format": "belote-record/1"}', "[]", '"x"', "[" * 5000]
)
def test_cli_replay_bad_input_exit_2(text):
    out = atout("record", "replay", "-", stdin=text)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_cli_replay_unreadable_file_exit_2(tmp_path):
    out = atout("record", "replay", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    out = atout("record", "replay", str(binary))
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_cli_random_prints_a_valid_record():
    out = atout("record", "random", "--variant", "coinche", "--seed", "4", "--deals", "3")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert 1 <= len(record["deals"]) <= 3  # a surcoinched capot can end the match early
    replay(record)


def test_cli_random_refuses_bad_options():
    out = atout("record", "random", "--variant", "classic", "--options", '{"nope": 1}')
    assert out.returncode == 2 and "unknown option" in out.stderr


# ``by`` (RULES.md §12): who played an action for its seat; replay ignores it for legality.


def _mark_by(record, every=3):
    marked = json.loads(json.dumps(record))
    for deal in marked["deals"]:
        for j, action in enumerate(deal["actions"]):
            if j % every == 0:
                action["by"] = "stand_in" if j % 2 else "auto"
    return marked


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_a_record_with_by_replays_exactly_as_without_it(path):
    record = json.loads(path.read_text())
    marked = _mark_by(record)
    plain, with_by = replay(record), replay(marked)
    assert dump(with_by) == dump(plain)
    assert with_by.results == plain.results and with_by.scores == plain.scores
    # the field is kept: dumped again with the record's own ``by``, the record round-trips
    by = record_by(marked)
    assert by and dump(with_by, meta=marked.get("meta"), by=by) == marked
    # and each replayed step names it
    steps = [(s.deal, s.index, s.by) for s, _ in replayed_states(marked) if s is not None]
    assert {(d, i): b for d, i, b in steps if b is not None} == by


def test_by_with_another_value_is_a_schema_error():
    record = json.loads((DATA / "classic.json").read_text())
    record["deals"][0]["actions"][1]["by"] = "robot"
    with pytest.raises(RecordSchemaError, match=r"deal 0, action 1: by must be one of"):
        replay(record)


def test_by_does_not_make_an_illegal_action_legal():
    record = json.loads((DATA / "classic.json").read_text())
    d, i, deal = _tamper_first_play(record)
    seat = deal["actions"][i]["seat"]
    other = next(a for a in deal["actions"] if a["type"] == "play" and a["seat"] != seat)
    deal["actions"][i] = {**deal["actions"][i], "card": other["card"], "by": "stand_in"}
    with pytest.raises(RecordRuleError) as exc:
        replay(record)
    assert (exc.value.deal, exc.value.action) == (d, i)


# Every rule error names a deal and an action (RULES.md §12, §14: indices from 0).


def test_an_unfinished_deal_followed_by_another_names_the_first_missing_action():
    record = json.loads((DATA / "classic.json").read_text())
    record["deals"][0]["actions"].pop()
    left = len(record["deals"][0]["actions"])
    with pytest.raises(RecordRuleError) as err:
        replay(record)
    assert (err.value.deal, err.value.action) == (0, left)
    assert str(err.value) == f"deal 0, action {left}: the deal is unfinished but another follows"


def test_a_wrong_dealer_is_named_at_the_deals_first_action():
    record = json.loads((DATA / "classic.json").read_text())
    record["deals"][1]["dealer"] = (record["deals"][1]["dealer"] + 1) % 4
    with pytest.raises(RecordRuleError, match=r"^deal 1, action 0: dealer must be \d$"):
        replay(record)
    record = json.loads((DATA / "classic.json").read_text())
    record["first_dealer"] = (record["first_dealer"] + 1) % 4
    with pytest.raises(RecordRuleError, match=r"^deal 0, action 0: dealer must be \d$"):
        replay(record)


def test_a_deal_after_the_match_is_over_is_named_at_its_first_action():
    record = random_record("bela", 2, {"target": 501}, 3, None)
    record["deals"].append(json.loads(json.dumps(record["deals"][-1])))
    last = len(record["deals"]) - 1
    with pytest.raises(
        RecordRuleError, match=rf"^deal {last}, action 0: the match is already over"
    ):
        replay(record)


def test_cli_names_deal_and_action_of_an_unfinished_deal():
    record = json.loads((DATA / "classic.json").read_text())
    record["deals"][0]["actions"].pop()
    out = atout("record", "replay", "-", stdin=json.dumps(record))
    assert out.returncode == 1
    left = len(record["deals"][0]["actions"])
    message = f"deal 0, action {left}: the deal is unfinished but another follows"
    assert out.stderr.strip() == f"atout: {message}"


# The bela-2p seven exchange (RULES.md §12): declining writes nothing.  Records that carry the
# old ``pass`` there still replay; the pass is dropped when the record is written again.


def _bela2_opening(holder):
    """Bela 2p, dealer 1 (seat 0 leads): ``holder`` has the trump seven 7H among his first
    six cards; seat 0 takes the proposal AH."""
    other = 1 - holder
    wanted = {
        ("hand", holder): ["7H", "AS", "KS", "QS", "JS", "8C"],
        ("talon", holder): ["9S", "8S", "7S", "7C"],
        ("hand", other): ["AC", "KC", "QC", "JC", "TC", "9C"],
        ("talon", other): ["KD", "QD", "JD", "TD"],
        ("up",): ["AH"],
    }
    state = helpers.deal("bela", wanted, dealer=1, players=2)
    return helpers.do(state, {"type": "bid", "contract": "H"})


def _new_form(holder, plays=4):
    """The record of the bid and ``plays`` cards (the first legal card but the seven each
    time): no exchange."""
    seven = parse_card("7H")
    state = _bela2_opening(holder)
    for _ in range(plays):
        acts = legal_actions(state)
        play = next(a for a in acts if isinstance(a, Play) and a.card != seven)
        state, _ = apply(state, play)
    return dump(state)


def _with(record, index, action):
    out = json.loads(json.dumps(record))
    out["deals"][0]["actions"].insert(index, action)
    return out


@pytest.mark.parametrize("holder", [0, 1], ids=["leader", "dealer"])
def test_an_old_exchange_pass_is_read_as_the_decline_and_not_written_again(holder):
    new = _new_form(holder)
    assert [a["type"] for a in new["deals"][0]["actions"]] == [
        "bid",
        "play",
        "play",
        "play",
        "play",
    ]
    old = _with(new, 1, {"seat": holder, "type": "pass"})
    state = replay(old)
    assert dump(state) == new  # the pass is gone
    assert replay(new).hands == state.hands and state.exchanged == -1
    # the replayed steps skip it: indices stay those of the record read
    steps = [s.index for s, _ in replayed_states(old) if s is not None]
    assert steps == [0, 2, 3, 4, 5]


def test_an_old_exchange_pass_closes_the_exchange():
    new = _new_form(1, plays=1)  # seat 0 led; seat 1, the holder, is to act
    old = _with(new, 1, {"seat": 1, "type": "pass"})
    late = _with(old, 3, {"seat": 1, "type": "exchange", "card": "7H"})
    with pytest.raises(RecordRuleError, match="deal 0, action 3: seat 1: exchange"):
        replay(late)


def test_an_exchange_after_the_first_lead_is_refused():
    # RULES.md §5.4, §14: before any declare or play, even on the holder's own turn
    new = _new_form(1, plays=1)  # seat 0 led; seat 1, the holder, is to act
    late = _with(new, 2, {"seat": 1, "type": "exchange", "card": "7H"})
    with pytest.raises(RecordRuleError, match="deal 0, action 2: seat 1: exchange: only before"):
        replay(late)


def test_a_pass_elsewhere_in_the_card_play_is_still_refused():
    new = _new_form(1, plays=1)
    with pytest.raises(RecordRuleError, match="deal 0, action 1: seat 0: pass: the bidding is"):
        replay(_with(new, 1, {"seat": 0, "type": "pass"}))  # seat 0 is not the holder
    with pytest.raises(RecordRuleError, match="deal 0, action 2: seat 1: pass"):
        replay(_with(new, 2, {"seat": 1, "type": "pass"}))  # after the first card


def test_an_old_form_exchange_before_the_lead_by_the_other_player_replays():
    new = _new_form(1, plays=2)
    old = _with(new, 1, {"seat": 1, "type": "exchange", "card": "7H"})
    state = replay(old)
    assert state.exchanged == 1 and dump(state) == old  # a form still written as it is


def test_by_after_an_old_exchange_pass_stays_on_its_action():
    new = _new_form(0)
    new["deals"][0]["actions"][2]["by"] = "auto"
    old = _with(new, 1, {"seat": 0, "type": "pass", "by": "stand_in"})
    state = replay(old)
    assert record_by(old) == {(0, 2): "auto"}
    assert dump(state, by=record_by(old)) == new
