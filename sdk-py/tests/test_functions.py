"""Edge functions through supabase-py's supabase_functions client against
/functions/v1: a built-in function of the marketplace, and the suite's own
TypeScript function (sdk-py/functions/py-echo) run by Deno."""

import uuid

import pytest
from supabase_functions import SyncFunctionsClient
from supabase_functions.errors import FunctionsHttpError

from support.helpers import unique_email


@pytest.fixture
def template(sql) -> str:
    """A published free template of a new creator (as functions.test.ts makes one)."""
    creator = str(uuid.uuid4())
    template_id = str(uuid.uuid4())
    sql(
        """insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
           values ('00000000-0000-0000-0000-000000000000', %s, 'authenticated', 'authenticated', %s,
                   '{"display_name":"Py Creator"}', now(), now())""",
        (creator, unique_email("creator")),
    )
    sql(
        """insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id, template_url)
           values (%s, %s, 'Py Planner', 'free', 0, 0, (select id from public.categories where slug = 'productivity'),
                   'https://files.example.com/py-planner.zip')""",
        (template_id, creator),
    )
    return template_id


def test_invoke_a_built_in_function(anon_client, template, sql):
    functions = anon_client().functions
    body = {"template_id": template, "ip_address": None, "user_agent": "pytest/1"}
    first = functions.invoke("track-template-view", {"body": body, "responseType": "json"})
    assert first == {"success": True, "counted": True, "total_views": 1}
    again = functions.invoke("track-template-view", {"body": body, "responseType": "json"})
    assert again == {"success": True, "counted": False, "total_views": 1}
    assert sql("select total_views from public.templates where id = %s", (template,)) == [{"total_views": 1}]

    with pytest.raises(FunctionsHttpError) as missing:
        functions.invoke("track-template-view", {"body": {"user_agent": "pytest/1"}})
    assert missing.value.status == 400
    assert "template_id" in missing.value.message

    with pytest.raises(FunctionsHttpError) as unknown:
        functions.invoke("track-template-view", {"body": {"template_id": str(uuid.uuid4())}})
    assert unknown.value.status == 404


def test_invoke_the_suites_own_function(anon_client, signed_in, plinth):
    anon = anon_client().functions
    echoed = anon.invoke(
        "py-echo?from=python",
        {"body": {"hello": "world", "n": 1}, "headers": {"x-custom": "yes"}, "responseType": "json"},
    )
    assert echoed["method"] == "POST"
    assert echoed["path"].endswith("/py-echo")
    assert echoed["query"] == {"from": "python"}
    assert echoed["contentType"].startswith("application/json")
    assert echoed["body"] == {"hello": "world", "n": 1}
    assert echoed["custom"] == "yes"
    assert echoed["apikey"] == plinth.anon_key
    assert echoed["authorization"] == f"Bearer {plinth.anon_key}"

    text = anon.invoke("py-echo", {"body": "plain words", "responseType": "json"})
    assert text["contentType"].startswith("text/plain")
    assert text["body"] == "plain words"

    raw = anon.invoke("py-echo", {"method": "GET"})
    assert isinstance(raw, bytes)
    assert b'"method":"GET"' in raw

    # A signed-in client sends its user's token.
    user = signed_in("functions")
    mine = user.client.functions.invoke("py-echo", {"body": {}, "responseType": "json"})
    assert mine["authorization"] == f"Bearer {user.client.auth.get_session().access_token}"

    # verify_jwt (the default): no valid token, no function.
    bare = SyncFunctionsClient(f"{plinth.url}/functions/v1", {"apikey": plinth.anon_key, "Authorization": "Bearer not-a-jwt"})
    with pytest.raises(FunctionsHttpError) as refused:
        bare.invoke("py-echo", {"body": {}})
    assert refused.value.status == 401
