-- embeds: cases of PostgREST v14's resource embedding (tests in embeds.rs
-- and sdk-ts/tests/rest-postgrest-embeds.test.ts): one-to-one keys,
-- disambiguation (two keys to one table, self-reference, views over
-- tables), aggregates inside embeds and spreads.

create table emb_users (
  id int primary key,
  name text not null
);

-- One-to-one by a unique foreign key.
create table emb_profiles (
  id int primary key,
  user_id int not null unique references emb_users (id),
  bio text
);

-- One-to-one by a foreign key that is the primary key.
create table emb_passports (
  user_id int primary key references emb_users (id),
  number text not null
);

create table emb_addresses (
  id int primary key,
  city text not null
);

-- Two keys to the same table: ambiguous without a hint.
create table emb_orders (
  id int primary key,
  user_id int references emb_users (id),
  billing_address_id int not null constraint emb_orders_billing_fkey references emb_addresses (id),
  shipping_address_id int not null constraint emb_orders_shipping_fkey references emb_addresses (id),
  amount numeric(10, 2) not null,
  placed_on date not null
);

create table emb_messages (
  id int primary key,
  user_id int not null references emb_users (id),
  body text not null
);

-- A self-reference.
create table emb_items (
  id int primary key,
  name text not null,
  parent_id int references emb_items (id)
);

-- Views over the tables: they carry the keys, under their own column names.
create view emb_orders_view as
  select id as order_id, user_id as buyer_id, amount from emb_orders;
create view emb_users_view as
  select id, name as full_name from emb_users;
-- A view of a view.
create view emb_buyers_view as
  select id as buyer, full_name from emb_users_view;

insert into emb_users values (1, 'Ann'), (2, 'Bob'), (3, 'Cid');
insert into emb_profiles values (1, 1, 'Ann writes'), (2, 2, 'Bob reads');
insert into emb_passports values (1, 'P-001');
insert into emb_addresses values (1, 'Oslo'), (2, 'Rome'), (3, 'Lima');
insert into emb_orders values
  (1, 1, 1, 2, 10.50, '2024-01-01'),
  (2, 1, 1, 3, 20.25, '2024-01-02'),
  (3, 2, 2, 2, 5.00, '2024-01-01'),
  (4, null, 3, 1, 7.25, '2024-01-02');
insert into emb_messages values (1, 1, 'hi'), (2, 1, 'again'), (3, 2, 'hello');
insert into emb_items values (1, 'root', null), (2, 'a', 1), (3, 'b', 1), (4, 'a1', 2);

grant select on emb_users, emb_profiles, emb_passports, emb_addresses, emb_orders,
  emb_messages, emb_items, emb_orders_view, emb_users_view, emb_buyers_view
  to anon, authenticated, service_role;
