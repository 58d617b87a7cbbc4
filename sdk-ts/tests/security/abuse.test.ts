// Security: abuse of the marketplace's functions, through the unmodified
// supabase-js (`functions.invoke`). Item 8: the simulated payment's
// redirect; item 12: the newsletter telling who subscribed.
import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { anonClient, plinthUrl, siteUrl, sql, uniqueEmail } from '../support/context'

const CREATOR = randomUUID()

beforeAll(async () => {
  await sql(
    `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2,
             '{"display_name":"Abuse Creator"}', now(), now())`,
    [CREATOR, `creator-abuse-${CREATOR}@example.com`],
  )
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
