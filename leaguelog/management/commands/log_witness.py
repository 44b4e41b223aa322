"""Witnesses a Card League server's league log: cosigns each new checkpoint it can prove
consistent with the last it cosigned, and stops loudly on a fork."""
from __future__ import annotations

import base64
import time
from pathlib import Path

import httpx
from django.core.management.base import BaseCommand, CommandError

from leaguelog.notes import NoteError, parse_signer_key, parse_verifier_key
from leaguelog.witness import ForkError, Witnessed, witness_checkpoint


class Command(BaseCommand):
    help = (
        "Witnesses a league log: fetches the server's newest checkpoint, checks it extends the last one "
        "this witness cosigned (consistency proof), cosigns it and sends the cosignature to the server. "
        "A log that shrank or forked is refused, with exit status 3."
    )

    def add_arguments(self, parser):
        parser.add_argument("--server", required=True, help="the server's base URL, e.g. https://cards.example.org")
        parser.add_argument("--key", required=True, help="this witness's signing key (log_keygen NAME --witness), or @FILE")
        parser.add_argument("--log-key", required=True, help="the log's verifier key (GET /log/key, checked once)")
        parser.add_argument(
            "--state", type=Path, help="where the last cosigned checkpoint is kept (default: var/witness-<name>.json)"
        )
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between looks (default 5)")
        parser.add_argument("--once", action="store_true", help="look once and exit")

    def handle(self, *args, server: str, key: str, log_key: str, state: Path | None, interval: float, once: bool, **options):
        try:
            witness = parse_signer_key(Path(key[1:]).read_text().strip() if key.startswith("@") else key)
            log_verifier = parse_verifier_key(log_key)
        except (NoteError, OSError) as error:
            raise CommandError(f"bad key: {error}") from error
        state = state or Path("var") / f"witness-{witness.name.replace('/', '_')}.json"
        state.parent.mkdir(parents=True, exist_ok=True)
        with httpx.Client(base_url=server.rstrip("/"), timeout=10) as client:
            while True:
                try:
                    self._look(client, witness, log_verifier, state)
                except ForkError as error:
                    self.stderr.write(f"FORK: the log at {server} is not consistent with what this witness cosigned: {error}")
                    raise SystemExit(3) from error
                except (httpx.HTTPError, NoteError) as error:
                    if once:
                        raise CommandError(f"could not witness {server}: {error}") from error
                    self.stderr.write(f"could not witness {server} this time: {error}")
                if once:
                    return
                time.sleep(interval)

    def _look(self, client: httpx.Client, witness, log_verifier, state: Path) -> None:
        note = client.get("/log/checkpoint").raise_for_status().text

        def proof(old: int, new: int) -> list[bytes]:
            body = client.get("/api/log/proofs/consistency", params={"old": old, "new": new}).raise_for_status().json()
            return [base64.b64decode(h) for h in body["proof"]]

        witnessed, checkpoint, line = witness_checkpoint(
            note, log_key=log_verifier, witness=witness, last=Witnessed.load(state), consistency_proof=proof,
            now=int(time.time()),
        )
        if line is None:
            return
        witnessed.save(state)
        client.post("/api/log/cosignatures", json={"size": checkpoint.size, "cosignature": line}).raise_for_status()
        self.stdout.write(f"cosigned {checkpoint.origin} at {checkpoint.size} entries")
