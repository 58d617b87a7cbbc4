import { describe, expect, it } from 'vitest'
import type { Column } from '@/lib/schema'
import { insertPayload, updatePayload } from './row'

const col = (name: string, type: string, pretty = type, extra: Partial<Column> = {}): Column => ({
  name,
  type,
  pretty_type: pretty,
  ts_type: 'string',
  nullable: true,
  default: null,
  generated: false,
  ...extra,
})

const columns = [
  col('id', 'uuid', 'uuid', { default: 'gen_random_uuid()' }),
  col('name', 'text'),
  col('meta', 'jsonb'),
  col('tags', '_text', 'text[]'),
  col('total', 'int4', 'integer', { generated: true }),
]

describe('row dialogs', () => {
  it('leaves empty fields out of an insert and parses JSON', () => {
    expect(insertPayload(columns, { id: '', name: 'Ada', meta: '{"a":1}', tags: '["x","y"]', total: '3' })).toEqual({
      name: 'Ada',
      meta: { a: 1 },
      tags: ['x', 'y'],
    })
    expect(insertPayload(columns, { tags: '{x,y}' })).toEqual({ tags: '{x,y}' })
    expect(() => insertPayload(columns, { meta: '{oops' })).toThrow('meta: not valid JSON.')
  })

  it('sends only the changed fields of an edit, an emptied one as null', () => {
    const original = { id: 'u1', name: 'Ada', meta: { a: 1 }, tags: ['x'], total: 1 }
    expect(updatePayload(columns, { id: 'u1', name: 'Ada L', meta: '{"a":1}', tags: '["x"]', total: '9' }, original)).toEqual({ name: 'Ada L' })
    expect(updatePayload(columns, { id: 'u1', name: '', meta: '{"a":2}', tags: '["x"]' }, original)).toEqual({ name: null, meta: { a: 2 } })
  })
})
