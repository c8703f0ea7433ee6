"""A private PostgreSQL server under one directory, listening on 127.0.0.1 only.

``PostgresServer(data_dir, port).start()`` runs ``initdb`` when the directory is new, starts the
server with ``pg_ctl`` and makes sure role ``fleet`` (CREATEDB) and database ``fleet`` exist. As root
the server runs as the ``postgres`` system user (``initdb`` refuses root), so the data directory
is owned by that user.

Authentication (docs/security.md): role ``fleet`` logs in with a generated password, SCRAM-SHA-256 only,
over 127.0.0.1 or the socket; the password lives beside the data directory (``<data_dir>.password``,
mode 0600, e.g. ``var/postgres.password``: never in the repository) and is in ``url``. The cluster
superuser is refused over TCP whatever it sends and logs in only over the Unix socket by peer
authentication (the OS user that owns the server, or root), so a local process of another user, or a
page's request to a loopback port, gets nothing without the password file.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

from fleet.services._system import PortInUseError, ServiceError, apt_install, is_root, port_is_free, tail

log = logging.getLogger(__name__)

MIN_MAJOR = 15
SERVER_USER = "postgres"
ROLE = "fleet"
DATABASE = "fleet"
_SOCKET_PATH_MAX = 100  # sun_path is 108 bytes; the socket file name takes 15 of them
_FALLBACK_ROOT = Path("/var/lib/fleetwatch")
_IDENT_MAP = "fleet"


def password_file_for(data_dir: Path | str) -> Path:
    """Where the server of `data_dir` keeps role ``fleet``'s password: ``<data_dir>.password`` beside it
    (``var/postgres.password`` for `fleet up`), readable by the invoking user only."""
    requested = Path(data_dir).resolve()
    return requested.with_name(f"{requested.name}.password")


def read_password(path: Path) -> str:
    """The password kept in `path`, or "" when there is none yet."""
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _write_secret(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text + "\n")
    path.chmod(0o600)


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<major>/bin with major >= 15, or None."""
    candidates = []
    for path in Path("/usr/lib/postgresql").glob("*/bin"):
        try:
            major = int(path.parent.name)
        except ValueError:
            continue
        if major >= MIN_MAJOR and (path / "initdb").exists() and (path / "pg_ctl").exists():
            candidates.append((major, path))
    return max(candidates)[1] if candidates else None


def ensure_installed() -> Path:
    """The PostgreSQL bin directory, installing Debian's ``postgresql`` package when missing (root only).

    Raises ServiceError when PostgreSQL is missing and cannot be installed.
    """
    bin_dir = find_bin_dir()
    if bin_dir is None:
        apt_install("postgresql")
        bin_dir = find_bin_dir()
    if bin_dir is None:
        raise ServiceError(f"PostgreSQL >= {MIN_MAJOR} not found under /usr/lib/postgresql after installing")
    return bin_dir


def _reachable_by_server_user(path: Path) -> bool:
    """Whether the postgres user can traverse every existing ancestor of `path` (root only matters)."""
    if not is_root():
        return True
    probe = path
    while not probe.exists():
        probe = probe.parent
    proc = subprocess.run(
        ["test", "-x", str(probe), "-a", "-r", str(probe)],
        user=SERVER_USER, cwd="/", capture_output=True, check=False,
    )
    return proc.returncode == 0


class PostgresServer:
    """One private PostgreSQL cluster. Idempotent: start() on a running server only checks it.

    `fast=True` turns off fsync, synchronous_commit and full_page_writes: for throwaway test
    servers only (a crash may corrupt the cluster).
    """

    def __init__(self, data_dir: Path | str, port: int, *, fast: bool = False) -> None:
        requested = Path(data_dir).resolve()
        self.port = port
        self.fast = fast
        self.data_dir = requested
        if not _reachable_by_server_user(requested.parent):
            # e.g. a clone under /root (mode 0700): the postgres user cannot reach it.
            digest = hashlib.sha1(str(requested).encode()).hexdigest()[:12]
            self.data_dir = _FALLBACK_ROOT / digest / requested.name
            log.warning("%s is not reachable by user %s; using %s", requested, SERVER_USER, self.data_dir)
        self.log_file = self.data_dir / "server.log"
        self.password_file = password_file_for(requested)
        if len(str(self.data_dir)) <= _SOCKET_PATH_MAX:
            self.socket_dir = self.data_dir
        else:  # a long path cannot hold a socket; the superuser still needs one (it has no TCP login)
            self.socket_dir = Path("/tmp") / f".fleet-pg-{hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:12]}"

    @property
    def password(self) -> str:
        """Role ``fleet``'s password, generated (and kept in ``password_file``) on first use."""
        password = read_password(self.password_file)
        if not password:
            password = secrets.token_urlsafe(24)
            _write_secret(self.password_file, password)
        return password

    @property
    def url(self) -> str:
        """libpq URL of database ``fleet`` as role ``fleet``, with its password."""
        return f"postgresql://{ROLE}:{quote(self.password, safe='')}@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def admin_url(self) -> str:
        """URL as the cluster superuser (the one initdb created) over the Unix socket: its only way in."""
        return f"postgresql://{self._superuser}@{quote(str(self.socket_dir), safe='')}:{self.port}/postgres"

    @property
    def _superuser(self) -> str:
        return SERVER_USER if is_root() else os.environ.get("USER") or "postgres"

    # -- running commands as the server user ---------------------------------------------

    def _run(self, bin_name: str, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        bin_dir = ensure_installed()
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        kwargs: dict[str, object] = {}
        if is_root():
            kwargs = {"user": SERVER_USER, "group": SERVER_USER, "extra_groups": []}
        proc = subprocess.run(
            [str(bin_dir / bin_name), *args], env=env, cwd="/", stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout, check=False, **kwargs,  # type: ignore[call-overload]
        )
        if check and proc.returncode != 0:
            raise ServiceError(f"{bin_name} {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
        return proc

    # -- lifecycle -------------------------------------------------------------------------

    def is_running(self) -> bool:
        """True when a postmaster runs on this data directory (pg_ctl status)."""
        if not (self.data_dir / "PG_VERSION").exists():
            return False
        return self._run("pg_ctl", "status", "-D", str(self.data_dir), check=False).returncode == 0

    def start(self) -> None:
        """initdb (first time), start, create role and database. Raises PortInUseError, ServiceError."""
        ensure_installed()
        if not (self.data_dir / "PG_VERSION").exists():
            self._initdb()
        self._write_config()
        if self.is_running():
            self._run("pg_ctl", "reload", "-D", str(self.data_dir), check=False)  # pg_hba.conf of an older start
        else:
            if not port_is_free(self.port):
                raise PortInUseError(self.port)
            log.info("starting PostgreSQL on 127.0.0.1:%d (%s)", self.port, self.data_dir)
            proc = self._run(
                "pg_ctl", "start", "-D", str(self.data_dir), "-l", str(self.log_file), "-w", "-t", "90",
                check=False, timeout=120,
            )
            if proc.returncode != 0:
                raise ServiceError(
                    f"PostgreSQL did not start on port {self.port}:\n{proc.stdout}{proc.stderr}\n"
                    f"--- {self.log_file}:\n{tail(self.log_file)}"
                )
        if not self.healthy():
            raise ServiceError(f"PostgreSQL on port {self.port} does not answer:\n{tail(self.log_file)}")
        self._ensure_role_and_database()

    def stop(self) -> None:
        """Fast shutdown (pg_ctl stop -m fast); no-op when not running."""
        if self.is_running():
            log.info("stopping PostgreSQL on port %d", self.port)
            self._run("pg_ctl", "stop", "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "60", check=False)
            if self.is_running():  # fast shutdown stuck: immediate is still crash-safe
                self._run("pg_ctl", "stop", "-D", str(self.data_dir), "-m", "immediate", "-w", check=False)

    def healthy(self) -> bool:
        """True when the server accepts a query."""
        import psycopg

        try:
            with psycopg.connect(self.admin_url, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def destroy(self) -> None:
        """Stop and delete the data directory (and the socket directory made for a long path, and the folder of
        its own under the fallback root when the requested one was out of the postgres user's reach)."""
        self.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.socket_dir != self.data_dir:
            shutil.rmtree(self.socket_dir, ignore_errors=True)
        if self.data_dir.parent.parent == _FALLBACK_ROOT:
            with contextlib.suppress(OSError):
                self.data_dir.parent.rmdir()  # only when nothing else is in it

    # -- internals -------------------------------------------------------------------------

    def _initdb(self) -> None:
        log.info("initdb %s", self.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if is_root():
            shutil.chown(self.data_dir, SERVER_USER, SERVER_USER)
        self.data_dir.chmod(0o700)
        self._run(
            "initdb", "-D", str(self.data_dir), "--no-locale", "--encoding=UTF8",
            "--auth-local=peer", "--auth-host=scram-sha-256", f"--username={self._superuser}",
            "--no-instructions", timeout=180,
        )
        conf = self.data_dir / "postgresql.conf"
        self._write_as_server_user(conf, conf.read_text() + "\ninclude_if_exists = 'fleet.conf'\n")

    def _write_config(self) -> None:
        """fleet.conf, pg_hba.conf and pg_ident.conf, on every start (a data dir of an older version,
        which trusted every role on loopback, gets these rules too)."""
        if self.socket_dir != self.data_dir:
            self.socket_dir.mkdir(mode=0o700, exist_ok=True)
            if is_root():
                shutil.chown(self.socket_dir, SERVER_USER, SERVER_USER)
        superuser = self._superuser
        # Rules in order, first match wins: the superuser never over TCP, only over the socket as the OS
        # user that owns the server (or root, mapped in pg_ident.conf); every other role with its
        # password, SCRAM-SHA-256 only (an MD5 verifier or a plain password is refused).
        hba = (
            "# written by fleet/services/postgres.py on every start (docs/security.md)\n"
            f"local all {superuser} peer map={_IDENT_MAP}\n"
            f"host all {superuser} 0.0.0.0/0 reject\n"
            f"host all {superuser} ::/0 reject\n"
            "local all all scram-sha-256\n"
            "host all all 127.0.0.1/32 scram-sha-256\n"
        )
        os_users = sorted({superuser, "root"} if is_root() else {superuser})
        ident = "# written by fleet/services/postgres.py: OS users that may log in as the superuser\n"
        ident += "".join(f"{_IDENT_MAP} {user} {superuser}\n" for user in os_users)
        self._write_as_server_user(self.data_dir / "pg_hba.conf", hba)
        self._write_as_server_user(self.data_dir / "pg_ident.conf", ident)
        lines = [
            "# written by fleet/services/postgres.py on every start",
            f"port = {self.port}",
            "listen_addresses = '127.0.0.1'",
            f"unix_socket_directories = '{self.socket_dir}'",
            "password_encryption = 'scram-sha-256'",
            "max_connections = 200",
            "shared_buffers = 128MB",
            "log_min_messages = warning",
            "log_line_prefix = '%m [%p] %d '",
            "timezone = 'UTC'",
        ]
        if self.fast:
            lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        self._write_as_server_user(self.data_dir / "fleet.conf", "\n".join(lines) + "\n")

    def _write_as_server_user(self, path: Path, text: str) -> None:
        path.write_text(text)
        if is_root():
            shutil.chown(path, SERVER_USER, SERVER_USER)

    def _ensure_role_and_database(self) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5) as conn:
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB").format(sql.Identifier(ROLE)))
            # Set on every start from the password file (a role of an older, trusting version had none):
            # the verifier is computed here, so the password itself never reaches the server or its log.
            verifier = conn.pgconn.encrypt_password(self.password.encode(), ROLE.encode(), b"scram-sha-256")
            conn.execute(sql.SQL("ALTER ROLE {} WITH LOGIN CREATEDB PASSWORD {}").format(
                sql.Identifier(ROLE), sql.Literal(verifier.decode())))
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
                conn.execute(
                    sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(DATABASE), sql.Identifier(ROLE))
                )
