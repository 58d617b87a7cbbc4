"""The Python compatibility suite: one real `plinth` for the session, on a
fresh database of the test server, driven by the platform's official Python
clients (supabase, postgrest, supabase_auth, storage3, realtime,
supabase_functions) exactly as an application uses them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import psycopg
import pytest
from psycopg.rows import dict_row
from supabase import AsyncClient, Client, acreate_client, create_client
from supabase.lib.client_options import AsyncClientOptions, SyncClientOptions

from support.helpers import PASSWORD, unique_email
from support.plinth import fresh_database, spawn_plinth

HERE = Path(__file__).resolve().parent
JWT_SECRET = "python-suite-secret-of-at-least-32-characters"
SITE_URL = "http://localhost:3000"


@dataclass
class Plinth:
    url: str
    anon_key: str
    service_role_key: str
    database_url: str
    jwt_secret: str

    def sql(self, text: str, params: Any = None) -> list[dict[str, Any]]:
        """Runs SQL as the database owner (fixtures, and checks of what was stored)."""
        with psycopg.connect(self.database_url, autocommit=True, row_factory=dict_row) as conn:
            cur = conn.execute(text, params)
            return cur.fetchall() if cur.description else []


@pytest.fixture(scope="session")
def plinth() -> Plinth:
    database = fresh_database()
    try:
        node = spawn_plinth(
            database.database_url,
            {
                "JWT_SECRET": JWT_SECRET,
                "SITE_URL": SITE_URL,
                # The suite signs up many users from one address.
                "GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS": "10000",
                "GOTRUE_RATE_LIMIT_EMAIL_SENT": "10000",
                "GOTRUE_RATE_LIMIT_VERIFY": "10000",
                "GOTRUE_RATE_LIMIT_TOKEN_REFRESH": "10000",
                # The suite's own edge function (test_functions.py).
                "PLINTH_FUNCTIONS_DIR": str(HERE / "functions"),
            },
            data_dir_prefix="plinth-py-",
        )
    except BaseException:
        database.drop()
        raise
    try:
        node_info = Plinth(
            url=node.url,
            anon_key=node.anon_key,
            service_role_key=node.service_role_key,
            database_url=database.database_url,
            jwt_secret=JWT_SECRET,
        )
        node_info.sql((HERE / "support" / "schema.sql").read_text())
        yield node_info
    finally:
        node.stop()
        database.drop()


@pytest.fixture(scope="session")
def sql(plinth: Plinth) -> Callable[..., list[dict[str, Any]]]:
    return plinth.sql


def _options() -> SyncClientOptions:
    # A session kept in the client's memory, refreshed only when a test asks.
    return SyncClientOptions(auto_refresh_token=False, persist_session=True)


@pytest.fixture
def anon_client(plinth: Plinth) -> Callable[[], Client]:
    """Clients as an application makes them: the anon key."""
    return lambda: create_client(plinth.url, plinth.anon_key, options=_options())


@pytest.fixture
def service_client(plinth: Plinth) -> Client:
    """A server-side client with the service_role key."""
    return create_client(plinth.url, plinth.service_role_key, options=_options())


@dataclass
class User:
    client: Client
    id: str
    email: str
    password: str


@pytest.fixture
def signed_in(plinth: Plinth, anon_client, sql) -> Callable[[str], User]:
    """Signs up a new user through the client, confirms the address as the
    owner (no mail is read here), and signs in."""

    def make(tag: str = "user") -> User:
        client = anon_client()
        email = unique_email(tag)
        client.auth.sign_up({"email": email, "password": PASSWORD})
        sql("update auth.users set email_confirmed_at = now() where email = %s", (email,))
        response = client.auth.sign_in_with_password({"email": email, "password": PASSWORD})
        assert response.session is not None
        return User(client=client, id=response.user.id, email=email, password=PASSWORD)

    return make


@pytest.fixture
async def async_clients(plinth: Plinth):
    """Async clients (realtime needs them); their channels and sockets are
    closed at the end of the test."""
    made: list[AsyncClient] = []

    async def make(key: str | None = None) -> AsyncClient:
        client = await acreate_client(
            plinth.url,
            key or plinth.anon_key,
            options=AsyncClientOptions(auto_refresh_token=False, persist_session=True),
        )
        made.append(client)
        return client

    yield make
    for client in made:
        await client.remove_all_channels()
        await client.realtime.close()
