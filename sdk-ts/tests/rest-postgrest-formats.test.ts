// PostgREST v14's representations through the unmodified supabase-js:
// .csv() (PostgreSQL's record quoting, header from the first row), CSV
// bodies, .geojson() (PostGIS FeatureCollection, or 406 PGRST107 when
// PostGIS or a geometry is absent), and .explain() with every option. The
// schema is the Rust suite's (crates/rest/tests/postgrest/schema/0040_formats.sql);
// the server runs with PGRST_DB_PLAN_ENABLED=true (support/global-setup.ts).
import { beforeAll, describe, expect, it } from 'vitest'
import { plinthUrl, serviceRoleKey, serviceClient, sql } from './support/context'
import { applyCaseSchema } from './support/postgrest-cases'

let postgis = false

beforeAll(async () => {
  await applyCaseSchema('0040_formats.sql', () => serviceClient().from('fmt_notes').select('id').limit(1))
  postgis = (await sql(`select 1 from pg_extension where extname = 'postgis'`)).length === 1
})

describe('csv()', () => {
  it('quotes values as PostgreSQL quotes record fields', async () => {
    const { data, error, status } = await serviceClient().from('fmt_items').select('*').order('id').csv()
    expect({ error, status }).toEqual({ error: null, status: 200 })
    expect(data).toBe(
      'id,name,note,price,active,tags,meta\n' +
        '1,plain,"a, b",1.50,t,"{x,y}","{""k"": 1}"\n' +
        '2,"say ""hi""","two\nlines",,f,{},\n' +
        '3,"back\\\\slash","",0.00,,,"""s"""\n' +
        '4,"two words","(paren)",10.00,t,"{""a b""}","[1, 2]"',
    )
  })

  it('answers a lone newline when there are no rows', async () => {
    const { data, status } = await serviceClient().from('fmt_items').select('id').eq('id', 99).csv()
    expect({ data, status }).toEqual({ data: '\n', status: 200 })
  })

  it('takes CSV bodies on insert (NULL is null, an empty field the empty string)', async () => {
    const res = await fetch(`${plinthUrl}/rest/v1/fmt_notes?select=id,body,n`, {
      method: 'POST',
      headers: {
        apikey: serviceRoleKey,
        authorization: `Bearer ${serviceRoleKey}`,
        'content-type': 'text/csv',
        accept: 'text/csv',
        prefer: 'return=representation',
      },
      body: 'id,body,n\n101,"x, ""y""",7\n102,NULL,NULL\n103,,NULL\n',
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(await res.text()).toBe('id,body,n\n101,"x, ""y""",7\n102,,\n103,"",')
    const { data } = await serviceClient().from('fmt_notes').select('*').gte('id', 101).order('id')
    expect(data).toEqual([
      { id: 101, body: 'x, "y"', n: 7 },
      { id: 102, body: null, n: null },
      { id: 103, body: '', n: null },
    ])

    const bad = await fetch(`${plinthUrl}/rest/v1/fmt_notes`, {
      method: 'POST',
      headers: { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}`, 'content-type': 'text/csv' },
      body: 'id,body\n104,x\n105',
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({
      code: 'PGRST102',
      message: 'All lines must have same number of fields',
      details: null,
      hint: null,
    })
  })
})

describe('geojson()', () => {
  it('answers a FeatureCollection with PostGIS, 406 PGRST107 without it or without a geometry', async () => {
    const supabase = serviceClient()
    const unavailable = {
      data: null,
      status: 406,
      error: {
        code: 'PGRST107',
        message: 'None of these media types are available: application/geo+json',
        details: null,
        hint: null,
      },
    }
    expect(await supabase.from('fmt_items').select('*').geojson()).toMatchObject(unavailable)
    if (!postgis) {
      console.log('formats: PostGIS is not installed: checking the error case')
      return
    }
    console.log('formats: PostGIS is installed: checking FeatureCollections')
    const { data, error, status } = await supabase.from('fmt_shops').select('*').order('id').geojson()
    expect({ error, status }).toEqual({ error: null, status: 200 })
    expect(data).toEqual({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [-71.10044, 42.373695] },
          properties: { id: 1, address: '1369 Cambridge St' },
        },
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [-71.10543, 42.366432] },
          properties: { id: 2, address: '757 Massachusetts Ave' },
        },
      ],
    })
    const empty = await supabase.from('fmt_shops').select('*').gt('id', 9).geojson()
    expect(empty.data).toEqual({ type: 'FeatureCollection', features: [] })
    expect(await supabase.from('fmt_shops').select('id, address').geojson()).toMatchObject(unavailable)
  })
})

describe('explain()', () => {
  it('gives the JSON plan with every option', async () => {
    const { data, error, status } = await serviceClient()
      .from('fmt_items')
      .select('*')
      .explain({ analyze: true, verbose: true, settings: true, buffers: true, wal: true, format: 'json' })
    expect({ error, status }).toEqual({ error: null, status: 200 })
    const plan = (data as unknown as Array<Record<string, any>>)[0]
    expect(plan.Plan['Node Type']).toBe('Aggregate')
    expect(typeof plan.Plan['Actual Total Time']).toBe('number')
    expect(Array.isArray(plan.Plan.Output)).toBe(true)
    expect(typeof plan.Plan['Shared Hit Blocks']).toBe('number')
    expect(plan.Plan['WAL Records']).toBe(0)
    // The request's schema, then db-extra-search-path as it is: v14 shows
    // `public` twice.
    expect(plan.Settings.search_path).toBe('"public", "public", "extensions"')
    expect(typeof plan['Execution Time']).toBe('number')
  })

  it('gives the text plan by default, each line ended by a newline', async () => {
    const text = await serviceClient().from('fmt_items').select('id').eq('id', 1).explain()
    expect(text.status).toBe(200)
    expect(text.data).toMatch(/^Aggregate {2}\(cost=.*\n$/s)

    const verbose = await serviceClient().from('fmt_items').select('id').explain({ verbose: true })
    expect(verbose.data).toMatch(/\n +Output: /)
  })

  it('names the tables as PostgREST does: the table read or written is not aliased', async () => {
    const supabase = serviceClient()
    const read = await supabase.from('fmt_items').select('id, name').explain()
    expect(read.data).toMatch(/ on fmt_items {2}\(/)
    expect(read.data).not.toMatch(/pgrst_/)
    const updated = await supabase.from('fmt_notes').update({ body: 'planned' }).eq('id', 1).explain()
    expect(updated.status).toBe(200)
    expect(updated.data).toMatch(/Update on fmt_notes {2}\(/)
    expect(updated.data).not.toMatch(/pgrst_\d/)
  })

  it('leaves analysed writes committed, as EXPLAIN ANALYZE does', async () => {
    const supabase = serviceClient()
    const planned = await supabase.from('fmt_notes').insert({ id: 201, body: 'planned' }).explain()
    expect(planned.status).toBe(200)
    expect(planned.data).toMatch(/Insert on/)
    expect((await supabase.from('fmt_notes').select('id').eq('id', 201)).data).toEqual([])

    const analysed = await supabase
      .from('fmt_notes')
      .insert({ id: 202, body: 'analysed' })
      .explain({ analyze: true, format: 'json' })
    expect(analysed.status).toBe(200)
    expect((await supabase.from('fmt_notes').select('id').eq('id', 202)).data).toEqual([{ id: 202 }])
  })
})
