// Through nginx (deploy/nginx/plinth.conf over nodes A and B): the same
// client flows, request ids on every answer, round robin, websockets and
// uploads larger than nginx's default body limit.
import { afterAll, describe, expect, it } from 'vitest'
import {
  PASSWORD,
  anonKey,
  bytes,
  closeClients,
  confirmedUser,
  nginx,
  nodeA,
  nodeB,
  requestCount,
  sameBytes,
  serviceClient,
  subscribed,
  userClient,
  waitFor,
} from './nodes'

afterAll(closeClients)

/** A fetch that remembers each response's status and X-Request-Id. */
function recordingFetch() {
  const seen: { url: string; status: number; requestId: string | null }[] = []
  const record: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    seen.push({ url, status: response.status, requestId: response.headers.get('x-request-id') })
    return response
  }
  return { seen, fetch: record }
}

describe('through nginx', () => {
  it('signs in, uploads 5 MB and downloads it byte for byte; every answer carries X-Request-Id', async () => {
    const user = await confirmedUser(nginx, 'nginx')
    const recorder = recordingFetch()
    const client = userClient(nginx, { fetch: recorder.fetch })

    const signIn = await client.auth.signInWithPassword({ email: user.email, password: PASSWORD })
    expect(signIn.error).toBeNull()
    expect(signIn.data.user?.id).toBe(user.id)

    // Above nginx's default client_max_body_size (1 MB): the template's 100m
    // lets it through, unbuffered.
    const content = bytes(5 * 1024 * 1024, 3)
    const path = `${user.id}/files/through-nginx.bin`
    const uploaded = await client.storage
      .from('templates')
      .upload(path, content, { contentType: 'application/octet-stream' })
    expect(uploaded.error).toBeNull()

    const downloaded = await client.storage.from('templates').download(path)
    expect(downloaded.error).toBeNull()
    expect(sameBytes(new Uint8Array(await downloaded.data!.arrayBuffer()), content)).toBe(true)

    // And straight from a node, past nginx: the same bytes.
    const direct = await fetch(`${nodeB}/storage/v1/object/public/templates/${path}`)
    expect(direct.status).toBe(200)
    expect(sameBytes(new Uint8Array(await direct.arrayBuffer()), content)).toBe(true)

    expect(recorder.seen.length).toBeGreaterThanOrEqual(3)
    for (const response of recorder.seen) {
      expect(response.status, response.url).toBeLessThan(300)
      expect(response.requestId, response.url).toMatch(/^[A-Za-z0-9._:-]{8,128}$/)
    }
  })

  it("gives nginx's request id to a request without one, and keeps a client's own", async () => {
    const url = `${nginx}/rest/v1/categories?select=id&limit=1`
    const plain = await fetch(url, { headers: { apikey: anonKey } })
    expect(plain.status).toBe(200)
    // nginx's $request_id: 32 hex digits (plinth's own would be a UUID).
    expect(plain.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/)

    const mine = `scale-out-${Date.now()}`
    const own = await fetch(url, { headers: { apikey: anonKey, 'X-Request-Id': mine } })
    expect(own.status).toBe(200)
    expect(own.headers.get('x-request-id')).toBe(mine)
  })

  it('spreads requests over both nodes', async () => {
    const before = [await requestCount(nodeA, { service: 'rest' }), await requestCount(nodeB, { service: 'rest' })]
    const client = userClient(nginx)
    for (let i = 0; i < 10; i++) {
      const { error } = await client.from('categories').select('id').limit(1)
      expect(error).toBeNull()
    }
    const after = [await requestCount(nodeA, { service: 'rest' }), await requestCount(nodeB, { service: 'rest' })]
    const toA = after[0] - before[0]
    const toB = after[1] - before[1]
    expect(toA + toB).toBe(10)
    expect(toA).toBeGreaterThanOrEqual(3)
    expect(toB).toBeGreaterThanOrEqual(3)
  })

  it('carries realtime websockets both ways between nginx and a node', async () => {
    const topic = `scale-nginx-${Date.now()}`
    const viaNginx = userClient(nginx).channel(topic)
    const onA = userClient(nodeA).channel(topic)
    const atNginx: unknown[] = []
    const atA: unknown[] = []
    viaNginx.on('broadcast', { event: 'ping' }, ({ payload }) => void atNginx.push(payload))
    onA.on('broadcast', { event: 'ping' }, ({ payload }) => void atA.push(payload))
    await subscribed(viaNginx)
    await subscribed(onA)

    expect(await viaNginx.send({ type: 'broadcast', event: 'ping', payload: { from: 'nginx' } })).toBe('ok')
    expect(await onA.send({ type: 'broadcast', event: 'ping', payload: { from: 'a' } })).toBe('ok')
    await waitFor('both broadcasts', () => (atNginx.length > 0 && atA.length > 0 ? true : undefined))
    expect(atA).toEqual([{ from: 'nginx' }])
    expect(atNginx).toEqual([{ from: 'a' }])
  })

  it('keeps the service key working through nginx (admin API)', async () => {
    const user = await confirmedUser(nodeA, 'nginx-admin')
    const { data, error } = await serviceClient(nginx).auth.admin.getUserById(user.id)
    expect(error).toBeNull()
    expect(data.user?.email).toBe(user.email)
  })
})
