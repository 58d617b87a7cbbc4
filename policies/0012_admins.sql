-- A user can see whether they themself are an admin, and nothing more.
create policy "users read their own admin row" on public.admins
  for select to authenticated using (user_id = auth.uid());
