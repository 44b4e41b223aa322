"""Every environment variable the project reads, declared once, and the one reader of them.

Each `Variable` says its name, what it expects, its default, what it means and whether production
requires it. server/settings.py reads the environment only through `read_*` below; the README's
configuration table and .env.example are generated from `VARIABLES` (`make settings-doc`,
server/settings_doc.py), and tests/server/test_settings_declared.py fails when either drifts.

Parsing is environs' (marshmallow underneath), eager: the first bad value stops the process with
`ImproperlyConfigured("NAME: expected ..., got '...'")`. An empty value is taken as unset (compose's
`${NAME:-}` passes one), so `NAME=` in an env file means "the default".
"""
from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parseaddr
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import dj_database_url
import environs
from django.core.exceptions import ImproperlyConfigured

from leaguelog import notes
from server import redis_clients

# Eager: a bad value raises at once, naming its variable; a process never starts half-configured.
_env = environs.Env(eager=True)

_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"0", "false", "no", "off"})


@_env.parser_for("yes_no")
def _yes_no(value: str) -> bool:
    """1/0, true/false, yes/no, on/off in any case: anything else is a typo, never a silent "no"."""
    word = value.strip().lower()
    if word in _YES or word in _NO:
        return word in _YES
    raise environs.ValidationError("not yes or no")


@_env.parser_for("throttle_rate")
def _throttle_rate(value: str) -> str:
    """DRF's `N/period`, where the period's first letter (s, m, h, d) is all DRF reads."""
    count, _, period = value.strip().partition("/")
    if not count.isdigit() or period[:1] not in ("s", "m", "h", "d") or not period.isalpha():
        raise environs.ValidationError("not a rate")
    return value.strip()


@_env.parser_for("networks")
def _networks(value: str) -> list[str]:
    """Addresses or networks, comma-separated, each one `ipaddress` accepts."""
    entries = _items(value)
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise environs.ValidationError(f"{entry!r} is not an address or a network") from None
    return entries


@_env.parser_for("host_ports")
def _host_ports(value: str) -> str:
    try:
        redis_clients.sentinels_parsed(value)
    except ImproperlyConfigured as error:
        raise environs.ValidationError(str(error)) from None
    return value.strip()


@_env.parser_for("redis_url")
def _redis_url(value: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.netloc or parts.path):
        raise environs.ValidationError("not a Redis URL")
    return value.strip()


@_env.parser_for("database_url")
def _database_url(value: str) -> str:
    # dj-database-url refuses a scheme it has no engine for; the settings parse it again, with options.
    try:
        dj_database_url.parse(value.strip())
    except (ValueError, KeyError) as error:
        raise environs.ValidationError(f"not a database URL ({error})") from None
    return value.strip()


@_env.parser_for("signer_key")
def _signer_key(value: str) -> str:
    try:
        notes.parse_signer_key(value.strip())
    except (notes.NoteError, ValueError):
        raise environs.ValidationError("not a signer key") from None  # its words could quote the key
    return value.strip()


@_env.parser_for("verifier_keys")
def _verifier_keys(value: str) -> list[str]:
    entries = _items(value)
    for entry in entries:
        try:
            notes.parse_verifier_key(entry)
        except (notes.NoteError, ValueError) as error:
            raise environs.ValidationError(str(error)) from None
    return entries


_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")
_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


@_env.parser_for("dotted_path")
def _dotted_path(value: str) -> str:
    if not _DOTTED.fullmatch(value.strip()):
        raise environs.ValidationError("not a dotted path")
    return value.strip()


@_env.parser_for("host_name")
def _host_name(value: str) -> str:
    if not _HOST_NAME.fullmatch(value.strip()):
        raise environs.ValidationError("not a lower-case host name")
    return value.strip()


@_env.parser_for("mail_address")
def _mail_address(value: str) -> str:
    _name, address = parseaddr(value.strip())
    if "@" not in address.strip("@"):
        raise environs.ValidationError("not an e-mail address")
    return value.strip()


@_env.parser_for("origins")
def _origins(value: str) -> list[str]:
    """Origins as Django's CSRF check wants them: each with its scheme (`https://cards.example.org`)."""
    entries = _items(value)
    for entry in entries:
        parts = urlsplit(entry)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise environs.ValidationError(f"{entry!r} is not scheme://host")
    return entries


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@dataclass(frozen=True)
class Kind:
    """What a variable expects: the words for errors and docs, and its environs parser."""

    expected: str  # "an integer of at least 1": for `NAME: expected <this>, got 'abc'`
    shown: str  # the README's short form
    parse: Callable[[str], Any]  # the variable's name -> its typed value (environs reads it)
    refused: str | None  # a value this kind refuses (the tests try it); None: it takes any text


def integer(minimum: int = 0, maximum: int | None = None) -> Kind:
    """A whole number from `minimum` (to `maximum`, if given)."""
    bounds = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
    return Kind(
        f"a whole number {bounds}", f"integer ≥ {minimum}" if maximum is None else f"integer {minimum}–{maximum}",
        lambda name: _env.int(name, validate=environs.validate.Range(min=minimum, max=maximum)), "1.5x",
    )


def number(minimum: float = 0, *, above: bool = False) -> Kind:
    """A float of at least `minimum` (above it, if `above`: a poll interval of 0 would spin)."""
    return Kind(
        f"a number {'above' if above else 'of at least'} {minimum:g}", f"number {'>' if above else '≥'} {minimum:g}",
        lambda name: _env.float(
            name, validate=environs.validate.Range(min=minimum, min_inclusive=not above)
        ),
        "ten",
    )


def choice(*options: str) -> Kind:
    """One of `options`, exactly (as Django or logging takes them)."""
    return Kind(
        f"one of {', '.join(options)}", " or ".join(f"`{option}`" for option in options),
        lambda name: _env.str(name, validate=environs.validate.OneOf(options)), "verbose",
    )


def url(*schemes: str) -> Kind:
    """A URL with one of `schemes` and a host."""
    return Kind(
        f"a URL ({' or '.join(f'{scheme}://' for scheme in schemes)} and a host)", "URL",
        lambda name: _env.str(name, validate=environs.validate.URL(schemes=set(schemes), require_tld=False)).strip(),
        "cards.example.org",
    )


YES_NO = Kind("yes or no (1/0, true/false, yes/no, on/off)", "yes/no", lambda name: _env.yes_no(name), "maybe")
TEXT = Kind("text", "text", lambda name: _env.str(name).strip(), None)
LIST = Kind("a comma-separated list", "list", lambda name: _items(",".join(_env.list(name))), None)
FILE_PATH = Kind("a path", "path", lambda name: _env.path(name), None)
RATE = Kind(
    "a rate such as 20/hour (per second, minute, hour or day)", "rate", lambda name: _env.throttle_rate(name), "20/fortnight"
)
NETWORKS = Kind(
    "addresses or networks, comma-separated (10.0.0.0/8, 192.0.2.1)", "list of networks",
    lambda name: _env.networks(name), "proxy.example.org",
)
ORIGINS = Kind("origins, comma-separated, each with its scheme (https://cards.example.org)", "list of origins",
               lambda name: _env.origins(name), "cards.example.org")
HOST_PORTS = Kind("host:port,host:port,...", "list of host:port", lambda name: _env.host_ports(name), "sentinel1")
SIGNER_KEY = Kind("a signer key (`manage.py log_keygen NAME` prints one: PRIVATE+KEY+...)", "signer key",
                  lambda name: _env.signer_key(name), "PRIVATE+KEY+not-a-key")
VERIFIER_KEYS = Kind("verifier keys, comma-separated (NAME+keyid+base64)", "list of verifier keys",
                     lambda name: _env.verifier_keys(name), "witness-1.example")
DOTTED_PATH = Kind("a dotted Python path (django.core.mail.backends.smtp.EmailBackend)", "dotted path",
                   lambda name: _env.dotted_path(name), "smtp")
HOST_NAME = Kind("a lower-case host name (cards.example.org)", "host name", lambda name: _env.host_name(name),
                 "Cards Example")
MAIL_ADDRESS = Kind("an e-mail address, with a name or without (Card League <noreply@cards.example.org>)",
                    "e-mail address", lambda name: _env.mail_address(name), "noreply")
DB_URL = Kind(
    "a database URL (postgres://user:password@host:5432/name)", "URL", lambda name: _env.database_url(name),
    "postgress://host/db",
)
REDIS_URL_KIND = Kind("a Redis URL (redis://host:6379/0)", "URL", lambda name: _env.redis_url(name), "localhost:6379")


@dataclass(frozen=True)
class Computed:
    """A default the settings work out (it depends on DEBUG, the embedded default, ...): `shown` says how."""

    shown: str


Default = bool | int | float | str | tuple[str, ...] | Computed | None


@dataclass(frozen=True)
class Variable:
    """One environment variable.

    `example` is its line in .env.example: None writes `# NAME=<default>` (left to its default),
    a value writes `NAME=<value>`, or `# NAME=<value>` with `example_set=False` (an illustration
    an operator uncomments). `read_by` other than settings: a variable only docker/compose.yaml or
    uvicorn reads, declared for the docs and the env file alone.
    """

    name: str
    kind: Kind
    default: Default
    meaning: str
    required: bool = False  # production needs it set
    example: str | None = None
    example_set: bool = True
    shown_default: str | None = None  # how the docs give the default, when its value says too little
    secret: bool = False  # never echoed in an error (it may hold a password)
    read_by: Literal["settings", "compose", "uvicorn", "prometheus_client"] = "settings"
    retired: bool = False  # read only to refuse it: in the README, not in .env.example

    def default_shown(self) -> str:
        """The default as the README gives it."""
        if self.shown_default is not None:
            return self.shown_default
        default = self.default
        if isinstance(default, Computed):
            return default.shown
        if default is None or default == "" or default == ():
            return "unset"
        if isinstance(default, bool):
            return "`1`" if default else "`0`"
        if isinstance(default, tuple):
            return f"`{','.join(default)}`"
        if isinstance(default, float):
            return f"`{default:g}`"
        return f"`{default}`"


@dataclass(frozen=True)
class Section:
    title: str
    variables: tuple[Variable, ...]


def _section(title: str, *variables: Variable) -> Section:
    return Section(title, variables)


_EMBEDDED = "the embedded default"
SECTIONS: tuple[Section, ...] = (
    _section(
        "Site and secrets",
        Variable("SECRET_KEY", TEXT, "", "Django's secret key: 50 random characters", required=True,
                 example="change-me-to-50-random-characters", secret=True,
                 shown_default=f"{_EMBEDDED} makes one in `var/secret_key`"),
        Variable("ALLOWED_HOSTS", LIST, Computed("`*` with DEBUG; `localhost,127.0.0.1,[::1]` embedded; none otherwise"),
                 "the host names this server answers to, comma-separated", required=True, example="cards.example.org"),
        Variable("LOG_SIGNING_KEY", SIGNER_KEY, "",
                 "the league log's signing key, whose name is the log's origin: `python manage.py log_keygen "
                 "cards.example.org/card-league` prints it (first line: keep it secret) and its verifier key (second "
                 "line: publish it)", required=True, example="", secret=True,
                 shown_default=f"{_EMBEDDED} makes a key named `<EXPORT_SERVER_NAME or localhost>/card-league` in "
                 "`var/log_signing_key`"),
        Variable("SITE_URL", url("http", "https"), Computed("`http://localhost:$PORT` embedded; empty otherwise"),
                 "the address e-mails link to: password reset links are built on it alone (never on a request's "
                 "`Host`), and without it a reset is refused (503 `mail_unavailable`, logged); notification mails "
                 "give the page's path only", required=True, example="https://cards.example.org"),
        Variable("CSRF_TRUSTED_ORIGINS", ORIGINS, (), "origins trusted for unsafe requests, e.g. `https://cards.example.org`",
                 example="https://cards.example.org", shown_default="none"),
        Variable("DEBUG", YES_NO, False, "Django's debug pages: never in production", example="0"),
    ),
    _section(
        "Database",
        Variable("DATABASE_URL", DB_URL, "",
                 "PostgreSQL (psycopg 3, pooled), e.g. `postgres://user:pw@host:5432/db`: set, this is production "
                 "(compose sets it from `APP_DB_USER` and `APP_DB_PASSWORD`)", required=True,
                 example="postgres://cardleague_app:change-me-too@postgres:5432/cardleague", example_set=False,
                 secret=True, shown_default=f"unset: {_EMBEDDED}'s SQLite file `var/db.sqlite3`"),
        Variable("MIGRATE_DATABASE_URL", DB_URL, "",
                 "the tables' owner, for `migrate --database owner` and `db_runtime_role` only (give it to the "
                 "migration's process alone); `DATABASE_URL` is then a role that owns nothing",
                 example="postgres://cardleague:change-me@postgres:5432/cardleague", example_set=False, secret=True,
                 shown_default="`DATABASE_URL`"),
        Variable("DB_POOL_MAX", integer(1), 16, "database connections per process (Django's pool)", example="16"),
        Variable("SQLITE_PATH", FILE_PATH, Computed("`var/db.sqlite3`"), f"{_EMBEDDED}'s database file"),
        Variable("DATABASE_REPLICA_URL", DB_URL, "",
                 "a streaming replica of `DATABASE_URL` that the web processes read replays, exports, lists, "
                 "leaderboards and tournament pages from (see Deployment past one machine; compose: `--profile "
                 "replicas`)", example="postgres://cardleague_app:change-me-too@postgres-replica:5432/cardleague",
                 example_set=False, secret=True, shown_default="unset: every read on the primary"),
        Variable("REPLICA_MAX_LAG_SECONDS", number(0), 5.0,
                 "past this lag (or down) the replica is passed over and its reads go to the primary"),
        Variable("REPLICA_PIN_SECONDS", number(0), 10.0,
                 "after a client's POST, PUT, PATCH or DELETE its reads stay on the primary this long (read-your-writes)"),
    ),
    _section(
        "Redis",
        Variable("REDIS_URL", REDIS_URL_KIND, "",
                 "Redis for the channel layer (pub/sub), the cache, throttles and Celery (or `REDIS_SENTINELS`); "
                 "compose sets it", required=True, example="redis://redis:6379/0", example_set=False, secret=True,
                 shown_default="unset: in-memory channel layer, local cache, filesystem broker"),
        Variable("REDIS_SENTINELS", HOST_PORTS, "",
                 "Redis behind Sentinel instead of `REDIS_URL` (which is then not read): the Sentinels as "
                 "`host:port,host:port,...` (compose: `--profile sentinel`; see Deployment past one machine)",
                 example="sentinel1:26379,sentinel2:26379,sentinel3:26379", example_set=False),
        Variable("REDIS_SENTINEL_SERVICE", TEXT, "mymaster", "the name the Sentinels monitor the master under"),
        Variable("REDIS_SENTINEL_DB", integer(0), 0, "the master's database number, with Sentinels"),
    ),
    _section(
        "HTTPS and proxies",
        Variable("SECURE_COOKIES", YES_NO, Computed("on in production; off with DEBUG or embedded"),
                 "session and CSRF cookies over HTTPS only", example="1"),
        Variable("SECURE_SSL_REDIRECT", YES_NO, False,
                 "plain HTTP is redirected to HTTPS (the proxy named in `TRUSTED_PROXIES` terminates TLS; 0 only "
                 "to try the site without TLS)", example="1"),
        Variable("SECURE_HSTS_SECONDS", integer(0), 0,
                 "browsers are told to use HTTPS only for this long (a year: 31536000)", example="31536000"),
        Variable("TRUSTED_PROXIES", NETWORKS, (),
                 "addresses or networks (comma-separated) of the reverse proxies whose `X-Forwarded-For` (the "
                 "client) and `X-Forwarded-Proto` (TLS) are believed, nobody else's; also uvicorn's "
                 "`--forwarded-allow-ips`", example="", shown_default="none"),
        Variable("METRICS_ALLOWED_NETWORKS", NETWORKS, ("127.0.0.1/32", "::1/128"),
                 "who may read `/metrics`: addresses or networks, comma-separated, decided on the client's address "
                 "as the throttles find it (the peer, or a `TRUSTED_PROXIES` proxy's `X-Forwarded-For`)"),
        Variable("METRICS_PORT", integer(0, 65535), 0,
                 "the port a Celery worker or beat serves its own `/metrics` on (0: none)"),
        Variable("BEHIND_TLS_PROXY", YES_NO, False,
                 "gone: it believed `X-Forwarded-Proto` from anyone. Set, it stops the server: name the TLS proxy "
                 "in `TRUSTED_PROXIES` instead", retired=True),
    ),
    _section(
        "Processes",
        Variable("WEB_CONCURRENCY", integer(1), 1, "server processes per web container, about one per core",
                 example="2", read_by="uvicorn", shown_default="uvicorn's `1`"),
        Variable("HTTP_THREADS", integer(1), 8, "threads serving HTTP in each server process (each holds a database "
                 "connection while it serves)", example="8"),
        Variable("FASTLANE", YES_NO, Computed("on with PostgreSQL and Redis"),
                 "moves from sockets and API-token requests played on the event loop (`games/fastlane.py`); 0 sends "
                 "every move through Django"),
        Variable("FASTLANE_POOL_MAX", integer(1), 8,
                 "async connections per process for the fast lane's reads (and one more for the group commit)",
                 example="8"),
        Variable("LOOP_LAG_WARN_MS", integer(1), 200,
                 "a warning when a process's event loop is held this long (`server/loop_watch.py`)", example="200"),
        Variable("LOOP_STATS_DIR", TEXT, "",
                 "a directory where each process writes its loop's lag and the group commit's batch sizes, a JSON "
                 "line a second (the benchmarks read them)"),
        Variable("PROMETHEUS_MULTIPROC_DIR", TEXT, "",
                 "a directory every server and worker process writes its metrics to, added up by any scrape "
                 "(prometheus_client's multiprocess mode); unset, each process keeps its own in memory",
                 read_by="prometheus_client"),
        Variable("MATCH_STATE_CACHE_SIZE", integer(0), 4096,
                 "match states each process keeps in memory, so a move never replays a whole match"),
        Variable("WORKER_CONCURRENCY", integer(1), 4, "Celery worker processes in compose's worker container",
                 example="4", read_by="compose"),
        Variable("CELERY_PREFETCH", integer(1), 8,
                 "tasks a Celery worker process reserves ahead (a deeper prefetch keeps bot chains moving)"),
        Variable("CELERY_TASK_ALWAYS_EAGER", YES_NO, False, "tasks run in the process that sends them (debugging only)"),
        Variable("HOST", TEXT, "127.0.0.1", "the address `manage.py serve` listens on"),
        Variable("PORT", integer(1, 65535), 8000,
                 "the port `manage.py serve` listens on (its worker's mails link to it unless `SITE_URL` is set)"),
        Variable("WEB1_PORT", integer(1, 65535), 8000, "the host port compose publishes web1 on", example="8000",
                 read_by="compose"),
        Variable("WEB2_PORT", integer(1, 65535), 8001, "the host port compose publishes web2 on", example="8001",
                 read_by="compose"),
        Variable("VAR_DIR", FILE_PATH, Computed("`var/` in the project"),
                 f"{_EMBEDDED}'s files (database, keys, Celery's filesystem queue)"),
        Variable("STATIC_COLLECTED", YES_NO, False,
                 "whitenoise serves the files `collectstatic` gathered in `STATIC_ROOT`, hashed (the image sets it)"),
        Variable("STATIC_ROOT", FILE_PATH, Computed("`var/static`"), "where `collectstatic` puts the static files"),
    ),
    _section(
        "Logs",
        Variable("LOG_FORMAT", choice("json", "text"), Computed("`json` in production, `text` with DEBUG or embedded"),
                 "one line per record; JSON lines carry `request_id` and `match_id`", example="json"),
        Variable("LOG_LEVEL", choice("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"), "INFO",
                 "the root logger's level", example="INFO"),
    ),
    _section(
        "Play",
        Variable("BOT_MOVE_DELAY", number(0), 0.5, "seconds a bot waits before it moves (0: at once)", example="0.5"),
        Variable("BOT_MOVE_BUDGET_MS", integer(1), 200,
                 "milliseconds a search bot may think about one move, by the wall clock (its level's playouts may "
                 "end it sooner); bot moves run in the `bots` queue, apart from clocks and tournaments",
                 example="200"),
        Variable("BOT_WORKER_CONCURRENCY", integer(1), 2,
                 "processes of the bots' worker (`manage.py serve`'s, and compose's `bots-worker`), which alone "
                 "takes the `bots` queue", example="2"),
        Variable("INTERRUPT_WINDOW_SECONDS", number(0, above=True), 10.0,
                 "how long a Block window waits for people before it passes for them", example="10"),
        Variable("CLAIM_SEAT_AFTER_SECONDS", integer(1), 120,
                 "how long a table waits on a seat whose person has left it before another player may claim it "
                 "(the bot then plays it)", example="120"),
        Variable("LIVE_POLL_SECONDS", number(0), Computed("`1` embedded, `0` with Redis"),
                 "sockets look for moves made in other processes this often (0: never, a shared channel layer "
                 "tells them)"),
        Variable("SWEEP_SECONDS", number(0, above=True), 15.0, "how often beat sweeps for lost bot, clock and window tasks"),
        Variable("SWEEP_STALE_AFTER", number(0), 10.0, "a decision overdue this many seconds is sent again by the sweep"),
        Variable("DEMO", YES_NO, False,
                 "beat keeps the demo's bot tables at play (`manage.py serve` sets it for its worker)"),
        Variable("DEMO_LIVE_TABLES", integer(0), 4,
                 "bot tables `manage.py serve` keeps at play (one of each game first); `serve --no-demo` starts none"),
        Variable("REVIEW_AFTER_MATCH", YES_NO, True,
                 "each match with a person seated is reviewed by the search bot as it ends (else only when its "
                 "review is first asked for)"),
        Variable("REVIEW_PLAYOUTS", integer(2, 1000), 12,
                 "a finished match's review plays each compared move out to the end this many times at each "
                 "decision (more: narrower intervals; a review of The Game takes about 8 s of a worker's core per "
                 "playout)"),
    ),
    _section(
        "Accounts and limits",
        Variable("API_TOKEN_DAYS", number(0, above=True), 30.0, "API tokens expire this many days after login",
                 example="30"),
        Variable("SOCKET_TICKET_SECONDS", integer(1), 30, "a socket ticket opens one socket within this many seconds",
                 example="30"),
        Variable("SOCKET_CREDENTIAL_CHECK_SECONDS", number(0, above=True), 30.0,
                 "how often an open socket checks that its token or session still stands"),
        Variable("SOCKET_FRAMES_PER_SECOND", number(0, above=True), 20.0,
                 "frames a socket may send per second (a burst of twice as many is allowed)"),
        Variable("PASSWORD_RESET_TIMEOUT", integer(1), 24 * 3600,
                 "seconds a password reset link works (it is spent at its first use anyway)", example="86400"),
        Variable("THROTTLE_SIGNUP", RATE, "20/hour", "sign-ups per address"),
        Variable("THROTTLE_LOGIN", RATE, "30/minute", "logins per address"),
        Variable("THROTTLE_LOGIN_ACCOUNT", RATE, "20/hour", "logins per account tried (a guesser with many addresses)"),
        Variable("THROTTLE_MOVES", RATE, "1200/minute", "moves per user"),
        Variable("THROTTLE_PASSWORD_RESET", RATE, "10/hour", "password reset requests per address"),
        Variable("THROTTLE_PASSWORD_RESET_ACCOUNT", RATE, "5/hour", "password reset requests per e-mail named"),
        Variable("THROTTLE_TOURNAMENT_CREATE", RATE, "20/hour", "tournaments created per user"),
        Variable("THROTTLE_PASSWORD_CHECK", RATE, "20/hour",
                 "operations that check a logged-in user's password (new password, e-mail, deletion), per user"),
        Variable("MAX_OPEN_TABLES_PER_USER", integer(0), 5, "a user's own tables still open (not yet started)"),
        Variable("MAX_RUNNING_BOT_TABLES_PER_USER", integer(0), 3,
                 "a user's own casual tables running with no other person (only bots, or bots and the user)"),
        Variable("MAX_BOT_ENTRANTS_PER_TOURNAMENT", integer(0), 64,
                 "bot entrants in one tournament whose organiser is not staff"),
        Variable("BOT_MOVES_PER_MINUTE_PER_USER", integer(1), 600,
                 "bot moves a minute the worker plays at one user's casual tables together; the rest wait for the "
                 "next minute (a tournament's tables are not counted)"),
        Variable("MAX_SOCKETS_PER_CLIENT_AND_TABLE", integer(1), 5,
                 "live sockets per user (or address, anonymous) at one table, over every process"),
        Variable("MAX_NOTIFICATION_SOCKETS_PER_USER", integer(1), 10,
                 "live notification sockets per user, over every process"),
        Variable("MAX_PAGE_SIZE", integer(1), 100, "a list's largest `limit` (400 `bad_limit` above it)"),
        Variable("CHAT_MESSAGES_PER_MINUTE", integer(0), 20, "messages one person may post at one table per minute"),
        Variable("CHAT_MESSAGES_PER_MINUTE_ALL_TABLES", integer(0), 40,
                 "messages one person may post at all tables together per minute"),
        Variable("INVITATIONS_PER_HOUR_PER_SENDER", integer(0), 30, "invitations by name one person may send per hour"),
        Variable("INVITATIONS_PER_HOUR_PER_INVITEE", integer(0), 10,
                 "invitations by name one person may receive per hour, from everyone together"),
    ),
    _section(
        "E-mail",
        Variable("EMAIL_BACKEND", DOTTED_PATH, Computed("the console backend embedded (e-mails printed); SMTP otherwise"),
                 "a Django e-mail backend", example="django.core.mail.backends.smtp.EmailBackend", example_set=False),
        Variable("EMAIL_HOST", TEXT, "localhost", "the SMTP server that sends password reset links and notifications",
                 example="smtp.example.org"),
        Variable("EMAIL_PORT", integer(1, 65535), 25, "the SMTP server's port", example="587"),
        Variable("EMAIL_HOST_USER", TEXT, "", "the SMTP user", example=""),
        Variable("EMAIL_HOST_PASSWORD", TEXT, "", "the SMTP password", example="", secret=True),
        Variable("EMAIL_USE_TLS", YES_NO, False, "SMTP with STARTTLS", example="1"),
        Variable("DEFAULT_FROM_EMAIL", MAIL_ADDRESS, "Card League <noreply@localhost>", "the sender of the server's e-mails",
                 example="Card League <noreply@cards.example.org>"),
        Variable("NOTIFY_TURN_DELAY_SECONDS", number(0), 60.0,
                 "\"your turn\" is told once a table has waited this long for a person (0: never)"),
        Variable("NOTIFY_TURN_SWEEP_SECONDS", number(0, above=True), 15.0, "how often beat looks for those tables"),
    ),
    _section(
        "League log, exports, tournaments",
        Variable("EXPORT_SERVER_NAME", HOST_NAME, "",
                 "this server's public host name, written into exports (`name@server` on other servers)",
                 shown_default="empty"),
        Variable("LOG_WITNESSES", VERIFIER_KEYS, (),
                 "the verifier keys of the witnesses whose cosignatures the log accepts (`log_keygen NAME --witness`, "
                 "second line), comma-separated", example="", shown_default="none"),
        Variable("LOG_MIRROR_DIR", FILE_PATH, None,
                 "a folder outside the database (another volume) the integrator writes the log's tiles and newest "
                 "checkpoint into before publishing it, the high-water mark a database restore cannot roll back "
                 "(README: Backups and restore)", shown_default="unset: no mirror"),
        Variable("LOG_INTEGRATE_SECONDS", number(0, above=True), 2.0, "how often beat integrates the league log"),
        Variable("TOURNAMENT_TABLES_PER_BATCH", integer(1), 200,
                 "a tournament round opens this many tables per transaction (the lock is held for one batch at a time)"),
        Variable("TOURNAMENT_SHUFFLE_SECONDS", integer(0), 20,
                 "with contributed shuffles, how long seated people have to send theirs before a round starts"),
        Variable("TOURNAMENT_WEBHOOK_BACKOFF_SECONDS", number(0), 10.0,
                 "a failed webhook delivery is tried again after this, doubling each time (at most an hour)"),
        Variable("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", YES_NO, False, "tests and local development only: never in "
                 "production (see Security)"),
        Variable("WEBHOOK_ALLOW_HTTP", YES_NO, False, "tests and local development only: never in production (see "
                 "Security)"),
    ),
    _section(
        "docker/compose.yaml",
        Variable("POSTGRES_PASSWORD", TEXT, None, "the tables' owner's password (the migration's role only)",
                 required=True, example="change-me", secret=True, read_by="compose"),
        Variable("APP_DB_PASSWORD", TEXT, None, "the password of the role the web and worker processes connect as",
                 required=True, example="change-me-too", secret=True, read_by="compose"),
        Variable("POSTGRES_USER", TEXT, "cardleague", "the tables' owner", read_by="compose"),
        Variable("APP_DB_USER", TEXT, "cardleague_app",
                 "the role the web and worker processes connect as, which owns nothing (`manage.py db_runtime_role`)",
                 read_by="compose"),
        Variable("POSTGRES_DB", TEXT, "cardleague", "the database's name", read_by="compose"),
        Variable("WITNESS_KEY", SIGNER_KEY, None,
                 "the witness service's own signing key (`log_keygen witness-1.example --witness`, first line; its "
                 "second line goes in `LOG_WITNESSES`)", required=True, example="", secret=True, read_by="compose"),
        Variable("LOG_VERIFIER_KEY", VERIFIER_KEYS, None,
                 "the log's verifier key, for the witness service (`LOG_SIGNING_KEY`'s second line from `log_keygen`, "
                 "or `GET /log/key` once the server runs)", required=True, example="", read_by="compose"),
    ),
)

VARIABLES: tuple[Variable, ...] = tuple(variable for section in SECTIONS for variable in section.variables)
BY_NAME: dict[str, Variable] = {variable.name: variable for variable in VARIABLES}


class _NotGiven:
    pass


_NOT_GIVEN = _NotGiven()
_T = TypeVar("_T")


def read(name: str, computed: object = _NOT_GIVEN) -> Any:
    """NAME's value, parsed as declared; unset or empty: its declared default (or `computed`, for a
    default the declaration leaves to the settings). A bad value raises ImproperlyConfigured
    naming the variable and what it expects."""
    variable = BY_NAME.get(name)
    if variable is None:
        raise LookupError(f"{name} is not declared in server/environment.py")
    if isinstance(variable.default, Computed) != (computed is not _NOT_GIVEN):
        raise TypeError(f"{name}: the settings give its default exactly when the declaration leaves it to them")
    default = computed if isinstance(variable.default, Computed) else variable.default
    raw = os.environ.get(name, "")
    if not raw.strip():
        return list(default) if isinstance(default, tuple) else default
    try:
        return variable.kind.parse(name)
    except environs.EnvError as error:
        if variable.secret:  # neither the value nor the parser's words about it
            raise ImproperlyConfigured(
                f"{name}: expected {variable.kind.expected}, got a value not shown here (it may hold a password)"
            ) from None
        raise ImproperlyConfigured(f"{name}: expected {variable.kind.expected}, got {raw!r}") from error


def _typed(name: str, wanted: type[_T], computed: object) -> _T:
    value = read(name, computed)
    if wanted is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, wanted):
        raise TypeError(f"{name} is declared as {BY_NAME[name].kind.shown}, read as {wanted.__name__}")
    return value


def read_bool(name: str, computed: object = _NOT_GIVEN) -> bool:
    return _typed(name, bool, computed)


def read_int(name: str, computed: object = _NOT_GIVEN) -> int:
    return _typed(name, int, computed)


def read_float(name: str, computed: object = _NOT_GIVEN) -> float:
    return _typed(name, float, computed)


def read_str(name: str, computed: object = _NOT_GIVEN) -> str:
    return _typed(name, str, computed)


def read_list(name: str, computed: object = _NOT_GIVEN) -> list[str]:
    return _typed(name, list, computed)


def read_path(name: str, computed: object = _NOT_GIVEN) -> Path:
    return _typed(name, Path, computed)


def read_optional_path(name: str) -> Path | None:
    """A path whose declared default is None (unset: no such folder)."""
    value = read(name)
    if value is not None and not isinstance(value, Path):
        raise TypeError(f"{name} is declared as {BY_NAME[name].kind.shown}, read as a path")
    return value
