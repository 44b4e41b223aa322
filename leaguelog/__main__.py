"""Verifies the whole league log offline: `python -m leaguelog URL-or-DIR --log-key KEY`.

No database and no Django settings: it reads what a server serves (or a mirror of its files)
and checks it with `leaguelog.verify` (what it checks: that module's docstring). Exits 0 when
everything verifies, 1 at the first disagreement (named on stderr), 2 on a usage error.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

from leaguelog.notes import NoteError, VerifierKey, parse_verifier_key
from leaguelog.verify import Disagreement, Fetch, FetchError, verify_league

_DESCRIPTION = """\
Verify the league log and every fact in it, with no database: the checkpoint against the log's
pinned key (and a quorum of witnesses' cosignatures), every entry against its signed root, every
match's export replayed, every tournament's events folded again (its final standings recomputed),
every series' standings recomputed, every rating ledger row recomputed bit for bit under the
server's published TrueSkill parameters.

SOURCE is the server's URL, or a folder laid out as its files: checkpoint, tile/..., matches/<id>.jsonl
(the exports), ratings-params.json, series/<id>.json; --mirror writes that folder from a server."""

_EPILOG = """\
exit status: 0 when everything verified, 1 at the first disagreement (named on stderr), 2 on a
usage error (a missing or malformed key, a source that is neither a URL nor a folder)."""

# Where a server serves what a mirror keeps at each path.
_SERVED_PREFIXES = (("checkpoint", "/log/checkpoint"), ("key", "/log/key"), ("tile/", "/log/tile/"),
                    ("ratings-params.json", "/api/ratings/params"))


def served_path(path: str) -> str:
    """The server's path of a mirror's file: `matches/7.jsonl` is `/api/matches/7/export`."""
    if path.startswith("matches/") and path.endswith(".jsonl"):
        return f"/api/matches/{path[len('matches/'):-len('.jsonl')]}/export"
    if path.startswith("series/") and path.endswith(".json"):
        return f"/api/series/{path[len('series/'):-len('.json')]}"
    for mirrored, served in _SERVED_PREFIXES:
        if path.startswith(mirrored):
            return served + path[len(mirrored):]
    raise ValueError(f"no served path for {path!r}")


def http_fetch(base_url: str) -> Fetch:
    """Fetches a mirror path from the server at base_url."""
    client = httpx.Client(base_url=base_url.rstrip("/"), timeout=60, follow_redirects=True)

    def fetch(path: str) -> bytes:
        try:
            response = client.get(served_path(path))
        except httpx.HTTPError as error:
            raise FetchError(f"cannot be fetched: {error}") from error
        if response.status_code != 200:
            raise FetchError(f"served with status {response.status_code}")
        return response.content

    return fetch


def folder_fetch(folder: Path) -> Fetch:
    """Reads a mirror path from a folder."""

    def fetch(path: str) -> bytes:
        try:
            return (folder / path).read_bytes()
        except OSError as error:
            raise FetchError(f"cannot be read: {error.strerror or error}") from error

    return fetch


def mirrored(fetch: Fetch, folder: Path) -> Fetch:
    """fetch, writing each file it fetches under folder at its mirror path."""

    def fetch_and_keep(path: str) -> bytes:
        content = fetch(path)
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        return content

    return fetch_and_keep


def progress_bar(items: Iterable[Any], total: int, what: str) -> Iterable[Any]:
    """A progress bar on stderr (on a terminal only)."""
    return tqdm(items, total=total, desc=what, unit="", file=sys.stderr, disable=None, leave=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m leaguelog", description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="URL-or-DIR", help="the server's URL, or a folder of its files")
    parser.add_argument("--log-key", metavar="KEY", help="the log's verifier key, pinned (required)")
    parser.add_argument("--witness", metavar="KEY", action="append", default=[],
                        help="a witness's verifier key (cosignature/v1); repeatable")
    parser.add_argument("--quorum", metavar="N", type=int,
                        help="how many of the witnesses must have cosigned (default: all given)")
    parser.add_argument("--previous", metavar="FILE", type=Path,
                        help="a checkpoint kept from before (e.g. a mirror's): the log must extend it")
    parser.add_argument("--skip-matches", action="store_true", help="do not fetch and replay the matches' exports")
    parser.add_argument("--mirror", metavar="DIR", type=Path, help="write what is fetched from URL into DIR")
    return parser


def _keys(parser: argparse.ArgumentParser, texts: list[str], what: str) -> list[VerifierKey]:
    try:
        return [parse_verifier_key(text.strip()) for text in texts]
    except NoteError as error:
        parser.error(f"{what}: {error}")
    raise AssertionError("parser.error exits")


def _key_hint(fetch: Fetch) -> str:
    try:
        return f" (the source serves {fetch('key').decode('utf-8', 'replace').strip()!r}: check it elsewhere)"
    except FetchError:
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    is_url = arguments.source.startswith(("http://", "https://"))
    if not is_url and not Path(arguments.source).is_dir():
        parser.error(f"{arguments.source!r} is neither an http(s) URL nor a folder")
    if arguments.mirror is not None and not is_url:
        parser.error("--mirror copies from a URL")
    fetch = http_fetch(arguments.source) if is_url else folder_fetch(Path(arguments.source))
    if arguments.log_key is None:
        parser.error(f"--log-key is required: a verifier pins the log's key{_key_hint(fetch)}")
    (log_key,) = _keys(parser, [arguments.log_key], "--log-key")
    witnesses = _keys(parser, arguments.witness, "--witness")
    quorum = len(witnesses) if arguments.quorum is None else arguments.quorum
    if not 0 <= quorum <= len(witnesses):
        parser.error(f"--quorum {quorum}: between 0 and the {len(witnesses)} witnesses given")
    previous = None
    if arguments.previous is not None:
        try:
            previous = arguments.previous.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            parser.error(f"--previous: {error}")
    if arguments.mirror is not None:
        fetch = mirrored(fetch, arguments.mirror)
        fetch("key")  # kept for the hint above; never trusted
    try:
        summary = verify_league(
            fetch, log_key=log_key, witnesses=witnesses, quorum=quorum, previous_note=previous,
            check_matches=not arguments.skip_matches, progress=progress_bar,
        )
    except Disagreement as disagreement:
        print(f"verify_league: FAILED: {disagreement}", file=sys.stderr)
        return 1
    for note in summary.notes:
        print(f"verify_league: note: {note}")
    print(summary.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
