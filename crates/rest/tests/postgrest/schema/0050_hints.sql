-- hints: PostgREST v14's "Perhaps you meant ..." hints of PGRST205 (table
-- not found) and PGRST200 (no relationship), and the Range header on HEAD
-- (tests in hints.rs).

create table hnt_clients (id int primary key, name text not null);
create table hnt_projects (
  id int primary key,
  name text not null,
  client_id int references hnt_clients (id)
);
create table hnt_tasks (
  id int primary key,
  project_id int not null references hnt_projects (id),
  title text not null
);
-- A table with no relationship at all.
create table hnt_client (id int primary key);
create view hnt_report as select p.name, count(t.id) as tasks
  from hnt_projects p left join hnt_tasks t on t.project_id = p.id group by p.name;

insert into hnt_clients values (1, 'Acme'), (2, 'Globex');
insert into hnt_projects values (1, 'Rocket', 1), (2, 'Anvil', 1), (3, 'Hammock', 2);
insert into hnt_tasks values
  (1, 1, 'fuel'), (2, 1, 'launch'), (3, 2, 'drop'), (4, 3, 'hang'), (5, 3, 'nap');

grant select on hnt_clients, hnt_projects, hnt_tasks, hnt_client, hnt_report
  to anon, authenticated, service_role;
