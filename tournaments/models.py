"""Tournaments and leagues: the event store, and the read models rebuilt from it.

A tournament's truth is its event stream (`TournamentEvent`, append-only, gapless per
tournament). `Tournament` holds the settings and the head of the stream; `Entrant` is a
player's identity in it (a person or a bot by name). `Round`, `RoundTable`,
`TournamentProjection` and `StandingRow` are projections of the stream: `projections.py`
keeps them current as each event is appended and can rebuild them from the log.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    SpectatorPolicy,
)


class Tournament(models.Model):
    """One tournament or league: its settings, and the head of its event stream."""

    class Status(models.TextChoices):
        REGISTRATION = "registration", "open for registration"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32, db_index=True)
    format = models.CharField(max_length=32, help_text="A slug of tournaments.formats.FORMATS.")
    # The format's options as the organiser gave them; the game's range, `cooperative` and
    # `seed` are added when the format is called (fold.format_options).
    options = models.JSONField(default=dict, blank=True)
    # Engine options for every table (e.g. Sequence Stacks' turn_limit); never a deck.
    match_options = models.JSONField(default=dict, blank=True)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.REGISTRATION, db_index=True
    )
    starts_at = models.DateTimeField(null=True, blank=True, help_text="When round 1 starts by itself.")
    round_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="A round's deadline, counted from its start (null: no deadline)."
    )
    clock_seconds = models.PositiveIntegerField(help_text="Turn clock of every table.")
    rated = models.BooleanField(default=True)
    max_entrants = models.PositiveIntegerField(null=True, blank=True)
    # Check-in, waitlist, late entry, re-entry and no-shows (`tournaments.field_rules.FieldRules`).
    field_rules = models.JSONField(default=dict, blank=True)
    # Duplicate deals come from this seed: hidden until the tournament ends, its SHA-256 public.
    seed = models.BigIntegerField()
    seed_sha256 = models.CharField(max_length=64)
    # Each table's deal mixes the server's committed seed with its seated people's contributions
    # (`games.shuffle`); the round's pairing publishes each table's commitment.
    contributed_shuffle = models.BooleanField(default=False)
    # Every table's spectator policy (`games.models.SpectatorPolicy`), given to its matches when made.
    spectator_policy = models.CharField(max_length=8, choices=SpectatorPolicy.choices, default=SpectatorPolicy.OPEN)
    spectator_delay_moves = models.PositiveSmallIntegerField(default=SPECTATOR_DELAY_MOVES_DEFAULT)
    created_at = models.DateTimeField(auto_now_add=True)
    # Head of the event stream; moved only while the row is locked (select_for_update).
    last_seq = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    spectator_delay_moves__gte=SPECTATOR_DELAY_MOVES_MIN, spectator_delay_moves__lte=SPECTATOR_DELAY_MOVES_MAX
                ),
                name="tournament_spectator_delay_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.format} of {self.game})"


class Entrant(models.Model):
    """A player in a tournament: a person or a bot (by name), never both.

    The row is the entrant's identity (its id is the player id the formats see); `status`
    and the fields after it are kept by the projection from the events.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        WAITLISTED = "waitlisted", "on the waitlist"
        NOT_ADMITTED = "not_admitted", "not admitted (the waitlist closed at the start)"
        WITHDRAWN = "withdrawn", "withdrawn"
        DISQUALIFIED = "disqualified", "disqualified"

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="entrants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    bot = models.CharField(max_length=40, blank=True)
    name = models.CharField(max_length=80)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    seed_order = models.PositiveIntegerField(
        null=True, blank=True, help_text="The seq of the registration that put them in the field (null: not in it)."
    )
    seed_rating = models.FloatField(null=True, blank=True, help_text="The rating frozen at the start.")
    withdrawn_from_round = models.PositiveIntegerField(null=True, blank=True)
    waitlist_order = models.PositiveIntegerField(
        null=True, blank=True, help_text="The seq of the event that put them on the waitlist (null: not on it)."
    )
    checked_in = models.BooleanField(default=False)
    disqualified_from_round = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=models.Q(user__isnull=False),
                name="entrant_user_once",
            ),
            models.UniqueConstraint(
                fields=["tournament", "name"], condition=~models.Q(bot=""), name="entrant_bot_name_once"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(user__isnull=False, bot="") | models.Q(user__isnull=True) & ~models.Q(bot="")
                ),
                name="entrant_is_user_xor_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} in tournament {self.tournament_id}"


# The events by which an organiser changes a table's result after its match; ratings follow them.
RESULT_CHANGES = ("ResultCorrected", "ForfeitAwarded")


class TournamentEvent(models.Model):
    """One immutable fact of a tournament. `(tournament, seq)` is unique and gapless from 1.

    `key` names facts that may happen once only (a match's result, a round's start), so a
    task run twice cannot record them twice. The database refuses UPDATE and DELETE.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField()
    actor = models.CharField(max_length=64, help_text="user:<id>, server or clock")
    key = models.CharField(max_length=80, null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_event_seq_unique"),
            models.UniqueConstraint(
                fields=["tournament", "key"],
                condition=models.Q(key__isnull=False),
                name="tournament_event_key_unique",
            ),
        ]
        indexes = [
            # Ratings look for the results organisers changed each time they rate a tournament's
            # tables: a few rows among a stream of thousands.
            models.Index(
                fields=["tournament", "seq"],
                condition=models.Q(type__in=RESULT_CHANGES),
                name="tournament_event_result_change",
            ),
        ]

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} #{self.seq} {self.type}"


class Round(models.Model):
    """A paired round (projection). `(tournament, number)` is unique: a round is paired once."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    date = models.DateField(null=True, blank=True, help_text="A league matchday's date.")
    starts_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    deadline_passed_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    byes = models.JSONField(default=list, blank=True)
    quality = models.JSONField(
        null=True,
        blank=True,
        help_text="The pairing-quality report of the round as paired (tournaments.pairing_check); "
        "null for rounds paired before reports were kept.",
    )

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_per_tournament")
        ]
        indexes = [
            models.Index(fields=["started_at", "starts_at"]),
            models.Index(fields=["completed_at", "deadline"]),
        ]

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} round {self.number}"


class RoundTable(models.Model):
    """A table of a round (projection): its seats, its match, and its result once recorded."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    seats = models.JSONField(help_text="Entrant ids in seat order.")
    bracket = models.CharField(max_length=16, blank=True, help_text="The bracket match id (elimination).")
    deal = models.BigIntegerField(null=True, blank=True, help_text="The shared deal seed (duplicate).")
    seed_sha256 = models.CharField(
        max_length=64, blank=True, help_text="The commitment to its contributed shuffle's server seed (games.Shuffle)."
    )
    match = models.OneToOneField(
        "games.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="tournament_table"
    )
    absent = models.JSONField(default=list, blank=True, help_text="Entrants absent at the round's deadline.")
    result = models.JSONField(null=True, blank=True)
    result_seq = models.PositiveIntegerField(
        null=True, blank=True, help_text="The event that set the result."
    )
    extra_seconds = models.PositiveIntegerField(
        default=0, help_text="Time judges added to this table past the round's deadline (TableTimeExtended)."
    )

    class Meta:
        ordering = ["round_id", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="table_unique_per_round")]
        indexes = [
            # Whether a round is complete, and which of its tables wait for a result, in O(1).
            models.Index(fields=["round", "number"], condition=models.Q(result__isnull=True), name="table_waiting"),
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class TournamentProjection(models.Model):
    """The tournament's own facts as folded from its stream (status, options, the times it
    started and ended, its champion, how often each round was paired again), tracking the last
    event applied; the rest of the state lives in the entrant, round, table and standing rows."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="projection"
    )
    last_seq = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} at #{self.last_seq}"


class StandingRow(models.Model):
    """One row of the standings table (projection). Points are exact fractions as "n/d" strings."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField(help_text="Row order, 1 first.")
    rank = models.PositiveIntegerField()
    place = models.PositiveIntegerField(null=True, blank=True, help_text="Bracket placement (elimination).")
    points = models.CharField(max_length=32)
    played = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    draws = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()
    byes = models.PositiveIntegerField()
    forfeits = models.PositiveIntegerField()
    buchholz = models.CharField(max_length=32)
    sonneborn_berger = models.CharField(max_length=32)
    rating = models.FloatField(null=True, blank=True)
    mean_team_score = models.FloatField(null=True, blank=True)
    # The team scores summed in the order they came, so a result adds to the mean exactly.
    team_score_sum = models.FloatField(null=True, blank=True)
    withdrawn = models.BooleanField(default=False)
    disqualified = models.BooleanField(default=False)

    class Meta:
        ordering = ["tournament_id", "position"]
        indexes = [models.Index(fields=["tournament", "position"], name="standing_by_position")]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "entrant"], name="standing_unique_per_entrant")
        ]

    def __str__(self) -> str:
        return f"{self.entrant_id}: rank {self.rank}"


class Webhook(models.Model):
    """An organiser's endpoint for a tournament's events, or for a series' (its decisions, and
    its counted tournaments' ends and late corrections); bodies are signed with `secret`."""

    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    series = models.ForeignKey("Series", null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64)
    kinds = models.JSONField(default=list, help_text="The kinds of event delivered.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(tournament__isnull=False, series__isnull=True)
                | models.Q(tournament__isnull=True, series__isnull=False),
                name="webhook_of_a_tournament_or_a_series",
            ),
        ]

    def __str__(self) -> str:
        return f"webhook {self.pk} -> {self.url}"


class WebhookDelivery(models.Model):
    """One event sent to one webhook (an outbox row, written with the event)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # What is delivered: a tournament's event, or a series' decision.
    event = models.ForeignKey(TournamentEvent, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decision = models.ForeignKey("SeriesDecision", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveIntegerField(
        null=True, blank=True, help_text="The last HTTP status received."
    )
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "event"], name="delivery_once_per_event"),
            models.UniqueConstraint(fields=["webhook", "decision"], name="delivery_once_per_decision"),
            models.CheckConstraint(
                condition=models.Q(event__isnull=False, decision__isnull=True)
                | models.Q(event__isnull=True, decision__isnull=False),
                name="delivery_of_an_event_or_a_decision",
            ),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} of event {self.event_id} ({self.status})"


class Series(models.Model):
    """A series of tournaments (a circuit): standings across its finished events by the points
    its rules give (`tournaments.series`). Its decisions are its own stream (`SeriesDecision`);
    this row and its `SeriesEvent`s are what that stream says now, kept by the same writes."""

    name = models.CharField(max_length=120)
    games = models.JSONField(help_text="The games its tournaments may be of (slugs of games.engines.ENGINES).")
    starts_on = models.DateField(help_text="The season's first day.")
    ends_on = models.DateField(help_text="The season's last day.")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # `tournaments.series.SeriesRules` as `series.rules_json` writes it, validated on every write.
    rules = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    # Head of the decision stream; moved only while the row is locked (select_for_update).
    last_seq = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "series"
        constraints = [
            models.CheckConstraint(condition=models.Q(ends_on__gte=models.F("starts_on")), name="series_season_in_order"),
        ]

    def __str__(self) -> str:
        return self.name


class SeriesEvent(models.Model):
    """A tournament counted in a series, at a tier of the series' points table."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="events")
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="series_events")
    tier = models.PositiveSmallIntegerField()
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["series_id", "tournament_id"]
        constraints = [
            models.UniqueConstraint(fields=["series", "tournament"], name="series_event_once"),
        ]

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} in series {self.series_id} (tier {self.tier})"


class SeriesDecision(models.Model):
    """One immutable decision of a series' organiser (SeriesCreated, SeriesRulesSet,
    SeriesEventAdded, SeriesEventTierChanged, SeriesEventRemoved). `(series, seq)` is unique and
    gapless from 1; the database refuses UPDATE and DELETE, and the league log takes each one."""

    series = models.ForeignKey(Series, on_delete=models.PROTECT, related_name="decisions")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField()
    actor = models.CharField(max_length=64, help_text="user:<id>")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["series_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["series", "seq"], name="series_decision_seq_unique")]

    def __str__(self) -> str:
        return f"series {self.series_id} #{self.seq} {self.type}"


class JudgeCallEvent(models.Model):
    """One immutable step of a tournament's judging: a judge named or removed (JudgeNamed,
    JudgeRemoved), a call made, claimed or resolved (JudgeCalled, JudgeCallClaimed,
    JudgeCallResolved). `(tournament, seq)` is unique and gapless from 1; the database refuses
    UPDATE and DELETE.

    A stream of its own because the tournament's stream is public (its feed, webhooks and the
    league log): what a player tells a judge is read only by the organiser, the judges and the
    players of that table. A ruling's effects on play (a time extension, a corrected result) are
    the tournament's own events, and public."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="judging_events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField()
    actor = models.CharField(max_length=64, help_text="user:<id>")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["tournament", "seq"], name="judge_call_event_seq_unique")]

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} judging #{self.seq} {self.type}"


class Judge(models.Model):
    """A person the organiser named to judge the tournament (projection of JudgeNamed/JudgeRemoved)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="judges")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    named_seq = models.PositiveIntegerField(help_text="The JudgeNamed event.")

    class Meta:
        ordering = ["tournament_id", "named_seq"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="judge_once_per_tournament")]

    def __str__(self) -> str:
        return f"judge {self.user_id} of tournament {self.tournament_id}"


class JudgeCall(models.Model):
    """A call for a judge from a table, as its events say now (projection of the judging stream).
    `number` is the seq of its JudgeCalled event."""

    class Status(models.TextChoices):
        OPEN = "open", "waiting for a judge"
        CLAIMED = "claimed", "a judge is on the way"
        RESOLVED = "resolved", "resolved"

    class Reason(models.TextChoices):
        RULES = "rules", "a rules question"
        DISPUTE = "dispute", "the players disagree"
        TECHNICAL = "technical", "a technical problem"
        CONDUCT = "conduct", "a player's conduct"
        OTHER = "other", "something else"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="judge_calls")
    number = models.PositiveIntegerField()
    round_number = models.PositiveIntegerField()
    table_number = models.PositiveIntegerField()
    match = models.ForeignKey("games.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    match_seq = models.PositiveIntegerField(help_text="The table's position in its match's log when called.")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    details = models.TextField(blank=True)
    caller = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    called_at = models.DateTimeField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    ruling = models.JSONField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    last_seq = models.PositiveIntegerField(help_text="The judging event that last changed it.")

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="judge_call_unique")]
        indexes = [models.Index(fields=["tournament", "last_seq"])]

    def __str__(self) -> str:
        return f"judge call {self.number} of tournament {self.tournament_id} ({self.status})"
