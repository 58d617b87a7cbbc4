// Pooled connections the database dropped (issue 43, item 4), through the
// unmodified supabase-js: after every connection of the REST gateway is
// terminated by the database, the next read answers as if nothing happened
// instead of a 503 PGRST001. On a node of the suite's own, so that ending
// its connections disturbs no other file's requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import pg from 'pg'
import ws from 'ws'
import { type OwnPlinth, startOwnPlinth } from './support/own-plinth'

let node: OwnPlinth
let supabase: SupabaseClient

async function ownSql(text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: node.databaseUrl })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  node = await startOwnPlinth({})
  supabase = createClient(node.url, node.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: ws as unknown as typeof WebSocket },
  })
  // postgrest-js retries a read answered 503 by itself; the point here is
  // that the first answer is already right (a write is never retried).
  ;(supabase as unknown as { rest: { retry?: boolean } }).rest.retry = false
  await ownSql('create table public.notes (id int primary key, body text)')
  await ownSql("insert into public.notes values (1, 'kept')")
  await ownSql("notify pgrst, 'reload schema'")
}, 120_000)

afterAll(async () => {
  await node?.stop()
})

describe('dropped pooled connections', () => {
  it('the next read goes through on a fresh connection', async () => {
    // Warm the pool: the gateway's connections are open and idle.
    let read = await supabase.from('notes').select('id, body')
    for (let i = 0; read.error && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100))
      read = await supabase.from('notes').select('id, body')
    }
    expect(read.error).toBeNull()
    await Promise.all([1, 2, 3, 4].map(() => supabase.from('notes').select('id')))
    const ended = await ownSql(
      `select pg_terminate_backend(pid) as ended from pg_stat_activity
        where datname = current_database() and usename = 'authenticator' and pid <> pg_backend_pid()`,
    )
    expect(ended.length).toBeGreaterThan(0)
    // (give the terminated backends a moment to be gone)
    await new Promise((r) => setTimeout(r, 200))
    for (let i = 0; i < 3; i++) {
      const again = await supabase.from('notes').select('id, body')
      expect(again.error).toBeNull()
      expect(again.status).toBe(200)
      expect(again.data).toEqual([{ id: 1, body: 'kept' }])
    }
  })
})
