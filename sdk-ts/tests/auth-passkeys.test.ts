// Passkeys through the unmodified supabase-js in a real browser: Chromium
// with a virtual authenticator (the DevTools protocol's WebAuthn domain: a
// platform authenticator that keeps discoverable credentials, verifies its
// user and counts its signatures). The page (on http://localhost, a secure
// context, another origin than the API) registers a passkey with
// `auth.registerPasskey()`, signs in with `auth.signInWithPasskey()`, lists,
// renames and deletes it with `auth.passkey.*`; the admin's
// `auth.admin.passkey.*` run from Node. A second virtual authenticator, a
// USB security key (what supabase-js asks for by default), is an MFA factor
// (`auth.mfa.webauthn.*`), whose aal2 session a user with two factors needs
// to add a passkey.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core'
import { createClient } from '@supabase/supabase-js'
import pg from 'pg'
import ws from 'ws'
import { startOwnPlinth, type OwnPlinth } from './support/own-plinth'
import { uniqueEmail } from './support/context'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const PASSWORD = 'a-good-password-1'

let server: http.Server
let plinth: OwnPlinth
let browser: Browser
let page: Page
let cdp: CDPSession
let authenticatorId: string

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: plinth.databaseUrl })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}

function claims(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())
}

/** The virtual authenticator's credentials (ids, user handles, counters). */
async function credentials(): Promise<{ credentialId: string; isResidentCredential: boolean; userHandle?: string; signCount: number }[]> {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  return credentials
}

beforeAll(async () => {
  const bundle = await readFile(new URL('../node_modules/@supabase/supabase-js/dist/umd/supabase.js', import.meta.url))
  server = http.createServer((request, response) => {
    if (request.url === '/supabase.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' })
      response.end(bundle)
      return
    }
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<!doctype html><html lang="en"><title>An app with passkeys</title><script src="/supabase.js"></script></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // WebAuthn wants a secure context and a domain as relying party id:
  // http://localhost is both.
  const pageOrigin = `http://localhost:${(server.address() as AddressInfo).port}`
  plinth = await startOwnPlinth({
    ENABLE_EMAIL_AUTOCONFIRM: 'true',
    GOTRUE_PASSKEY_ENABLED: 'true',
    GOTRUE_WEBAUTHN_RP_ID: 'localhost',
    GOTRUE_WEBAUTHN_RP_DISPLAY_NAME: 'Plinth Passkeys',
    GOTRUE_WEBAUTHN_RP_ORIGINS: pageOrigin,
    GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true',
    GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED: 'true',
  })
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  page = await browser.newPage()
  cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  ;({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }))
  await page.goto(pageOrigin)
  await page.evaluate(
    ({ url, key }) => {
      const scope = globalThis as any
      scope.client = scope.supabase.createClient(url, key, {
        auth: { persistSession: true, autoRefreshToken: false, detectSessionInUrl: false, experimental: { passkey: true } },
      })
    },
    { url: plinth.url, key: plinth.anonKey },
  )
})

afterAll(async () => {
  await browser?.close()
  await plinth?.stop()
  await new Promise((resolve) => server?.close(resolve))
})

describe('passkeys with supabase-js and a browser authenticator', () => {
  it('settings report passkeys on', async () => {
    const response = await fetch(`${plinth.url}/auth/v1/settings`, { headers: { apikey: plinth.anonKey } })
    expect((await response.json()).passkeys_enabled).toBe(true)
  })

  it('registers a passkey, signs in with it twice, renames, lists and deletes it', async () => {
    const email = uniqueEmail('passkey')
    const registered = await page.evaluate(
      async ({ email, password }) => {
        const client = (globalThis as any).client
        const signUp = await client.auth.signUp({ email, password })
        const passkey = await client.auth.registerPasskey()
        const listed = await client.auth.passkey.list()
        return {
          signUp: signUp.error?.message ?? null,
          userId: signUp.data.user?.id,
          passkey: passkey.data,
          error: passkey.error?.message ?? null,
          listed: listed.data,
        }
      },
      { email, password: PASSWORD },
    )
    expect(registered.signUp).toBeNull()
    expect(registered.error).toBeNull()
    expect(registered.passkey).toMatchObject({ friendly_name: 'Passkey' })
    expect(registered.listed).toEqual([
      { id: registered.passkey.id, friendly_name: 'Passkey', created_at: registered.passkey.created_at },
    ])
    // The authenticator keeps a discoverable credential for the user's id.
    const [held] = await credentials()
    expect(held.isResidentCredential).toBe(true)
    expect(Buffer.from(held.userHandle!, 'base64').toString()).toBe(registered.userId)
    const [row] = await sql<{ credential_id: Buffer; attestation_type: string; user_verified: boolean }>(
      'select credential_id, attestation_type, user_verified from auth.webauthn_credentials where user_id = $1',
      [registered.userId],
    )
    expect(row.credential_id.toString('base64')).toBe(Buffer.from(held.credentialId, 'base64').toString('base64'))
    expect(row).toMatchObject({ attestation_type: 'none', user_verified: true })

    // Signed out, the passkey alone signs in: nothing is typed.
    const signIns = await page.evaluate(async () => {
      const client = (globalThis as any).client
      const results = []
      for (let i = 0; i < 2; i++) {
        await client.auth.signOut()
        const { data, error } = await client.auth.signInWithPasskey()
        const { data: current } = await client.auth.getSession()
        results.push({
          error: error?.message ?? null,
          email: data?.user?.email,
          token: data?.session?.access_token,
          stored: current.session?.access_token === data?.session?.access_token,
        })
      }
      return results
    })
    for (const signIn of signIns) {
      expect(signIn).toMatchObject({ error: null, email, stored: true })
      const token = claims(signIn.token)
      expect(token.sub).toBe(registered.userId)
      expect(token.aal).toBe('aal1')
      expect(token.amr[0].method).toBe('passkey')
    }
    // Two assertions: the authenticator's counter and the stored one agree.
    const [after] = await credentials()
    const [stored] = await sql<{ sign_count: string; last_used_at: Date | null }>(
      'select sign_count, last_used_at from auth.webauthn_credentials where user_id = $1',
      [registered.userId],
    )
    expect(after.signCount).toBeGreaterThanOrEqual(2)
    expect(Number(stored.sign_count)).toBe(after.signCount)
    expect(stored.last_used_at).not.toBeNull()

    const managed = await page.evaluate(async (passkeyId) => {
      const client = (globalThis as any).client
      const renamed = await client.auth.passkey.update({ passkeyId, friendlyName: 'This laptop' })
      const tooLong = await client.auth.passkey.update({ passkeyId, friendlyName: 'x'.repeat(121) })
      const listed = await client.auth.passkey.list()
      const deleted = await client.auth.passkey.delete({ passkeyId })
      const empty = await client.auth.passkey.list()
      await client.auth.signOut()
      // The authenticator still offers the credential; the server no longer knows it.
      const refused = await client.auth.signInWithPasskey()
      return {
        renamed: renamed.data?.friendly_name,
        tooLong: { status: tooLong.error?.status, code: tooLong.error?.code },
        listed: listed.data.map((p: any) => [p.friendly_name, typeof p.last_used_at]),
        deleted: deleted.error?.message ?? null,
        empty: empty.data,
        refused: { status: refused.error?.status, code: refused.error?.code, session: refused.data?.session ?? null },
      }
    }, registered.passkey.id)
    expect(managed).toEqual({
      renamed: 'This laptop',
      tooLong: { status: 400, code: 'validation_failed' },
      listed: [['This laptop', 'string']],
      deleted: null,
      empty: [],
      refused: { status: 400, code: 'webauthn_verification_failed', session: null },
    })
  })

  it('lets the admin list and delete a user\'s passkeys', async () => {
    const email = uniqueEmail('passkey-admin')
    const { userId, passkeyId } = await page.evaluate(
      async ({ email, password }) => {
        const client = (globalThis as any).client
        const signUp = await client.auth.signUp({ email, password })
        const passkey = await client.auth.registerPasskey()
        return { userId: signUp.data.user?.id as string, passkeyId: passkey.data?.id as string }
      },
      { email, password: PASSWORD },
    )
    expect(passkeyId).toMatch(/^[0-9a-f-]{36}$/)
    const admin = createClient(plinth.url, plinth.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, experimental: { passkey: true } },
      // Node 20 has no WebSocket of its own.
      realtime: { transport: ws as unknown as typeof WebSocket },
    })
    const listed = await admin.auth.admin.passkey.listPasskeys({ userId })
    expect(listed.error).toBeNull()
    expect(listed.data!.map((p) => p.id)).toEqual([passkeyId])
    const deleted = await admin.auth.admin.passkey.deletePasskey({ userId, passkeyId })
    expect(deleted.error).toBeNull()
    expect((await admin.auth.admin.passkey.listPasskeys({ userId })).data).toEqual([])
  })

  it('a WebAuthn second factor raises a session to aal2, which a two-factor user needs to add a passkey', async () => {
    const email = uniqueEmail('passkey-mfa')
    const usb = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'usb',
        hasResidentKey: false,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    })
    const result = await page.evaluate(
      async ({ email, password }) => {
        const client = (globalThis as any).client
        await client.auth.signUp({ email, password })
        const registered = await client.auth.mfa.webauthn.register({ friendlyName: 'Security key' })
        await client.auth.signOut()
        await client.auth.signInWithPassword({ email, password })
        const atAal1 = await client.auth.registerPasskey()
        const { data: factors } = await client.auth.mfa.listFactors()
        const factorId = factors.all[0].id
        const authenticated = await client.auth.mfa.webauthn.authenticate({ factorId })
        const { data: level } = await client.auth.mfa.getAuthenticatorAssuranceLevel()
        return {
          registered: { error: registered.error?.message ?? null, aal: registered.data?.access_token ? 'token' : null },
          atAal1: { status: atAal1.error?.status, code: atAal1.error?.code },
          factor: [factors.all.length, factors.all[0].factor_type, factors.all[0].status],
          authenticated: authenticated.error?.message ?? null,
          level: level.currentLevel,
        }
      },
      { email, password: PASSWORD },
    )
    // The passkey goes to the platform authenticator: the key is unplugged.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: usb.authenticatorId })
    const atAal2 = await page.evaluate(async () => {
      const { data, error } = await (globalThis as any).client.auth.registerPasskey()
      return { error: error?.message ?? null, name: data?.friendly_name }
    })
    expect(result).toEqual({
      registered: { error: null, aal: 'token' },
      atAal1: { status: 403, code: 'insufficient_aal' },
      factor: [1, 'webauthn', 'verified'],
      authenticated: null,
      level: 'aal2',
    })
    expect(atAal2).toEqual({ error: null, name: 'Passkey' })
    // The factor's credential is kept in the platform's shape, its counter moved on.
    const [factor] = await sql<{ web_authn_credential: any }>(
      `select f.web_authn_credential from auth.mfa_factors f join auth.users u on u.id = f.user_id where u.email = $1`,
      [email],
    )
    expect(factor.web_authn_credential.attestationType).toBe('none')
    expect(factor.web_authn_credential.authenticator.signCount).toBeGreaterThanOrEqual(1)
  })
})
