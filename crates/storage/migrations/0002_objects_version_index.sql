-- The orphan sweep asks which versions a row still has.
create index if not exists objects_version_idx on storage.objects (version);
