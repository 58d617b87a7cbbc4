-- The platform's role model.
--
--   anon           requests without a user (the anon API key, or no key at all)
--   authenticated  requests carrying a signed-in user's access token
--   service_role   server-side code and operators; bypasses row-level security
--   authenticator  the only login role of the request pool: it has no privileges
--                  of its own (noinherit) and may only switch to the three above
--
-- Roles belong to the whole cluster, not to one database, so every statement
-- here tolerates a role that already exists (another database of the same
-- server, or a concurrent migration, may have created it first).

do $$ begin create role anon nologin noinherit;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin create role authenticated nologin noinherit;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin create role service_role nologin noinherit bypassrls;
exception when duplicate_object or unique_violation then null; end $$;

do $$ begin create role authenticator login noinherit;
exception when duplicate_object or unique_violation then null; end $$;

grant anon, authenticated, service_role to authenticator;

-- The API schema: every role may see it; what each may do to its tables is
-- decided by grants below and, row by row, by row-level security.
grant usage on schema public to anon, authenticated, service_role;

-- Tables, views, sequences and functions that later migrations create in
-- `public` are reachable by the API roles, exactly as on the hosted platform.
-- Row-level security policies, not grants, then decide which rows each user
-- sees (every marketplace table enables it).
alter default privileges in schema public
  grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public
  grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public
  grant execute on functions to anon, authenticated, service_role;
