"""Duplicate deals (tournaments/formats/duplicate.py): tables of a round that share a deck."""
from __future__ import annotations

import pytest

from tournaments.formats import FORMATS, Pairing, Table
from tournaments.formats.duplicate import deal_groups, deal_seed, with_deals


def test_a_deal_seed_is_the_same_for_the_same_tournament_round_and_player_count():
    assert deal_seed(7, 3, 4) == deal_seed(7, 3, 4)


def test_a_deal_seed_changes_with_the_round_the_player_count_and_the_tournament():
    seeds = {deal_seed(7, 3, 4), deal_seed(7, 4, 4), deal_seed(7, 3, 5), deal_seed(8, 3, 4)}
    assert len(seeds) == 4


def test_a_deal_seed_fits_a_signed_64_bit_column():
    assert all(0 <= deal_seed(seed, 1, 4) < 2**63 for seed in range(200))


def test_tables_with_the_same_player_count_share_a_deal():
    pairing = Pairing(1, (Table((1, 2, 3, 4, 5)), Table((6, 7, 8, 9)), Table((10, 11, 12, 13))))
    assert deal_groups(pairing) == {4: (1, 2), 5: (0,)}
    dealt = with_deals(pairing, 99)
    assert dealt.tables[1].deal == dealt.tables[2].deal != dealt.tables[0].deal


@pytest.mark.parametrize("slug, options", [
    ("swiss", {}),
    ("round-robin", {}),
    ("single-elimination", {}),
    ("double-elimination", {}),
    ("swiss-tables", {"table_size": 4, "min_players": 2, "max_players": 5}),
    ("table-elimination", {"table_size": 4, "min_players": 2, "max_players": 5}),
    ("league", {"format": "swiss"}),
])
def test_the_duplicate_option_gives_every_table_of_a_round_its_shared_deal(slug, options):
    pairing = FORMATS[slug].next_round(list(range(1, 14)), {**options, "duplicate": True, "seed": 5})
    assert all(table.deal == deal_seed(5, 1, len(table.seats)) for table in pairing.tables)


def test_without_the_option_tables_carry_no_deal():
    pairing = FORMATS["swiss"].next_round([1, 2, 3, 4])
    assert all(table.deal is None for table in pairing.tables)
