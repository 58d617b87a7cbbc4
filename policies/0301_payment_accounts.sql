-- A creator's payment account (migrations/20261124000300_payment_accounts.sql):
-- its owner reads it (the payment profile shows it); nobody else does, admins
-- included; only the server's functions (service role) write it.
create policy "users read their own payment account" on public.payment_accounts
  for select to authenticated using (user_id = auth.uid());
