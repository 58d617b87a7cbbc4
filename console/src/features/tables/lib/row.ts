// What the insert and edit dialogs send: the fields typed as text, turned
// into a row for PostgREST.
import type { Column } from '@/lib/schema'

export function isJsonColumn(c: Column): boolean {
  return c.type === 'json' || c.type === 'jsonb' || c.pretty_type === 'json' || c.pretty_type === 'jsonb'
}

export function isArrayColumn(c: Column): boolean {
  return c.pretty_type.endsWith('[]') || c.type.startsWith('_')
}

/** A value as the dialog shows it: '' for null, JSON for objects and arrays. */
export function fieldText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

function parse(c: Column, text: string): unknown {
  if (isJsonColumn(c) || (isArrayColumn(c) && text.trim().startsWith('['))) {
    try {
      return JSON.parse(text)
    } catch {
      throw new Error(`${c.name}: not valid JSON.`)
    }
  }
  return text
}

/**
 * The row to insert: empty fields are left out (the column's default or
 * null applies).
 */
export function insertPayload(columns: Column[], values: Record<string, string>): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  for (const c of columns) {
    if (c.generated) continue
    const text = values[c.name] ?? ''
    if (text === '') continue
    row[c.name] = parse(c, text)
  }
  return row
}

/**
 * The changes to a row: only the fields that differ from what was loaded;
 * an emptied field becomes null.
 */
export function updatePayload(columns: Column[], values: Record<string, string>, original: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  for (const c of columns) {
    if (c.generated) continue
    const text = values[c.name] ?? ''
    if (text === fieldText(original[c.name])) continue
    patch[c.name] = text === '' ? null : parse(c, text)
  }
  return patch
}
