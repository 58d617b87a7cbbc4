-- The operator console's own tables: operators, their sessions and the SQL
-- editor's history. Private to the server (owner pool only): RLS is on and
-- no policy exists, and the API roles have no privilege on the schema.

create schema if not exists plinth_console;
revoke all on schema plinth_console from public;

create table plinth_console.operators (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text not null,
  created_at timestamptz not null default now(),
  last_sign_in_at timestamptz
);
create unique index operators_email_key on plinth_console.operators (lower(email));

-- A session is known by the SHA-256 of its cookie; the cookie itself is
-- never stored.
create table plinth_console.sessions (
  id_hash bytea primary key,
  operator_id uuid not null references plinth_console.operators (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  last_seen_at timestamptz not null default now(),
  ip text,
  user_agent text
);
create index sessions_operator_idx on plinth_console.sessions (operator_id);

create table plinth_console.sql_history (
  id bigint generated always as identity primary key,
  operator_id uuid references plinth_console.operators (id) on delete set null,
  query text not null,
  read_only boolean not null,
  ok boolean not null,
  duration_ms double precision not null,
  ran_at timestamptz not null default now()
);

alter table plinth_console.operators enable row level security;
alter table plinth_console.sessions enable row level security;
alter table plinth_console.sql_history enable row level security;
