-- The auth service's storage, with the hosted platform's table and column
-- names, so that SQL written for the platform works unchanged: triggers on
-- `auth.users` (e.g. creating a profile row), and seed files that insert users
-- with `crypt(password, gen_salt('bf'))` and identities, and then sign in.
--
-- Only the auth service reads and writes these tables (as the database owner);
-- the API roles get no privileges on them, and row-level security is enabled
-- without policies as a second fence.

create schema if not exists auth;
create schema if not exists extensions;

-- pgcrypto (`crypt`, `gen_salt`, `digest`) and uuid-ossp (`uuid_generate_v4`)
-- live in `extensions`, as on the platform.
create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;

-- Seed files call `crypt(...)`, `gen_salt(...)` and `uuid_generate_v4()`
-- unqualified (the platform has `extensions` on its search path). A search
-- path set on the database is not copied to databases created from it, so
-- thin wrappers in `public` make the unqualified names work everywhere. They
-- are for SQL run by the owner (seeds, migrations), not for the API roles.
create or replace function public.crypt(password text, salt text) returns text
language sql immutable strict parallel safe
as $$ select extensions.crypt(password, salt) $$;

create or replace function public.gen_salt(kind text) returns text
language sql volatile strict parallel safe
as $$ select extensions.gen_salt(kind) $$;

create or replace function public.gen_salt(kind text, rounds integer) returns text
language sql volatile strict parallel safe
as $$ select extensions.gen_salt(kind, rounds) $$;

create or replace function public.uuid_generate_v4() returns uuid
language sql volatile parallel safe
as $$ select extensions.uuid_generate_v4() $$;

revoke execute on function public.crypt(text, text), public.gen_salt(text),
  public.gen_salt(text, integer), public.uuid_generate_v4()
  from public, anon, authenticated;

-- Users. `encrypted_password` holds an argon2id PHC string for users created
-- here, or a bcrypt hash (`$2a$...`) for users imported from the platform or
-- inserted by seed SQL; a bcrypt hash is replaced by argon2id at the user's
-- next successful sign-in. Token columns hold SHA-256 hashes, never the codes
-- sent by e-mail.
create table auth.users (
  instance_id uuid,
  id uuid primary key default gen_random_uuid(),
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
comment on table auth.users is 'Auth: stores user login data within a secure schema.';

-- One account per e-mail address (case-insensitive), as on the platform.
create unique index users_email_partial_key on auth.users (lower(email))
  where is_sso_user = false and email is not null and email <> '';
create index users_instance_id_idx on auth.users (instance_id);
create index users_is_anonymous_idx on auth.users (is_anonymous);
create unique index confirmation_token_idx on auth.users (confirmation_token)
  where confirmation_token !~ '^[0-9 ]*$';
create unique index recovery_token_idx on auth.users (recovery_token)
  where recovery_token !~ '^[0-9 ]*$';
create unique index email_change_token_new_idx on auth.users (email_change_token_new)
  where email_change_token_new !~ '^[0-9 ]*$';

-- Identities: one row per (provider, provider's user id). E-mail users have
-- an `email` identity whose provider_id is the user id.
create table auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid primary key default gen_random_uuid(),
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
comment on table auth.identities is 'Auth: stores identities associated to a user.';
create index identities_user_id_idx on auth.identities (user_id);
create index identities_email_idx on auth.identities (email text_pattern_ops);

create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');

-- Sessions: one per sign-in; the access token's `session_id` names a row.
create table auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal auth.aal_level,
  not_after timestamptz,
  refreshed_at timestamp without time zone,
  user_agent text,
  ip inet,
  tag text
);
comment on table auth.sessions is 'Auth: stores session data associated to a user.';
create index sessions_user_id_idx on auth.sessions (user_id);
create index user_id_created_at_idx on auth.sessions (user_id, created_at);

-- Refresh tokens: opaque, rotated on every use. `parent` is the token this
-- one replaced; `revoked` marks a token that was used (or whose session
-- ended).
create table auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
comment on table auth.refresh_tokens is 'Auth: Store of tokens used to refresh JWT tokens once they expire.';
create index refresh_tokens_instance_id_idx on auth.refresh_tokens (instance_id);
create index refresh_tokens_instance_id_user_id_idx on auth.refresh_tokens (instance_id, user_id);
create index refresh_tokens_parent_idx on auth.refresh_tokens (parent);
create index refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index refresh_tokens_updated_at_idx on auth.refresh_tokens (updated_at desc);

create type auth.code_challenge_method as enum ('s256', 'plain');

-- Flow state: one row per PKCE flow (an e-mail link or an OAuth sign-in
-- started with a code challenge), and per OAuth sign-in in progress.
-- `redirect_to` and `provider_code_verifier` are Plinth's additions: where to
-- send the browser after the provider's callback, and the PKCE verifier of
-- Plinth's own leg to the provider.
create table auth.flow_state (
  id uuid primary key,
  user_id uuid,
  auth_code text not null,
  code_challenge_method auth.code_challenge_method,
  code_challenge text,
  provider_type text not null,
  provider_access_token text,
  provider_refresh_token text,
  created_at timestamptz,
  updated_at timestamptz,
  authentication_method text not null,
  auth_code_issued_at timestamptz,
  redirect_to text,
  provider_code_verifier text
);
comment on table auth.flow_state is 'Stores metadata for PKCE and OAuth logins';
create index idx_auth_code on auth.flow_state (auth_code);
create index idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);
create index flow_state_created_at_idx on auth.flow_state (created_at desc);

create type auth.one_time_token_type as enum (
  'confirmation_token',
  'reauthentication_token',
  'recovery_token',
  'email_change_token_new',
  'email_change_token_current',
  'phone_change_token'
);

-- One-time tokens, mirrored from the token columns of auth.users as the
-- platform does (one row per outstanding e-mail link).
create table auth.one_time_tokens (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type auth.one_time_token_type not null,
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp without time zone not null default now(),
  updated_at timestamp without time zone not null default now(),
  unique (user_id, token_type)
);
create index one_time_tokens_token_hash_hash_idx on auth.one_time_tokens using hash (token_hash);
create index one_time_tokens_relates_to_hash_idx on auth.one_time_tokens using hash (relates_to);

-- The dev mailbox: e-mail the service would have sent, when no SMTP server is
-- configured. Shown at the server's mailbox page.
create table auth.mail_messages (
  id uuid primary key default gen_random_uuid(),
  recipient text not null,
  subject text not null,
  body_text text not null,
  created_at timestamptz not null default now()
);
create index mail_messages_recipient_idx on auth.mail_messages (lower(recipient), created_at desc);

alter table auth.users enable row level security;
alter table auth.identities enable row level security;
alter table auth.sessions enable row level security;
alter table auth.refresh_tokens enable row level security;
alter table auth.flow_state enable row level security;
alter table auth.one_time_tokens enable row level security;
alter table auth.mail_messages enable row level security;

-- How each session was authenticated (the access token's `amr` claim).
create table auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);
alter table auth.mfa_amr_claims enable row level security;
