"""Prints a new Ed25519 key for the league log (LOG_SIGNING_KEY) or a witness, and its public half."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from leaguelog.notes import ED25519, ED25519_COSIGNATURE, generate_signer_key, verifier_key_for


class Command(BaseCommand):
    help = (
        "Prints a new signing key (keep it secret: LOG_SIGNING_KEY, or a witness's --key) on the first "
        "line and its verifier key (publish it) on the second."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="the key's name: the log's origin, or the witness's name")
        parser.add_argument("--witness", action="store_true", help="a witness's cosignature key (type 0x04)")

    def handle(self, *args, name: str, witness: bool, **options):
        signer = generate_signer_key(name, ED25519_COSIGNATURE if witness else ED25519)
        self.stdout.write(signer)
        self.stdout.write(verifier_key_for(signer))
