"""The league log's tables: its leaves, stored subtree hashes and signed checkpoints (all three
append-only), the head that integrators lock, and the facts waiting to be logged.

The pure log (hashing, proofs, notes, tiles) is `leaguelog.merkle`, `.notes`, `.checkpoint`,
`.cosignature` and `.tiles`; these tables only keep what it computes.
"""
from __future__ import annotations

from django.db import models
from django.utils import timezone


class Kind(models.TextChoices):
    MATCH = "match", "a finished match, once its hidden information is public"
    TOURNAMENT_EVENT = "tournament_event", "an event of a tournament's stream"
    RATING_ENTRY = "rating_entry", "a row of the rating ledger"
    SERIES_DECISION = "series_decision", "a decision of a series' organiser"


class LogEntry(models.Model):
    """One leaf: the canonical JSON of a fact (`body`, the bytes its leaf hash covers) at `index`."""

    index = models.BigIntegerField(primary_key=True)
    kind = models.CharField(max_length=24, choices=Kind.choices)
    source_id = models.BigIntegerField(help_text="the fact's row: a match, a tournament event, a ledger row or a series decision")
    part = models.PositiveIntegerField(default=0, help_text="which part of a fact too long for one entry")
    body = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "source_id", "part"], name="log_entry_fact_once")]


class LogHash(models.Model):
    """The hash of the complete subtree of 2**level leaves starting at leaf index * 2**level."""

    level = models.PositiveSmallIntegerField()
    index = models.BigIntegerField()
    hash = models.BinaryField(max_length=32)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["level", "index"], name="log_hash_once")]


class LogCheckpoint(models.Model):
    """The log as one integration left it: its size, root and the signed note served for it."""

    size = models.BigIntegerField(unique=True)
    root_hash = models.BinaryField(max_length=32)
    note = models.TextField(help_text="the C2SP checkpoint, signed as a C2SP note by the log's key")
    created = models.DateTimeField(default=timezone.now)


class LogHead(models.Model):
    """The one row an integrator locks: how many entries the log holds."""

    size = models.BigIntegerField(default=0)


class LogPending(models.Model):
    """A fact not yet logged (an outbox). Database triggers write these in the fact's own
    transaction, so a fact that commits is logged whichever code path made it, and none is
    logged that rolled back; the integrator deletes them as it logs them."""

    kind = models.CharField(max_length=24, choices=Kind.choices)
    source_id = models.BigIntegerField()


class LogCosignature(models.Model):
    """A witness's cosignature of a checkpoint (a C2SP cosignature/v1 note signature line)."""

    checkpoint = models.ForeignKey(LogCheckpoint, on_delete=models.PROTECT, related_name="cosignatures")
    witness = models.CharField(max_length=200, help_text="the witness key's name")
    line = models.TextField(help_text="the signature line, served after the log's own")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["checkpoint", "witness"], name="log_cosignature_once")]
