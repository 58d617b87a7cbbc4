// PostgREST v14's resource embedding through the unmodified supabase-js
// (`.select('...')` strings as users write them): one-to-one keys as
// objects from both sides, disambiguation (PGRST201 and its details, hints
// by column and by constraint, the same table twice, self-references,
// views over tables), the legacy `count` inside embeds, and aggregates in
// embeds and to-one spreads. The schema is the Rust suite's
// (crates/rest/tests/postgrest/schema/0030_embeds.sql).
//
// Aggregate functions are off by default (PGRST_DB_AGGREGATES_ENABLED, as on
// the platform): the aggregate cases assert PGRST123 then, and the values
// when the server runs with PGRST_DB_AGGREGATES_ENABLED=true.
import { beforeAll, describe, expect, it } from 'vitest'
import { anonClient } from './support/context'
import { applyCaseSchema } from './support/postgrest-cases'

let aggregatesEnabled = false

beforeAll(async () => {
  // Ready once the relationships are in the cache.
  const supabase = anonClient()
  await applyCaseSchema('0030_embeds.sql', () => supabase.from('emb_users').select('id,emb_profiles(bio)').limit(1))
  const probe = await supabase.from('emb_users').select('count()')
  aggregatesEnabled = probe.error === null
})

describe('one-to-one', () => {
  it('embeds an object (null when absent) from the referenced side', async () => {
    const { data, error, status } = await anonClient()
      .from('emb_users')
      .select('name, emb_profiles(bio), emb_passports(number)')
      .order('id')
    expect({ error, status }).toEqual({ error: null, status: 200 })
    expect(data).toEqual([
      { name: 'Ann', emb_profiles: { bio: 'Ann writes' }, emb_passports: { number: 'P-001' } },
      { name: 'Bob', emb_profiles: { bio: 'Bob reads' }, emb_passports: null },
      { name: 'Cid', emb_profiles: null, emb_passports: null },
    ])
  })

  it('embeds an object from the referencing side, and !inner drops rows without one', async () => {
    const supabase = anonClient()
    expect(await supabase.from('emb_profiles').select('bio, emb_users(name)').order('id')).toMatchObject({
      error: null,
      data: [
        { bio: 'Ann writes', emb_users: { name: 'Ann' } },
        { bio: 'Bob reads', emb_users: { name: 'Bob' } },
      ],
    })
    expect(await supabase.from('emb_users').select('name, emb_passports!inner(number)')).toMatchObject({
      error: null,
      data: [{ name: 'Ann', emb_passports: { number: 'P-001' } }],
    })
  })
})

describe('disambiguation', () => {
  it('answers 300 PGRST201 with the details and hint of PostgREST', async () => {
    const { data, error, status } = await anonClient().from('emb_orders').select('id, emb_addresses(city)')
    expect({ data, status }).toEqual({ data: null, status: 300 })
    expect(error).toEqual({
      code: 'PGRST201',
      details: [
        {
          cardinality: 'many-to-one',
          embedding: 'emb_orders with emb_addresses',
          relationship: 'emb_orders_billing_fkey using emb_orders(billing_address_id) and emb_addresses(id)',
        },
        {
          cardinality: 'many-to-one',
          embedding: 'emb_orders with emb_addresses',
          relationship: 'emb_orders_shipping_fkey using emb_orders(shipping_address_id) and emb_addresses(id)',
        },
      ],
      hint: "Try changing 'emb_addresses' to one of the following: 'emb_addresses!emb_orders_billing_fkey', 'emb_addresses!emb_orders_shipping_fkey'. Find the desired relationship in the 'details' key.",
      message: "Could not embed because more than one relationship was found for 'emb_orders' and 'emb_addresses'",
    })
  })

  it('takes hints by column and by constraint, the same table twice under aliases', async () => {
    const { data, error } = await anonClient()
      .from('emb_orders')
      .select('id, billing:emb_addresses!billing_address_id(city), shipping:emb_addresses!emb_orders_shipping_fkey(city)')
      .order('id')
      .limit(2)
    expect(error).toBeNull()
    expect(data).toEqual([
      { id: 1, billing: { city: 'Oslo' }, shipping: { city: 'Rome' } },
      { id: 2, billing: { city: 'Oslo' }, shipping: { city: 'Lima' } },
    ])
    const none = await anonClient().from('emb_orders').select('id, emb_addresses!nope(city)')
    expect(none.status).toBe(400)
    expect(none.error).toEqual({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'emb_orders' and 'emb_addresses' using the hint 'nope' in the schema 'public', but no matches were found.",
      hint: null,
      message: "Could not find a relationship between 'emb_orders' and 'emb_addresses' in the schema cache",
    })
  })

  it('follows the self-reference rules: the table name for children, the column for the parent', async () => {
    const supabase = anonClient()
    expect(
      await supabase
        .from('emb_items')
        .select('name, children:emb_items!parent_id(name)')
        .eq('id', 1)
        .order('id', { referencedTable: 'children' }),
    ).toMatchObject({ error: null, data: [{ name: 'root', children: [{ name: 'a' }, { name: 'b' }] }] })
    expect(await supabase.from('emb_items').select('name, parent:parent_id(name)').eq('id', 4)).toMatchObject({
      error: null,
      data: [{ name: 'a1', parent: { name: 'a' } }],
    })
    // With a hint a self-reference only matches its one-to-many side.
    expect(await supabase.from('emb_items').select('name, parent:emb_items!parent_id(name)').eq('id', 2)).toMatchObject({
      error: null,
      data: [{ name: 'a', parent: [{ name: 'a1' }] }],
    })
  })

  it('embeds through views, which carry the keys of their tables', async () => {
    const supabase = anonClient()
    expect(
      await supabase.from('emb_orders_view').select('order_id, buyer:emb_users!buyer_id(name)').eq('order_id', 3),
    ).toMatchObject({ error: null, data: [{ order_id: 3, buyer: { name: 'Bob' } }] })
    expect(
      await supabase.from('emb_buyers_view').select('full_name, emb_orders_view(order_id)').eq('buyer', 2),
    ).toMatchObject({ error: null, data: [{ full_name: 'Bob', emb_orders_view: [{ order_id: 3 }] }] })
    expect(
      await supabase.from('emb_users_view').select('full_name, emb_profiles(bio)').order('id').limit(1),
    ).toMatchObject({ error: null, data: [{ full_name: 'Ann', emb_profiles: { bio: 'Ann writes' } }] })
  })
})

describe('counts and aggregates', () => {
  it('counts embedded rows with the legacy count, aggregates on or off', async () => {
    const { data, error } = await anonClient().from('emb_users').select('id, emb_messages(count)').order('id')
    expect(error).toBeNull()
    expect(data).toEqual([
      { id: 1, emb_messages: [{ count: 2 }] },
      { id: 2, emb_messages: [{ count: 1 }] },
      { id: 3, emb_messages: [{ count: 0 }] },
    ])
    expect(await anonClient().from('emb_orders').select('id, ...emb_users(count)').order('id')).toMatchObject({
      error: null,
      data: [
        { id: 1, count: 1 },
        { id: 2, count: 1 },
        { id: 3, count: 1 },
        { id: 4, count: 0 },
      ],
    })
  })

  it('aggregates inside embeds and hoists them out of to-one spreads', async () => {
    const supabase = anonClient()
    const inEmbed = await supabase
      .from('emb_users')
      .select('name, emb_orders(total:amount::int.sum(), average:amount.avg()::int, orders:count())')
      .order('id')
    const spread = await supabase
      .from('emb_orders')
      .select('placed_on, ...emb_users(buyers:id.count(), first:name.min())')
      .order('placed_on')
    if (!aggregatesEnabled) {
      for (const r of [inEmbed, spread]) {
        expect(r.status).toBe(400)
        expect(r.error).toEqual({
          code: 'PGRST123',
          details: null,
          hint: null,
          message: 'Use of aggregate functions is not allowed',
        })
      }
      return
    }
    expect(inEmbed).toMatchObject({
      error: null,
      data: [
        { name: 'Ann', emb_orders: [{ total: 31, average: 15, orders: 2 }] },
        { name: 'Bob', emb_orders: [{ total: 5, average: 5, orders: 1 }] },
        { name: 'Cid', emb_orders: [{ total: null, average: null, orders: 0 }] },
      ],
    })
    expect(spread).toMatchObject({
      error: null,
      data: [
        { placed_on: '2024-01-01', buyers: 2, first: 'Ann' },
        { placed_on: '2024-01-02', buyers: 1, first: 'Ann' },
      ],
    })
  })
})

describe('names of embedded tables', () => {
  // PostgREST aliases an embedded table `<table>_<depth>`: the database's
  // errors and the execution plans name it so.
  it('names them <table>_<depth> in errors and plans', async () => {
    const { error, status } = await anonClient().from('emb_users').select('id, emb_messages(sum)')
    expect(status).toBe(400)
    expect(error).toEqual({
      code: '42703',
      details: null,
      hint: null,
      message: 'column emb_messages_1.sum does not exist',
    })
    const plan = await anonClient().from('emb_users').select('id, emb_messages(id)').explain()
    expect(plan.status).toBe(200)
    expect(plan.data).toMatch(/ on emb_messages emb_messages_1 /)
    expect(plan.data).toMatch(/ on emb_users {2}\(/)
    expect(plan.data).not.toMatch(/pgrst_/)
  })
})
