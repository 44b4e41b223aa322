"""Ratings: ladders (one per game and pool), the append-only rating ledger, and its projections.

A *ladder* is one game's ratings in one pool: `people` (rated matches with no bot seat) or
`bots` (rated matches with a bot seat; bots' ratings are shown apart from people's). Its row is
the lock every rating write of that ladder takes, and it says which *epoch* of the ledger is
current: a rebuild that computes different values (new TrueSkill parameters) appends a whole
new epoch rather than touching a row, because the ledger is append-only.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Pool(models.TextChoices):
    PEOPLE = "people", "people (no bot at the table)"
    BOTS = "bots", "bots (a bot at the table)"


class Kind(models.TextChoices):
    USER = "user", "person"
    BOT = "bot", "bot"
    GAME = "game", "the game itself (cooperative games)"


class Ladder(models.Model):
    """One game's ratings in one pool: the lock row, the current epoch, how far rating has got."""

    game = models.CharField(max_length=32)
    pool = models.CharField(max_length=8, choices=Pool.choices)
    epoch = models.PositiveIntegerField(default=1)
    # Matches rated in the current epoch; the next one takes position + 1.
    position = models.PositiveIntegerField(default=0)
    # The match-end key (finished_at, match id) of the latest-ending match rated: every ratable
    # match that ends before it and is not in the ledger arrived late (see services).
    last_finished_at = models.DateTimeField(null=True, blank=True)
    last_match_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "pool"], name="ladder_unique_per_game_pool")]

    def __str__(self) -> str:
        return f"{self.game} ({self.pool}), epoch {self.epoch}"


class RatingEntry(models.Model):
    """One competitor's rating change in one rated match: the ledger. Never updated or deleted.

    The database refuses UPDATE and DELETE (a trigger, see migrations). `position` is the match's
    place in its ladder's rating order (the same on every row of a match). When a tournament
    changes a rated match's result (an organiser's correction or forfeit), the match is rated
    again at a new position, as `revision` n: for each competitor a `reversal` row that takes
    back its last rating of the match, then a row rating the new result (see services).
    """

    # Lean on purpose: a rebuild appends a row per player per match, and on PostgreSQL each
    # foreign-key constraint is a trigger run per row (together they cost more than writing the
    # rows). No database constraint is lost: every row is derived from the event log, whose
    # events (games_event.match) and seats (games_seat.user) already hold database-level keys
    # that keep a rated match or player from being deleted; the ORM's PROTECT checks remain.
    # No single-column indexes either: the composite ones below lead with ladder and epoch.
    ladder = models.ForeignKey(
        Ladder, on_delete=models.PROTECT, related_name="entries", db_index=False, db_constraint=False
    )
    epoch = models.PositiveIntegerField()
    position = models.PositiveIntegerField()
    match = models.ForeignKey(
        "games.Match", on_delete=models.PROTECT, related_name="rating_entries", db_index=False, db_constraint=False
    )
    competitor = models.CharField(max_length=64, help_text="user:<id>, bot:<name> or game:<players>")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        db_index=False, db_constraint=False,
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="null for the game's pseudo-player")
    rank = models.PositiveSmallIntegerField(help_text="the rank rated at: 1 is best, ties share a rank")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    revision = models.PositiveSmallIntegerField(
        default=0, help_text="0: the match as played; n: the n-th result its tournament gave it since"
    )
    reversal = models.BooleanField(
        default=False, help_text="takes back the competitor's rating of revision − 1 (its rank is that one's)"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder_id", "epoch", "position", "reversal", "seat"]
        constraints = [
            # A ledger row per competitor per match per revision (and its reversal) per epoch: a
            # replayed task finds it and stops.
            models.UniqueConstraint(
                fields=["epoch", "match", "competitor", "revision", "reversal"], name="rating_entry_unique"
            ),
        ]
        indexes = [models.Index(fields=["ladder", "epoch", "competitor", "position"], name="rating_entry_history")]

    def __str__(self) -> str:
        return f"{self.competitor} in match {self.match_id} (epoch {self.epoch})"


class Rating(models.Model):
    """A competitor's current rating in a ladder: a projection of the ledger's current epoch."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="ratings")
    competitor = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    mu = models.FloatField()
    sigma = models.FloatField()
    # The conservative rating μ − 3σ the leaderboard orders by, computed by the database from
    # the two stored numbers (only μ and σ are ever written).
    conservative = models.GeneratedField(
        expression=F("mu") - 3 * F("sigma"), output_field=models.FloatField(), db_persist=True
    )
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0, help_text="matches rated at rank 1 (shared or not)")
    last_position = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ladder", "competitor"], name="rating_unique_per_ladder")]
        indexes = [
            models.Index(fields=["ladder", "kind", "-conservative", "id"], name="rating_board"),
            # The bots' pool's board lists people and bots together: one walk in board order for
            # both kinds (on `rating_board` it would be two ranges to merge and sort).
            models.Index(
                fields=["ladder", "-conservative", "id"], name="rating_board_people_and_bots",
                condition=Q(kind__in=[Kind.USER, Kind.BOT]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.competitor}: {self.mu:.2f} ± {self.sigma:.2f}"


class TeamResult(models.Model):
    """A cooperative match's team result (cards left, lower is better): the best-results board."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="team_results")
    match = models.OneToOneField("games.Match", on_delete=models.CASCADE, related_name="+")
    players = models.PositiveSmallIntegerField()
    cards_left = models.PositiveIntegerField()
    won = models.BooleanField()
    finished_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["ladder", "players", "cards_left", "finished_at"], name="team_result_board")]

    def __str__(self) -> str:
        return f"match {self.match_id}: {self.cards_left} cards left"
