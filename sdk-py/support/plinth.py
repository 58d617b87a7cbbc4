"""Starts the real `plinth` binary on a fresh database of the test server,
as sdk-ts/tests/support/spawn-plinth.ts does: `plinth serve` on a free
loopback port with the repository's migrations and policies, a temporary
data folder, no app and no env file; ready once it prints "Plinth is
ready", with the ANON_KEY=… and SERVICE_ROLE_KEY=… lines it prints."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def plinth_binary() -> str:
    """PLINTH_BIN, else the cargo target folder's debug build."""
    candidates = [
        os.environ.get("PLINTH_BIN"),
        os.environ.get("CARGO_TARGET_DIR") and os.path.join(os.environ["CARGO_TARGET_DIR"], "debug/plinth"),
        str(REPO / "target/debug/plinth"),
    ]
    candidates = [c for c in candidates if c]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError(
        f"no plinth binary (looked at {', '.join(candidates)}); run cargo build -p plinth-server"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class FreshDatabase:
    server_url: str
    name: str
    database_url: str

    def drop(self) -> None:
        with psycopg.connect(self.server_url, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{self.name}" with (force)')


def fresh_database() -> FreshDatabase:
    """A new database on the test server (DATABASE_URL, else 127.0.0.1:5432)."""
    server_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    name = f"plinth_py_{secrets.token_hex(6)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
    parts = urlsplit(server_url)
    database_url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))
    return FreshDatabase(server_url=server_url, name=name, database_url=database_url)


@dataclass
class SpawnedPlinth:
    url: str
    anon_key: str
    service_role_key: str
    process: subprocess.Popen
    data_dir: str
    output: list[str] = field(default_factory=list)

    def log(self) -> str:
        return "".join(self.output)

    def stop(self) -> None:
        """Ends the process (SIGINT, waiting up to 15 s) and removes its data folder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def spawn_plinth(database_url: str, env: dict[str, str], data_dir_prefix: str = "plinth-py-", name: str = "plinth") -> SpawnedPlinth:
    """`plinth serve` on a free port, once it says it is ready."""
    port = free_port()
    data_dir = tempfile.mkdtemp(prefix=data_dir_prefix)
    process = subprocess.Popen(
        [
            plinth_binary(),
            "serve",
            "--port",
            str(port),
            "--migrations",
            str(REPO / "migrations"),
            "--policies",
            str(REPO / "policies"),
        ],
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "PLINTH_DATA_DIR": data_dir,
            "PLINTH_APP_DIR": os.path.join(data_dir, "no-app"),
            "PLINTH_ENV_FILE": "/dev/null",
            "RUST_LOG": os.environ.get("RUST_LOG", "warn"),
            **env,
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    output: list[str] = []
    ready = threading.Event()

    # Both pipes are read for as long as the process lives, so that it never
    # blocks on a full pipe.
    def pump(stream, echo: bool) -> None:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace")
            output.append(line)
            if echo and os.environ.get("PLINTH_LOG"):
                sys.stderr.write(line)
            if "Plinth is ready" in line:
                ready.set()
        stream.close()

    threading.Thread(target=pump, args=(process.stdout, False), daemon=True).start()
    threading.Thread(target=pump, args=(process.stderr, True), daemon=True).start()

    deadline = time.monotonic() + 60
    while not ready.wait(0.1):
        if process.poll() is not None:
            time.sleep(0.2)
            shutil.rmtree(data_dir, ignore_errors=True)
            raise RuntimeError(f"{name} exited with {process.returncode}:\n{''.join(output)}")
        if time.monotonic() > deadline:
            process.kill()
            shutil.rmtree(data_dir, ignore_errors=True)
            raise RuntimeError(f"{name} did not start:\n{''.join(output)}")

    text = "".join(output)

    def key(name_: str) -> str:
        match = re.search(rf"^{name_}=(\S+)$", text, re.M)
        if not match:
            process.kill()
            raise RuntimeError(f"no {name_} in {name}'s output:\n{text}")
        return match.group(1)

    return SpawnedPlinth(
        url=f"http://127.0.0.1:{port}",
        anon_key=key("ANON_KEY"),
        service_role_key=key("SERVICE_ROLE_KEY"),
        process=process,
        data_dir=data_dir,
        output=output,
    )
