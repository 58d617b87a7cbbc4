-- The six categories of the marketplace.
insert into public.categories (name, slug, description) values
  ('Productivity', 'productivity', 'Task managers, planners and systems to get more done with less effort.'),
  ('Health & Fitness', 'health-fitness', 'Workout logs, habit trackers, meal planners and wellness journals.'),
  ('Personal', 'personal', 'Journals, reading lists, travel plans and life dashboards for everyday use.'),
  ('Education', 'education', 'Study planners, course notes, lesson plans and learning trackers.'),
  ('Business', 'business', 'CRMs, project boards, wikis and operating systems for teams and companies.'),
  ('Finance', 'finance', 'Budgets, expense trackers, investment logs and financial planners.')
on conflict (slug) do nothing;
