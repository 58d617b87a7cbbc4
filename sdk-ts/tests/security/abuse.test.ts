// Security: abuse of the marketplace's functions, through the unmodified
// supabase-js (`functions.invoke`). Item 7: anonymous callers inflating
// downloads and views and sending mail; item 8: the simulated payment's
// redirect; item 12: the newsletter telling who subscribed.
//
// The shared server's limits are the defaults and every suite calls from
// 127.0.0.1, so the 429s are shown on a second node of the same database
// started here with small limits; the shared one is never exhausted.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import { plinthBinary } from '../support/binary'
import {
  anonClient,
  anonKey,
  databaseUrl,
  jwtSecret,
  plinthUrl,
  serviceClient,
  serviceRoleKey,
  siteUrl,
  sql,
  uniqueEmail,
} from '../support/context'

const repo = resolve(import.meta.dirname, '../../..')
const CREATOR = randomUUID()

/** A free published template of this file's creator; its download is an external link. */
async function freeTemplate(title: string): Promise<string> {
  const id = randomUUID()
  await sql(
    `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id, template_url)
     values ($1, $2, $3, 'abuse', 0, 0, (select id from public.categories where slug = 'productivity'), $4)`,
    [id, CREATOR, title, `https://files.example.com/${id}.zip`],
  )
  return id
}

async function counters(id: string): Promise<{ downloads_count: number; total_views: number }> {
  const rows = await sql<{ downloads_count: number; total_views: number }>(
    'select downloads_count, total_views from public.templates where id = $1',
    [id],
  )
  return rows[0]
}

async function mailCount(to: string): Promise<number> {
  const rows = await sql<{ n: string }>('select count(*) as n from auth.mail_messages where lower(recipient) = lower($1)', [to])
  return Number(rows[0].n)
}

async function refusal(error: unknown): Promise<{ status: number; retryAfter: string | null; body: { error?: string } }> {
  expect(error).toBeInstanceOf(FunctionsHttpError)
  const response = (error as FunctionsHttpError).context as Response
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}

beforeAll(async () => {
  await sql(
    `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2,
             '{"display_name":"Abuse Creator"}', now(), now())`,
    [CREATOR, `creator-abuse-${CREATOR}@example.com`],
  )
})

describe('item 7: counters and mail of the anonymous functions', () => {
  it('item_07 a free template asked for again and again by one e-mail is one download and one mail', async () => {
    const supabase = anonClient()
    const template = await freeTemplate('Abuse: counted once')
    const email = uniqueEmail('abuse-reader')
    const orders = new Set<string>()
    for (const buyer_email of [email, email.toUpperCase(), email, email, email]) {
      const { data, error } = await supabase.functions.invoke('create-free-order', { body: { product_id: template, buyer_email } })
      expect(error).toBeNull()
      // Every answer still carries the download.
      expect(data.downloadUrl).toBe(`https://files.example.com/${template}.zip`)
      expect(data.emailSent).toBe(true)
      orders.add(data.orderId)
    }
    expect(orders.size).toBe(1)
    expect((await counters(template)).downloads_count).toBe(1)
    expect(await mailCount(email)).toBe(1)
  })

  it('item_07 a view counts once per visitor, whatever the body or headers claim', async () => {
    const template = await freeTemplate('Abuse: viewed once')
    for (let i = 0; i < 20; i++) {
      const supabase = anonClient()
      const { data, error } = await supabase.functions.invoke('track-template-view', {
        body: { template_id: template, ip_address: `198.51.100.${i}`, user_agent: `Browser ${i}` },
        headers: { 'user-agent': `Browser ${i}`, 'x-forwarded-for': `198.51.100.${i}`, 'x-real-ip': `198.51.100.${i}` },
      })
      expect(error).toBeNull()
      expect(data.counted).toBe(i === 0)
    }
    expect((await counters(template)).total_views).toBe(1)
    // A server with the service key may name the visitor it tracks for.
    const server = serviceClient()
    for (const [ip, counted] of [['192.0.2.7', true], ['192.0.2.8', true], ['192.0.2.7', false]] as const) {
      const { data } = await server.functions.invoke('track-template-view', { body: { template_id: template, ip_address: ip } })
      expect(data.counted).toBe(counted)
    }
    expect((await counters(template)).total_views).toBe(3)
  })

  describe('on a node of the same database with small limits', () => {
    let node: ChildProcess | undefined
    let dataDir = ''
    let nodeUrl = ''
    const onNode = (key: string): SupabaseClient =>
      createClient(nodeUrl, key, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        realtime: { transport: ws as unknown as typeof WebSocket },
      })

    beforeAll(async () => {
      const port = await new Promise<number>((ok, fail) => {
        const probe = createServer()
        probe.once('error', fail)
        probe.listen(0, '127.0.0.1', () => {
          const address = probe.address()
          probe.close(() => ok(typeof address === 'object' && address ? address.port : 0))
        })
      })
      dataDir = mkdtempSync(join(tmpdir(), 'plinth-abuse-'))
      node = spawn(
        plinthBinary(),
        ['serve', '--port', String(port), '--migrations', join(repo, 'migrations'), '--policies', join(repo, 'policies')],
        {
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl,
            JWT_SECRET: jwtSecret,
            PLINTH_DATA_DIR: dataDir,
            PLINTH_APP_DIR: join(dataDir, 'no-app'),
            PLINTH_ENV_FILE: '/dev/null',
            RUST_LOG: 'warn',
            SITE_URL: siteUrl,
            PLINTH_FUNCTIONS_RATE_LIMIT_FREE_ORDERS: '3',
            PLINTH_FUNCTIONS_RATE_LIMIT_VIEWS: '4',
            PLINTH_FUNCTIONS_RATE_LIMIT_NEWSLETTER: '2',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      const output: string[] = []
      await new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`the second node did not start:\n${output.join('')}`)), 60_000)
        node!.stdout!.on('data', (chunk: Buffer) => {
          output.push(chunk.toString())
          if (output.join('').includes('Plinth is ready')) {
            clearTimeout(timer)
            ok()
          }
        })
        node!.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()))
        node!.once('exit', (code) => {
          clearTimeout(timer)
          fail(new Error(`the second node exited with ${code}:\n${output.join('')}`))
        })
      })
      // The same secret signs both nodes' keys: the shared keys work here.
      nodeUrl = `http://127.0.0.1:${port}`
    })

    afterAll(async () => {
      if (node && node.exitCode === null) {
        const exited = new Promise((ok) => node!.once('exit', ok))
        node.kill('SIGINT')
        await exited
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    })

    it('item_07 free orders from one address stop at its limit with a 429, proxy headers or not', async () => {
      const client = onNode(anonKey)
      const template = await freeTemplate('Abuse: limited')
      const answers = []
      for (let i = 0; i < 6; i++) {
        answers.push(
          await client.functions.invoke('create-free-order', {
            body: { product_id: template, buyer_email: uniqueEmail(`abuse-victim${i}`) },
            headers: { 'x-forwarded-for': `203.0.113.${i}` },
          }),
        )
      }
      expect(answers.slice(0, 3).map((a) => a.error)).toEqual([null, null, null])
      for (const answer of answers.slice(3)) {
        const refused = await refusal(answer.error)
        expect(refused.status).toBe(429)
        expect(refused.body.error).toMatch(/^Too many requests/)
        expect(Number(refused.retryAfter)).toBeGreaterThan(0)
      }
      expect((await counters(template)).downloads_count).toBe(3)
      // The service key (the operator's own server) is not a visitor.
      const { error } = await onNode(serviceRoleKey).functions.invoke('create-free-order', {
        body: { product_id: template, buyer_email: uniqueEmail('abuse-server') },
      })
      expect(error).toBeNull()
    })

    it('item_07 view tracking and the newsletter have limits of their own', async () => {
      const client = onNode(anonKey)
      const template = await freeTemplate('Abuse: hammered')
      const views = []
      for (let i = 0; i < 5; i++) views.push(await client.functions.invoke('track-template-view', { body: { template_id: template } }))
      expect(views.slice(0, 4).map((v) => v.error)).toEqual([null, null, null, null])
      expect((await refusal(views[4].error)).status).toBe(429)
      const news = []
      for (let i = 0; i < 3; i++) {
        news.push(await client.functions.invoke('subscribe-to-newsletter', { body: { email: uniqueEmail('abuse-news'), name: 'N' } }))
      }
      expect(news.slice(0, 2).map((n) => n.error)).toEqual([null, null])
      expect((await refusal(news[2].error)).status).toBe(429)
    })
  })
})

describe('item 8: the simulated payment sends the browser only within the site', () => {
  it('item_08 every off-site return_url lands on the site instead', async () => {
    const paid = randomUUID()
    await sql(
      `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id)
       values ($1, $2, 'Abuse: paid', 'paid', 4, 400, (select id from public.categories where slug = 'productivity'))`,
      [paid, CREATOR],
    )
    const { data, error } = await anonClient().functions.invoke('create-payment-intent', {
      body: { templateId: paid, buyerEmail: uniqueEmail('abuse-payer') },
    })
    expect(error).toBeNull()
    const paymentId = new URL(data.confirmUrl).pathname.split('/').pop()
    const endpoint = `${plinthUrl}/api/simulated-payments/${paymentId}/confirm`
    const home = new URL('/', siteUrl).toString()
    const landing = async (returnUrl: string) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_secret: data.clientSecret, return_url: returnUrl }).toString(),
      })
      expect(response.status).toBe(303)
      // Resolved as the browser resolves it, against the page that posted.
      return new URL(response.headers.get('location')!, endpoint).toString()
    }
    for (const target of [
      '//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example/x',
      '/\n/evil.example',
      '/%09/evil.example',
      '/%5Cevil.example',
      '/%2F/evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      `${siteUrl}@evil.example/`,
    ]) {
      expect(await landing(target), JSON.stringify(target)).toBe(home)
    }
    expect(await landing('/download-secure/o?token=t')).toBe(new URL('/download-secure/o?token=t', siteUrl).toString())
  })
})

describe('item 12: the newsletter does not tell who subscribed', () => {
  it('item_12_newsletter answers a new and a known address alike', async () => {
    const supabase = anonClient()
    const known = uniqueEmail('abuse-known')
    await sql("insert into public.newsletter_subscribers (email, name) values ($1, 'Known')", [known])
    const fresh = await supabase.functions.invoke('subscribe-to-newsletter', { body: { email: uniqueEmail('abuse-fresh'), name: 'N' } })
    expect(fresh.error).toBeNull()
    for (const email of [known, known.toUpperCase()]) {
      const again = await supabase.functions.invoke('subscribe-to-newsletter', { body: { email, name: 'Someone' } })
      expect(again.error).toBeNull()
      expect(again.response?.status).toBe(fresh.response?.status)
      expect(again.data).toEqual(fresh.data)
    }
    expect(fresh.data).toEqual({ success: true })
    const rows = await sql<{ name: string }>('select name from public.newsletter_subscribers where lower(email) = lower($1)', [known])
    expect(rows).toEqual([{ name: 'Known' }])
  })
})
