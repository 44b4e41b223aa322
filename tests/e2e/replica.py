"""A PostgreSQL streaming replica of the test database's cluster, in a temporary directory.

Made as an operator makes one: `pg_basebackup -R` from the running primary (a replication
connection: the primary's pg_hba.conf must allow one from 127.0.0.1, which .ci/run adds), then
the copy started on a port of its own as a hot standby. PostgreSQL refuses to run as root, so as
root its commands run as the `postgres` user.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest

# Ports for extra clusters on this machine (other test runs use others).
PORTS = range(5442, 5450)


class StreamingReplica:
    """A hot standby of the cluster at `primary` (a Django settings dict), until `remove()`."""

    def __init__(self, primary: dict, directory: Path) -> None:
        self.primary, self.directory = primary, directory
        self.data = directory / "data"
        self.port = _free_port()
        self.bin = _postgres_bin(primary)

    def make(self) -> None:
        """Copies the primary and starts the copy; returns once it accepts read-only connections."""
        _as_postgres_owned(self.directory)
        copied = self._run(
            "pg_basebackup", "-h", self.primary["HOST"], "-p", str(self.primary["PORT"]), "-U", self.primary["USER"],
            "-D", str(self.data), "-R", "-X", "stream", "-c", "fast", check=False,
        )
        if copied.returncode != 0:
            _cannot_replicate(f"pg_basebackup from the primary failed: {copied.stderr.strip()}")
        # Debian keeps a cluster's configuration outside its data directory: the copy has none.
        (self.data / "postgresql.conf").write_text(
            f"listen_addresses = '127.0.0.1'\nport = {self.port}\nunix_socket_directories = '{self.directory}'\n"
            "hot_standby = on\n"
        )
        (self.data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        (self.data / "pg_ident.conf").write_text("")
        _as_postgres_owned(self.data)
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.directory / "log"), "-w", "start")

    def url(self, role: str) -> str:
        return f"postgres://{role}@127.0.0.1:{self.port}/{self.primary['NAME']}"

    def execute(self, sql: str):
        """One statement on the replica as the superuser; its first row."""
        with psycopg.connect(host="127.0.0.1", port=self.port, dbname=self.primary["NAME"],
                             user=self.primary["USER"], autocommit=True) as replica:
            return replica.execute(sql).fetchone()

    def stop(self) -> None:
        """As an operator stopping it (or a crash, to its clients): its connections are cut."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def remove(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)


def _postgres_bin(primary: dict) -> Path:
    """The binaries of the primary's major version (Debian installs each under its own directory)."""
    with psycopg.connect(host=primary["HOST"], port=primary["PORT"], dbname=primary["NAME"], user=primary["USER"]) as db:
        major = int(db.execute("SHOW server_version_num").fetchone()[0]) // 10000
    for candidate in (Path(f"/usr/lib/postgresql/{major}/bin"), Path(shutil.which("pg_basebackup") or "/nonexistent").parent):
        if (candidate / "pg_basebackup").exists() and (candidate / "pg_ctl").exists():
            return candidate
    _cannot_replicate(f"no pg_basebackup and pg_ctl of PostgreSQL {major} on this machine")


def _cannot_replicate(reason: str) -> NoReturn:
    """Skips where the machine cannot make a replica at all; in CI that is a failure."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _as_postgres_owned(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
        for child in path.rglob("*"):
            shutil.chown(child, "postgres", "postgres")


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise AssertionError(f"no free port in {PORTS}")
