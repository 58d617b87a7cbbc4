-- Passkeys: the platform's tables of WebAuthn credentials a user signs in
-- with (no password, no e-mail: the authenticator finds its credential and
-- names the user) and of the WebAuthn ceremonies under way.

create table auth.webauthn_credentials (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id bytea not null,
  -- The COSE_Key the authenticator registered.
  public_key bytea not null,
  -- The attestation statement's format (`none`, `packed`, ...).
  attestation_type text not null default '',
  aaguid uuid,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz,
  -- Plinth: the authenticator verified its user (PIN, biometrics) at
  -- registration; then every sign-in with this passkey must verify too.
  user_verified boolean not null default false
);
comment on table auth.webauthn_credentials is 'auth: stores passkey credential data';
create unique index webauthn_credentials_credential_id_key on auth.webauthn_credentials (credential_id);
create index webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id);
alter table auth.webauthn_credentials enable row level security;

-- A ceremony's state between its options and their answer; used once.
-- Authentication (passkey sign-in) names no user: the answer does.
create table auth.webauthn_challenges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null check (challenge_type in ('signup', 'registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
comment on table auth.webauthn_challenges is 'auth: stores WebAuthn challenges in progress';
create index webauthn_challenges_user_id_idx on auth.webauthn_challenges (user_id);
create index webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);
alter table auth.webauthn_challenges enable row level security;
