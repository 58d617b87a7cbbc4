// Security of realtime through the unmodified supabase-js (item 5 of the
// security review): a DELETE cannot be checked against row-level security,
// so it reaches only roles that may select the table, carries only the
// primary key, and filters on other columns match nothing; an UPDATE's old
// record is the key alone.
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, type RealtimeChannel, type RealtimePostgresChangesPayload, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import { anonClient, anonKey, jwtSecret, plinthUrl, sql, uniqueEmail } from '../support/context'
import { waitFor } from '../support/realtime'

type Change = RealtimePostgresChangesPayload<Record<string, unknown>>

const clients: SupabaseClient[] = []

afterAll(async () => {
  for (const client of clients) await client.removeAllChannels()
})

beforeAll(async () => {
  // Made for these tests: `sec_rt_sealed` no API role may select (no RLS:
  // before the fix its whole old row went out), `sec_rt_open` anyone reads.
  await sql(`
    create table if not exists public.sec_rt_sealed (id int primary key, secret text not null);
    revoke all on public.sec_rt_sealed from anon, authenticated;
    create table if not exists public.sec_rt_open (id int primary key, title text not null, note text not null);
    select realtime.enable('public', 'sec_rt_sealed');
    select realtime.enable('public', 'sec_rt_open');
  `)
})

/** An HS256 access token for `sub`, signed with the project's secret. */
function accessToken(sub: string): string {
  const now = Math.floor(Date.now() / 1000)
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const claims = { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 }
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${body}.${createHmac('sha256', jwtSecret).update(body).digest('base64url')}`
}

/** A user (the profile trigger makes the profile) and a client signed in as it. */
async function user(tag: string): Promise<{ id: string; client: SupabaseClient }> {
  const rows = await sql<{ id: string }>(
    `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
             jsonb_build_object('display_name', $2::text), now(), now())
     returning id`,
    [uniqueEmail(tag), tag],
  )
  // The user's access token, as a signed-in app hands it to realtime.
  const token = accessToken(rows[0].id)
  const client = createClient(plinthUrl, anonKey, {
    accessToken: async () => token,
    realtime: { transport: ws as unknown as typeof WebSocket },
  })
  clients.push(client)
  return { id: rows[0].id, client }
}

function guest(): SupabaseClient {
  const client = anonClient()
  clients.push(client)
  return client
}

async function pending(creator: string, title: string): Promise<string> {
  const rows = await sql<{ id: string }>(
    `insert into public.templates_pending_approval (creator_id, title, description, category_id)
     values ($1, $2, 'A submission', (select id from public.categories order by slug limit 1)) returning id`,
    [creator, title],
  )
  return rows[0].id
}

async function template(owner: string): Promise<string> {
  const rows = await sql<{ id: string }>(
    `insert into public.templates (user_id, title, description, category_id, tags)
     values ($1, 'Live template', 'A template', (select id from public.categories order by slug limit 1), array['test'])
     returning id`,
    [owner],
  )
  return rows[0].id
}

/** Subscribes `channel` and collects what reaches it. */
function listen(
  client: SupabaseClient,
  name: string,
  bindings: { event: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; table?: string; filter?: string }[],
): { seen: Change[]; ready: Promise<void> } {
  const seen: Change[] = []
  let channel: RealtimeChannel = client.channel(`${name}-${Date.now()}`)
  for (const binding of bindings) {
    channel = channel.on('postgres_changes', { schema: 'public', ...binding } as never, (p: Change) => void seen.push(p))
  }
  const ready = new Promise<void>((ok, fail) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') ok()
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') fail(error ?? new Error(status))
    })
  })
  return { seen, ready }
}

const key = () => Math.floor(Math.random() * 1_000_000_000)

describe('item 5: realtime deletes and old records', () => {
  it('a schema-wide binding of anon gets no deletes of tables anon may not select', async () => {
    const creator = await user('rt-creator')
    const submission = await pending(creator.id, 'Unannounced')
    const [sealed, open] = [key(), key()]
    await sql('insert into public.sec_rt_sealed values ($1, $2)', [sealed, 'sealed-secret'])
    const anon = listen(guest(), 'everything', [{ event: '*' }])
    await anon.ready

    await sql('delete from public.templates_pending_approval where id = $1', [submission])
    await sql('delete from public.sec_rt_sealed where id = $1', [sealed])
    // Changes arrive in commit order: once this insert is here, any delete
    // above would have been too.
    await sql('insert into public.sec_rt_open values ($1, $2, $3)', [open, 'public', 'public'])
    await waitFor(() => (anon.seen.some((c) => c.table === 'sec_rt_open') ? true : undefined))
    expect(anon.seen.filter((c) => c.eventType === 'DELETE')).toEqual([])
  })

  it('filters on columns outside the key are no oracle for deletes', async () => {
    const creator = await user('rt-creator')
    const stranger = await user('rt-stranger')
    const secret = await pending(creator.id, 'Secret plan')
    const own = await pending(stranger.id, 'My own plan')
    const table = 'templates_pending_approval'
    const guesses = listen(stranger.client, 'guess', [
      { event: 'DELETE', table, filter: 'title=eq.Secret plan' },
      { event: 'DELETE', table, filter: 'title=neq.Nothing' },
    ])
    const mine = listen(stranger.client, 'mine', [{ event: 'DELETE', table, filter: `id=eq.${own}` }])
    await guesses.ready
    await mine.ready

    await sql('delete from public.templates_pending_approval where id = $1', [secret])
    await sql('delete from public.templates_pending_approval where id = $1', [own])
    const got = await waitFor(() => mine.seen[0])
    expect(got.eventType).toBe('DELETE')
    expect(got.old).toEqual({ id: own })
    expect(guesses.seen).toEqual([])
  })

  it('readers still get deletes, with the primary key alone', async () => {
    const creator = await user('rt-creator')
    const admin = await user('rt-admin')
    await sql('insert into public.admins (user_id) values ($1)', [admin.id])
    const submission = await pending(creator.id, 'For review')
    const live = await template(creator.id)
    await sql('insert into public.template_upvotes (template_id, user_id) values ($1, $2)', [live, admin.id])
    const open = key()
    await sql('insert into public.sec_rt_open values ($1, $2, $3)', [open, 'public', 'public'])

    // The admin's review queue and a guest's live upvote count, as the app has them.
    const queue = listen(admin.client, 'admin-review-queue', [{ event: '*', table: 'templates_pending_approval' }])
    const count = listen(guest(), 'template-upvotes', [
      { event: '*', table: 'template_upvotes', filter: `template_id=eq.${live}` },
    ])
    const board = listen(guest(), 'board', [{ event: 'DELETE', table: 'sec_rt_open' }])
    await Promise.all([queue.ready, count.ready, board.ready])

    await sql('delete from public.templates_pending_approval where id = $1', [submission])
    await sql('delete from public.template_upvotes where template_id = $1', [live])
    await sql('delete from public.sec_rt_open where id = $1', [open])
    const removed = await waitFor(() => queue.seen[0])
    expect(removed.eventType).toBe('DELETE')
    expect(removed.table).toBe('templates_pending_approval')
    expect(removed.old).toEqual({ id: submission })
    expect(removed.new).toEqual({})
    const unvoted = await waitFor(() => count.seen[0])
    expect(unvoted.eventType).toBe('DELETE')
    expect(unvoted.old).toEqual({ template_id: live, user_id: admin.id })
    // Without RLS too: the key, not the old row.
    const gone = await waitFor(() => board.seen[0])
    expect(gone.old).toEqual({ id: open })
  })

  it("an update's old record is the key alone", async () => {
    const open = key()
    await sql('insert into public.sec_rt_open values ($1, $2, $3)', [open, 'old title', 'old note'])
    const anon = listen(guest(), 'updates', [{ event: 'UPDATE', table: 'sec_rt_open', filter: `id=eq.${open}` }])
    await anon.ready

    await sql('update public.sec_rt_open set title = $2 where id = $1', [open, 'new title'])
    const got = await waitFor(() => anon.seen[0])
    expect(got.eventType).toBe('UPDATE')
    expect(got.new).toEqual({ id: open, title: 'new title', note: 'old note' })
    expect(got.old).toEqual({ id: open })
  })
})
