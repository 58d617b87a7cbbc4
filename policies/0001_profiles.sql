-- Profiles are public; a user edits only their own (the columns granted in
-- the marketplace migration). Rows are made by the sign-up trigger.
create policy "anyone reads profiles" on public.profiles
  for select to anon, authenticated using (true);
create policy "users update their own profile" on public.profiles
  for update to authenticated using (id = auth.uid()) with check (id = auth.uid());
