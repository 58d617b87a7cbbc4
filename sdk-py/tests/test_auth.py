"""Auth through supabase-py's supabase_auth client against /auth/v1:
sign-up, sign-in, the user, updates, refresh and sign-out."""

import httpx
import pytest
from supabase_auth.errors import AuthApiError

from support.helpers import PASSWORD, claims, unique_email


def test_sign_up_then_sign_in_with_password(anon_client, sql):
    client = anon_client()
    email = unique_email("signup")
    signed_up = client.auth.sign_up(
        {"email": email, "password": PASSWORD, "options": {"data": {"display_name": "Py Tester"}}}
    )
    # The node asks for e-mail confirmation: a user, no session yet.
    assert signed_up.user is not None
    assert signed_up.user.email == email
    assert signed_up.user.user_metadata.get("display_name") == "Py Tester"
    assert signed_up.session is None
    stored = sql("select id::text, raw_user_meta_data->>'display_name' as name from auth.users where email = %s", (email,))
    assert stored == [{"id": signed_up.user.id, "name": "Py Tester"}]

    # Unconfirmed: refused.
    with pytest.raises(AuthApiError) as refused:
        client.auth.sign_in_with_password({"email": email, "password": PASSWORD})
    assert refused.value.code == "email_not_confirmed"

    sql("update auth.users set email_confirmed_at = now() where email = %s", (email,))
    with pytest.raises(AuthApiError) as wrong:
        client.auth.sign_in_with_password({"email": email, "password": "not-the-password"})
    assert wrong.value.status == 400
    assert wrong.value.code == "invalid_credentials"

    signed_in = client.auth.sign_in_with_password({"email": email, "password": PASSWORD})
    session = signed_in.session
    assert session is not None
    assert session.token_type == "bearer"
    assert session.refresh_token
    assert session.expires_in > 0
    token = claims(session.access_token)
    assert token["sub"] == signed_up.user.id
    assert token["role"] == "authenticated"
    assert token["aal"] == "aal1"
    assert client.auth.get_session().access_token == session.access_token


def test_get_user_and_update_user(signed_in, sql):
    user = signed_in("update")
    auth = user.client.auth
    fetched = auth.get_user()
    assert fetched.user.id == user.id
    assert fetched.user.email == user.email

    updated = auth.update_user({"data": {"display_name": "Renamed", "plan": "pro"}})
    assert updated.user.user_metadata["display_name"] == "Renamed"
    assert updated.user.user_metadata["plan"] == "pro"
    assert auth.get_user().user.user_metadata["plan"] == "pro"
    stored = sql("select raw_user_meta_data->>'plan' as plan from auth.users where id = %s", (user.id,))
    assert stored == [{"plan": "pro"}]

    # A new password: the old one stops working, the new one signs in.
    auth.update_user({"password": "another-good-password"})
    auth.sign_out()
    with pytest.raises(AuthApiError) as old:
        auth.sign_in_with_password({"email": user.email, "password": PASSWORD})
    assert old.value.code == "invalid_credentials"
    again = auth.sign_in_with_password({"email": user.email, "password": "another-good-password"})
    assert again.user.id == user.id


def test_refresh_session_rotates_the_refresh_token(signed_in, plinth):
    user = signed_in("refresh")
    auth = user.client.auth
    before = auth.get_session()
    refreshed = auth.refresh_session()
    assert refreshed.session is not None
    assert refreshed.user.id == user.id
    assert refreshed.session.refresh_token != before.refresh_token
    assert claims(refreshed.session.access_token)["session_id"] == claims(before.access_token)["session_id"]
    assert auth.get_session().refresh_token == refreshed.session.refresh_token
    # The new access token is accepted by the API.
    assert auth.get_user(refreshed.session.access_token).user.id == user.id


def test_sign_out_revokes_the_session(signed_in, plinth):
    user = signed_in("signout")
    auth = user.client.auth
    session = auth.get_session()
    events = []
    auth.on_auth_state_change(lambda event, _session: events.append(event))
    auth.sign_out()
    assert "SIGNED_OUT" in events
    assert auth.get_session() is None
    assert auth.get_user() is None
    # The refresh token is revoked on the server.
    response = httpx.post(
        f"{plinth.url}/auth/v1/token?grant_type=refresh_token",
        headers={"apikey": plinth.anon_key},
        json={"refresh_token": session.refresh_token},
    )
    assert response.status_code == 400
    assert response.json()["error_code"] == "refresh_token_not_found"
