// Security: links, through the unmodified supabase-js. Item 1: a paid
// template's private file is never read nor taken through a link its creator
// or another wrote; item 2: template links are web links only; item 10: a
// payment account id is its owner's only; item 11: nobody upvotes or rates
// their own template.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js'
import { anonClient, browserClient, plinthUrl, sql, uniqueEmail } from '../support/context'

const PAID_BYTES = 'PK paid bytes of the links suite'

/** A confirmed user, signed in on a browser-like client. */
async function signedIn(tag: string): Promise<{ supabase: SupabaseClient; id: string; token: string }> {
  const supabase = browserClient()
  const email = uniqueEmail(tag)
  const signUp = await supabase.auth.signUp({ email, password: 'a-good-password' })
  expect(signUp.error).toBeNull()
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await supabase.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  return { supabase, id: data.user!.id, token: data.session!.access_token }
}

/** A published template of `creator`, inserted as approval would. */
async function published(creator: string, title: string, price: number, file: string | null = null): Promise<string> {
  const id = randomUUID()
  await sql(
    `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id, template_file_url)
     values ($1, $2, $3, 'links suite', $4::numeric, round($4::numeric * 100)::int, (select id from public.categories where slug = 'productivity'), $5)`,
    [id, creator, title, price, file],
  )
  return id
}

async function statusOf(error: unknown): Promise<number> {
  expect(error).toBeInstanceOf(FunctionsHttpError)
  return ((error as FunctionsHttpError).context as Response).status
}

describe('security: links', () => {
  it('item 1: a paid file is neither read nor taken through a creator-set link', async () => {
    const seller = await signedIn('links-seller')
    const thief = await signedIn('links-thief')
    const path = `${seller.id}/files/${Date.now()}-paid.zip`
    const upload = await seller.supabase.storage
      .from('template-files')
      .upload(path, new Blob([PAID_BYTES], { type: 'application/zip' }), { contentType: 'application/zip' })
    expect(upload.error).toBeNull()
    const paid = await published(seller.id, 'Links Paid', 15, `template-files/${path}`)

    // Nobody who has not bought it reads the private path.
    for (const reader of [anonClient(), thief.supabase]) {
      const { data, error } = await reader.from('templates').select('*').eq('id', paid)
      expect(error).toBeNull()
      expect(data).toHaveLength(1)
      expect(JSON.stringify(data)).not.toContain(path)
      const kept = await reader.from('paid_template_links').select('*').eq('template_id', paid)
      expect(kept.data ?? []).toEqual([])
    }
    // Its creator does.
    const own = await seller.supabase.from('paid_template_links').select('template_file_url').eq('template_id', paid)
    expect(own.data).toEqual([{ template_file_url: `template-files/${path}` }])

    // The thief's own free template cannot point at it.
    const free = await published(thief.id, 'Links Free', 0)
    for (const link of [`template-files/${path}`, `${plinthUrl}/storage/v1/object/authenticated/template-files/${path}`]) {
      await thief.supabase.from('templates').update({ template_url: link }).eq('id', free)
      const got = await anonClient().functions.invoke('create-free-order', {
        body: { product_id: free, buyer_email: uniqueEmail('links-taker') },
      })
      if (got.data?.downloadUrl) {
        const response = await fetch(new URL(got.data.downloadUrl, plinthUrl))
        expect(await response.text()).not.toContain(PAID_BYTES)
      } else {
        expect(await statusOf(got.error)).toBe(404)
      }
    }
    const bare = await thief.supabase.from('templates').update({ template_url: `template-files/${path}` }).eq('id', free)
    expect(bare.error?.code).toBe('23514')

    // Nor submit it as the file of a template of their own.
    const category = (await sql<{ id: string }>("select id from public.categories where slug = 'productivity'"))[0].id
    const submitted = await thief.supabase.rpc('submit_template', {
      template: { title: 'Stolen', description: 'd', price: 0, category_id: category, template_file_url: `template-files/${path}` },
    })
    expect(submitted.error?.code).toBe('42501')
    const pending = await thief.supabase.from('templates_pending_approval').insert({
      creator_id: thief.id,
      title: 'Stolen 2',
      description: 'd',
      status: 'Pending Approval',
      category_id: category,
      template_file_url: `${plinthUrl}/storage/v1/object/sign/template-files/${path}`,
    })
    expect(pending.error?.code).toBe('42501')
  })

  it('item 2: a template link is a web link, never javascript: or data:', async () => {
    const creator = await signedIn('links-linker')
    const free = await published(creator.id, 'Links Web', 0)
    for (const link of ['javascript:alert(document.domain)', 'JAVASCRIPT:alert(1)', 'data:text/html,<script>alert(1)</script>', '//evil.example/x']) {
      const { error } = await creator.supabase.from('templates').update({ template_url: link }).eq('id', free)
      expect(error?.code, link).toBe('23514')
      const draft = await creator.supabase.from('templates_draft').insert({ creator_id: creator.id, title: 'Draft', template_url: link })
      expect(draft.error?.code, link).toBe('23514')
    }
    const https = await creator.supabase.from('templates').update({ template_url: 'https://workspace.example/dup/links' }).eq('id', free)
    expect(https.error).toBeNull()
    const { data, error } = await anonClient().functions.invoke('create-free-order', {
      body: { product_id: free, buyer_email: uniqueEmail('links-fan') },
    })
    expect(error).toBeNull()
    expect(data.downloadUrl).toBe('https://workspace.example/dup/links')
  })

  it('item 10: a payment account id is read by its owner only', async () => {
    const creator = await signedIn('links-earner')
    const other = await signedIn('links-nosy')
    const connect = await fetch(`${plinthUrl}/api/stripe/connect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${creator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: creator.id }),
    })
    expect(connect.status).toBe(200)
    // The simulated provider's onboarding link is the return URL, with the account.
    const account = new URL((await connect.json()).url).searchParams.get('stripe_account')!
    expect(account).toMatch(/^acct_/)

    for (const reader of [anonClient(), other.supabase]) {
      const profile = await reader.from('profiles').select('*').eq('id', creator.id)
      expect(profile.error).toBeNull()
      expect(JSON.stringify(profile.data)).not.toContain(account)
      const accounts = await reader.from('payment_accounts').select('*')
      expect(JSON.stringify(accounts.data ?? [])).not.toContain(account)
    }
    const own = await creator.supabase.from('payment_accounts').select('stripe_account_id, stripe_account_issue').eq('user_id', creator.id)
    expect(own.error).toBeNull()
    expect(own.data).toEqual([{ stripe_account_id: account, stripe_account_issue: true }])
    const changed = await creator.supabase.from('payment_accounts').update({ stripe_account_id: 'acct_mine_now' }).eq('user_id', creator.id).select()
    expect(changed.error?.code ?? (changed.data?.length === 0 ? 'no rows' : 'changed')).not.toBe('changed')
  })

  it('item 11: a creator neither upvotes nor rates their own template', async () => {
    const creator = await signedIn('links-self')
    const fan = await signedIn('links-fan')
    const own = await published(creator.id, 'Links Own', 0)
    const upvote = await creator.supabase.from('template_upvotes').insert({ template_id: own, user_id: creator.id })
    expect(upvote.error?.code).toBe('42501')
    const rating = await creator.supabase
      .from('template_ratings')
      .upsert({ template_id: own, user_id: creator.id, rating: 5, review_text: null }, { onConflict: 'template_id,user_id' })
    expect(rating.error?.code).toBe('42501')
    expect(await sql('select 1 from public.template_upvotes where template_id = $1', [own])).toHaveLength(0)

    const fanVote = await fan.supabase.from('template_upvotes').insert({ template_id: own, user_id: fan.id })
    expect(fanVote.error).toBeNull()
    const fanRating = await fan.supabase
      .from('template_ratings')
      .upsert({ template_id: own, user_id: fan.id, rating: 4, review_text: 'Useful' }, { onConflict: 'template_id,user_id' })
    expect(fanRating.error).toBeNull()
  })
})
