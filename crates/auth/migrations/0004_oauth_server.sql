-- The OAuth 2.1 server (a Plinth project as an OAuth provider for other
-- apps), with the platform's table, type and column names: registered
-- clients, pending and decided authorization requests, users' consents, and
-- the sessions an OAuth client holds. Plus the Sign-In-with-Ethereum/Solana
-- messages already used, so that a signed message signs in once.

create type auth.oauth_registration_type as enum ('dynamic', 'manual');
create type auth.oauth_client_type as enum ('public', 'confidential');
create type auth.oauth_authorization_status as enum ('pending', 'approved', 'denied', 'expired');
create type auth.oauth_response_type as enum ('code');

-- Registered clients; `id` is the public client_id. Only a SHA-256 of a
-- confidential client's secret is kept. Redirect URIs and grant types are
-- comma-separated, as the platform stores them.
create table auth.oauth_clients (
  id uuid primary key,
  client_secret_hash text,
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null,
  grant_types text not null,
  client_name text,
  client_uri text,
  logo_uri text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')),
  constraint oauth_clients_client_name_length check (char_length(client_name) <= 1024),
  constraint oauth_clients_client_uri_length check (char_length(client_uri) <= 2048),
  constraint oauth_clients_logo_uri_length check (char_length(logo_uri) <= 2048)
);
create index oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);

-- One authorization request: created by GET /oauth/authorize, bound to the
-- signed-in user who opens it, approved (with a one-time code) or denied.
create table auth.oauth_authorizations (
  id uuid primary key,
  authorization_id text not null unique,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid references auth.users (id) on delete cascade,
  redirect_uri text not null,
  scope text not null,
  state text,
  resource text,
  code_challenge text,
  code_challenge_method auth.code_challenge_method,
  response_type auth.oauth_response_type not null default 'code',
  status auth.oauth_authorization_status not null default 'pending',
  authorization_code text unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  approved_at timestamptz,
  nonce text,
  constraint oauth_authorizations_redirect_uri_length check (char_length(redirect_uri) <= 2048),
  constraint oauth_authorizations_scope_length check (char_length(scope) <= 4096),
  constraint oauth_authorizations_state_length check (char_length(state) <= 4096),
  constraint oauth_authorizations_resource_length check (char_length(resource) <= 2048),
  constraint oauth_authorizations_code_challenge_length check (char_length(code_challenge) <= 128),
  constraint oauth_authorizations_authorization_code_length check (char_length(authorization_code) <= 255),
  constraint oauth_authorizations_nonce_length check (char_length(nonce) <= 255),
  constraint oauth_authorizations_expires_at_future check (expires_at > created_at)
);
create index oauth_auth_pending_exp_idx on auth.oauth_authorizations (expires_at) where status = 'pending';

-- What a user granted a client (space-separated scopes); a later request
-- within them is approved without asking again.
create table auth.oauth_consents (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null,
  granted_at timestamptz not null default now(),
  revoked_at timestamptz,
  constraint oauth_consents_user_client_unique unique (user_id, client_id),
  constraint oauth_consents_scopes_length check (char_length(scopes) <= 2048),
  constraint oauth_consents_scopes_not_empty check (char_length(trim(scopes)) > 0),
  constraint oauth_consents_revoked_after_granted check (revoked_at is null or revoked_at >= granted_at)
);
create index oauth_consents_user_order_idx on auth.oauth_consents (user_id, granted_at desc);

-- A session issued to an OAuth client: its refresh token is only good with
-- that client's credentials, and its access tokens carry client_id / scope.
alter table auth.sessions add column oauth_client_id uuid
  references auth.oauth_clients (id) on delete cascade;
alter table auth.sessions add column scopes text
  constraint sessions_scopes_length check (char_length(scopes) <= 4096);
create index sessions_oauth_client_id_idx on auth.sessions (oauth_client_id);

-- Sign-In with Ethereum / Solana: each signed message (by its SHA-256)
-- signs in once; rows go after the message could no longer be accepted.
create table auth.web3_used_messages (
  message_hash text primary key,
  expires_at timestamptz not null
);
create index web3_used_messages_expires_at_idx on auth.web3_used_messages (expires_at);

alter table auth.oauth_clients enable row level security;
alter table auth.oauth_authorizations enable row level security;
alter table auth.oauth_consents enable row level security;
alter table auth.web3_used_messages enable row level security;
