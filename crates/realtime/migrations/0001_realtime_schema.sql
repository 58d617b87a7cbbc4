-- Realtime: row changes published with NOTIFY, the cross-node relay of
-- broadcasts, and the presence registry shared by every node.
--
-- Nothing here is reachable by the API roles: the realtime service reads and
-- writes this schema through the owner pool only. Which rows a subscriber
-- may see is decided later, per subscriber, by row-level security on the
-- published table itself.

create schema if not exists realtime;
revoke all on schema realtime from public;

-- The NOTIFY channel every node LISTENs on for row changes.
create or replace function realtime.changes_channel() returns text
language sql immutable
as $$ select 'plinth_realtime_changes' $$;

-- Publishes one row change of the table it is attached to:
--   {"schema","table","type","commit_timestamp","pk":{...},
--    "record":{...}|null, "old_record":{...}|null, "truncated":bool}
-- `pk` holds the primary-key columns of the row (new row for INSERT and
-- UPDATE, old row for DELETE). When the whole message would not fit in
-- NOTIFY's 8000-byte limit, `record` and `old_record` are left out
-- (`truncated` true) and the node re-reads the row by its key.
create or replace function realtime.publish_change() returns trigger
language plpgsql
security definer
set search_path = pg_catalog
as $$
declare
  key_columns text[];
  row_new jsonb := case when tg_op in ('INSERT', 'UPDATE') then to_jsonb(new) end;
  row_old jsonb := case when tg_op in ('UPDATE', 'DELETE') then to_jsonb(old) end;
  key_source jsonb := coalesce(row_new, row_old);
  pk jsonb := '{}'::jsonb;
  column_name text;
  message jsonb;
  body text;
begin
  select array_agg(a.attname::text order by a.attnum)
    into key_columns
    from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
   where i.indrelid = tg_relid and i.indisprimary;

  foreach column_name in array coalesce(key_columns, array[]::text[]) loop
    pk := pk || jsonb_build_object(column_name, key_source -> column_name);
  end loop;

  message := jsonb_build_object(
    'schema', tg_table_schema,
    'table', tg_table_name,
    'type', tg_op,
    'commit_timestamp',
      to_char(clock_timestamp() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'pk', pk,
    'record', row_new,
    'old_record', row_old,
    'truncated', false
  );
  body := message::text;
  if octet_length(body) > 7900 then
    body := (message || jsonb_build_object('record', null, 'old_record', null, 'truncated', true))::text;
  end if;
  perform pg_notify(realtime.changes_channel(), body);
  return null;
end
$$;

-- The operator's switch: publish the changes of one table
-- (`select realtime.enable('public', 'todos')`). Idempotent. The table needs
-- a primary key, the key by which subscribers' RLS checks find the row.
create or replace function realtime.enable(schema_name text, table_name text) returns void
language plpgsql
as $$
declare
  target regclass := format('%I.%I', schema_name, table_name)::regclass;
begin
  if not exists (select 1 from pg_index where indrelid = target and indisprimary) then
    raise exception 'realtime: table %.% has no primary key', schema_name, table_name
      using errcode = '22023';
  end if;
  execute format('drop trigger if exists plinth_realtime_publish on %s', target);
  execute format(
    'create trigger plinth_realtime_publish after insert or update or delete on %s '
    'for each row execute function realtime.publish_change()',
    target
  );
end
$$;

-- The reverse: stop publishing the changes of one table.
create or replace function realtime.disable(schema_name text, table_name text) returns void
language plpgsql
as $$
begin
  execute format(
    'drop trigger if exists plinth_realtime_publish on %s',
    format('%I.%I', schema_name, table_name)::regclass
  );
end
$$;

-- The platform's idiom, `alter publication supabase_realtime add table x`,
-- also works: an event trigger enables publishing for the tables of that
-- publication after each ALTER PUBLICATION. (Dropping a table from the
-- publication does not disable it; `realtime.disable` does.) Event triggers
-- need a superuser: under a less privileged owner this part is skipped and
-- `realtime.enable` is the only switch.
create or replace function realtime.sync_publication() returns event_trigger
language plpgsql
as $$
declare
  t record;
begin
  for t in
    select pt.schemaname, pt.tablename
      from pg_publication_tables pt
     where pt.pubname = 'supabase_realtime'
       and not exists (
         select 1 from pg_trigger tr
          where tr.tgrelid = format('%I.%I', pt.schemaname, pt.tablename)::regclass
            and tr.tgname = 'plinth_realtime_publish')
  loop
    perform realtime.enable(t.schemaname, t.tablename);
  end loop;
end
$$;

do $$ begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  drop event trigger if exists plinth_realtime_publication;
  create event trigger plinth_realtime_publication
    on ddl_command_end when tag in ('ALTER PUBLICATION')
    execute function realtime.sync_publication();
exception when insufficient_privilege then
  raise notice 'realtime: no superuser, alter publication supabase_realtime is not honoured';
end $$;

-- Nodes alive: each node writes its row at start and refreshes `seen_at`
-- every few seconds; presences of nodes gone silent are removed.
create table realtime.nodes (
  id uuid primary key,
  seen_at timestamptz not null default now()
);
alter table realtime.nodes enable row level security;

-- Presences tracked on every node, so that a client joining on one node
-- receives the state tracked on all of them.
create table realtime.presences (
  phx_ref text primary key,
  topic text not null,
  key text not null,
  node uuid not null references realtime.nodes (id) on delete cascade,
  meta jsonb not null,
  created_at timestamptz not null default clock_timestamp()
);
create index presences_topic on realtime.presences (topic);
alter table realtime.presences enable row level security;

-- Relayed messages too large for one NOTIFY: the notification carries the id.
create table realtime.relay_spill (
  id bigint generated always as identity primary key,
  body jsonb not null,
  created_at timestamptz not null default now()
);
alter table realtime.relay_spill enable row level security;
