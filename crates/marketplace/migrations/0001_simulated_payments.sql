-- The simulated payment provider's own state (used when no Stripe key is
-- configured): payments awaiting a local confirmation, and connected
-- accounts. Private to the function host (owner pool); no API role may
-- reach this schema.
create schema if not exists functions;
revoke all on schema functions from public;

create table functions.simulated_payments (
  id text primary key,
  -- SHA-256 of the client secret handed to the browser.
  client_secret_hash text not null,
  amount bigint not null check (amount > 0),
  currency text not null,
  destination text,
  application_fee bigint,
  receipt_email text,
  metadata jsonb not null default '{}'::jsonb,
  -- requires_payment_method, then succeeded.
  status text not null default 'requires_payment_method'
    check (status in ('requires_payment_method', 'succeeded')),
  created_at timestamptz not null default now(),
  confirmed_at timestamptz
);

create table functions.simulated_accounts (
  id text primary key,
  user_id text not null,
  email text,
  created_at timestamptz not null default now()
);
