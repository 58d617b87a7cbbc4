-- Who follows whom is public; a user follows and unfollows as themself only.
create policy "anyone reads follows" on public.followers
  for select to anon, authenticated using (true);
create policy "users follow as themselves" on public.followers
  for insert to authenticated with check (follower_id = auth.uid());
create policy "users unfollow as themselves" on public.followers
  for delete to authenticated using (follower_id = auth.uid());
