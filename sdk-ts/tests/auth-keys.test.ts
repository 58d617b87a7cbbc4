// Asymmetric signing keys (GOTRUE_JWT_KEYS) through the unmodified client:
// a node started with an RS256 key set and one with an ES256 set (keys made
// here with WebCrypto, not by plinth), on the suite's database. Sessions are
// signed with the set's key (its kid in the header), getClaims() verifies
// them through /auth/v1/.well-known/jwks.json, and REST and storage take
// them. Also the gateway's API-key check on /auth/v1 as supabase-js sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHmac, webcrypto } from 'node:crypto'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import { databaseUrl, jwtSecret, plinthUrl, siteUrl, uniqueEmail } from './support/context'
import { spawnPlinth } from './support/spawn-plinth'

const PASSWORD = 'correct-horse-battery'
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

// Node 20 has no WebSocket of its own; the realtime client is given `ws`.
const realtime = { transport: ws as unknown as typeof WebSocket }
const noSession = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }

type Jwk = webcrypto.JsonWebKey & { kid: string; alg: string }

/** A private JWK made by WebCrypto, with a kid. */
async function makeKey(alg: 'RS256' | 'ES256'): Promise<Jwk> {
  const params =
    alg === 'RS256'
      ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: 'P-256' }
  const pair = (await webcrypto.subtle.generateKey(params, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const jwk = await webcrypto.subtle.exportKey('jwk', pair.privateKey)
  return { ...jwk, alg, kid: `node-${alg.toLowerCase()}-${Date.now()}` }
}

function decodePart(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString())
}

const b64url = (value: object | Buffer) =>
  Buffer.from(Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url')

/** An HS256 JWT signed with `key`. */
function hs256(claims: object, key: string | Buffer, header: object = { alg: 'HS256', typ: 'JWT' }): string {
  const body = `${b64url(header)}.${b64url(claims)}`
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`
}

interface Node {
  url: string
  anonKey: string
  serviceRoleKey: string
  stop: () => Promise<void>
}

function startNode(keys: Jwk[]): Promise<Node> {
  return spawnPlinth({
    databaseUrl,
    dataDirPrefix: 'plinth-keys-',
    name: 'the node',
    env: {
      JWT_SECRET: jwtSecret,
      GOTRUE_JWT_KEYS: JSON.stringify(keys),
      RUST_LOG: 'warn',
      SITE_URL: siteUrl,
      ENABLE_EMAIL_AUTOCONFIRM: 'true',
      GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS: '10000',
    },
  })
}

/** A client that records the URLs it fetches. */
function recordingClient(url: string, key: string): { client: SupabaseClient; fetched: string[] } {
  const fetched: string[] = []
  const client = createClient(url, key, {
    auth: noSession,
    realtime,
    global: {
      fetch: (input, init) => {
        fetched.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
        return fetch(input, init)
      },
    },
  })
  return { client, fetched }
}

for (const alg of ['RS256', 'ES256'] as const) {
  describe(`a node signing with ${alg}`, () => {
    let node: Node
    let jwk: Jwk

    beforeAll(async () => {
      jwk = await makeKey(alg)
      node = await startNode([jwk])
    }, 90_000)

    afterAll(async () => {
      await node?.stop()
    })

    it('issues API keys and sessions signed with the key, which getClaims() verifies through the JWKS', async () => {
      for (const key of [node.anonKey, node.serviceRoleKey]) {
        expect(decodePart(key, 0)).toMatchObject({ alg, kid: jwk.kid })
      }
      const { client, fetched } = recordingClient(node.url, node.anonKey)
      const email = uniqueEmail(`keys-${alg}`)
      const signUp = await client.auth.signUp({ email, password: PASSWORD })
      expect(signUp.error).toBeNull()
      const session = signUp.data.session!
      expect(decodePart(session.access_token, 0)).toMatchObject({ alg, kid: jwk.kid, typ: 'JWT' })

      fetched.length = 0
      const { data, error } = await client.auth.getClaims()
      expect(error).toBeNull()
      expect(data!.claims.sub).toBe(signUp.data.user!.id)
      expect(data!.claims.role).toBe('authenticated')
      expect(data!.header).toMatchObject({ alg, kid: jwk.kid })
      // Verified locally with the published key: the JWKS was read, /user was not asked.
      expect(fetched.some((u) => u.endsWith('/auth/v1/.well-known/jwks.json'))).toBe(true)
      expect(fetched.some((u) => u.includes('/auth/v1/user'))).toBe(false)

      // The JWKS carries the public key only.
      const jwks = (await (await fetch(`${node.url}/auth/v1/.well-known/jwks.json`)).json()) as { keys: Jwk[] }
      expect(jwks.keys).toHaveLength(1)
      expect(jwks.keys[0]).toMatchObject({ kid: jwk.kid, alg, use: 'sig', key_ops: ['verify'] })
      for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(jwks.keys[0]).not.toHaveProperty(part)

      // A token whose claims were changed after signing fails getClaims().
      const [head, , signature] = session.access_token.split('.')
      const tampered = `${head}.${b64url({ ...decodePart(session.access_token, 1), role: 'service_role' })}.${signature}`
      const forged = await client.auth.getClaims(tampered)
      expect(forged.data).toBeNull()
      expect(forged.error).not.toBeNull()
    })

    it('REST, storage and realtime take the sessions; forgeries are refused everywhere', async () => {
      const { client } = recordingClient(node.url, node.anonKey)
      const email = uniqueEmail(`keys-rest-${alg}`)
      const signUp = await client.auth.signUp({ email, password: PASSWORD })
      expect(signUp.error).toBeNull()
      const uid = signUp.data.user!.id

      // Row-level security sees the token's user.
      const updated = await client.from('profiles').update({ display_name: `Key ${alg}` }).eq('id', uid).select('id, display_name')
      expect(updated.error).toBeNull()
      expect(updated.data).toEqual([{ id: uid, display_name: `Key ${alg}` }])

      const upload = await client.storage.from('avatars').upload(`${uid}/key.png`, PNG, { contentType: 'image/png' })
      expect(upload.error).toBeNull()
      const elsewhere = await client.storage.from('avatars').upload(`not-${uid}/key.png`, PNG, { contentType: 'image/png' })
      expect(elsewhere.error).not.toBeNull()

      // Realtime: the socket (anon key) and the channel join (the session).
      client.realtime.setAuth(signUp.data.session!.access_token)
      const channel = client.channel(`keys-${alg}-${uid}`, { config: { broadcast: { self: true, ack: true } } })
      const joined = await new Promise<string>((ok) => {
        channel.subscribe((status) => {
          if (status !== 'CLOSED') ok(status)
        })
      })
      expect(joined).toBe('SUBSCRIBED')
      expect(await channel.send({ type: 'broadcast', event: 'ping', payload: { alg } })).toBe('ok')
      await client.removeAllChannels()

      // An HS256 token keyed with the public key's JSON is no credential anywhere.
      const jwks = (await (await fetch(`${node.url}/auth/v1/.well-known/jwks.json`)).json()) as { keys: Jwk[] }
      const confused = hs256(
        { sub: uid, role: 'service_role', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 },
        JSON.stringify(jwks.keys[0]),
        { alg: 'HS256', typ: 'JWT', kid: jwk.kid },
      )
      const rest = await fetch(`${node.url}/rest/v1/profiles?select=id`, {
        headers: { apikey: node.anonKey, authorization: `Bearer ${confused}` },
      })
      expect(rest.status).toBe(401)
      const storage = await fetch(`${node.url}/storage/v1/bucket`, {
        headers: { apikey: node.anonKey, authorization: `Bearer ${confused}` },
      })
      expect(storage.status).toBeGreaterThanOrEqual(400)
      const admin = createClient(node.url, confused, { auth: noSession, realtime })
      const users = await admin.auth.admin.listUsers()
      expect(users.error?.status).toBe(401)
      expect(users.error?.message).toBe('Invalid API key')
      const intruder = recordingClient(node.url, node.anonKey).client
      intruder.realtime.setAuth(confused)
      const refused = await new Promise<string>((ok) => {
        intruder.channel(`keys-${alg}-intruder`).subscribe((status) => {
          if (status !== 'CLOSED') ok(status)
        })
      })
      expect(refused).toBe('CHANNEL_ERROR')
      await intruder.removeAllChannels()
    })

    it('still takes legacy HS256 keys signed with JWT_SECRET', async () => {
      const now = Math.floor(Date.now() / 1000)
      const legacyAnon = hs256({ role: 'anon', iss: 'supabase-demo', iat: now, exp: now + 600 }, jwtSecret)
      const legacy = createClient(node.url, legacyAnon, { auth: noSession, realtime })
      const profiles = await legacy.from('profiles').select('id').limit(1)
      expect(profiles.error).toBeNull()
      const email = uniqueEmail(`keys-legacy-${alg}`)
      const signUp = await legacy.auth.signUp({ email, password: PASSWORD })
      expect(signUp.error).toBeNull()
      // The session it gets is signed with the key set all the same.
      expect(decodePart(signUp.data.session!.access_token, 0)).toMatchObject({ alg, kid: jwk.kid })
    })
  })
}

describe('the gateway in front of /auth/v1', () => {
  it('refuses calls without a valid API key as the platform does', async () => {
    const bogus = createClient(plinthUrl, 'not-a-key', { auth: noSession, realtime })
    const signIn = await bogus.auth.signInWithPassword({ email: uniqueEmail('gate'), password: PASSWORD })
    expect(signIn.error?.status).toBe(401)
    expect(signIn.error?.message).toBe('Invalid API key')

    const bare = await fetch(`${plinthUrl}/auth/v1/settings`)
    expect(bare.status).toBe(401)
    expect(await bare.json()).toEqual({
      message: 'No API key found in request',
      hint: 'No `apikey` request header or url param was found.',
    })
    // The public keys stay open (an HS256-only node publishes none).
    const jwks = await fetch(`${plinthUrl}/auth/v1/.well-known/jwks.json`)
    expect(jwks.status).toBe(200)
    expect(await jwks.json()).toEqual({ keys: [] })
  })
})
