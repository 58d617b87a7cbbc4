-- Multi-factor authentication: the platform's factor and challenge tables.
-- A factor is a second way a user proves who they are (an authenticator
-- app's TOTP secret, a phone that receives codes, a WebAuthn credential);
-- a challenge is one attempt at proving it. `auth.mfa_amr_claims` (in 0001)
-- records which methods a session passed; a session with a factor's method
-- is aal2.

create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
create type auth.factor_status as enum ('unverified', 'verified');

create table auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- The TOTP secret (base32).
  secret text,
  phone text,
  last_challenged_at timestamptz unique,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  last_webauthn_challenge_data jsonb,
  -- Plinth: the last TOTP time step accepted for this factor, so that a code
  -- is accepted once only (a replayed code is refused).
  last_totp_step bigint
);
comment on table auth.mfa_factors is 'auth: stores metadata about factors';
create unique index mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id)
  where trim(friendly_name) <> '';
create index factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);
create index mfa_factors_user_id_idx on auth.mfa_factors (user_id);
create unique index unique_phone_factor_per_user on auth.mfa_factors (user_id, phone);
alter table auth.mfa_factors enable row level security;

create table auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  -- A phone challenge's code, as a keyed hash (never the code itself).
  otp_code text,
  web_authn_session_data jsonb
);
comment on table auth.mfa_challenges is 'auth: stores metadata about challenge requests made';
create index mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);
alter table auth.mfa_challenges enable row level security;
