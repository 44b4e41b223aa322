"""Settings, read from the environment.

With no environment at all this is the embedded default: a SQLite file, the in-memory
channel layer, a local-memory cache and Celery on kombu's filesystem transport (no broker
server). `DATABASE_URL` switches to PostgreSQL (psycopg 3) and `REDIS_URL` (or `REDIS_SENTINELS`)
to Redis for the channel layer, the cache and Celery's broker.
"""
from __future__ import annotations

from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from server import redis_clients
from server.environment import read_bool, read_float, read_int, read_list, read_optional_path, read_path, read_str

BASE_DIR = Path(__file__).resolve().parent.parent
# Runtime files of the embedded default (SQLite database, Celery's filesystem queue).
# Every variable read here is declared in server/environment.py (its type, default and meaning),
# and read through it: a bad value stops the process naming the variable.
VAR_DIR = read_path("VAR_DIR", BASE_DIR / "var")

# The embedded default: no DATABASE_URL, everything in this one machine's files and memory.
DATABASE_URL = read_str("DATABASE_URL")
EMBEDDED = not DATABASE_URL
DEBUG = read_bool("DEBUG")


def _secret_key() -> str:
    """SECRET_KEY from the environment; the embedded default makes one and keeps it in VAR_DIR."""
    # Here, not at the top: importing django.core.management loads the apps machinery, which has
    # no business running while the settings load (only the embedded default makes a key).
    from django.core.management.utils import get_random_secret_key  # noqa: PLC0415

    key = read_str("SECRET_KEY")
    if key:
        return key
    if EMBEDDED:
        path = VAR_DIR / "secret_key"
        if not path.exists():
            VAR_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(get_random_secret_key())
            path.chmod(0o600)
        return path.read_text().strip()
    if DEBUG:
        return "debug-only-not-secret"
    raise ImproperlyConfigured("SECRET_KEY must be set (it is required with DATABASE_URL and DEBUG off)")


def _log_signing_key() -> str:
    """LOG_SIGNING_KEY from the environment; the embedded default makes one and keeps it in VAR_DIR
    (named `<EXPORT_SERVER_NAME or localhost>/card-league`, the log's origin)."""
    key = read_str("LOG_SIGNING_KEY")
    if key:
        return key
    if EMBEDDED or DEBUG:
        # Here, not at the top: settings load before any app, and production never makes a key.
        from leaguelog.notes import generate_signer_key  # noqa: PLC0415

        path = VAR_DIR / "log_signing_key"
        if not path.exists():
            VAR_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(generate_signer_key(f"{read_str('EXPORT_SERVER_NAME') or 'localhost'}/card-league"))
            path.chmod(0o600)
        return path.read_text().strip()
    raise ImproperlyConfigured("LOG_SIGNING_KEY must be set (it is required with DATABASE_URL): manage.py log_keygen")


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = read_list("ALLOWED_HOSTS", ["*"] if DEBUG else (["localhost", "127.0.0.1", "[::1]"] if EMBEDDED else []))
CSRF_TRUSTED_ORIGINS = read_list("CSRF_TRUSTED_ORIGINS")

# Behind HTTPS (production): secure cookies, HSTS and a redirect, each switchable.
SECURE_COOKIES = read_bool("SECURE_COOKIES", not (DEBUG or EMBEDDED))
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = read_bool("SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = read_int("SECURE_HSTS_SECONDS")
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
# Not on browsers' preload list by default: once listed, a domain cannot serve plain HTTP to
# anyone for months, a choice for the domain's owner, not for this code (check --deploy's W021).
SILENCED_SYSTEM_CHECKS = ["security.W021"]


# TRUSTED_PROXIES: the proxies whose X-Forwarded-For is believed (addresses or networks, comma
# separated; none by default). Anything else sends that header freely, so it must not pick the
# address the throttles count. A bad entry stops the server rather than being ignored.
# uvicorn is given the same list (`--forwarded-allow-ips`, docker/Dockerfile and `manage.py serve`),
# and takes X-Forwarded-Proto (whether the client came over TLS) from those proxies alone: the
# request's scheme is uvicorn's. Django's SECURE_PROXY_SSL_HEADER would believe the header from
# anyone who can reach the server, so it is not used.
TRUSTED_PROXIES = read_list("TRUSTED_PROXIES")
if read_bool("BEHIND_TLS_PROXY"):
    raise ImproperlyConfigured("BEHIND_TLS_PROXY is gone: name the TLS proxy in TRUSTED_PROXIES instead")

# METRICS_ALLOWED_NETWORKS: who may read /metrics (addresses or networks, comma separated; this
# machine by default), decided on the client's address as the throttles find it (the peer, or a
# TRUSTED_PROXIES proxy's X-Forwarded-For). A bad entry stops the server.
METRICS_ALLOWED_NETWORKS = read_list("METRICS_ALLOWED_NETWORKS")
# The port a Celery worker or beat serves its own /metrics on (server/metrics_endpoint.py); 0: none.
METRICS_PORT = read_int("METRICS_PORT")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The Content-Security-Policy of every response (django-csp): scripts, styles, fonts and images
# from this site only, connections (fetch, sockets) to it only, nothing embedded, no inline
# script or style at all; refusals are reported to /csp-report and logged (server/csp.py).
# `data:` images are the icons the API docs' styles carry inline.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "report-uri": ["/csp-report"],
    },
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "accounts",
    "games",
    "tournaments",
    "ratings",
    "leaguelog",
    "chat",
    "notifications",
    "frontend",
]

MIDDLEWARE = [
    "server.middleware.RequestIdMiddleware",
    "server.limits.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a signed-in person's chosen language comes before the browser's.
    "server.middleware.LanguageMiddleware",
    "server.middleware.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "server.urls"
ASGI_APPLICATION = "server.asgi.application"
# Threads per server process running HTTP requests (server/asgi.py); each holds a database
# connection from the pool while it serves a request.
HTTP_THREADS = read_int("HTTP_THREADS")
WSGI_APPLICATION = "server.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        # A pool per process: ASGI serves sync views from many threads, and a persistent
        # connection per thread would exhaust the server's connection slots.
        DATABASES["default"]["OPTIONS"] = {
            "pool": {"min_size": 1, "max_size": read_int("DB_POOL_MAX"), "timeout": 30}
        }
    # Migrations connect as the tables' owner (`migrate --database owner`, then `db_runtime_role`),
    # the web and worker processes as DATABASE_URL, a role that owns nothing. Give
    # MIGRATE_DATABASE_URL to the migration's process only; unset, one role does both.
    DATABASES["owner"] = {
        **dj_database_url.parse(read_str("MIGRATE_DATABASE_URL") or DATABASE_URL),
        "TEST": {"MIRROR": "default"},
    }
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(read_path("SQLITE_PATH", VAR_DIR / "db.sqlite3")),
            # Several threads (web, bots) write one file: wait for the lock rather than fail.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
        }
    }
# A streaming replica of DATABASE_URL for the reads that may lag (server/db_router.py): replays,
# exports, lists, leaderboards, tournament pages. Unset, nothing is routed and nothing changes.
DATABASE_REPLICA_URL = read_str("DATABASE_REPLICA_URL")
# Past this lag, or down, the replica is passed over and its reads go to the primary.
REPLICA_MAX_LAG_SECONDS = read_float("REPLICA_MAX_LAG_SECONDS")
# After a client's unsafe request, its reads stay on the primary this long (read-your-writes).
REPLICA_PIN_SECONDS = read_float("REPLICA_PIN_SECONDS")
DATABASE_ROUTERS: list[str] = []
if DATABASE_REPLICA_URL:
    if not DATABASE_URL:
        raise ImproperlyConfigured("DATABASE_REPLICA_URL is a replica of DATABASE_URL: set DATABASE_URL too")
    # No pool: a pool waits its whole timeout for a replica that is down, and the connections are
    # bounded anyway (HTTP_THREADS per process: only HTTP views read from the replica). A short
    # connect timeout, so a replica gone from the network is found out in seconds.
    DATABASES["replica"] = {
        **dj_database_url.parse(DATABASE_REPLICA_URL, conn_max_age=60, conn_health_checks=True),
        "OPTIONS": {"connect_timeout": 2},
        # Never migrated (the router says so), and the tests read their own database through it.
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_ROUTERS = ["server.db_router.ReplicaRouter"]
    MIDDLEWARE.insert(1, "server.db_router.ReplicaPinMiddleware")  # before any view reads
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: one server at REDIS_URL, or the master that the Sentinels at REDIS_SENTINELS name
# (server/redis_clients.py, which every user of Redis goes through).
REDIS_URL = read_str("REDIS_URL")
REDIS_SENTINELS = redis_clients.sentinels_parsed(read_str("REDIS_SENTINELS"))
REDIS_SENTINEL_SERVICE = read_str("REDIS_SENTINEL_SERVICE")
REDIS_SENTINEL_DB = read_int("REDIS_SENTINEL_DB")
_redis_at = redis_clients.RedisLocation(REDIS_URL, REDIS_SENTINELS, REDIS_SENTINEL_SERVICE, REDIS_SENTINEL_DB)
_redis_on = _redis_at.is_set
if _redis_on:
    CHANNEL_LAYERS = {
        # The pub/sub layer: measured lossless and faster than the list-based core layer under bursts.
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [_redis_at.channel_layer_host()]},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"pool_class": "server.redis_clients.CachePool"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Moves played on the event loop (games/fastlane.py): needs PostgreSQL and Redis. Its own
# pool of async connections per process, beside Django's (`DB_POOL_MAX`).
FASTLANE = read_bool("FASTLANE", _redis_on and DATABASES["default"]["ENGINE"].endswith("postgresql"))
FASTLANE_POOL_MAX = read_int("FASTLANE_POOL_MAX")
# The event loop's lag (server/loop_watch.py): a warning when a tick is this late; with a
# directory, each process writes its lags and counts there once a second.
LOOP_LAG_WARN_MS = read_int("LOOP_LAG_WARN_MS")
LOOP_STATS_DIR = read_str("LOOP_STATS_DIR")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
# Every page, message and e-mail exists in both; `make test` fails on a message without Welsh.
LANGUAGES = [("en-gb", "English"), ("cy", "Cymraeg")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = read_path("STATIC_ROOT", VAR_DIR / "static")
# Production serves the collected, hashed files; the embedded default serves straight from the apps.
WHITENOISE_USE_FINDERS = not read_bool("STATIC_COLLECTED")
if WHITENOISE_USE_FINDERS:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it, even when it serves from the apps
else:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.FastTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "server.schema.ViewScopedAutoSchema",
    "EXCEPTION_HANDLER": "server.drf_errors.api_exception_handler",
    "DEFAULT_PAGINATION_CLASS": "server.pagination.Page",
    "PAGE_SIZE": 50,
    "DEFAULT_PARSER_CLASSES": [
        "server.limits.BoundedJSONParser",
        "server.limits.FormParser",
        "server.limits.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["server.limits.ScopedThrottle", "server.limits.AccountThrottle"],
    # Per address for sign-up and login, per account tried for login too (a guesser with many
    # addresses), per user for moves; backed by the cache (Redis in production).
    "DEFAULT_THROTTLE_RATES": {
        "signup": read_str("THROTTLE_SIGNUP"),
        "login": read_str("THROTTLE_LOGIN"),
        "login_account": read_str("THROTTLE_LOGIN_ACCOUNT"),
        "moves": read_str("THROTTLE_MOVES"),
        # Password reset requests per address and per e-mail named (each may send a mail).
        "password_reset": read_str("THROTTLE_PASSWORD_RESET"),
        "password_reset_account": read_str("THROTTLE_PASSWORD_RESET_ACCOUNT"),
        # Operations that check a logged-in user's password (new password, e-mail, deletion), per user.
        "password_check": read_str("THROTTLE_PASSWORD_CHECK"),
        # Tournaments created per user: each may hold bots and tables for the worker to serve.
        "tournament_create": read_str("THROTTLE_TOURNAMENT_CREATE"),
        # Content-Security-Policy reports per address (server/csp.py): a page that breaks the
        # policy reports each refusal once per load; more is a flood of the log.
        "csp_report": "60/minute",
    },
}

# E-mail (password resets): printed on the console by the embedded default; SMTP in production,
# configured by EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD and EMAIL_USE_TLS.
EMAIL_BACKEND = read_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend" if EMBEDDED else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = read_str("EMAIL_HOST")
EMAIL_PORT = read_int("EMAIL_PORT")
EMAIL_HOST_USER = read_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = read_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = read_bool("EMAIL_USE_TLS")
EMAIL_TIMEOUT = 20  # seconds: a hung mail server must not hold a request thread for ever
DEFAULT_FROM_EMAIL = read_str("DEFAULT_FROM_EMAIL")
# The address the server's e-mails link to (notifications run in workers, with no request to take
# a host from), e.g. https://cards.example.org; empty: the mails give the page's path only.
# `manage.py serve` listens on HOST:PORT (and tells its worker the PORT, for these links).
SERVE_HOST = read_str("HOST")
SERVE_PORT = read_int("PORT")
SITE_URL = read_str("SITE_URL", f"http://localhost:{SERVE_PORT}" if EMBEDDED else "").rstrip("/")
# How long a password reset link works (seconds); it is spent at its first use in any case.
PASSWORD_RESET_TIMEOUT = read_int("PASSWORD_RESET_TIMEOUT")

# API tokens expire this many days after they are made (at login or sign-up).
API_TOKEN_DAYS = read_float("API_TOKEN_DAYS")
# A socket ticket (`POST /api/auth/socket-ticket`) opens one socket within this many seconds.
SOCKET_TICKET_SECONDS = read_int("SOCKET_TICKET_SECONDS")
# How often an open socket checks that its token or session still stands (revoked, expired, logged out).
SOCKET_CREDENTIAL_CHECK_SECONDS = read_float("SOCKET_CREDENTIAL_CHECK_SECONDS")

# What a client may send.
MAX_BODY_BYTES = 64 * 1024
MAX_UPLOAD_BYTES = 8 * 1024 * 1024
UPLOAD_PATHS = {"/api/matches/import"}
# This server's name in the match files it exports (a lower-case host name, e.g. cards.example.org):
# another server shows this one's players as `username@<name>`. Empty: files name no server,
# and importers show the players as `username@import`.
EXPORT_SERVER_NAME = read_str("EXPORT_SERVER_NAME")
MAX_JSON_DEPTH = 20
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_UPLOAD_BYTES
# A socket may send this many frames per second (a burst of twice as many is allowed).
SOCKET_FRAMES_PER_SECOND = read_float("SOCKET_FRAMES_PER_SECOND")
# Table chat: messages one person may post at one table per minute (429 `chat_rate_limited` past it).
CHAT_MESSAGES_PER_MINUTE = read_int("CHAT_MESSAGES_PER_MINUTE")
# ... and at all tables together (429 `chat_rate_limited_all_tables`).
CHAT_MESSAGES_PER_MINUTE_ALL_TABLES = read_int("CHAT_MESSAGES_PER_MINUTE_ALL_TABLES")
# Invitations by name (each a notification titled with its sender's name), over the last hour,
# per sender and per invitee (429 `invitations_rate_limited` / `invitee_rate_limited`).
INVITATIONS_PER_HOUR_PER_SENDER = read_int("INVITATIONS_PER_HOUR_PER_SENDER")
INVITATIONS_PER_HOUR_PER_INVITEE = read_int("INVITATIONS_PER_HOUR_PER_INVITEE")
# Caps on what one client may hold open; past them the server refuses with a clear error.
# A list's `limit` is at most MAX_PAGE_SIZE (400 `bad_limit` above it, not silently clamped).
MAX_PAGE_SIZE = read_int("MAX_PAGE_SIZE")
# Open tables (not yet started) a user has created; tables the server seats (tournament rounds,
# the demo) are not counted.
MAX_OPEN_TABLES_PER_USER = read_int("MAX_OPEN_TABLES_PER_USER")
# Running casual tables of bots a user started with no other person at them (409
# `too_many_bot_tables` past it): each queues bot moves on the worker that also serves tournaments
# and clocks. A game of solitaire has no bot and is not counted.
MAX_RUNNING_BOT_TABLES_PER_USER = read_int("MAX_RUNNING_BOT_TABLES_PER_USER")
# Bot entrants one tournament may hold when its organiser is not staff (409 `too_many_bot_entrants`).
MAX_BOT_ENTRANTS_PER_TOURNAMENT = read_int("MAX_BOT_ENTRANTS_PER_TOURNAMENT")
# Bot moves a minute played at one user's casual tables together (their creator's): past it they
# are queued again for the next minute, never dropped, so a user's tables cannot hold the worker
# that also moves tournament bots and clocks (games.bot_budget). A tournament's tables are not counted.
BOT_MOVES_PER_MINUTE_PER_USER = read_int("BOT_MOVES_PER_MINUTE_PER_USER")
# Live sockets per table and client (the user, or the address of an anonymous one), counted over
# every process through presence (Redis).
MAX_SOCKETS_PER_CLIENT_AND_TABLE = read_int("MAX_SOCKETS_PER_CLIENT_AND_TABLE")
# Live notification sockets per user (`/ws/notifications/`), counted over every process the same way.
MAX_NOTIFICATION_SOCKETS_PER_USER = read_int("MAX_NOTIFICATION_SOCKETS_PER_USER")
# A tournament round opens its tables this many at a time, each batch one transaction under the
# tournament's lock (a round of 5,000 tables never holds it for long).
TOURNAMENT_TABLES_PER_BATCH = read_int("TOURNAMENT_TABLES_PER_BATCH")
# In a tournament with contributed shuffles, how long its seated people have to send theirs
# between a round's pairing and its start (the table pages send one at once).
TOURNAMENT_SHUFFLE_SECONDS = read_int("TOURNAMENT_SHUFFLE_SECONDS")

SPECTACULAR_SETTINGS = {
    "TITLE": "Card League API",
    "DESCRIPTION": "Tables, moves, replays, tournaments and ratings for Ten, The Game, "
    "Sequence Stacks and Split. Errors are `{\"error\": {\"code\", \"message\", \"extra\"}}`; each code "
    "always has the one status the table below gives.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page's scripts are served by this server, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "server.schema.document_errors"],
    # Several apps have a field named `kind`: each set of choices gets a name of its own.
    "ENUM_NAME_OVERRIDES": {
        "LogEntryKindEnum": "leaguelog.models.Kind",
        "RatingKindEnum": ["user", "bot", "game"],
        "NotificationKindEnum": "notifications.models.Kind",
        "JudgeCallReasonEnum": "tournaments.models.JudgeCall.Reason",
    },
}

# Celery: Redis when REDIS_URL or REDIS_SENTINELS is set, else kombu's filesystem transport (no broker server).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Tasks are short and idempotent: a deeper prefetch keeps bot chains moving (with 1, a worker on
# Redis looked for new messages about once a second), and the sweep re-sends what a crash held.
CELERY_WORKER_PREFETCH_MULTIPLIER = read_int("CELERY_PREFETCH")
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
# What a task prints (the console e-mail backend's mails, embedded) goes to the worker's own stdout
# as it is: redirected, Celery logged each line of a password reset mail as a WARNING.
CELERY_WORKER_REDIRECT_STDOUTS = False
if _redis_on:
    CELERY_BROKER_URL, CELERY_BROKER_TRANSPORT_OPTIONS = _redis_at.celery_broker()
else:
    _queue_dir = VAR_DIR / "celery"
    for _folder in ("queue", "processed", "control"):
        (_queue_dir / _folder).mkdir(parents=True, exist_ok=True)
    # The transport ignores the host, but kombu warns "No hostname was supplied" on every
    # connection (each worker process, each sender) when the URL names none.
    CELERY_BROKER_URL = "filesystem://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir / "queue"),
        "data_folder_out": str(_queue_dir / "queue"),
        "processed_folder": str(_queue_dir / "processed"),
        "control_folder": str(_queue_dir / "control"),
        "polling_interval": 0.1,  # the filesystem has no push: look often (it is cheap)
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = read_bool("CELERY_TASK_ALWAYS_EAGER")
# Bot moves go to a queue of their own, which a worker of their own takes (`manage.py serve`
# starts one, compose runs `bots-worker`): a search thinks for up to BOT_MOVE_BUDGET_MS a move,
# and a worker busy with searches must never hold a clock, a window or a tournament's round.
BOTS_QUEUE = "bots"
CELERY_TASK_ROUTES = {"games.tasks.bot_move_task": {"queue": BOTS_QUEUE}}

# Periodic tasks (celery beat). Each is idempotent: a late or doubled run does no harm.
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "games-sweep": {"task": "games.tasks.sweep_task", "schedule": read_float("SWEEP_SECONDS")},
    # Tournaments: rounds due to start or past their deadline, results and rounds not yet followed up.
    "tournaments-sweep": {"task": "tournaments.tasks.tournament_sweep_task", "schedule": 30.0},
    # Ratings: results an organiser changed whose rating task was lost.
    "ratings-sweep": {"task": "ratings.tasks.revisions_sweep_task", "schedule": 60.0},
}

# The embedded default's demo: `manage.py serve` (without --no-demo) sets DEMO for its worker,
# whose beat then keeps DEMO_LIVE_TABLES bot tables at play, one of each game first, starting a
# new one within a few seconds of one ending, so a newcomer always finds live tables to watch.
DEMO = read_bool("DEMO")
DEMO_LIVE_TABLES = read_int("DEMO_LIVE_TABLES")
if DEMO:
    CELERY_BEAT_SCHEDULE["demo-top-up"] = {"task": "games.tasks.demo_top_up_task", "schedule": 5.0}

# The league log (leaguelog/): every finished match, tournament event and rating ledger row,
# integrated by beat every LOG_INTEGRATE_SECONDS and signed by LOG_SIGNING_KEY, a C2SP note key
# (`manage.py log_keygen` makes one; the embedded default keeps one in VAR_DIR) whose name is the
# log's origin, the name verifiers and witnesses know it by. LOG_WITNESSES: the verifier keys of
# the witnesses whose cosignatures the log accepts and serves (comma-separated).
LOG_SIGNING_KEY = _log_signing_key()
LOG_WITNESSES = read_list("LOG_WITNESSES")
LOG_INTEGRATE_SECONDS = read_float("LOG_INTEGRATE_SECONDS")
# LOG_MIRROR_DIR: a folder outside the database (another volume) that the integrator writes the
# log's tiles and newest checkpoint into before publishing it, the high-water mark a database restore
# cannot roll back (leaguelog/mirror.py, README "Backups and restore"). Unset: no mirror.
LOG_MIRROR_DIR = read_optional_path("LOG_MIRROR_DIR")
CELERY_BEAT_SCHEDULE["leaguelog-integrate"] = {
    "task": "leaguelog.tasks.log_integrate_task", "schedule": LOG_INTEGRATE_SECONDS,
}

# Webhooks (tournaments/webhooks.py) are registered by any organiser, that is by any user, and
# POSTed by the worker from inside the deployment, so they go to public addresses over https only.
# Production never sets these two: with them any user could make the worker reach this machine's
# and the private network's services (Redis, PostgreSQL, a cloud's metadata at 169.254.169.254)
# or send deliveries in clear. The tests set them for their receiver on http://127.0.0.1.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = read_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES")
WEBHOOK_ALLOW_HTTP = read_bool("WEBHOOK_ALLOW_HTTP")
# A failed delivery is tried again after this many seconds, doubling each time (at most an hour).
TOURNAMENT_WEBHOOK_BACKOFF_SECONDS = read_float("TOURNAMENT_WEBHOOK_BACKOFF_SECONDS")

# A decision overdue by this many seconds is sent again by the sweep (a lost task's work).
SWEEP_STALE_AFTER = read_float("SWEEP_STALE_AFTER")

# Asked, by name, before an account is deleted: each takes the user and returns the things
# (e.g. {"matches": [ids]}) other people wait on them in; anything found refuses the deletion
# (409 account_in_play). So accounts reads no other app's tables.
ACCOUNT_IN_PLAY_CHECKS: list[str] = [
    "games.selectors.tables_awaiting_others",
    "tournaments.selectors.entries_in_play",
]

# Celery tasks told the id of every match that ends; each must be idempotent.
MATCH_FINISHED_TASKS: list[str] = [
    "ratings.tasks.match_rate_task",
    "tournaments.tasks.tournament_match_finished_task",
    "notifications.tasks.match_finished_notify_task",
]
if DEMO:
    MATCH_FINISHED_TASKS.append("games.tasks.demo_table_finished_task")

# A finished match's review (games/review.py): each compared move played out REVIEW_PLAYOUTS
# times at each decision, queued as a match with a person seated ends (REVIEW_AFTER_MATCH), or
# when its review is first asked for.
REVIEW_PLAYOUTS = read_int("REVIEW_PLAYOUTS")
REVIEW_AFTER_MATCH = read_bool("REVIEW_AFTER_MATCH")
MATCH_FINISHED_TASKS.append("games.tasks.match_review_task")
# A review takes a minute or two of a core: on the bots' queue, whose worker a long search may
# hold, never on the default one, whose clocks, windows and rounds must not wait behind it.
CELERY_TASK_ROUTES["games.tasks.match_review_task"] = {"queue": BOTS_QUEUE}

# A match's export file may carry, after its events, sections kept by other apps: each is read,
# by name, from the function named here, which takes the match and returns the section's lines
# (`games.exchange.export_section_lines`). So games exports the table's chat without importing chat.
# The keys are the file format's sections (`chat`: `?chat=true`, `export_matches --chat`).
MATCH_EXPORT_EXTRAS: dict[str, str] = {"chat": "chat.selectors.chat_export_lines"}

# Celery tasks told (tournament id, event seq) of each tournament event of these types once it
# is committed; each must be idempotent.
TOURNAMENT_EVENT_TASKS: dict[str, list[str]] = {
    "RoundPaired": ["notifications.tasks.round_notify_task"],
    "TablesStarted": ["notifications.tasks.round_notify_task"],
    "RoundStarted": ["notifications.tasks.round_notify_task"],
}
# The same for the steps of a tournament's judging stream (tournaments.services.judging).
JUDGING_EVENT_TASKS: dict[str, list[str]] = {
    "JudgeCalled": ["notifications.tasks.judging_notify_task"],
    "JudgeCallResolved": ["notifications.tasks.judging_notify_task"],
}

# Notifications (notifications/): a person awaited at a table is told "your turn" once the table
# has waited this many seconds for them (for slow tables; 0: never), looked for by beat every
# NOTIFY_TURN_SWEEP_SECONDS.
NOTIFY_TURN_DELAY_SECONDS = read_float("NOTIFY_TURN_DELAY_SECONDS")
NOTIFY_TURN_SWEEP_SECONDS = read_float("NOTIFY_TURN_SWEEP_SECONDS")
if NOTIFY_TURN_DELAY_SECONDS > 0:
    CELERY_BEAT_SCHEDULE["notifications-turns"] = {
        "task": "notifications.tasks.turn_notify_sweep_task", "schedule": NOTIFY_TURN_SWEEP_SECONDS,
    }

# Celery tasks told the id of a tournament table's match whose result the organiser changed
# (a correction or a forfeit), so ratings follow; each must be idempotent.
TABLE_RESULT_CHANGED_TASKS: list[str] = ["ratings.tasks.match_rate_task"]

# TrueSkill per game (ratings/math.py Params; omitted keys keep trueskill's defaults mu=25,
# sigma=25/3, beta=25/6, tau=25/300). draw_probability: the chance two equal players tie.
# `manage.py rating_report --game SLUG` compares settings on the stored history.
RATINGS_TRUESKILL: dict[str, dict[str, float]] = {
    "ten": {"beta": 25 / 6, "draw_probability": 0.03},
    "split": {"beta": 25 / 6, "draw_probability": 0.01},
    "sequence-stacks": {"beta": 25 / 6, "draw_probability": 0.10},
    # Cooperative: the team against the game, won or lost, never a draw.
    "the-game": {"beta": 25 / 6, "draw_probability": 0.0},
}

# Seconds a bot waits before it moves, so people at the table can follow its play.
BOT_MOVE_DELAY = read_float("BOT_MOVE_DELAY")
# How long a search bot may think about one move (games/bots/search.py), by the wall clock.
BOT_MOVE_BUDGET_MS = read_int("BOT_MOVE_BUDGET_MS")
# The processes of the bots' worker that `manage.py serve` starts (compose reads it too).
BOT_WORKER_CONCURRENCY = read_int("BOT_WORKER_CONCURRENCY")
# Live sockets look for new moves this often when no shared channel layer tells them (the
# embedded default: bots and clocks move in the worker process); 0 turns it off.
LIVE_POLL_SECONDS = read_float("LIVE_POLL_SECONDS", 0.0 if _redis_on else 1.0)

# Interrupt windows (several seats may answer at once, e.g. a Block) close after this many
# seconds with a pass for every person who has not answered.
INTERRUPT_WINDOW_SECONDS = read_float("INTERRUPT_WINDOW_SECONDS")
# Timeouts in a row after which a seat is abandoned (played by the bot, ranked last).
CLOCK_TIMEOUTS_TO_ABANDON = 3
# A seat its person has left (no socket at the table) may be claimed by another player once the
# table has waited on it this long: the bot then plays it (games.services.seat_claim).
CLAIM_SEAT_AFTER_SECONDS = read_int("CLAIM_SEAT_AFTER_SECONDS")
# How many match states each process keeps in memory, so a move never replays a whole match.
MATCH_STATE_CACHE_SIZE = read_int("MATCH_STATE_CACHE_SIZE")

LOG_FORMAT = read_str("LOG_FORMAT", "text" if (DEBUG or EMBEDDED) else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "server.logs.ContextFilter"}, "repeated": {"()": "server.logs.RepeatedLineFilter"}},
    "formatters": {
        "json": {"()": "server.logs.JsonFormatter"},
        "text": {"()": "server.logs.TextFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["context", "repeated"], "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": read_str("LOG_LEVEL")},
    "loggers": {
        # Django logs every 4xx answer at WARNING ("Not Found: /x"): the client's mistake, not the
        # server's, and the server's access line already tells it (at INFO, one line a request).
        # 5xx answers stay ERROR, with their traceback.
        "django.request": {"level": "ERROR"},
    },
}
