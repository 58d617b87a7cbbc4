-- Who may do what with the files of the marketplace's buckets
-- (buckets: migrations/20261122000100_storage_buckets.sql).
--
-- Anyone may read avatars and template files. A signed-in user may add,
-- replace and delete files only under a first folder named after their own
-- user id: {their uid}/... . Upserts (replacing an avatar) need the select,
-- insert and update policies together.

create policy "avatars and templates: anyone reads"
  on storage.objects for select
  to anon, authenticated
  using (bucket_id in ('avatars', 'templates'));

create policy "avatars and templates: users add files to their own folder"
  on storage.objects for insert
  to authenticated
  with check (
    bucket_id in ('avatars', 'templates')
    and (storage.foldername(name))[1] = auth.uid()::text
  );

create policy "avatars and templates: users replace files in their own folder"
  on storage.objects for update
  to authenticated
  using (
    bucket_id in ('avatars', 'templates')
    and (storage.foldername(name))[1] = auth.uid()::text
  )
  with check (
    bucket_id in ('avatars', 'templates')
    and (storage.foldername(name))[1] = auth.uid()::text
  );

create policy "avatars and templates: users delete files in their own folder"
  on storage.objects for delete
  to authenticated
  using (
    bucket_id in ('avatars', 'templates')
    and (storage.foldername(name))[1] = auth.uid()::text
  );
