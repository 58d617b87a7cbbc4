"""Realtime through supabase-py's async client against
/realtime/v1/websocket: postgres_changes, broadcast and presence."""

import asyncio
import secrets

from realtime import RealtimeSubscribeStates


async def wait_until(check, seconds: float = 5.0):
    """Polls `check` every 20 ms until it returns something other than None."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        value = check()
        if value is not None:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)


async def subscribe(channel):
    """Subscribes; returns once joined, fails with the client's own error otherwise."""
    states: list[tuple[RealtimeSubscribeStates, Exception | None]] = []
    await channel.subscribe(lambda state, error: states.append((state, error)))
    assert states, "subscribe returned without a state"
    state, error = states[-1]
    assert state == RealtimeSubscribeStates.SUBSCRIBED, f"{state}: {error}"


def topic(tag: str) -> str:
    return f"py-{tag}-{secrets.token_hex(4)}"


async def test_postgres_changes_insert_reaches_the_subscriber(async_clients, sql):
    client = await async_clients()
    received: list[dict] = []
    room = topic("room")
    # As an application writes it: event and table, the schema left to the client.
    channel = client.channel(topic("changes")).on_postgres_changes(
        "INSERT", lambda payload: received.append(payload), table="py_rt_notes"
    )
    await subscribe(channel)

    sql("insert into public.py_rt_notes (room, body) values (%s, 'hello from sql')", (room,))
    payload = await wait_until(lambda: received[0] if received else None)
    data = payload["data"]
    assert data["type"] == "INSERT"
    assert data["schema"] == "public"
    assert data["table"] == "py_rt_notes"
    assert data["record"]["room"] == room
    assert data["record"]["body"] == "hello from sql"
    assert isinstance(data["record"]["id"], int)
    assert {c["name"] for c in data["columns"]} >= {"id", "room", "body"}
    assert data["commit_timestamp"]
    assert len(received) == 1


async def test_postgres_changes_with_a_filter_and_an_explicit_schema(async_clients, sql):
    client = await async_clients()
    wanted = topic("wanted")
    received: list[dict] = []
    updates: list[dict] = []
    channel = (
        client.channel(topic("filtered"))
        .on_postgres_changes("INSERT", lambda p: received.append(p), schema="public", table="py_rt_notes", filter=f"room=eq.{wanted}")
        .on_postgres_changes("UPDATE", lambda p: updates.append(p), schema="public", table="py_rt_notes", filter=f"room=eq.{wanted}")
    )
    await subscribe(channel)

    sql("insert into public.py_rt_notes (room, body) values (%s, 'not for us')", (topic("other"),))
    sql("insert into public.py_rt_notes (room, body) values (%s, 'for us')", (wanted,))
    first = await wait_until(lambda: received[0] if received else None)
    assert first["data"]["record"]["body"] == "for us"
    sql("update public.py_rt_notes set body = 'edited' where room = %s", (wanted,))
    update = await wait_until(lambda: updates[0] if updates else None)
    assert update["data"]["type"] == "UPDATE"
    assert update["data"]["record"]["body"] == "edited"
    await asyncio.sleep(0.3)
    assert [p["data"]["record"]["body"] for p in received] == ["for us"]
    assert len(updates) == 1


async def test_broadcast_between_clients_with_self_and_ack(async_clients):
    a = await async_clients()
    b = await async_clients()
    name = topic("broadcast")
    own: list[dict] = []
    received: list[dict] = []
    channel_a = a.channel(name, {"config": {"broadcast": {"self": True, "ack": True}, "presence": None, "private": False}})
    channel_a.on_broadcast("note", lambda payload: own.append(payload))
    channel_b = b.channel(name).on_broadcast("note", lambda payload: received.append(payload))
    await subscribe(channel_a)
    await subscribe(channel_b)

    await channel_a.send_broadcast("note", {"text": "hello"})
    await channel_a.send_broadcast("other-event", {"text": "not listened to"})
    message = await wait_until(lambda: received[0] if received else None)
    assert message["event"] == "note"
    assert message["payload"] == {"text": "hello"}
    mine = await wait_until(lambda: own[0] if own else None)
    assert mine["payload"] == {"text": "hello"}
    await asyncio.sleep(0.2)
    assert len(received) == 1

    # Broadcast over HTTP reaches the socket's subscribers too.
    await channel_a.http_send("note", {"text": "over http"})
    await wait_until(lambda: True if len(received) == 2 else None)
    assert received[1]["payload"] == {"text": "over http"}


async def test_presence_track_and_sync(async_clients):
    a = await async_clients()
    b = await async_clients()
    name = topic("presence")
    synced: list[int] = []
    channel_a = a.channel(name, {"config": {"presence": {"key": "alice", "enabled": True}, "broadcast": None, "private": False}})
    channel_a.on_presence_sync(lambda: synced.append(1))
    channel_b = b.channel(name, {"config": {"presence": {"key": "bob", "enabled": True}, "broadcast": None, "private": False}})
    channel_b.on_presence_sync(lambda: None)
    await subscribe(channel_a)
    await subscribe(channel_b)
    await channel_b.track({"status": "online"})
    state = await wait_until(lambda: channel_a.presence_state() if "bob" in channel_a.presence_state() else None)
    assert state["bob"][0]["status"] == "online"
    await channel_b.untrack()
    await wait_until(lambda: True if "bob" not in channel_a.presence_state() else None)
