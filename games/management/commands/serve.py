"""Runs everything of the embedded default in one command: migrations, demo, worker, ASGI server."""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path

import uvicorn
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from games.demo import DEMO_PASSWORD, DEMO_USERS, demo_tables_live, demo_tables_top_up, demo_users_ensure
from server.celery import app


class Command(BaseCommand):
    help = (
        "Migrate, create the demo users and bot tables, start the Celery workers (one for the bots' moves), and "
        "serve HTTP and WebSockets."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=settings.SERVE_HOST)  # HOST
        parser.add_argument("--port", type=int, default=settings.SERVE_PORT)  # PORT
        parser.add_argument("--no-worker", action="store_true", help="do not start the Celery workers")
        parser.add_argument("--no-demo", action="store_true", help="no demo users or bot tables")

    def handle(self, *args, host, port, no_worker, no_demo, **options):
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            # Before the worker starts: its beat tops the demo up and needs the house that seats it.
            demo_users_ensure()
            demo_tables_top_up()
            self.stdout.write(
                f"Demo users {', '.join(DEMO_USERS)} (password {DEMO_PASSWORD!r}); bot tables at play, each "
                f"replaced as it ends: {', '.join(f'#{m.pk} {m.game}' for m in demo_tables_live())}"
            )
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # Said once here for the whole process tree, in place of the worker's own six lines.
            self.stderr.write("Running as root: the server and its worker have root's rights. Run as an ordinary user.")
        workers = [] if no_worker else self._start_workers(demo=not no_demo, port=port)
        try:
            self.stdout.write(f"Serving on http://{host}:{port}/ (API docs at /api/docs/)")
            uvicorn.run(
                "server.asgi:application", host=host, port=port, log_level="info", lifespan="off",
                # uvicorn's lines through this project's LOGGING: one format on the console (and
                # its access line is the one line a request gets: settings.LOGGING says why).
                log_config=None,
                ws_per_message_deflate=False,  # as docker/Dockerfile, which says why
                forwarded_allow_ips=",".join(settings.TRUSTED_PROXIES),  # as the throttles: none unless set
            )
        finally:
            for worker in workers:
                worker.send_signal(signal.SIGTERM)
            for worker in workers:
                worker.wait(timeout=30)

    def _start_workers(self, *, demo: bool, port: int) -> list[subprocess.Popen]:
        """Two Celery workers beside the server (on the embedded default their broker is the
        filesystem): one for clocks, windows, tournaments and the rest, with beat, and one that
        alone takes the bots' moves (`settings.BOTS_QUEUE`), so a bot thinking for its whole
        BOT_MOVE_BUDGET_MS never holds a clock or a round."""
        self.stdout.write(
            f"Starting two Celery workers, one for the bots' moves (broker {settings.CELERY_BROKER_URL})"
        )
        env = {**os.environ, "DEMO": "1" if demo else "0"}  # DEMO puts the demo's top-up on beat's schedule
        # The mails the worker sends link to this server: on the port it serves, unless SITE_URL says.
        env["PORT"] = str(port)
        # Celery warns of a worker run as root in six lines; handle() has said it once already.
        env["PYTHONWARNINGS"] = ",".join(
            filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:You're running the worker with superuser privileges"])
        )
        return [
            subprocess.Popen(command, env=env, preexec_fn=_die_with_parent)
            for command in worker_commands(schedule=settings.VAR_DIR / "celerybeat-schedule")
        ]


def worker_commands(*, schedule: Path) -> list[list[str]]:
    """The command lines of `serve`'s two workers (the processes tests start them as serve does).

    The first runs beat inside it (-B: its sweeps, the demo's top-up, the tournaments' schedule)
    and takes the default queue; the second takes only the bots' queue, with processes of its own
    (BOT_WORKER_CONCURRENCY). --quiet: no start-up banner; warnings and errors still reach the console.
    """
    common = [sys.executable, "-m", "celery", "-A", "server", "--quiet", "worker", "--pool=prefork",
              "--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    return [
        [*common, "--concurrency=2", "-Q", app.conf.task_default_queue, "-n", "default@%h",
         "-B", "--schedule", str(schedule)],
        [*common, f"--concurrency={settings.BOT_WORKER_CONCURRENCY}", "-Q", settings.BOTS_QUEUE, "-n", "bots@%h"],
    ]


def _die_with_parent() -> None:
    """The worker gets SIGTERM when this process ends, however it ends.

    uvicorn re-raises the signal that stopped it, so `finally` blocks may never run.
    """
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:  # not Linux: the `finally` in handle() is the only cleanup
        pass
