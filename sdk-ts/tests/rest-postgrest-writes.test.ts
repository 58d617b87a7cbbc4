// PostgREST v14's writes through the unmodified supabase-js: upsert status
// (201 inserted / 200 merged), missing=default (defaultToNull: false),
// PUT-free upserts on a unique column, ignoreDuplicates, the status text of
// custom errors. The schema is the Rust suite's
// (crates/rest/tests/postgrest/schema/0020_writes.sql).
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceClient } from './support/context'
import { applyCaseSchema } from './support/postgrest-cases'

beforeAll(() => applyCaseSchema('0020_writes.sql', () => serviceClient().from('wr_defaults').select('id').limit(1)))

describe('upsert status', () => {
  it('answers 200 OK when every row was merged, 201 Created when one was inserted', async () => {
    const supabase = serviceClient()
    const merged = await supabase
      .from('wr_items')
      .upsert([{ id: 1, name: 'uno', qty: 11 }])
      .select()
    expect(merged).toMatchObject({
      error: null,
      status: 200,
      statusText: 'OK',
      data: [{ id: 1, name: 'uno', qty: 11 }],
    })

    const mixed = await supabase
      .from('wr_items')
      .upsert([
        { id: 2, name: 'dos', qty: 22 },
        { id: 3, name: 'tres', qty: 33 },
      ])
      .select('id')
    expect(mixed).toMatchObject({ error: null, status: 201, statusText: 'Created', data: [{ id: 2 }, { id: 3 }] })

    // Without .select(): no body, the same statuses.
    const minimal = await supabase.from('wr_items').upsert({ id: 3, name: 'three', qty: 3 })
    expect(minimal).toMatchObject({ error: null, status: 200, statusText: 'OK', data: null })
    const inserted = await supabase.from('wr_items').upsert({ id: 4, name: 'four', qty: 4 })
    expect(inserted).toMatchObject({ error: null, status: 201, statusText: 'Created', data: null })
  })

  it('upserts on a unique column with onConflict, and ignores duplicates', async () => {
    const supabase = serviceClient()
    const merged = await supabase
      .from('wr_tags')
      .upsert([{ slug: 'red', label: 'Rouge' }], { onConflict: 'slug' })
      .select('id, slug, label')
    expect(merged).toMatchObject({ status: 200, data: [{ id: 1, slug: 'red', label: 'Rouge' }] })

    const ignored = await supabase
      .from('wr_tags')
      .upsert(
        [
          { slug: 'red', label: 'ignored' },
          { slug: 'teal', label: 'Teal' },
        ],
        { onConflict: 'slug', ignoreDuplicates: true },
      )
      .select('slug, label')
    expect(ignored).toMatchObject({ error: null, status: 201, data: [{ slug: 'teal', label: 'Teal' }] })
    const { data } = await supabase.from('wr_tags').select('label').eq('slug', 'red')
    expect(data).toEqual([{ label: 'Rouge' }])
  })

  it('takes defaults for absent keys with defaultToNull: false', async () => {
    const supabase = serviceClient()
    const { data, error, status } = await supabase
      .from('wr_items')
      .upsert(
        [
          { id: 1, name: 'one again' },
          { id: 20, name: 'twenty', qty: 5 },
        ],
        { defaultToNull: false },
      )
      .select()
    expect(error).toBeNull()
    expect(status).toBe(201)
    expect(data).toEqual([
      { id: 1, name: 'one again', qty: 1 },
      { id: 20, name: 'twenty', qty: 5 },
    ])
  })
})

describe('insert with missing=default', () => {
  it('fills each absent key with its default, per row', async () => {
    const supabase = serviceClient()
    const { data, error, status, statusText } = await supabase
      .from('wr_defaults')
      .insert([{ title: 'first', note: 'n' }, { status: 'done' }, {}], { defaultToNull: false })
      .select('id, ticket, uid, title, status, note, title_len')
    expect(error).toBeNull()
    expect([status, statusText]).toEqual([201, 'Created'])
    const rows = data ?? []
    expect(rows.map(({ id, ticket, title, status, note, title_len }) => ({ id, ticket, title, status, note, title_len }))).toEqual([
      { id: 1, ticket: 100, title: 'first', status: 'draft', note: 'n', title_len: 5 },
      { id: 2, ticket: 101, title: 'untitled', status: 'done', note: null, title_len: 8 },
      { id: 3, ticket: 102, title: 'untitled', status: 'draft', note: null, title_len: 8 },
    ])
    expect(new Set(rows.map((r) => r.uid)).size).toBe(3)
  })

  // PostgREST v14 lays each row over the object of the named columns'
  // defaults, so every default runs for every row: the row with its own id
  // draws an identity value too, and the next row gets the one after it.
  it('draws a default for every row of the batch, the rows with their own key included', async () => {
    const supabase = serviceClient()
    const probe = await supabase.from('wr_defaults').insert({ title: 'probe' }).select('id').single()
    expect(probe.error).toBeNull()
    const n = Number(probe.data?.id)
    const { data, error } = await supabase
      .from('wr_defaults')
      .insert([{ id: 5000, title: 'own' }, { title: 'drawn' }], { defaultToNull: false })
      .select('id, title')
    expect(error).toBeNull()
    expect(data).toEqual([
      { id: 5000, title: 'own' },
      { id: n + 2, title: 'drawn' },
    ])

    const tag = await supabase.from('wr_tags').insert({ slug: 'probe' }).select('id').single()
    expect(tag.error).toBeNull()
    const m = Number(tag.data?.id)
    const upserted = await supabase
      .from('wr_tags')
      .upsert([{ id: 1, slug: 'red', label: 'Rouge' }, { slug: 'violet' }], {
        onConflict: 'slug',
        defaultToNull: false,
      })
      .select('id, slug')
    expect(upserted.error).toBeNull()
    expect(upserted.data).toEqual([
      { id: 1, slug: 'red' },
      { id: m + 2, slug: 'violet' },
    ])
  })

  it('writes NULL for absent keys by default (defaultToNull: true)', async () => {
    const supabase = serviceClient()
    const { data, error, status } = await supabase
      .from('wr_serial')
      .insert([{ id: 1, label: 'one' }, { id: 2 }])
      .select()
    expect(data).toBeNull()
    expect(status).toBe(400)
    expect(error).toEqual({
      code: '23502',
      details: 'Failing row contains (2, null).',
      hint: null,
      message: 'null value in column "label" of relation "wr_serial" violates not-null constraint',
    })
  })
})

describe('custom errors', () => {
  it('carries status_text as the status text', async () => {
    const { error, status, statusText } = await serviceClient().rpc('wr_pay', { status_text: true })
    expect([status, statusText]).toEqual([402, 'Insufficient Credits'])
    expect(error).toEqual({
      code: 'WR402',
      details: 'Quota exceeded',
      hint: 'Upgrade your plan',
      message: 'Payment Required',
    })
    const standard = await serviceClient().rpc('wr_pay', { status_text: false })
    expect([standard.status, standard.statusText]).toEqual([402, 'Payment Required'])
  })

  it('uses the message of a PTnnn error as the status text', async () => {
    const { error, status, statusText } = await serviceClient().rpc('wr_teapot')
    expect([status, statusText]).toEqual([418, 'Short and stout'])
    expect(error).toEqual({ code: 'PT418', details: null, hint: null, message: 'Short and stout' })
  })
})
