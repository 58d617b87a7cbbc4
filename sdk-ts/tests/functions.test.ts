// supabase.functions.invoke(...) from the unmodified client against
// /functions/v1: the marketplace's server-side calls, with the simulated
// payment provider (no STRIPE_SECRET_KEY in the suite).
import { beforeAll, describe, expect, it } from 'vitest'
import { FunctionsHttpError } from '@supabase/supabase-js'
import { anonClient, mailboxLinks, plinthUrl, sql, uniqueEmail } from './support/context'

const CREATOR = 'c0000000-0000-4000-8000-00000000f001'
const FREE = 'c0000000-0000-4000-8000-00000000f002'
const PAID = 'c0000000-0000-4000-8000-00000000f003'

beforeAll(async () => {
  await sql(
    `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', 'creator-fn@example.com',
             '{"display_name":"Fn Creator"}', now(), now())
     on conflict (id) do nothing`,
    [CREATOR],
  )
  await sql(
    `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id, template_url, template_file_url)
     values ($2, $1, 'Free Planner', 'free', 0, 0, (select id from public.categories where slug = 'productivity'),
             'https://files.example.com/free-planner.zip', null),
            ($3, $1, 'Paid Planner', 'paid', 9.99, 999, (select id from public.categories where slug = 'productivity'),
             null, 'template-files/c0000000-0000-4000-8000-00000000f001/files/paid.zip')
     on conflict (id) do nothing`,
    [CREATOR, FREE, PAID],
  )
})

async function errorBody(error: unknown): Promise<{ status: number; body: { error?: string } }> {
  expect(error).toBeInstanceOf(FunctionsHttpError)
  const response = (error as FunctionsHttpError).context as Response
  return { status: response.status, body: await response.json() }
}

describe('functions', () => {
  it('track-template-view counts a visitor once per window', async () => {
    const supabase = anonClient()
    const before = await sql<{ total_views: number }>('select total_views from public.templates where id = $1', [FREE])
    const body = { template_id: FREE, ip_address: null, user_agent: 'vitest/1' }
    const first = await supabase.functions.invoke('track-template-view', { body })
    expect(first.error).toBeNull()
    const again = await supabase.functions.invoke('track-template-view', { body })
    expect(again.error).toBeNull()
    const after = await sql<{ total_views: number }>('select total_views from public.templates where id = $1', [FREE])
    expect(after[0].total_views).toBe(before[0].total_views + 1)
  })

  it('create-free-order returns a download link and e-mails it; paid templates are refused', async () => {
    const supabase = anonClient()
    const email = uniqueEmail('buyer')
    const { data, error } = await supabase.functions.invoke('create-free-order', {
      body: { product_id: FREE, buyer_email: email },
    })
    expect(error).toBeNull()
    expect(typeof data.downloadUrl).toBe('string')
    const downloads = await sql<{ downloads_count: number }>('select downloads_count from public.templates where id = $1', [FREE])
    expect(downloads[0].downloads_count).toBeGreaterThanOrEqual(1)
    expect((await mailboxLinks(email)).length).toBeGreaterThan(0)

    const paid = await supabase.functions.invoke('create-free-order', { body: { product_id: PAID, buyer_email: email } })
    const refused = await errorBody(paid.error)
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect(refused.body.error).toBeTruthy()

    const missing = await supabase.functions.invoke('create-free-order', { body: { product_id: FREE } })
    expect((await errorBody(missing.error)).status).toBe(400)
  })

  it('buys a paid template: payment intent, 402 until paid, then the download', async () => {
    const supabase = anonClient()
    const email = uniqueEmail('payer')
    const intent = await supabase.functions.invoke('create-payment-intent', {
      body: { templateId: PAID, buyerEmail: email, price: 1 },
    })
    expect(intent.error).toBeNull()
    const { clientSecret, orderId, downloadToken, confirmUrl } = intent.data
    expect(clientSecret && orderId && downloadToken && confirmUrl).toBeTruthy()
    // The amount came from the database, not from the client's `price`.
    const order = await sql<{ price_in_cents: number; payment_status: string }>(
      'select price_in_cents, payment_status from public.orders where id = $1',
      [orderId],
    )
    expect(order[0]).toEqual({ price_in_cents: 999, payment_status: 'pending' })

    const early = await supabase.functions.invoke('validate-download', { body: { orderId, token: downloadToken } })
    const notPaid = await errorBody(early.error)
    expect(notPaid.status).toBe(402)

    const wrong = await supabase.functions.invoke('validate-download', { body: { orderId, token: 'not-the-token' } })
    expect((await errorBody(wrong.error)).status).toBe(403)
    const missing = await supabase.functions.invoke('validate-download', { body: { orderId } })
    expect((await errorBody(missing.error)).body.error).toBe('Missing order ID or token.')

    // Pay on the simulated provider's confirmation endpoint.
    const paymentId = new URL(confirmUrl).pathname.split('/').pop()
    const confirmed = await fetch(`${plinthUrl}/api/simulated-payments/${paymentId}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_secret: clientSecret }),
    })
    expect(confirmed.status).toBe(200)

    const valid = await supabase.functions.invoke('validate-download', { body: { orderId, token: downloadToken } })
    expect(valid.error).toBeNull()
    expect(valid.data.isPaid).toBe(true)
    expect(valid.data.price_in_cents).toBe(999)
    expect(valid.data.buyer_email).toBe(email)
  })

  it('subscribe-to-newsletter stores a subscriber once', async () => {
    const supabase = anonClient()
    const email = uniqueEmail('news')
    for (let i = 0; i < 2; i++) {
      const { error } = await supabase.functions.invoke('subscribe-to-newsletter', { body: { email, name: 'Reader' } })
      expect(error).toBeNull()
    }
    const rows = await sql('select 1 from public.newsletter_subscribers where lower(email) = lower($1)', [email])
    expect(rows.length).toBe(1)
    const invalid = await supabase.functions.invoke('subscribe-to-newsletter', { body: { name: 'No Email' } })
    expect((await errorBody(invalid.error)).status).toBe(400)
  })

  it('rejects a forged token with 401', async () => {
    const response = await fetch(`${plinthUrl}/functions/v1/subscribe-to-newsletter`, {
      method: 'POST',
      headers: { authorization: 'Bearer not.a.jwt', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x@example.com', name: 'x' }),
    })
    expect(response.status).toBe(401)
  })
})
