"""A throwaway PostgreSQL server for the tests, started from the machine's own binaries.

`ThrowawayPostgres.start()` makes a cluster in a fresh temporary directory (`initdb`), starts
it on a free port on 127.0.0.1 (`pg_ctl start`), and `stop()` stops it and deletes the
directory. `initdb` refuses to run as root, and CI runs as root: then every server command runs
as the `postgres` user (`runuser -u postgres --`) in a directory that user owns. Durability is
off (`fsync=off`): a test server is thrown away, and it starts and creates databases faster.

`python -m tests.postgres_server` runs one until Ctrl-C and prints its URL, for trying two
`python -m bot` replicas by hand.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Where Debian and Ubuntu put each installed major version.
DEBIAN_BINARIES = Path("/usr/lib/postgresql")
START_TIMEOUT_S = 60
SERVER_USER = "postgres"  # the superuser initdb makes, and the OS user that runs it as root


class NoPostgres(Exception):
    """No PostgreSQL server binaries on this machine."""


class PostgresFailed(Exception):
    """The throwaway server could not be made or started; the message has its log."""


def find_binaries() -> Path:
    """The directory holding `initdb` and `pg_ctl`: the newest in /usr/lib/postgresql, else PATH."""
    versions = [
        path.parent
        for path in DEBIAN_BINARIES.glob("*/bin/initdb")
        if re.fullmatch(r"\d+", path.parent.parent.name)
    ]
    if versions:
        return max(versions, key=lambda bin_dir: int(bin_dir.parent.name))
    on_path = shutil.which("initdb")
    if on_path is not None and shutil.which("pg_ctl") is not None:
        return Path(on_path).parent
    raise NoPostgres(
        f"no PostgreSQL server binaries (initdb, pg_ctl) in {DEBIAN_BINARIES}/<version>/bin"
        " or on PATH; install PostgreSQL (apt-get install postgresql) or point"
        " SLACK_QUESTIONS_TEST_PG at a server"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ThrowawayPostgres:
    """One running throwaway cluster; `url` reaches its `postgres` database as superuser."""

    bin_dir: Path
    base: Path
    port: int
    as_postgres: bool  # commands run through runuser, because we are root

    @property
    def url(self) -> str:
        """The superuser's URL of the server's `postgres` database."""
        return f"postgresql://{SERVER_USER}@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def log(self) -> Path:
        return self.base / "server.log"

    @classmethod
    def start(cls) -> ThrowawayPostgres:
        """Make a cluster in a new temporary directory and start it; `NoPostgres` if none."""
        bin_dir = find_binaries()
        as_postgres = os.geteuid() == 0
        # Not under pytest's tmp_path: that is private to root, and the server user must enter.
        base = Path(tempfile.mkdtemp(prefix="slack-questions-pg-"))
        server = cls(bin_dir, base, port=0, as_postgres=as_postgres)
        try:
            (base / "sock").mkdir()
            if as_postgres:
                owner = pwd.getpwnam(SERVER_USER)
                for path in (base, base / "sock"):
                    os.chown(path, owner.pw_uid, owner.pw_gid)
            server._run(
                "initdb",
                *("-D", str(server.data), "-U", SERVER_USER, "-A", "trust"),
                *("-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"),
            )
            server._allow_password_login()
            server._listen()
        except BaseException:
            server._remove()
            raise
        return server

    def stop(self) -> None:
        """Stop the server at once (nothing in it is kept) and delete its directory."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            self._remove()

    def _listen(self) -> None:
        """Start on a free port; another process may take the port first, so try a few."""
        for _ in range(3):
            self.port = free_port()
            options = (
                f"-p {self.port} -k {self.base / 'sock'} -c listen_addresses=127.0.0.1"
                " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
            )
            try:
                self._run(
                    "pg_ctl",
                    *("-D", str(self.data), "-l", str(self.log), "-o", options),
                    *("-w", "-t", str(START_TIMEOUT_S), "start"),
                )
                return
            except PostgresFailed:
                if "could not bind" not in self._log_text():
                    raise
        raise PostgresFailed(f"no free port to start PostgreSQL on:\n{self._log_text()}")

    def _allow_password_login(self) -> None:
        """Role `with_password` must give its password (the wrong-password test needs one
        role that trust does not let in); everyone else is trusted."""
        hba = self.data / "pg_hba.conf"
        rule = "host all with_password 127.0.0.1/32 scram-sha-256\n"
        hba.write_text(rule + hba.read_text())

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin_dir / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        # The server user may not enter our working directory (e.g. /root).
        done = subprocess.run(command, cwd=self.base, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PostgresFailed(
                f"{program} exited with {done.returncode}:\n{done.stdout}{done.stderr}"
                f"{self._log_text()}"
            )

    def _log_text(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text()
        return ""

    def _remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def main() -> None:
    """Run a throwaway server until Ctrl-C or SIGTERM."""
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    server = ThrowawayPostgres.start()
    try:
        print(server.url, flush=True)
        signal.sigwait(stops)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
