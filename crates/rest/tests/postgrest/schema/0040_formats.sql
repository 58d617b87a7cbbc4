-- formats: cases of PostgREST v14's representations: CSV out and in,
-- GeoJSON (PostGIS), and execution plans. Names start with `fmt_`.

-- Values that CSV must quote: commas, quotes, newlines, backslashes,
-- spaces, parentheses, the empty string; nulls; arrays, json, booleans.
create table fmt_items (
  id int primary key,
  name text,
  note text,
  price numeric(6, 2),
  active boolean,
  tags text[],
  meta jsonb
);
insert into fmt_items values
  (1, 'plain', 'a, b', 1.50, true, '{x,y}', '{"k": 1}'),
  (2, 'say "hi"', E'two\nlines', null, false, '{}', null),
  (3, 'back\slash', '', 0, null, null, '"s"'),
  (4, 'two words', '(paren)', 10.00, true, '{"a b"}', '[1, 2]');

-- CSV bodies go in here (strings become the column's type).
create table fmt_notes (
  id int primary key,
  body text,
  n int
);

grant select, insert, update, delete on fmt_items, fmt_notes to anon, authenticated, service_role;

-- A table with a PostGIS geometry column, only where PostGIS can be
-- installed (Debian's postgresql-15-postgis-3; scripts/test installs it).
do $do$
begin
  if exists (select 1 from pg_available_extensions where name = 'postgis') then
    create schema if not exists extensions;
    grant usage on schema extensions to anon, authenticated, service_role;
    create extension if not exists postgis with schema extensions;
    create table fmt_shops (
      id int primary key,
      address text,
      shop_geom extensions.geometry(point, 4326)
    );
    insert into fmt_shops values
      (1, '1369 Cambridge St', 'SRID=4326;POINT(-71.10044 42.373695)'),
      (2, '757 Massachusetts Ave', 'SRID=4326;POINT(-71.10543 42.366432)');
    grant select, insert, update, delete on fmt_shops to anon, authenticated, service_role;
  end if;
end
$do$;

-- A function for requests that need one that is not about shapes.
create function fmt_count() returns bigint language sql stable as $$ select count(*) from fmt_items $$;
grant execute on function fmt_count() to anon, authenticated, service_role;

-- A function returning rows with a geometry, where PostGIS is installed.
do $do$
begin
  if exists (select 1 from pg_extension where extname = 'postgis') then
    create function fmt_all_shops() returns setof fmt_shops language sql stable as
      'select * from fmt_shops';
    grant execute on function fmt_all_shops() to anon, authenticated, service_role;
  end if;
end
$do$;
