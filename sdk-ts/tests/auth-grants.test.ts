// The id_token and web3 grants and the OAuth 2.1 server through the
// unmodified supabase-js: signInWithIdToken against a stand-in Google issuer
// (node:crypto's RSA key, its JWKS on a loopback server), signInWithWeb3 with
// wallets computing real signatures (secp256k1 / ed25519), and the OAuth
// server's client admin and the authorization-code flow with PKCE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import { memoryStorage } from './support/context'
import { startOwnPlinth, type OwnPlinth } from './support/own-plinth'
import { ethereumWallet, keccak256, solanaWallet } from './support/wallets'

const GOOGLE_CLIENT = 'node-suite.apps.googleusercontent.example'
const SITE = 'http://localhost:3000'
// Node 20 has no WebSocket of its own; the realtime client is given `ws`.
const realtime = { transport: ws as unknown as typeof WebSocket }

let plinth: OwnPlinth
let issuer: { url: string; key: KeyObject; server: Server }

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url')
}

/** An RS256 ID token of the stand-in issuer. */
function idToken(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000)
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'node-key-1' }))
  const payload = b64url(
    JSON.stringify({
      iss: issuer.url, aud: GOOGLE_CLIENT, sub: 'google-node-1', email: 'node-google@example.com',
      email_verified: true, name: 'Node Google', iat: now, exp: now + 600, ...claims,
    }),
  )
  const signer = createSign('RSA-SHA256')
  signer.update(`${header}.${payload}`)
  return `${header}.${payload}.${signer.sign(issuer.key).toString('base64url')}`
}

async function startIssuer() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'node-key-1', use: 'sig', alg: 'RS256' }
  const server = createServer((req, res) => {
    if (req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ keys: [jwk] }))
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, key: privateKey, server }
}

function client(): SupabaseClient {
  return createClient(plinth.url, plinth.anonKey, {
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
    realtime,
  })
}

function admin(): SupabaseClient {
  return createClient(plinth.url, plinth.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime,
  })
}

function claimsOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
}

beforeAll(async () => {
  issuer = await startIssuer()
  plinth = await startOwnPlinth({
    SITE_URL: SITE,
    ENABLE_EMAIL_AUTOCONFIRM: 'true',
    GOOGLE_ENABLED: 'true',
    GOOGLE_CLIENT_ID: GOOGLE_CLIENT,
    GOOGLE_ID_TOKEN_ISSUER: issuer.url,
    GOOGLE_JWKS_URL: `${issuer.url}/jwks`,
    GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED: 'true',
    GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED: 'true',
    GOTRUE_OAUTH_SERVER_ENABLED: 'true',
    GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH: '/oauth/consent',
  })
}, 90_000)

afterAll(async () => {
  await plinth?.stop()
  await new Promise((ok) => issuer?.server.close(ok))
})

describe('signInWithIdToken', () => {
  it('signs in with a Google ID token, and refuses another app\'s or a replayed one', async () => {
    const supabase = client()
    const nonce = randomBytes(16).toString('hex')
    const hashed = createHash('sha256').update(nonce).digest('hex')
    const { data, error } = await supabase.auth.signInWithIdToken({
      provider: 'google',
      token: idToken({ nonce: hashed }),
      nonce,
    })
    expect(error).toBeNull()
    expect(data.user?.email).toBe('node-google@example.com')
    expect(data.user?.identities?.[0]?.provider).toBe('google')
    expect(data.session?.access_token).toBeTruthy()
    const { data: current } = await supabase.auth.getUser()
    expect(current.user?.id).toBe(data.user?.id)

    const other = await client().auth.signInWithIdToken({ provider: 'google', token: idToken({ aud: 'another-app' }) })
    expect(other.error?.message).toBe('Unacceptable audience in id_token: [another-app]')
    expect(other.data.session).toBeNull()

    const replay = await client().auth.signInWithIdToken({
      provider: 'google',
      token: idToken({ nonce: hashed }),
      nonce: 'another-nonce',
    })
    expect(replay.error?.message).toBe('Nonces mismatch')

    const forged = idToken({}).replace(/\.[^.]+$/, '.' + b64url(randomBytes(256)))
    const bad = await client().auth.signInWithIdToken({ provider: 'google', token: forged })
    expect(bad.error?.message).toBe('Bad ID token')
  })
})

describe('signInWithWeb3', () => {
  it('checks the test wallets against known vectors', () => {
    expect(Buffer.from(keccak256(new Uint8Array())).toString('hex')).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })

  it('signs in with Ethereum once per signed message', async () => {
    const wallet = ethereumWallet()
    const message = [
      'localhost:3000 wants you to sign in with your Ethereum account:',
      wallet.address,
      '',
      'Sign in to the Node suite',
      '',
      `URI: ${SITE}`,
      'Version: 1',
      'Chain ID: 1',
      `Nonce: ${randomBytes(8).toString('hex')}`,
      `Issued At: ${new Date().toISOString()}`,
    ].join('\n')
    const signature = wallet.signMessage(message) as `0x${string}`
    const supabase = client()
    const { data, error } = await supabase.auth.signInWithWeb3({ chain: 'ethereum', message, signature })
    expect(error).toBeNull()
    expect(data.user?.identities?.[0]?.id).toBe(`web3:ethereum:${wallet.address}`)
    expect(claimsOf(data.session!.access_token).amr[0].method).toBe('web3')

    const replay = await client().auth.signInWithWeb3({ chain: 'ethereum', message, signature })
    expect(replay.error?.message).toBe('Signed Ethereum message was already used to sign in')

    const thief = ethereumWallet()
    const stolen = message.replace(wallet.address, thief.address)
    const wrong = await client().auth.signInWithWeb3({ chain: 'ethereum', message: stolen, signature })
    expect(wrong.error?.message).toBe('Signature does not match address in message')

    const elsewhere = message
      .replace('localhost:3000 wants', 'evil.example.com wants')
      .replace(`URI: ${SITE}`, 'URI: https://evil.example.com')
    const phished = await client().auth.signInWithWeb3({
      chain: 'ethereum',
      message: elsewhere,
      signature: wallet.signMessage(elsewhere) as `0x${string}`,
    })
    expect(phished.error?.message).toBe(
      'Signed Ethereum message is using URI which is not allowed on this server, message was signed for another app',
    )
  })

  it('signs in with Solana', async () => {
    const wallet = solanaWallet()
    const message = [
      'localhost:3000 wants you to sign in with your Solana account:',
      wallet.address,
      '',
      'Sign in to the Node suite',
      '',
      `URI: ${SITE}`,
      'Version: 1',
      'Chain ID: solana:devnet',
      `Nonce: ${randomBytes(8).toString('hex')}`,
      `Issued At: ${new Date().toISOString()}`,
    ].join('\n')
    const { data, error } = await client().auth.signInWithWeb3({
      chain: 'solana',
      message,
      signature: wallet.signMessage(message),
    })
    expect(error).toBeNull()
    expect(data.user?.identities?.[0]?.id).toBe(`web3:solana:${wallet.address}`)

    const expired = message.replace(
      /Issued At: .*/,
      `Issued At: ${new Date(Date.now() - 20 * 60_000).toISOString()}`,
    )
    const old = await client().auth.signInWithWeb3({ chain: 'solana', message: expired, signature: wallet.signMessage(expired) })
    expect(old.error?.message).toBe('Solana message was issued too long ago')
  })
})

describe('the OAuth 2.1 server', () => {
  it('manages clients through auth.admin.oauth', async () => {
    const { auth } = admin()
    const created = await auth.admin.oauth.createClient({
      client_name: 'Node client',
      redirect_uris: ['https://client.example.com/callback'],
    })
    expect(created.error).toBeNull()
    const id = created.data!.client_id
    expect(created.data!.client_secret).toBeTruthy()
    expect(created.data!.client_type).toBe('confidential')

    const listed = await auth.admin.oauth.listClients()
    expect(listed.error).toBeNull()
    expect(listed.data.clients.map((c) => c.client_id)).toContain(id)

    const got = await auth.admin.oauth.getClient(id)
    expect(got.data?.client_name).toBe('Node client')
    expect((got.data as Record<string, unknown>).client_secret).toBeUndefined()

    const updated = await auth.admin.oauth.updateClient(id, { client_name: 'Renamed' })
    expect(updated.data?.client_name).toBe('Renamed')

    const regenerated = await auth.admin.oauth.regenerateClientSecret(id)
    expect(regenerated.data?.client_secret).toBeTruthy()
    expect(regenerated.data?.client_secret).not.toBe(created.data!.client_secret)

    const bad = await auth.admin.oauth.createClient({ client_name: 'x', redirect_uris: ['http://evil.example.com/cb'] })
    expect(bad.error?.code).toBe('validation_failed')

    const removed = await auth.admin.oauth.deleteClient(id)
    expect(removed.error).toBeNull()
    const gone = await auth.admin.oauth.getClient(id)
    expect(gone.error?.status).toBe(404)
    expect(gone.error?.code).toBe('oauth_client_not_found')

    // Not with the anon key.
    const anon = await client().auth.admin.oauth.listClients()
    expect(anon.error?.status).toBe(403)
  })

  it('reads null fields of the admin client bodies as left out', async () => {
    // As a dashboard or script sends them: every optional field present, unset ones null.
    const headers = {
      apikey: plinth.serviceRoleKey,
      authorization: `Bearer ${plinth.serviceRoleKey}`,
      'content-type': 'application/json',
    }
    const created = await fetch(`${plinth.url}/auth/v1/admin/oauth/clients`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        client_name: 'Null fields',
        redirect_uris: ['https://client.example.com/callback'],
        client_uri: null,
        logo_uri: null,
        grant_types: null,
        client_type: null,
        token_endpoint_auth_method: null,
      }),
    })
    const body = (await created.json()) as Record<string, any>
    expect(created.status, JSON.stringify(body)).toBe(201)
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token'])
    expect(body.client_type).toBe('confidential')

    const updated = await fetch(`${plinth.url}/auth/v1/admin/oauth/clients/${body.client_id}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ client_name: 'Renamed', redirect_uris: null, logo_uri: null }),
    })
    const after = (await updated.json()) as Record<string, any>
    expect(updated.status, JSON.stringify(after)).toBe(200)
    expect(after.client_name).toBe('Renamed')
    expect(after.redirect_uris).toEqual(['https://client.example.com/callback'])
  })

  it('runs the authorization-code flow with PKCE end to end', async () => {
    const callback = 'https://client.example.com/callback'
    const created = await admin().auth.admin.oauth.createClient({ client_name: 'Flow client', redirect_uris: [callback] })
    const { client_id, client_secret } = created.data!

    // The resource owner, signed in to the project's app.
    const owner = client()
    const email = `oauth-owner-${randomBytes(4).toString('hex')}@example.com`
    const signedUp = await owner.auth.signUp({ email, password: 'a good long password' })
    expect(signedUp.error).toBeNull()

    // The client app sends the browser to /oauth/authorize.
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const authorize = new URL(`${plinth.url}/auth/v1/oauth/authorize`)
    authorize.search = new URLSearchParams({
      client_id, redirect_uri: callback, response_type: 'code', scope: 'openid email',
      state: 'xyz', code_challenge: challenge, code_challenge_method: 'S256',
    }).toString()
    const start = await fetch(authorize, { redirect: 'manual' })
    expect(start.status).toBe(302)
    const consentPage = new URL(start.headers.get('location')!)
    expect(consentPage.origin + consentPage.pathname).toBe(`${SITE}/oauth/consent`)
    const authorizationId = consentPage.searchParams.get('authorization_id')!

    // The app's consent page, with supabase-js.
    const details = await owner.auth.oauth.getAuthorizationDetails(authorizationId)
    expect(details.error).toBeNull()
    expect((details.data as any).client.name).toBe('Flow client')
    expect((details.data as any).scope).toBe('openid email')
    const approved = await owner.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true })
    expect(approved.error).toBeNull()
    const back = new URL(approved.data!.redirect_url)
    expect(back.searchParams.get('state')).toBe('xyz')
    const code = back.searchParams.get('code')!

    // The client exchanges the code (client_secret_basic, form body).
    const basic = Buffer.from(`${client_id}:${client_secret}`).toString('base64')
    const exchange = (form: Record<string, string>) =>
      fetch(`${plinth.url}/auth/v1/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      })
    const wrongVerifier = await exchange({ grant_type: 'authorization_code', code, code_verifier: randomBytes(32).toString('base64url') })
    expect(wrongVerifier.status).toBe(400)
    expect((await wrongVerifier.json()).error).toBe('invalid_grant')
    const tokens = await exchange({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callback })
    expect(tokens.status).toBe(200)
    const body = await tokens.json()
    const claims = claimsOf(body.access_token)
    expect(claims.client_id).toBe(client_id)
    expect(claims.scope).toBe('openid email')
    expect(claims.email).toBe(email)
    const reused = await exchange({ grant_type: 'authorization_code', code, code_verifier: verifier })
    expect((await reused.json()).error_description).toBe('Invalid authorization code')

    // The client's token works against the project like any user token.
    const asUser = createClient(plinth.url, plinth.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { Authorization: `Bearer ${body.access_token}` } },
      realtime,
    })
    const { data: me } = await asUser.auth.getUser(body.access_token)
    expect(me.user?.email).toBe(email)

    // Refresh through the client; the owner sees and revokes the grant.
    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: body.refresh_token })
    expect(refreshed.status).toBe(200)
    const grants = await owner.auth.oauth.listGrants()
    expect(grants.error).toBeNull()
    expect(grants.data!.map((g) => g.client.id)).toContain(client_id)
    const revoked = await owner.auth.oauth.revokeGrant({ clientId: client_id })
    expect(revoked.error).toBeNull()
    const after = await exchange({ grant_type: 'refresh_token', refresh_token: (await refreshed.json()).refresh_token })
    expect(after.status).toBe(400)
  })

  it('lets the user deny', async () => {
    const callback = 'https://client.example.com/denied'
    const created = await admin().auth.admin.oauth.createClient({ client_name: 'Denied client', redirect_uris: [callback] })
    const owner = client()
    await owner.auth.signUp({ email: `oauth-deny-${randomBytes(4).toString('hex')}@example.com`, password: 'a good long password' })
    const authorize = new URL(`${plinth.url}/auth/v1/oauth/authorize`)
    authorize.search = new URLSearchParams({
      client_id: created.data!.client_id, redirect_uri: callback,
      code_challenge: createHash('sha256').update('v'.repeat(50)).digest('base64url'), code_challenge_method: 'S256',
    }).toString()
    const start = await fetch(authorize, { redirect: 'manual' })
    const authorizationId = new URL(start.headers.get('location')!).searchParams.get('authorization_id')!
    await owner.auth.oauth.getAuthorizationDetails(authorizationId)
    const denied = await owner.auth.oauth.denyAuthorization(authorizationId, { skipBrowserRedirect: true })
    expect(denied.error).toBeNull()
    const back = new URL(denied.data!.redirect_url)
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('code')).toBeNull()
  })
})
