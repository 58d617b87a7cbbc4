-- The marketplace's storage buckets (policies: policies/0100_storage_objects.sql).
--
--   avatars    profile pictures at {user id}/{timestamp}-{random}.{ext};
--              public, images only, at most 5 MB (the profile screens' limit)
--   templates  template files and preview images at {user id}/previews/...,
--              {user id}/templates/... (drafts) and {user id}/files/...;
--              public, the platform's global size limit applies

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values
  ('avatars', 'avatars', true, 5 * 1024 * 1024, array['image/*']),
  ('templates', 'templates', true, null, null)
on conflict (id) do nothing;
