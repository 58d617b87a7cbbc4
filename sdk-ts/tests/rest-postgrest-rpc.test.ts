// PostgREST v14's functions through the unmodified supabase-js
// (`supabase.rpc`): the single unnamed json parameter, overloads with
// defaults (300 PGRST203), PGRST202's wording and hints, counts with
// `{ count: 'exact' }`, `{ head: true }` and `{ get: true }`, CSV and a
// function's own media type (media type handlers). The schema is
// the Rust suite's (crates/rest/tests/postgrest/schema/0010_rpc.sql).
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceClient } from './support/context'
import { applyCaseSchema } from './support/postgrest-cases'

beforeAll(() => applyCaseSchema('0010_rpc.sql', () => serviceClient().rpc('rpc_add', { a: 1, b: 2 })))

describe('single unnamed json parameter', () => {
  it('receives the whole body when no overload matches by name', async () => {
    const supabase = serviceClient()
    expect(await supabase.rpc('rpc_echo_json', { A: 1, B: [2, 3] })).toMatchObject({
      error: null,
      status: 200,
      data: { A: 1, B: [2, 3] },
    })
    // The key "" names the unnamed parameter; the body is passed.
    expect(await supabase.rpc('rpc_echo_json', { '': 5 })).toMatchObject({ error: null, data: { '': 5 } })
    // Named overloads first, then the json fallback.
    expect(await supabase.rpc('rpc_poly', { x: 1, y: 2 })).toMatchObject({ error: null, data: 3 })
    expect(await supabase.rpc('rpc_poly')).toMatchObject({ error: null, data: 'none' })
    expect(await supabase.rpc('rpc_poly', { z: 1 })).toMatchObject({ error: null, data: 'json:{"z":1}' })
  })
})

describe('overloads and missing functions', () => {
  it('answers 300 PGRST203 for overloads differing only in defaulted parameters', async () => {
    const supabase = serviceClient()
    const { data, error, status } = await supabase.rpc('rpc_dflt', { a: 1 })
    expect({ data, status }).toEqual({ data: null, status: 300 })
    expect(error).toMatchObject({
      code: 'PGRST203',
      message:
        'Could not choose the best candidate function between: public.rpc_dflt(a => integer, b => integer), public.rpc_dflt(a => integer, c => text)',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    })
    expect(await supabase.rpc('rpc_dflt', { a: 1, b: 2 })).toMatchObject({ error: null, data: 3 })
    expect(await supabase.rpc('rpc_dflt', { a: 1, c: 'z' }, { get: true })).toMatchObject({ error: null, data: '1z' })
  })

  it('answers 404 PGRST202 in PostgREST words, with a hint only when one is close', async () => {
    const supabase = serviceClient()
    const one = await supabase.rpc('rpc_add', { a: 1 }, { get: true })
    expect(one.status).toBe(404)
    expect(one.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.rpc_add(a) in the schema cache',
      details:
        'Searched for the function public.rpc_add with parameter a, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.rpc_add(a, b)',
    })
    const posted = await supabase.rpc('rpc_add', { b: 1, a: 2, c: 3 })
    expect(posted.error).toMatchObject({
      message: 'Could not find the function public.rpc_add(a, b, c) in the schema cache',
      details:
        'Searched for the function public.rpc_add with parameters a, b, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    })
    const typo = await supabase.rpc('rpc_get_item', { lim: 2 })
    expect(typo.error).toMatchObject({ hint: 'Perhaps you meant to call the function public.rpc_get_items' })
    const far = await supabase.rpc('completely_unrelated_name')
    expect(far.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.completely_unrelated_name without parameters in the schema cache',
      hint: null,
    })
  })
})

describe('counts on calls', () => {
  it('counts a set with count: exact (POST, GET and HEAD)', async () => {
    const supabase = serviceClient()
    const posted = await supabase.rpc('rpc_items_upto', { n: 3 }, { count: 'exact' })
    expect(posted).toMatchObject({ error: null, status: 200, count: 3 })
    expect(posted.data).toHaveLength(3)
    const got = await supabase.rpc('rpc_items_upto', { n: 2 }, { count: 'exact', get: true })
    expect(got).toMatchObject({ error: null, status: 200, count: 2 })
    const head = await supabase.rpc('rpc_items_upto', { n: 4 }, { count: 'exact', head: true })
    expect(head).toMatchObject({ error: null, status: 200, count: 4, data: null })
    const page = await supabase.rpc('rpc_items_upto', { n: 3 }, { count: 'exact' }).range(1, 1)
    expect(page).toMatchObject({ error: null, status: 206, count: 3, data: [{ id: 2, name: 'two' }] })
  })

  it('counts one row for a single value', async () => {
    const supabase = serviceClient()
    expect(await supabase.rpc('rpc_add', { a: 3, b: 4 }, { count: 'exact' })).toMatchObject({
      error: null,
      data: 7,
      count: 1,
    })
    expect(await supabase.rpc('rpc_item', { i: 2 }, { count: 'exact', get: true })).toMatchObject({
      error: null,
      data: { id: 2, name: 'two' },
      count: 1,
    })
  })
})

describe('representations of calls', () => {
  it('answers CSV from rows and from a single value (.csv())', async () => {
    const supabase = serviceClient()
    expect(await supabase.rpc('rpc_items_upto', { n: 2 }).csv()).toMatchObject({
      error: null,
      status: 200,
      data: 'id,name\n1,one\n2,two',
    })
    expect(await supabase.rpc('rpc_items_upto', { n: 3 }).select('name').gt('id', 1).csv()).toMatchObject({
      error: null,
      data: 'name\ntwo\nthree',
    })
    // PostgREST names a scalar result's one column `pgrst_scalar`.
    expect(await supabase.rpc('rpc_add', { a: 1, b: 2 }).csv()).toMatchObject({ error: null, data: 'pgrst_scalar\n3' })
  })

  it('answers a function’s own media type when asked for it (media type handlers)', async () => {
    const supabase = serviceClient()
    // postgrest-js hands a body that is not JSON back as `error.message`
    // with the status of the answer: the bytes are the function's text.
    const greet = await supabase.rpc('rpc_greet', { name: 'ann' }, { get: true }).setHeader('Accept', 'text/plain')
    expect({ status: greet.status, data: greet.data, error: greet.error }).toEqual({
      status: 200,
      data: null,
      error: { message: 'hello, ann\n"quoted"' },
    })
    // JSON is still on offer when it is asked for first.
    const json = await supabase
      .rpc('rpc_greet', { name: 'bo' }, { get: true })
      .setHeader('Accept', 'application/json, text/plain')
    expect(json).toMatchObject({ error: null, status: 200, data: 'hello, bo\n"quoted"' })
    // A function without a handler for the type: 406 PGRST107.
    const none = await supabase.rpc('rpc_add', { a: 1, b: 2 }, { get: true }).setHeader('Accept', 'text/plain')
    expect(none).toMatchObject({
      status: 406,
      data: null,
      error: { code: 'PGRST107', message: 'None of these media types are available: text/plain' },
    })
  })
})
