"""``atout bench reads``: what the play so far tells about the hidden hands."""

from __future__ import annotations

from bench.reads import format_reads, run_reads


def test_the_reads_bench_measures_the_policys_agreement_and_the_real_worlds_rank() -> None:
    r = run_reads("classic", "medium", deals=3, seed=2, worlds=20)
    assert r["decisions"] > 20
    for kind in ("lead", "follow"):
        a = r["agreement"][kind]
        assert a["choices"] > 0
        assert 0 < a["policy_choice_share"] <= 1
        assert a["legal_cards_mean"] >= 2
    # the medium bot plays much as the rollout policy does: its real hands fit its play better
    # than most worlds drawn from a seat's view
    assert 0.5 < r["real_world_rank"] <= 1
    text = format_reads(r)
    assert "the policy's choice" in text and "chance 0.5" in text


def test_the_reads_bench_refuses_a_variant_without_four_players_in_one_line(capsys) -> None:
    from app import cli

    assert cli.main(["bench", "reads", "--variant", "duel"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'duel' is not a 4-player variant" in err
