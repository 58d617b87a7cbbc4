// Security: abuse of the marketplace's functions, through the unmodified
// supabase-js (`functions.invoke`). Item 12: the newsletter telling who
// subscribed.
import { describe, expect, it } from 'vitest'
import { anonClient, sql, uniqueEmail } from '../support/context'

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
