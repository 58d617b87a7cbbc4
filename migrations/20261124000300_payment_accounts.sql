-- A creator's connected payment account is theirs and the server's only.
--
-- The spec lists stripe_account_id among a profile's fields (section 3), and
-- it was a column of `profiles`, whose rows everyone reads (profile pages,
-- creator cards): anyone learned every creator's account id. A column grant
-- cannot hide it (the app and supabase-js read profiles with `select=*`,
-- which a missing column privilege turns into an error), so the account
-- moves to a table of its own, one row per user, which only that user reads
-- and only the server's functions write (connect, update-stripe-account).
-- This departs from the spec's field list on purpose: the payment profile
-- reads `payment_accounts` instead of the profile. Whether the account needs
-- attention (stripe_account_issue) is the owner's business too and moves
-- with it. Policies: policies/0301_payment_accounts.sql.

create table public.payment_accounts (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  -- The creator's connected account at the payment provider.
  stripe_account_id text not null,
  -- Set by the server while the account cannot take charges yet.
  stripe_account_issue boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

comment on table public.payment_accounts is
  'Each creator''s connected payment account: read by its owner, written by the server''s functions only.';

alter table public.payment_accounts enable row level security;
revoke all on public.payment_accounts from anon;
revoke insert, update, delete, truncate on public.payment_accounts from authenticated;

create trigger payment_accounts_touch before update on public.payment_accounts
  for each row execute function public.touch_updated_at();

insert into public.payment_accounts (user_id, stripe_account_id, stripe_account_issue)
select id, stripe_account_id, stripe_account_issue
  from public.profiles
 where stripe_account_id is not null and stripe_account_id <> '';

alter table public.profiles
  drop column stripe_account_id,
  drop column stripe_account_issue;
