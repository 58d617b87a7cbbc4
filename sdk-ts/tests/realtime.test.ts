// supabase.channel(...) from the unmodified client against
// /realtime/v1/websocket: broadcast, presence and postgres_changes under RLS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { anonClient, browserClient, sql, uniqueEmail } from './support/context'
import { subscribed, waitFor } from './support/realtime'

const clients: SupabaseClient[] = []
function track<T extends SupabaseClient>(client: T): T {
  clients.push(client)
  return client
}

async function signedIn(tag: string): Promise<{ client: SupabaseClient; id: string }> {
  const client = track(browserClient())
  const email = uniqueEmail(tag)
  await client.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await client.auth.signInWithPassword({ email, password: 'a-good-password' })
  if (error) throw error
  // The realtime socket carries the user's token from here on.
  client.realtime.setAuth(data.session!.access_token)
  return { client, id: data.user!.id }
}

beforeAll(async () => {
  await sql(`
    create table if not exists public.rt_messages (
      id serial primary key, owner uuid not null, room text not null, body text not null);
    alter table public.rt_messages enable row level security;
    drop policy if exists "owners read" on public.rt_messages;
    create policy "owners read" on public.rt_messages for select to authenticated using (owner = auth.uid());
    select realtime.enable('public', 'rt_messages');
    create table if not exists public.rt_open (id int primary key, body text not null);
    select realtime.enable('public', 'rt_open');
    create schema if not exists rt_elsewhere;
    grant usage on schema rt_elsewhere to anon;
    create table if not exists rt_elsewhere.rt_open (id int primary key, body text not null);
    grant select on rt_elsewhere.rt_open to anon;
    select realtime.enable('rt_elsewhere', 'rt_open');
  `)
})

afterAll(async () => {
  for (const client of clients) await client.removeAllChannels()
})

describe('realtime', () => {
  it('broadcasts between clients, with self and ack', async () => {
    const a = track(anonClient())
    const b = track(anonClient())
    const topic = `room-${Date.now()}`
    const received: unknown[] = []
    const own: unknown[] = []
    const chA = a.channel(topic, { config: { broadcast: { self: true, ack: true } } })
    chA.on('broadcast', { event: 'note' }, ({ payload }) => void own.push(payload))
    const chB = b.channel(topic)
    chB.on('broadcast', { event: 'note' }, ({ payload }) => void received.push(payload))
    await subscribed(chA)
    await subscribed(chB)
    const status = await chA.send({ type: 'broadcast', event: 'note', payload: { text: 'hello' } })
    expect(status).toBe('ok')
    await waitFor(() => (received.length && own.length ? true : undefined))
    expect(received).toEqual([{ text: 'hello' }])
    expect(own).toEqual([{ text: 'hello' }])
  })

  it('answers a broadcast past the size limit with an error, and the channel lives on', async () => {
    const a = track(anonClient())
    const b = track(anonClient())
    const topic = `big-${Date.now()}`
    const received: unknown[] = []
    const chA = a.channel(topic, { config: { broadcast: { ack: true } } })
    const chB = b.channel(topic)
    chB.on('broadcast', { event: 'note' }, ({ payload }) => void received.push(payload))
    await subscribed(chA)
    await subscribed(chB)
    // Over the default 256 KiB: refused, as the platform refuses it
    // (payload_size_exceeded), without closing the socket.
    const big = await chA.send({ type: 'broadcast', event: 'note', payload: { text: 'x'.repeat(300_000) } })
    expect(big).toBe('error')
    const small = await chA.send({ type: 'broadcast', event: 'note', payload: { text: 'small' } })
    expect(small).toBe('ok')
    await waitFor(() => (received.length ? true : undefined))
    expect(received).toEqual([{ text: 'small' }])
    expect(chA.state).toBe('joined')
  })

  it('carries ArrayBuffer payloads as bytes, over the socket and httpSend', async () => {
    const a = track(anonClient())
    const b = track(anonClient())
    const topic = `bytes-${Date.now()}`
    const received: { event: string; payload: unknown }[] = []
    const chA = a.channel(topic, { config: { broadcast: { ack: true } } })
    const chB = b.channel(topic)
    chB.on('broadcast', { event: '*' }, ({ event, payload }) => void received.push({ event, payload }))
    await subscribed(chA)
    await subscribed(chB)
    const bytes = Uint8Array.from([0, 1, 2, 250, 255, 0])
    const status = await chA.send({ type: 'broadcast', event: 'blob', payload: bytes.buffer })
    expect(status).toBe('ok')
    const sender = track(anonClient()).channel(topic)
    expect(await sender.httpSend('upload', Uint8Array.from([9, 8, 7]).buffer)).toEqual({ success: true })
    await waitFor(() => (received.length === 2 ? true : undefined))
    const byEvent = Object.fromEntries(received.map(({ event, payload }) => [event, payload]))
    expect(byEvent.blob).toBeInstanceOf(ArrayBuffer)
    expect([...new Uint8Array(byEvent.blob as ArrayBuffer)]).toEqual([0, 1, 2, 250, 255, 0])
    expect([...new Uint8Array(byEvent.upload as ArrayBuffer)]).toEqual([9, 8, 7])
  })

  it('tracks presence across clients', async () => {
    const a = track(anonClient())
    const b = track(anonClient())
    const topic = `lobby-${Date.now()}`
    const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
    const chB = b.channel(topic, { config: { presence: { key: 'bob' } } })
    let synced: string[] = []
    chB.on('presence', { event: 'sync' }, () => {
      synced = Object.keys(chB.presenceState()).sort()
    })
    await subscribed(chA)
    await subscribed(chB)
    await chA.track({ online_at: 'now' })
    await chB.track({ online_at: 'now' })
    await waitFor(() => (synced.join() === 'alice,bob' ? true : undefined))
    const alice = chB.presenceState()['alice'] as unknown as { online_at: string }[]
    expect(alice[0].online_at).toBe('now')
    await chA.untrack()
    await waitFor(() => (synced.join() === 'bob' ? true : undefined))
  })

  it('delivers postgres_changes only to subscribers who may read the row, with filters', async () => {
    const alice = await signedIn('rt-alice')
    const bob = await signedIn('rt-bob')
    const seen: Record<string, { eventType: string; new: Record<string, unknown> }[]> = { alice: [], bob: [], filtered: [] }
    const room = `r${Date.now()}`
    const chAlice = alice.client
      .channel('alice-changes')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_messages' }, (p) => void seen.alice.push(p as never))
    const chBob = bob.client
      .channel('bob-changes')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'rt_messages' }, (p) => void seen.bob.push(p as never))
    const chFiltered = alice.client
      .channel('alice-filtered')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'rt_messages', filter: `room=eq.${room}` },
        (p) => void seen.filtered.push(p as never),
      )
    await subscribed(chAlice)
    await subscribed(chBob)
    await subscribed(chFiltered)

    await sql('insert into public.rt_messages (owner, room, body) values ($1, $2, $3), ($1, $4, $5)', [
      alice.id, room, 'in the room', 'elsewhere', 'not in the room',
    ])
    await waitFor(() => (seen.alice.length === 2 && seen.filtered.length === 1 ? true : undefined))
    expect(seen.alice.map((e) => e.new.body).sort()).toEqual(['in the room', 'not in the room'])
    expect(seen.alice[0].eventType).toBe('INSERT')
    expect(seen.filtered.map((e) => e.new.body)).toEqual(['in the room'])

    // Bob's own row reaches him; Alice's rows never did.
    await sql('insert into public.rt_messages (owner, room, body) values ($1, $2, $3)', [bob.id, room, 'bob writes'])
    await waitFor(() => (seen.bob.length === 1 ? true : undefined))
    expect(seen.bob.map((e) => e.new.body)).toEqual(['bob writes'])
  })

  it('takes a postgres_changes binding with a table and no schema as one of public', async () => {
    // (the Python client sends no schema; supabase-js sends what it is given)
    const seen: { schema: string; new: { id: number; body: string } }[] = []
    const channel = track(anonClient())
      .channel(`no-schema-${Date.now()}`)
      .on('postgres_changes', { event: 'INSERT', table: 'rt_open' } as any, (p) => void seen.push(p as never))
    await subscribed(channel)
    await sql(`insert into rt_elsewhere.rt_open values (1, 'elsewhere')`)
    await sql(`insert into public.rt_open values (2, 'public')`)
    await waitFor(() => (seen.length ? true : undefined))
    await new Promise((r) => setTimeout(r, 300))
    expect(seen.map((e) => [e.schema, e.new.body])).toEqual([['public', 'public']])
  })
})
