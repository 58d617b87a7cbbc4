-- The operator's function secrets (`plinth functions secrets set`), each
-- value sealed with XChaCha20-Poly1305 under a key derived from the JWT
-- secret, its name bound as associated data. Private to the server (owner
-- pool only): RLS is on, no policy exists, and the API roles have no
-- privilege on the schema.

create schema if not exists plinth_functions;
revoke all on schema plinth_functions from public;

create table plinth_functions.secrets (
  name text primary key check (name ~ '^[A-Za-z_][A-Za-z0-9_]*$' and length(name) <= 256),
  sealed bytea not null,
  digest text not null,
  updated_at timestamptz not null default now()
);
alter table plinth_functions.secrets enable row level security;
revoke all on plinth_functions.secrets from public;
