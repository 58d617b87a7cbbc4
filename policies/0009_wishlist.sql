-- A wishlist is private to its user.
create policy "users read their wishlist" on public.wishlist
  for select to authenticated using (user_id = auth.uid());
create policy "users add to their wishlist" on public.wishlist
  for insert to authenticated with check (user_id = auth.uid());
create policy "users remove from their wishlist" on public.wishlist
  for delete to authenticated using (user_id = auth.uid());
