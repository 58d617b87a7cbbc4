// PostgREST v14's "Perhaps you meant ..." hints through the unmodified
// supabase-js: PGRST205 (the closest table or view of the schema) and
// PGRST200 (the closest related table, or the closest table with
// relationships instead of the parent), as PostgREST's Error.hs builds them.
// The schema is the Rust suite's
// (crates/rest/tests/postgrest/schema/0050_hints.sql).
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceClient } from './support/context'
import { applyCaseSchema } from './support/postgrest-cases'

beforeAll(() => applyCaseSchema('0050_hints.sql', () => serviceClient().from('hnt_tasks').select('id').limit(1)))

describe('PGRST205: table not found', () => {
  it('hints the closest table or view, else null', async () => {
    const supabase = serviceClient()
    const { data, error, status } = await supabase.from('hnt_projectx').select()
    expect({ data, status }).toEqual({ data: null, status: 404 })
    expect(error).toEqual({
      code: 'PGRST205',
      message: "Could not find the table 'public.hnt_projectx' in the schema cache",
      details: null,
      hint: "Perhaps you meant the table 'public.hnt_projects'",
    })
    const view = await supabase.from('hnt_reprt').select()
    expect(view.error?.hint).toBe("Perhaps you meant the table 'public.hnt_report'")
    const none = await supabase.from('qqqzzzxxx').select()
    expect(none.status).toBe(404)
    expect(none.error).toMatchObject({ code: 'PGRST205', hint: null })
  })
})

describe('PGRST200: no relationship', () => {
  it('hints the closest related table of the parent', async () => {
    const supabase = serviceClient()
    const { data, error, status } = await supabase.from('hnt_projects').select('id, hnt_task(id)')
    expect({ data, status }).toEqual({ data: null, status: 400 })
    expect(error).toEqual({
      code: 'PGRST200',
      message: "Could not find a relationship between 'hnt_projects' and 'hnt_task' in the schema cache",
      details:
        "Searched for a foreign key relationship between 'hnt_projects' and 'hnt_task' in the schema 'public', but no matches were found.",
      hint: "Perhaps you meant 'hnt_tasks' instead of 'hnt_task'.",
    })
    // The related table itself with a hint naming no key: nothing to suggest.
    const hinted = await supabase.from('hnt_projects').select('id, hnt_tasks!nokey(id)')
    expect(hinted.error).toMatchObject({ code: 'PGRST200', hint: null })
  })

  it('hints a table with relationships instead of a parent without any', async () => {
    const supabase = serviceClient()
    const { error } = await supabase.from('hnt_client').select('id, hnt_projects(id)')
    expect(error).toMatchObject({
      code: 'PGRST200',
      hint: "Perhaps you meant 'hnt_clients' instead of 'hnt_client'.",
    })
  })
})
