// The grid's PostgREST filters: kept in the URL as `col.op.value` (as
// PostgREST writes them) and handed to supabase-js as `.filter(col, op, value)`.

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'is', 'in'] as const
export type Operator = (typeof OPERATORS)[number]

export type Filter = { column: string; op: Operator; value: string }

export const OPERATOR_LABELS: Record<Operator, string> = {
  eq: 'equals (eq)',
  neq: 'not equal (neq)',
  gt: 'greater than (gt)',
  gte: 'at least (gte)',
  lt: 'less than (lt)',
  lte: 'at most (lte)',
  like: 'like (like, * or % wildcard)',
  ilike: 'like, any case (ilike)',
  is: 'is (null, true, false)',
  in: 'one of (in, comma-separated)',
}

export function isOperator(op: string): op is Operator {
  return (OPERATORS as readonly string[]).includes(op)
}

export function encodeFilter(f: Filter): string {
  return `${f.column}.${f.op}.${f.value}`
}

const PATTERN = new RegExp(`^(.+?)\\.(${OPERATORS.join('|')})\\.(.*)$`, 's')

/** `col.op.value` back to a filter; null when it is not one. */
export function decodeFilter(text: string): Filter | null {
  const m = PATTERN.exec(text)
  if (!m) return null
  return { column: m[1], op: m[2] as Operator, value: m[3] }
}

const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown']

/** A value of an `in` list, double-quoted when PostgREST would split or misread it. */
function listItem(item: string): string {
  if (item.startsWith('"') && item.endsWith('"') && item.length >= 2) return item
  return /[(),"\s]/.test(item) || item === '' ? `"${item.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : item
}

/**
 * The arguments of `.filter(column, operator, value)`. `in` takes a
 * comma-separated list (or one already in parentheses); `is` takes null,
 * true, false or unknown. Throws with a readable message when the value
 * cannot be used.
 */
export function toPostgrest(f: Filter): { column: string; operator: Operator; value: string } {
  let value = f.value
  if (f.op === 'is') {
    value = value.trim().toLowerCase()
    if (!IS_VALUES.includes(value)) throw new Error('"is" takes null, true, false or unknown.')
  } else if (f.op === 'in') {
    const trimmed = value.trim()
    if (trimmed.startsWith('(') && trimmed.endsWith(')')) value = trimmed
    else value = `(${trimmed.split(',').map((v) => listItem(v.trim())).join(',')})`
  }
  return { column: f.column, operator: f.op, value }
}

/** The filter that shows the row a foreign key points at: `refcol = value`. */
export function foreignKeyFilters(refColumns: string[], values: unknown[]): Filter[] {
  return refColumns.map((column, i) => ({ column, op: 'eq' as const, value: String(values[i]) }))
}
