-- Nobody upvotes or rates their own template.
--
-- Upvotes and ratings rank templates ('Most Popular' needs 2 upvotes,
-- trending orders by upvotes, a creator's statistics and rank add them up),
-- and the spec offers the social actions to the people a thing is not
-- theirs: a profile shows Follow to non-owners only (section 6), and
-- following oneself is refused (followers_not_self). A creator's heart or
-- stars on their own template would rank it by its author's say, so the
-- policies refuse them (policies/0302_template_upvotes.sql,
-- policies/0303_template_ratings.sql) and the votes cast before are removed
-- here (a template's average follows its ratings through their trigger).

delete from public.template_upvotes u
 using public.templates t
 where t.id = u.template_id and t.user_id = u.user_id;

delete from public.template_ratings r
 using public.templates t
 where t.id = r.template_id and t.user_id = r.user_id;
