"""Tables (matches), their seats, and the immutable event store."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.chain import CHAIN_VERSION


class Shuffle(models.Model):
    """The server's committed seed for a deal that seated players add to (`games.shuffle`).

    Made before anyone can contribute: with an open table, or with a tournament's round when it
    is paired (the round's tables publish `seed_sha256`; their matches are made at the start).
    """

    seed = models.BigIntegerField(help_text="Hidden until the match ends (then its MatchFinished reveals it).")
    seed_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"shuffle {self.seed_sha256[:12]}"


class ShuffleContribution(models.Model):
    """A person's random contribution to a shuffle, sent before the deal (the last one counts)."""

    shuffle = models.ForeignKey(Shuffle, on_delete=models.CASCADE, related_name="contributions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    value = models.CharField(max_length=64, help_text="64 lowercase hex digits.")
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["shuffle", "user"], name="contribution_unique_per_user")]


# A delayed table's spectators see it this many moves behind (`Match.spectator_delay_moves`).
SPECTATOR_DELAY_MOVES_DEFAULT = 5
SPECTATOR_DELAY_MOVES_MIN = 1
SPECTATOR_DELAY_MOVES_MAX = 50


class SpectatorPolicy(models.TextChoices):
    """Who watches a running table, and how far behind (`games.selectors.can_watch`; README, Security)."""

    OPEN = "open", "open: anyone watches it live"
    DELAYED = "delayed", "delayed: spectators see it some moves behind"
    CLOSED = "closed", "closed: only its seats, its organiser or creator and staff, until it has finished"


class Match(models.Model):
    """A table of one game. Its truth is its event stream; the columns here are a head and an index."""

    class Status(models.TextChoices):
        OPEN = "open", "open for players"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    class Origin(models.TextChoices):
        PLAYED = "played", "played here"
        IMPORTED = "imported", "imported from an export file"
        PRACTICE = "practice", "practice from a position of another match"

    game = models.CharField(max_length=32, db_index=True)
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.PLAYED)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    players = models.PositiveSmallIntegerField(help_text="Seat count, fixed at creation.")
    options = models.JSONField(default=dict, blank=True)
    rated = models.BooleanField(default=True)
    # Left out of the lobby's lists; people sit down through an invitation link (`Invitation`).
    private = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The seed is hidden until the match ends; its SHA-256 is public from the start.
    seed = models.BigIntegerField(null=True, blank=True)
    seed_sha256 = models.CharField(max_length=64, blank=True)
    # A player-contributed shuffle: `seed` is then the server's committed seed, not the deck's.
    shuffle = models.OneToOneField(Shuffle, null=True, blank=True, on_delete=models.PROTECT, related_name="match")
    # A rematch of a finished match (one at most): the same people, seats rotated, started when
    # every person has accepted (`Seat.ready`).
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="rematch"
    )
    # Head of the event stream: moved only by a conditional UPDATE in the same transaction
    # as the appended events, so two writers can never both extend the same head.
    last_seq = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default="")
    # What its events' hashes cover (`games.chain.CHAIN_COVERS`): fixed when the match is made,
    # so matches stored under an older version keep verifying under it.
    chain_version = models.PositiveSmallIntegerField(default=CHAIN_VERSION)
    outcome = models.JSONField(null=True, blank=True)
    # Turn clock: seconds a person has for each decision (null: no clock). `deadline` is
    # when the decision awaited now runs out, moved in the same transaction as each move.
    # A finished match whose deal other tables still play (duplicate deals): its hidden
    # information stays hidden, even once it ends, until the organiser's round is over.
    sealed = models.BooleanField(default=False)
    # Chosen when the table is made (a tournament's tables take the tournament's), never changed.
    spectator_policy = models.CharField(max_length=8, choices=SpectatorPolicy.choices, default=SpectatorPolicy.OPEN)
    spectator_delay_moves = models.PositiveSmallIntegerField(
        default=SPECTATOR_DELAY_MOVES_DEFAULT, help_text="How many moves behind a delayed table's spectators see it."
    )
    clock_seconds = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        # (game, status, finished_at): ratings look up finished matches in match-end order.
        indexes = [models.Index(fields=["game", "status"]), models.Index(fields=["game", "status", "finished_at"])]
        # An import file's players are claims: its matches never move anyone's rating.
        constraints = [
            models.CheckConstraint(condition=~models.Q(origin="imported", rated=True), name="imported_is_unrated"),
            models.CheckConstraint(
                condition=models.Q(
                    spectator_delay_moves__gte=SPECTATOR_DELAY_MOVES_MIN, spectator_delay_moves__lte=SPECTATOR_DELAY_MOVES_MAX
                ),
                name="match_spectator_delay_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.status})"

    @property
    def revealed(self) -> bool:
        """Its hidden information (deck orders, the seed, every hand) is public: ended and not sealed."""
        return self.status == self.Status.FINISHED and not self.sealed


class Seat(models.Model):
    """Who sits where: a local user, a bot (by name) or, in an imported match, a player of
    another server (`guest`, shown as `name@server`), exactly one of them."""

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="seat_set")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    bot = models.CharField(max_length=40, blank=True)
    # An export file's claim about who played, never a local account: a file can name anyone.
    guest = models.CharField(max_length=255, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Set when a person let the clock run out too often; the bot finishes for them and
    # the seat ranks last for ratings (see `games.selectors.result_ranks`).
    abandoned = models.BooleanField(default=False)
    # The player's choice to pass at once in interrupt windows (e.g. a Block window).
    auto_pass = models.BooleanField(default=False)
    # False for a person seated at a rematch they have not accepted yet (every other seat is ready).
    ready = models.BooleanField(default=True)

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="seat_unique_per_match"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=models.Q(user__isnull=False), name="user_sits_once_per_match"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(user__isnull=False, bot="", guest="")
                    | models.Q(user__isnull=True, guest="") & ~models.Q(bot="")
                    | models.Q(user__isnull=True, bot="") & ~models.Q(guest="")
                ),
                name="seat_is_user_bot_or_guest",
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}"

    @property
    def shown_name(self) -> str:
        return self.user.shown_name if self.user is not None else self.bot or self.guest


class Event(models.Model):
    """One immutable fact of a match. `(match, seq)` is unique and gapless from 1.

    `kind` separates the engine's own events (what `ENGINE.replay` folds) from the table's
    facts around them (`MatchStarted`, `MovePlayed`, `MatchFinished`).
    `hash = sha256(previous hash + canonical JSON of the fields its match's chain version
    covers)`: {seq, kind, actor, data} in version 1, every column but `hash` in version 2
    (`games.chain.CHAIN_COVERS`), `created` as `games.chain.canonical_time` spells it.
    The database refuses UPDATE and DELETE on this table (a trigger, see migrations).
    """

    class Kind(models.TextChoices):
        ENGINE = "engine", "engine event"
        TABLE = "table", "table fact"

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    type = models.CharField(max_length=40)
    data = models.JSONField()
    actor = models.CharField(max_length=64, help_text="user:<id>, bot:<name>, clock or server")
    # Kept as it was when a match is imported. Set in Python before hashing (chain version 2
    # covers it) and stored exactly: both databases keep microseconds.
    created = models.DateTimeField(default=timezone.now)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["match_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="event_seq_unique_per_match")]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.type}"


class Invitation(models.Model):
    """A link that sits its holder at an open table: in a given seat or any free one, until it
    expires or the table's creator revokes it. Only the token's SHA-256 is kept (as API tokens).
    One addressed to a person (`invitee`) is sent to them, and sits nobody else."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="invitations")
    token_sha256 = models.CharField(max_length=64, unique=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Null: any free seat.")
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+",
        help_text="Null: whoever holds the link.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "id"]

    def __str__(self) -> str:
        return f"invitation {self.pk} to match {self.match_id}"


class MoveReceipt(models.Model):
    """The first answer to a move sent with an idempotency key, so a retry gets it again.

    A key names one request of one user at one table: the same key at another table is another
    request, and the same key with another move is refused (`request_sha256`), not answered
    with the first move's receipt as if it had been played.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=128)
    match = models.ForeignKey(Match, on_delete=models.PROTECT)
    request_sha256 = models.CharField(max_length=64, default="", help_text="of the move and expected_seq it answered")
    response = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "match", "key"], name="receipt_unique_per_user_match_key")]


class MatchReview(models.Model):
    """The search bot's review of a finished match (`games.review`), computed once in the
    background (`games.tasks.match_review_task`) and kept: pending until `analysis` is written."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DONE = "done", "done"

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    # What the review was computed with (`games.review.REVIEW_VERSION`, REVIEW_PLAYOUTS): one made
    # under other settings is computed again when asked for.
    version = models.PositiveSmallIntegerField(default=0)
    playouts = models.PositiveSmallIntegerField(default=0)
    analysis = models.JSONField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"review of match {self.match_id} ({self.status})"
