// Realtime across nodes: broadcasts and presence diffs are relayed through
// PostgreSQL notifications, presences live in realtime.presences, and row
// changes are notified by the trigger realtime.enable() attached.
import { afterAll, describe, expect, it } from 'vitest'
import {
  PASSWORD,
  closeClients,
  confirmedUser,
  nodeA,
  nodeB,
  serviceClient,
  subscribed,
  userClient,
  waitFor,
} from './nodes'

afterAll(closeClients)

describe('realtime across nodes', () => {
  it('delivers a broadcast sent on A to a client of B, and back', async () => {
    const topic = `scale-room-${Date.now()}`
    const onA = userClient(nodeA).channel(topic)
    const onB = userClient(nodeB).channel(topic)
    const atA: unknown[] = []
    const atB: unknown[] = []
    onA.on('broadcast', { event: 'note' }, ({ payload }) => void atA.push(payload))
    onB.on('broadcast', { event: 'note' }, ({ payload }) => void atB.push(payload))
    await subscribed(onA)
    await subscribed(onB)

    expect(await onA.send({ type: 'broadcast', event: 'note', payload: { from: 'a', n: 1 } })).toBe('ok')
    await waitFor('the broadcast at B', () => (atB.length > 0 ? true : undefined))
    expect(atB).toEqual([{ from: 'a', n: 1 }])

    expect(await onB.send({ type: 'broadcast', event: 'note', payload: { from: 'b', n: 2 } })).toBe('ok')
    await waitFor('the broadcast at A', () => (atA.length > 0 ? true : undefined))
    expect(atA).toEqual([{ from: 'b', n: 2 }])
    // Neither sender got its own (self is off by default), nor a copy twice.
    await new Promise((ok) => setTimeout(ok, 300))
    expect(atA).toHaveLength(1)
    expect(atB).toHaveLength(1)
  })

  it('shows on B the presence tracked on A, and its leaving', async () => {
    const topic = `scale-lobby-${Date.now()}`
    const onA = userClient(nodeA).channel(topic, { config: { presence: { key: 'alice' } } })
    const onB = userClient(nodeB).channel(topic, { config: { presence: { key: 'bob' } } })
    let keysAtB: string[] = []
    onB.on('presence', { event: 'sync' }, () => {
      keysAtB = Object.keys(onB.presenceState()).sort()
    })
    await subscribed(onA)
    await subscribed(onB)

    expect(await onA.track({ status: 'online', node: 'a' })).toBe('ok')
    await waitFor("alice's presence at B", () => (keysAtB.includes('alice') ? true : undefined))
    const alice = onB.presenceState()['alice'] as unknown as { status: string; node: string }[]
    expect(alice).toHaveLength(1)
    expect(alice[0].status).toBe('online')
    expect(alice[0].node).toBe('a')

    expect(await onA.untrack()).toBe('ok')
    await waitFor("alice's leaving at B", () => (!keysAtB.includes('alice') ? true : undefined))
  })

  it("delivers to a client of B the postgres_changes of a row inserted through A's REST API", async () => {
    // A published template of one creator, upvoted by another user
    // (template_upvotes is enabled for realtime by the marketplace's
    // migration 20261122000300 and readable by anyone).
    const creator = await confirmedUser(nodeA, 'rt-creator')
    const voter = await confirmedUser(nodeA, 'rt-voter')
    const template = await serviceClient(nodeA)
      .from('templates')
      .insert({ user_id: creator.id, title: 'Scale-out check', description: 'made by the scale-out suite' })
      .select('id')
      .single()
    expect(template.error).toBeNull()
    const templateId = (template.data as { id: string }).id

    const watcher = userClient(nodeB)
    const changes: { eventType: string; new: Record<string, unknown> }[] = []
    const channel = watcher
      .channel(`scale-upvotes-${Date.now()}`)
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'template_upvotes', filter: `template_id=eq.${templateId}` },
        (change) => void changes.push(change as never),
      )
    await subscribed(channel)

    const voterOnA = userClient(nodeA)
    const signIn = await voterOnA.auth.signInWithPassword({ email: voter.email, password: PASSWORD })
    expect(signIn.error).toBeNull()
    const upvote = await voterOnA.from('template_upvotes').insert({ template_id: templateId, user_id: voter.id })
    expect(upvote.error).toBeNull()
    expect(upvote.status).toBe(201)

    await waitFor('the INSERT at B', () => (changes.length > 0 ? true : undefined))
    expect(changes).toHaveLength(1)
    expect(changes[0].eventType).toBe('INSERT')
    expect(changes[0].new.template_id).toBe(templateId)
    expect(changes[0].new.user_id).toBe(voter.id)
  })
})
