-- The `extensions` schema reaches the API roles, as on the hosted platform,
-- whose migrations grant usage on it to anon, authenticated and service_role
-- and leave the functions of uuid-ossp (and pgcrypto) there as PostgreSQL
-- makes an extension's functions: executable by everyone. So a table whose id
-- defaults to `uuid_generate_v4()` (`extensions.uuid_generate_v4()`, or the
-- `public.uuid_generate_v4()` wrapper that calls it) takes inserts through
-- /rest/v1 as anon and authenticated.
--
-- Usage on the schema makes none of its functions an API endpoint: /rest/v1
-- serves the exposed schemas only (`public`). It lets the API roles run the
-- project's SQL that calls them: defaults, policies, functions.
--
-- The wrappers in `public` (crates/auth/migrations/0001_auth_schema.sql, for
-- seeds that call crypt(), gen_salt() and uuid_generate_v4() unqualified)
-- were taken from the API roles because they were meant for the owner's SQL,
-- for no other cause. A table default resolves to the wrapper, so
-- uuid_generate_v4() is the API roles' again: a random UUID, nothing more
-- (also at /rest/v1/rpc/uuid_generate_v4, as any function of public).
-- crypt() and gen_salt() stay the owner's: a bcrypt of any cost on request is
-- work an anonymous caller must not be able to ask for.
--
-- The order of the sets: on a new database this one runs before the auth set,
-- which makes the wrapper and then revokes it from anon and authenticated as
-- its owner. A privilege is revoked only by the role that granted it, so the
-- grant is made by service_role (given the grant option here), whose grants
-- that revoke leaves alone; on a database made before this file, the auth set
-- ran first and the grant follows it. The extension and the wrapper are made
-- here when missing, exactly as the auth set makes them.

create schema if not exists extensions;
create extension if not exists "uuid-ossp" with schema extensions;

grant usage on schema extensions to anon, authenticated, service_role;

do $$ begin
  if to_regprocedure('public.uuid_generate_v4()') is null then
    create function public.uuid_generate_v4() returns uuid
    language sql volatile parallel safe
    as $body$ select extensions.uuid_generate_v4() $body$;
  end if;
end $$;

grant execute on function public.uuid_generate_v4() to service_role with grant option;

do $$ begin
  set local role service_role;
  grant execute on function public.uuid_generate_v4() to anon, authenticated;
  reset role;
exception when insufficient_privilege then
  -- A login that may not act as service_role (an external database's): the
  -- owner grants it, which holds on a database the auth set already made.
  grant execute on function public.uuid_generate_v4() to anon, authenticated;
  raise warning 'uuid_generate_v4() was granted to anon and authenticated by its owner (%)', sqlerrm
    using hint = 'on a new database the auth migrations revoke it again: run '
                 '"grant execute on function public.uuid_generate_v4() to anon, authenticated" after the first start';
end $$;
