-- Demo data for a marketplace that looks alive on first start:
-- `plinth seed --demo`. Safe to run twice (fixed ids; existing rows are kept).
-- Every demo account signs in with the password `demo-password`.

insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                        raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
select '00000000-0000-0000-0000-000000000000', u.id, 'authenticated', 'authenticated', u.email,
       crypt('demo-password', gen_salt('bf')), now(),
       '{"provider":"email","providers":["email"]}', jsonb_build_object('display_name', u.display_name),
       now() - u.age, now() - u.age
  from (values
    ('d0000000-0000-4000-8000-000000000001'::uuid, 'maya@demo.plinth.dev', 'Maya Chen', interval '90 days'),
    ('d0000000-0000-4000-8000-000000000002'::uuid, 'leo@demo.plinth.dev', 'Leo Martins', interval '70 days'),
    ('d0000000-0000-4000-8000-000000000003'::uuid, 'ava@demo.plinth.dev', 'Ava Okafor', interval '50 days'),
    ('d0000000-0000-4000-8000-000000000004'::uuid, 'sam@demo.plinth.dev', 'Sam Rivera', interval '30 days'),
    ('d0000000-0000-4000-8000-000000000005'::uuid, 'admin@demo.plinth.dev', 'Demo Admin', interval '100 days'),
    ('d0000000-0000-4000-8000-000000000006'::uuid, 'jo@demo.plinth.dev', 'Jo Park', interval '20 days'),
    ('d0000000-0000-4000-8000-000000000007'::uuid, 'kim@demo.plinth.dev', 'Kim Novak', interval '10 days')
  ) as u(id, email, display_name, age)
on conflict (id) do nothing;

insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
select u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', true),
       'email', u.created_at, u.created_at
  from auth.users u
 where u.email like '%@demo.plinth.dev'
on conflict (provider_id, provider) do nothing;

-- The sign-up trigger made the profiles; give them usernames and bios.
update public.profiles p set
  username = v.username, bio = v.bio, social_links = v.links
  from (values
    ('d0000000-0000-4000-8000-000000000001'::uuid, 'mayachen', 'Systems designer. I build calm workspaces for busy people.', '{"website":"https://example.com/maya","twitter":"https://example.com/@maya"}'::jsonb),
    ('d0000000-0000-4000-8000-000000000002'::uuid, 'leo-builds', 'Founder templates: CRMs, roadmaps and team wikis.', '{"github":"https://example.com/leo"}'::jsonb),
    ('d0000000-0000-4000-8000-000000000003'::uuid, 'ava_studies', 'Teacher by day, template maker by night.', '{"instagram":"https://example.com/ava"}'::jsonb),
    ('d0000000-0000-4000-8000-000000000004'::uuid, 'samfit', 'Coach. Habits, workouts and meal plans that stick.', '{}'::jsonb),
    ('d0000000-0000-4000-8000-000000000005'::uuid, 'demo-admin', 'Reviews submissions.', '{}'::jsonb),
    ('d0000000-0000-4000-8000-000000000006'::uuid, 'jopark', null, '{}'::jsonb),
    ('d0000000-0000-4000-8000-000000000007'::uuid, 'kimnovak', null, '{}'::jsonb)
  ) as v(id, username, bio, links)
 where p.id = v.id and p.username is null;

insert into public.admins (user_id) values ('d0000000-0000-4000-8000-000000000005')
on conflict (user_id) do nothing;

-- Published templates in every category.
insert into public.templates (id, user_id, title, description, about_template, price, price_in_cents,
  category_id, tags, preview_image_url, preview_images, template_url, features_included, requirements,
  downloads_count, total_views, author, created_at, updated_at)
select t.id, t.user_id, t.title, t.description,
       '## ' || t.title || E'\n\n' || t.description ||
       E'\n\n**What you get**\n\n- A ready-to-duplicate workspace\n- Setup instructions\n- Example content you can clear in one click\n\n> Built and used daily by the author.',
       t.price, round(t.price * 100)::int,
       (select c.id from public.categories c where c.slug = t.category), t.tags,
       -- The previews are SVG files of the app (app/public/demo); social sites
       -- do not render SVG, so a shared link's card shows the PNG beside each
       -- one (app/public/demo/*.png, made by app/scripts/share-images.mjs).
       '/demo/' || t.image || '.svg', array['/demo/' || t.image || '.svg'],
       -- What a download delivers (app/public/demo/files); the links of
       -- paid templates are kept out of their public rows by a trigger.
       '/demo/files/' || t.image || '.md',
       array['Template file', 'Setup instructions', 'Lifetime updates'],
       array['A free workspace-app account', 'Basic knowledge of the workspace app'],
       t.downloads, t.views, t.author, now() - t.age, now() - t.age
  from (values
    ('e0000000-0000-4000-8000-000000000001'::uuid, 'd0000000-0000-4000-8000-000000000001'::uuid, 'Calm Weekly Planner', 'Plan the week in ten minutes: priorities, time blocks and a Sunday review.', 0.00, 'productivity', array['planner','weekly','focus'], 'planner', 1240, 5400, 'Maya Chen', interval '60 days'),
    ('e0000000-0000-4000-8000-000000000002'::uuid, 'd0000000-0000-4000-8000-000000000001'::uuid, 'Second Brain Lite', 'Capture, organise and find notes with a simple PARA structure.', 12.00, 'productivity', array['notes','para','knowledge'], 'brain', 310, 2900, 'Maya Chen', interval '40 days'),
    ('e0000000-0000-4000-8000-000000000003'::uuid, 'd0000000-0000-4000-8000-000000000002'::uuid, 'Startup CRM', 'Track leads, deals and follow-ups without a heavy sales tool.', 19.00, 'business', array['crm','sales'], 'crm', 420, 3100, 'Leo Martins', interval '35 days'),
    ('e0000000-0000-4000-8000-000000000004'::uuid, 'd0000000-0000-4000-8000-000000000002'::uuid, 'Team Wiki', 'One home for processes, onboarding and decisions.', 0.00, 'business', array['wiki','team','docs'], 'wiki', 860, 4100, 'Leo Martins', interval '25 days'),
    ('e0000000-0000-4000-8000-000000000005'::uuid, 'd0000000-0000-4000-8000-000000000003'::uuid, 'Semester Study Hub', 'Courses, assignments, exams and grades in one dashboard.', 0.00, 'education', array['study','students'], 'study', 990, 3800, 'Ava Okafor', interval '30 days'),
    ('e0000000-0000-4000-8000-000000000006'::uuid, 'd0000000-0000-4000-8000-000000000003'::uuid, 'Lesson Planner Pro', 'Plan units and lessons, link resources and track progress.', 9.50, 'education', array['teachers','lessons'], 'lessons', 150, 1200, 'Ava Okafor', interval '12 days'),
    ('e0000000-0000-4000-8000-000000000007'::uuid, 'd0000000-0000-4000-8000-000000000004'::uuid, 'Habit Tracker', 'Build streaks with daily check-ins and monthly reviews.', 0.00, 'health-fitness', array['habits','daily'], 'habits', 1530, 6200, 'Sam Rivera', interval '20 days'),
    ('e0000000-0000-4000-8000-000000000008'::uuid, 'd0000000-0000-4000-8000-000000000004'::uuid, 'Workout Log', 'Programs, sets and personal records with progress charts.', 7.00, 'health-fitness', array['fitness','gym'], 'workout', 280, 1900, 'Sam Rivera', interval '8 days'),
    ('e0000000-0000-4000-8000-000000000009'::uuid, 'd0000000-0000-4000-8000-000000000001'::uuid, 'Budget Planner', 'Monthly budget, expenses by category and savings goals.', 5.00, 'finance', array['budget','money'], 'budget', 640, 3300, 'Maya Chen', interval '15 days'),
    ('e0000000-0000-4000-8000-000000000010'::uuid, 'd0000000-0000-4000-8000-000000000003'::uuid, 'Reading Journal', 'Track books, quotes and reviews; see your year in reading.', 0.00, 'personal', array['books','journal'], 'reading', 720, 2600, 'Ava Okafor', interval '5 days'),
    ('e0000000-0000-4000-8000-000000000011'::uuid, 'd0000000-0000-4000-8000-000000000004'::uuid, 'Travel Planner', 'Itineraries, packing lists and budgets for every trip.', 4.00, 'personal', array['travel'], 'travel', 95, 800, 'Sam Rivera', interval '2 days')
  ) as t(id, user_id, title, description, price, category, tags, image, downloads, views, author, age)
on conflict (id) do nothing;

-- Drafts, pending submissions and a rejection.
insert into public.templates_draft (id, creator_id, title, description, price, price_in_cents, category_id, tags, last_edited_at)
values
  ('f0000000-0000-4000-8000-000000000001', 'd0000000-0000-4000-8000-000000000001', 'OKR Tracker', 'Objectives and key results for small teams.', 0, 0, (select id from public.categories where slug = 'business'), array['okr'], now() - interval '1 day'),
  ('f0000000-0000-4000-8000-000000000002', 'd0000000-0000-4000-8000-000000000002', 'Investor Updates', null, 15, 1500, null, '{}', now() - interval '3 days')
on conflict (id) do nothing;

insert into public.templates_pending_approval (id, creator_id, title, description, about_template, price, price_in_cents, category_id, tags, preview_image_url, template_url, status, created_at)
values
  ('f1000000-0000-4000-8000-000000000001', 'd0000000-0000-4000-8000-000000000003', 'Exam Countdown', 'Countdowns, revision slots and practice tests before exams.', 'A focused revision planner.', 0, 0, (select id from public.categories where slug = 'education'), array['exams','revision'], '/demo/exams.svg', '/demo/files/exams.md', 'Pending Approval', now() - interval '2 days'),
  ('f1000000-0000-4000-8000-000000000002', 'd0000000-0000-4000-8000-000000000004', 'Meal Prep Planner', 'Weekly menus, shopping lists and macros.', 'Plan meals for the week in one place.', 6, 600, (select id from public.categories where slug = 'health-fitness'), array['meals','nutrition'], '/demo/meal-prep.svg', '/demo/files/meal-prep.md', 'Pending Approval', now() - interval '9 days')
on conflict (id) do nothing;
-- Each has its own preview (they once showed Semester Study Hub's and Habit Tracker's).
update public.templates_pending_approval set preview_image_url = '/demo/exams.svg'
 where id = 'f1000000-0000-4000-8000-000000000001' and preview_image_url = '/demo/study.svg';
update public.templates_pending_approval set preview_image_url = '/demo/meal-prep.svg'
 where id = 'f1000000-0000-4000-8000-000000000002' and preview_image_url = '/demo/habits.svg';
-- Approval needs something to deliver (migrations/20261128000100): each
-- submission links its demo file, also on a database seeded before.
update public.templates_pending_approval set template_url = '/demo/files/exams.md'
 where id = 'f1000000-0000-4000-8000-000000000001' and template_url is null and template_file_url is null;
update public.templates_pending_approval set template_url = '/demo/files/meal-prep.md'
 where id = 'f1000000-0000-4000-8000-000000000002' and template_url is null and template_file_url is null;

insert into public.templates_rejected (id, creator_id, title, description, price, price_in_cents, category_id, tags, rejection_comment, rejection_date)
values
  ('f2000000-0000-4000-8000-000000000001', 'd0000000-0000-4000-8000-000000000002', 'Quick Invoice', 'Invoices in a table.', 3, 300, (select id from public.categories where slug = 'finance'), array['invoice'], 'The preview images are missing and the description is too short. Please add both and resubmit.', now() - interval '4 days')
on conflict (id) do nothing;

-- Upvotes spread over the last two weeks (weekly growth), ratings, follows.
insert into public.template_upvotes (template_id, user_id, created_at)
select t.id, u.id, now() - ((abs(hashtext(t.id::text || u.id::text)) % 14) || ' days')::interval
  from public.templates t
  cross join (select id from public.profiles where id::text like 'd0000000-%') u
 where t.id::text like 'e0000000-%' and t.user_id <> u.id
   and abs(hashtext(t.id::text || u.id::text)) % 3 <> 0
on conflict do nothing;

-- Ratings, about half with a review in words (shown on the template page,
-- newest first), each at some moment of the template's life.
insert into public.template_ratings (template_id, user_id, rating, review_text, created_at, updated_at)
select r.template_id, r.user_id, r.rating,
       case when r.h % 2 = 0 then (array[
         'Does the job, though I had to rework a couple of pages.',
         'Useful, but a short video walkthrough would help.',
         'A good idea; a little much for what I needed.',
         'Clear, well organised and easy to adapt.',
         'Solid structure. I changed a few views to fit my week.',
         'A great start, and the setup notes are short and to the point.',
         'Exactly what I needed: I was set up in ten minutes.',
         'Beautifully organised. It has saved me hours already.',
         'The best template of its kind I have tried.'])[(r.rating - 3) * 3 + 1 + (r.h / 2) % 3] end,
       r.at, r.at
  from (select t.id as template_id, u.id as user_id,
               3 + abs(hashtext(u.id::text || t.id::text)) % 3 as rating,
               abs(hashtext(t.id::text || u.id::text)) as h,
               now() - make_interval(mins => abs(hashtext(u.id::text || t.id::text || 'at'))
                                              % greatest(60, (extract(epoch from now() - t.created_at) / 60)::int)) as at
          from public.templates t
          cross join (select id from public.profiles where id::text like 'd0000000-%') u
         where t.id::text like 'e0000000-%' and t.user_id <> u.id
           and abs(hashtext(u.id::text || t.id::text)) % 2 = 0) r
on conflict do nothing;

insert into public.followers (follower_id, following_id, created_at)
select a.id, b.id, now() - ((abs(hashtext(a.id::text || b.id::text)) % 30) || ' days')::interval
  from public.profiles a cross join public.profiles b
 where a.id::text like 'd0000000-%' and b.id::text like 'd0000000-%' and a.id <> b.id
   and b.id in ('d0000000-0000-4000-8000-000000000001', 'd0000000-0000-4000-8000-000000000002',
                'd0000000-0000-4000-8000-000000000003', 'd0000000-0000-4000-8000-000000000004')
on conflict do nothing;
