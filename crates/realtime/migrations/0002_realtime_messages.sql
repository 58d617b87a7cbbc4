-- Realtime authorization and broadcast from the database, as on the
-- platform: the `realtime.messages` table, whose row-level-security
-- policies decide who may read from and write to a private channel (the
-- server probes them as the joining user, inside a transaction it rolls
-- back), `realtime.topic()` for those policies, and `realtime.send` /
-- `realtime.broadcast_changes` for SQL and triggers. A broadcast row
-- written to `realtime.messages` is relayed to every node at commit, and
-- kept (times in UTC) for a private channel's replay.

create table realtime.messages (
  id uuid not null default gen_random_uuid() primary key,
  topic text not null,
  extension text not null check (extension in ('broadcast', 'presence')),
  payload jsonb,
  event text,
  private boolean not null default false,
  updated_at timestamp not null default timezone('utc', now()),
  inserted_at timestamp not null default timezone('utc', now())
);
create index messages_inserted_at_topic_index
  on realtime.messages (inserted_at desc, topic) where extension = 'broadcast';
alter table realtime.messages enable row level security;

-- The API roles reach the schema for the table and the helpers below; the
-- server's own functions stay the owner's.
grant usage on schema realtime to anon, authenticated, service_role, authenticator;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;
revoke execute on function realtime.enable(text, text), realtime.disable(text, text),
  realtime.changes_channel(), realtime.publish_change(), realtime.sync_publication()
  from public;

-- The topic a private channel's join (or realtime.send) is about: the
-- channel's name without the `realtime:` prefix.
create or replace function realtime.topic() returns text
language sql stable
as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

create or replace function realtime.send(
  payload jsonb,
  event text,
  topic text,
  private boolean default true
) returns void
language plpgsql
as $$
declare
  generated_id uuid := gen_random_uuid();
begin
  begin
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (
      generated_id,
      case when payload ? 'id' then payload else jsonb_set(payload, '{id}', to_jsonb(generated_id)) end,
      event, topic, private, 'broadcast'
    );
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

create or replace function realtime.broadcast_changes(
  topic_name text,
  event_name text,
  operation text,
  table_name text,
  table_schema text,
  new record,
  old record,
  level text default 'ROW'
) returns void
language plpgsql
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                       'table', table_name, 'schema', table_schema),
    event_name, topic_name);
end
$$;

-- A broadcast row goes to every node's subscribers of its topic (a private
-- one to private channels only) through the relay channel, at commit; the
-- envelope names no node, so every node delivers it, this one included.
create or replace function realtime.relay_message() returns trigger
language plpgsql
security definer
set search_path = pg_catalog
as $$
declare
  relayed jsonb;
  body text;
  spilled bigint;
begin
  if new.extension <> 'broadcast' or new.event is null then
    return null;
  end if;
  relayed := jsonb_build_object(
    'kind', 'broadcast',
    'topic', case when new.private then 'private:realtime:' else 'realtime:' end || new.topic,
    'payload', jsonb_build_object('type', 'broadcast', 'event', new.event,
                                  'payload', coalesce(new.payload, '{}'::jsonb)));
  body := jsonb_build_object('node', '00000000-0000-0000-0000-000000000000', 'body', relayed)::text;
  if octet_length(body) > 7900 then
    insert into realtime.relay_spill (body) values (relayed) returning id into spilled;
    body := jsonb_build_object('node', '00000000-0000-0000-0000-000000000000', 'spill', spilled)::text;
  end if;
  perform pg_notify('plinth_realtime_relay', body);
  return null;
end
$$;
revoke execute on function realtime.relay_message() from public;

create trigger relay_message after insert on realtime.messages
  for each row execute function realtime.relay_message();

-- What a private channel's join may do: rows of the topic, one per
-- extension, that the server then looks for as the joining user (inside a
-- transaction it always rolls back). Only the server's login role calls it,
-- before it takes the user's role.
create or replace function realtime.authorization_probe(probe_topic text)
returns table (extension text, id uuid)
language sql
security definer
set search_path = pg_catalog
as $$
  insert into realtime.messages (topic, extension)
  values (probe_topic, 'broadcast'), (probe_topic, 'presence')
  returning extension, id
$$;
revoke execute on function realtime.authorization_probe(text) from public;
grant execute on function realtime.authorization_probe(text) to authenticator;
