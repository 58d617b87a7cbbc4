-- rpc: cases of PostgREST v14's behaviour for functions (tests in rpc.rs and
-- sdk-ts/tests/rest-postgrest-rpc.test.ts).

-- One unnamed parameter: the raw body, by its Content-Type.
create function rpc_echo_json(json) returns json language sql as $$ select $1 $$;
create function rpc_echo_text(text) returns text language sql as $$ select $1 $$;
create function rpc_echo_xml(xml) returns text language sql as $$ select $1::text $$;
create function rpc_bytea_len(bytea) returns int language sql as $$ select length($1) $$;
create function rpc_bytea_hex(bytea) returns text language sql as $$ select encode($1, 'hex') $$;
-- A named json parameter is not a fallback.
create function rpc_named_json(data json) returns json language sql as $$ select data $$;
-- An unnamed int parameter cannot be called over HTTP (not in the cache).
create function rpc_unnamed_int(int) returns int language sql as $$ select $1 $$;

-- Overloads resolved by the body's type, and by named parameters.
create function rpc_poly() returns text language sql as $$ select 'none' $$;
create function rpc_poly(json) returns text language sql as $$ select 'json:' || $1::text $$;
create function rpc_poly(text) returns text language sql as $$ select 'text:' || $1 $$;
create function rpc_poly(bytea) returns text language sql as $$ select 'bytea:' || length($1) $$;
create function rpc_poly(x int, y int) returns int language sql as $$ select x + y $$;

-- Two fallbacks: ambiguous.
create function rpc_json_jsonb(json) returns text language sql as $$ select 'json' $$;
create function rpc_json_jsonb(jsonb) returns text language sql as $$ select 'jsonb' $$;

-- Overloads that differ only in defaulted parameters.
create function rpc_dflt(a int, b int default 1) returns int language sql as $$ select a + b $$;
create function rpc_dflt(a int, c text default 'x') returns text language sql as $$ select a || c $$;
create function rpc_dflt(a int, b int, c text) returns text language sql as $$ select a + b || c $$;

-- Names for the hints.
create function rpc_get_items(lim int) returns setof int language sql as $$ select generate_series(1, lim) $$;
create function rpc_add(a int, b int) returns int language sql as $$ select a + b $$;

-- Counts.
create table rpc_items (id int primary key, name text not null);
insert into rpc_items values (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
create function rpc_items_upto(n int) returns setof rpc_items language sql stable as $$
  select * from rpc_items where id <= n order by id
$$;
create function rpc_item(i int) returns rpc_items language sql stable as $$
  select * from rpc_items where id = i
$$;
create function rpc_nothing() returns void language sql as $$ select $$;

-- Media type handlers (docs "Media Type Handlers"): functions returning a
-- domain named like a media type answer that type with the raw value.
create domain "text/plain" as text;
create domain "application/octet-stream" as bytea;
create domain "application/vnd.rpc.bin" as bytea;
create function rpc_greet(name text) returns "text/plain" language sql as $$
  select 'hello, ' || name || E'\n"quoted"'
$$;
create function rpc_octets() returns "application/octet-stream" language sql as $$
  select '\x00ff0a80'::bytea
$$;
create function rpc_vendor() returns "application/vnd.rpc.bin" language sql as $$
  select '\x0102'::bytea
$$;
