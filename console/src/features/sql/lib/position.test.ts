import { describe, expect, it } from 'vitest'
import { locate } from './position'

describe('SQL error position', () => {
  it('finds line and column on the first line', () => {
    expect(locate('select * from nope', 15)).toEqual({ line: 1, column: 15, lineText: 'select * from nope', caret: '              ^' })
  })

  it('counts lines after newlines', () => {
    const q = 'select 1;\nselect *\n  from missing_table'
    const at = q.indexOf('missing_table') + 1
    expect(locate(q, at)).toMatchObject({ line: 3, column: 8, lineText: '  from missing_table', caret: '       ^' })
  })

  it('counts characters as PostgreSQL does, not UTF-16 units', () => {
    // The emoji is one character for PostgreSQL (two UTF-16 units).
    const q = "select '😀', nope"
    expect(locate(q, 13)).toMatchObject({ line: 1, column: 13, caret: ' '.repeat(12) + '^' })
    expect(Array.from(q)[12]).toBe('n')
  })

  it('keeps the caret aligned under tabs', () => {
    expect(locate('\tselect x', 9)?.caret).toBe('\t       ^')
  })

  it('points past the end for an error at the end of the query', () => {
    expect(locate('select', 7)).toMatchObject({ line: 1, column: 7, caret: '      ^' })
  })

  it('has no location without a position', () => {
    expect(locate('select', 0)).toBeNull()
    expect(locate('select', Number.NaN)).toBeNull()
  })
})
