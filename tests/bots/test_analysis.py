"""The analysis of finished deals (``app.bots.analysis``) and ``atout analyse``."""

from __future__ import annotations

import copy
import itertools
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.bots import dds
from app.bots.analysis import (
    COSTLY,
    DealAnalysis,
    Options,
    analyse_chunk,
    analyse_record,
    card_decision,
)
from app.engine import Phase
from app.engine.cards import parse_card
from app.engine.cli import random_record
from app.engine.game import legal_play_mask

from .helpers import CONFIGS, IDS, random_chooser, states


def bela2_record() -> dict[str, Any]:
    return random_record("bela", 2, {}, seed=3, deals=1)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_card_decision_against_the_real_cards_and_drawn_deals(variant: str, players: int) -> None:
    """Late positions of every variant: the real values are the solver's, the card played
    costs the best value minus its own, and the drawn deals' means lie in the deal's range."""
    rng = random.Random(4)
    checked = 0
    for state in itertools.islice(states(variant, players, 21, random_chooser), 40000):
        if state.phase is not Phase.PLAY or len(state.tricks) < state.rules.total_tricks - 3:
            continue
        legal = legal_play_mask(state)
        if legal.bit_count() < 2:
            continue
        seat = state.to_act
        played = (legal & -legal).bit_length() - 1
        entry = card_decision(state, seat, played, dds.new_table(), 3, rng)
        sol = dds.solve_position(dds.position_of(state), state.rules.side_of[seat])
        real = {k: v for k, v in entry["real"]["values"].items()}
        assert real == {f: float(sol.scores[parse_card(f)][0]) for f in real}
        assert entry["real"]["cost"] == max(real.values()) - real[entry["played"]]
        assert entry["real"]["cost"] >= 0
        exp = entry["expected"]
        assert set(exp["values"]) == set(real)
        assert exp["cost"] == pytest.approx(
            max(exp["values"].values()) - exp["values"][entry["played"]]
        )
        assert all(0 <= v <= 350 for v in exp["values"].values())
        assert exp["worlds"] == 3
        checked += 1
        if checked >= 6:
            break
    assert checked >= 6


def test_a_whole_deal_has_every_choice_of_the_seat_and_a_summary() -> None:
    record = bela2_record()
    report = analyse_record(record, [0], [1], Options(worlds=2, bid_worlds=8))
    deal = report["deals"][0]
    cards = [x for x in deal["decisions"] if x["kind"] == "card"]
    actions = record["deals"][0]["actions"]
    # every card of seat 1 with a choice is there, in order, with the card it played
    assert [x["index"] for x in cards] == sorted(x["index"] for x in cards)
    for x in cards:
        assert actions[x["index"]]["seat"] == 1
        assert actions[x["index"]]["card"] == x["played"]
    assert cards
    summary = deal["summary"]["1"]
    assert summary["cards"] == len(cards)
    costly = [x for x in cards if x["expected"]["cost"] >= COSTLY]
    assert summary["costly_cards"] == len(costly)
    assert summary["cost"] == pytest.approx(sum(x["expected"]["cost"] for x in costly))
    assert summary["real_cost"] == sum(x["real"]["cost"] for x in cards)
    bids = [x for x in deal["decisions"] if x["kind"] == "bid"]
    for b in bids:
        assert b["cost"] == pytest.approx(max(o["value"] for o in b["options"]) - b["value"])


def test_analyse_prints_a_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(bela2_record()))
    code, out, err = run(
        ["analyse", str(path), "--seat", "0", "--worlds", "2", "--bid-worlds", "5"], capsys
    )
    assert code == 0, err
    assert "Deal 0:" in out and "seat 0:" in out and "costly cards" in out
    code, out, err = run(
        [
            "analyse",
            str(path),
            "--deal",
            "0",
            "--seat",
            "0",
            "--worlds",
            "2",
            "--bid-worlds",
            "5",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["variant"] == "bela" and report["worlds"] == 2
    assert [d["deal"] for d in report["deals"]] == [0]


def test_analyse_exit_codes_on_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = bela2_record()
    path = tmp_path / "r.json"
    cases: list[tuple[Any, list[str], int, str]] = []
    broken = copy.deepcopy(good)
    plays = [a for a in broken["deals"][0]["actions"] if a["type"] == "play"]
    plays[1]["card"] = plays[0]["card"]  # a card already played: breaks a rule
    cases.append((broken, [], 1, "deal 0, action"))
    cases.append(("{not json", [], 2, "not JSON"))
    cases.append(({"format": "belote-record/2"}, [], 2, "invalid record"))
    cases.append((good, ["--deal", "5"], 2, "deal 5 is not in the record"))
    cases.append((good, ["--seat", "7"], 2, "seat 7 is not a seat"))
    cases.append((good, ["--worlds", "0"], 2, "--worlds"))
    cases.append((good, ["--cpu-seconds", "0"], 2, "--cpu-seconds"))
    unfinished = copy.deepcopy(good)
    unfinished["deals"][0]["actions"] = unfinished["deals"][0]["actions"][:-3]
    cases.append((unfinished, ["--deal", "0"], 2, "deal 0 is not finished"))
    for data, extra, want, message in cases:
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        code, out, err = run(
            ["analyse", str(path), "--worlds", "1", "--bid-worlds", "2", *extra], capsys
        )
        assert code == want, (message, err)
        assert message in err
        assert "Traceback" not in err and out == ""
    code, out, err = run(["analyse", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "cannot read" in err


def _without_cpu(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "cpu_seconds"}


def test_a_deal_in_chunks_adds_up_to_one_run() -> None:
    """The server's way (one world per chunk here) gives the same analysis as one run: each
    drawn world has its own seed, whatever chunk draws it."""
    record = bela2_record()
    options = Options(worlds=3, bid_worlds=4, seed=2)
    whole = DealAnalysis(record, 0, [0, 1], options).run()
    job = DealAnalysis(record, 0, [0, 1], replace(options, chunk_seconds=0.0))
    chunks, done = 0, []
    while (chunk := job.next_chunk()) is not None:
        job.add(analyse_chunk(*chunk))
        chunks += 1
        done.append(job.done)
    cards = [x for x in whole["decisions"] if x["kind"] == "card"]
    assert cards and chunks >= len(whole["decisions"]) + 2 * len(cards)  # 3 chunks a card
    assert done == sorted(done) and done[-1] == job.total == len(job.items)
    assert _without_cpu(job.report()) == _without_cpu(whole)


def test_a_cpu_budget_draws_fewer_worlds_and_one_at_least() -> None:
    record = bela2_record()
    report = DealAnalysis(record, 0, [1], Options(worlds=50, bid_worlds=2, cpu_seconds=1e-6)).run()
    cards = [x for x in report["decisions"] if x["kind"] == "card"]
    assert cards
    assert all(x["expected"]["worlds"] == 1 for x in cards)
    assert report["cpu_seconds"] > 0
    assert [x["index"] for x in report["decisions"]] == sorted(
        x["index"] for x in report["decisions"]
    )
