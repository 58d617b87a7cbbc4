import { describe, expect, it } from 'vitest'
import { decodeFilter, encodeFilter, foreignKeyFilters, toPostgrest, type Filter } from './filters'

describe('grid filters', () => {
  it('round-trips through the URL form col.op.value', () => {
    const filters: Filter[] = [
      { column: 'title', op: 'ilike', value: '*plan*' },
      { column: 'price', op: 'gte', value: '10.5' },
      { column: 'note', op: 'eq', value: 'a.eq.b' },
      { column: 'category_id', op: 'is', value: 'null' },
      { column: 'empty', op: 'eq', value: '' },
    ]
    for (const f of filters) expect(decodeFilter(encodeFilter(f))).toEqual(f)
    expect(encodeFilter(filters[0])).toBe('title.ilike.*plan*')
  })

  it('refuses what is no filter', () => {
    expect(decodeFilter('title')).toBeNull()
    expect(decodeFilter('title.contains.x')).toBeNull()
    expect(decodeFilter('.eq.x')).toBeNull()
  })

  it('builds the arguments of .filter()', () => {
    expect(toPostgrest({ column: 'id', op: 'eq', value: '42' })).toEqual({ column: 'id', operator: 'eq', value: '42' })
    expect(toPostgrest({ column: 'title', op: 'like', value: 'Calm%' })).toEqual({ column: 'title', operator: 'like', value: 'Calm%' })
  })

  it('wraps an in list in parentheses and quotes what PostgREST would split', () => {
    expect(toPostgrest({ column: 'id', op: 'in', value: '1, 2,3' }).value).toBe('(1,2,3)')
    expect(toPostgrest({ column: 'name', op: 'in', value: 'a b,c(d),say "hi"' }).value).toBe('("a b","c(d)","say \\"hi\\"")')
    expect(toPostgrest({ column: 'id', op: 'in', value: '(1,2)' }).value).toBe('(1,2)')
  })

  it('takes only null, true, false and unknown for is', () => {
    expect(toPostgrest({ column: 'x', op: 'is', value: ' NULL ' }).value).toBe('null')
    expect(toPostgrest({ column: 'x', op: 'is', value: 'true' }).value).toBe('true')
    expect(() => toPostgrest({ column: 'x', op: 'is', value: 'maybe' })).toThrow(/null, true, false/)
  })

  it('follows a foreign key with eq on each referenced column', () => {
    expect(foreignKeyFilters(['id'], ['e0000000-0000-4000-8000-000000000001'])).toEqual([
      { column: 'id', op: 'eq', value: 'e0000000-0000-4000-8000-000000000001' },
    ])
  })
})
