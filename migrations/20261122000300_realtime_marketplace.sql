-- Live updates for the marketplace (issue 8): row changes of these tables are
-- published to realtime subscribers (`postgres_changes`), each subscriber
-- receiving only the rows its own role and claims may read.
--
-- template_upvotes: the upvote count of an open template page follows other
-- visitors' upvotes. Readable by anyone (policies/0008), so guests receive
-- them too; a DELETE carries the old row's primary key (template_id,
-- user_id), which is all a counter needs. realtime.publish_change() reads
-- every column of a composite primary key.
select realtime.enable('public', 'template_upvotes');

-- templates_pending_approval: the admin review list follows submissions.
-- Readable by the creator and by admins only (policies/0005), so that is who
-- receives them.
select realtime.enable('public', 'templates_pending_approval');
