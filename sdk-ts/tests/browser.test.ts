// The unmodified client in a real browser (Chromium), on a page of another
// origin than the API, as an app on its own host calls a project: every
// call crosses origins, so what is checked is the preflights (the app's own
// `global.headers` included), the CORS headers on every answer (errors too,
// or their bodies cannot be read) and the response headers the client
// reads (`content-range` for counts, the auth API version for error codes).
// The bundle is the package's own browser build (dist/umd), as a page
// loading it from a CDN gets it.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { anonKey, plinthUrl, sql, uniqueEmail } from './support/context'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CREATOR = 'c0000000-0000-4000-8000-00000000b001'
const TEMPLATE = 'c0000000-0000-4000-8000-00000000b002'

let server: http.Server
let browser: Browser
let page: Page
let pageOrigin: string
// Requests the browser gave up on (a refused preflight, a missing
// Access-Control-Allow-Origin): none may happen.
const failed: string[] = []

beforeAll(async () => {
  await sql(
    `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', 'creator-browser@example.com',
             '{"display_name":"Browser Creator"}', now(), now())
     on conflict (id) do nothing`,
    [CREATOR],
  )
  await sql(
    `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id, template_url)
     values ($2, $1, 'Cross-origin Kit', 'free', 0, 0, (select id from public.categories where slug = 'productivity'),
             'https://files.example.com/kit.zip')
     on conflict (id) do nothing`,
    [CREATOR, TEMPLATE],
  )
  const bundle = await readFile(new URL('../node_modules/@supabase/supabase-js/dist/umd/supabase.js', import.meta.url))
  server = http.createServer((request, response) => {
    if (request.url === '/supabase.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' })
      response.end(bundle)
      return
    }
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<!doctype html><html lang="en"><title>An app elsewhere</title><script src="/supabase.js"></script></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  expect(new URL(pageOrigin).origin).not.toBe(new URL(plinthUrl).origin)

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  page = await browser.newPage()
  page.on('requestfailed', (request) => {
    failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`)
  })
  await page.goto(pageOrigin)
  // One client for the page, as an app makes it: its session in the page's
  // localStorage, and a header of the app's own on every call.
  await page.evaluate(
    ({ url, key }) => {
      const scope = globalThis as any
      scope.client = scope.supabase.createClient(url, key, {
        global: { headers: { 'x-tenant': 'acme' } },
        auth: { persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
      })
    },
    { url: plinthUrl, key: anonKey },
  )
})

afterEach(() => {
  expect(failed.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
})

describe('supabase-js in a browser on another origin', () => {
  it('reads rows with an exact count, and reads a refused write\'s error', async () => {
    const result = await page.evaluate(async () => {
      const client = (globalThis as any).client
      const read = await client.from('categories').select('slug', { count: 'exact' }).order('slug').limit(2)
      const write = await client.from('categories').insert({ slug: 'nope', name: 'Nope' })
      return { read, write: { status: write.status, code: write.error?.code } }
    })
    expect(result.read.error).toBeNull()
    expect(result.read.data).toHaveLength(2)
    // The total comes from Content-Range, which only an exposed header shows.
    const [{ total }] = await sql<{ total: string }>('select count(*)::text as total from public.categories')
    expect(result.read.count).toBe(Number(total))
    expect(result.write).toEqual({ status: 401, code: '42501' })
  })

  it('signs up, signs in and reads an auth error\'s code', async () => {
    const email = uniqueEmail('browser')
    const signUp = await page.evaluate(
      async ({ email }) => {
        const { error } = await (globalThis as any).client.auth.signUp({ email, password: 'a-good-password' })
        return error?.message ?? null
      },
      { email },
    )
    expect(signUp).toBeNull()
    await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
    const result = await page.evaluate(
      async ({ email }) => {
        const client = (globalThis as any).client
        const wrong = await client.auth.signInWithPassword({ email, password: 'not-the-password' })
        const right = await client.auth.signInWithPassword({ email, password: 'a-good-password' })
        const user = await client.auth.getUser()
        return {
          wrong: { status: wrong.error?.status, code: wrong.error?.code },
          session: typeof right.data.session?.access_token,
          email: user.data.user?.email,
        }
      },
      { email },
    )
    // The code is the body's `code`, read because X-Supabase-Api-Version is exposed.
    expect(result).toEqual({ wrong: { status: 400, code: 'invalid_credentials' }, session: 'string', email })
  })

  it('uploads, downloads, lists and signs files as the signed-in user', async () => {
    const result = await page.evaluate(async () => {
      const client = (globalThis as any).client
      const { data: auth } = await client.auth.getUser()
      const uid = auth.user.id
      const bytes = new Uint8Array(2048).map((_, i) => i % 251)
      const avatars = client.storage.from('avatars')
      const path = `${uid}/cross-origin.png`
      const first = await avatars.upload(path, bytes, { contentType: 'image/png' })
      const again = await avatars.upload(path, bytes, { contentType: 'image/png' })
      const upsert = await avatars.upload(path, bytes, { contentType: 'image/png', upsert: true })
      const download = await avatars.download(path)
      const got = new Uint8Array(await download.data.arrayBuffer())
      const signed = await avatars.createSignedUrl(path, 60)
      const viaSigned = await fetch(signed.data.signedUrl)
      // A File from an <input> goes as multipart form data, with metadata.
      const file = new File([bytes.slice(0, 1000)], 'picked.png', { type: 'image/png' })
      const picked = await avatars.upload(`${uid}/picked.png`, file, { metadata: { from: 'input' } })
      const info = await avatars.info(`${uid}/picked.png`)
      // A signed upload URL, as a server hands one to a browser: a PUT.
      const ticket = await avatars.createSignedUploadUrl(`${uid}/ticket.png`)
      const ticketed = await avatars.uploadToSignedUrl(`${uid}/ticket.png`, ticket.data.token, new Blob([bytes.slice(0, 10)], { type: 'image/png' }))
      const listed = await avatars.list(uid, { sortBy: { column: 'name', order: 'asc' } })
      return {
        first: first.error?.message ?? null,
        again: again.error?.message ?? null,
        upsert: upsert.error?.message ?? null,
        same: got.length === bytes.length && got.every((b: number, i: number) => b === bytes[i]),
        signed: { status: viaSigned.status, length: (await viaSigned.arrayBuffer()).byteLength },
        picked: picked.error?.message ?? null,
        info: { size: info.data?.size, type: info.data?.contentType, metadata: info.data?.metadata },
        ticketed: ticketed.error?.message ?? null,
        listed: listed.data?.map((o: { name: string; metadata: { size: number } }) => [o.name, o.metadata.size]),
      }
    })
    expect(result).toEqual({
      first: null,
      again: 'The resource already exists',
      upsert: null,
      same: true,
      signed: { status: 200, length: 2048 },
      picked: null,
      info: { size: 1000, type: 'image/png', metadata: { from: 'input' } },
      ticketed: null,
      listed: [
        ['cross-origin.png', 2048],
        ['picked.png', 1000],
        ['ticket.png', 10],
      ],
    })
  })

  it('invokes a function and hears its own broadcast over the browser\'s WebSocket', async () => {
    const result = await page.evaluate(
      async ({ template }) => {
        const client = (globalThis as any).client
        const invoked = await client.functions.invoke('track-template-view', {
          body: { template_id: template, ip_address: null, user_agent: 'chromium' },
        })
        const channel = client.channel('cross-origin', { config: { broadcast: { self: true, ack: true } } })
        const heard = new Promise((resolve) => channel.on('broadcast', { event: 'hello' }, (m: any) => resolve(m.payload)))
        await new Promise((resolve, reject) => {
          channel.subscribe((status: string) => {
            if (status === 'SUBSCRIBED') resolve(status)
            else if (status !== 'CLOSED') reject(new Error(status))
          })
        })
        const sent = await channel.send({ type: 'broadcast', event: 'hello', payload: { from: location.origin } })
        const payload = await heard
        await client.removeChannel(channel)
        return { invoked: invoked.error?.message ?? null, sent, payload }
      },
      { template: TEMPLATE },
    )
    expect(result).toEqual({ invoked: null, sent: 'ok', payload: { from: pageOrigin } })
    const [{ total_views }] = await sql<{ total_views: number }>('select total_views from public.templates where id = $1', [TEMPLATE])
    expect(total_views).toBe(1)
  })
})
