import { encodeFilter, type Filter } from './filters'

/** The Tables page showing a relation, optionally filtered. */
export function tablesPath(schema: string, table: string, filters: Filter[] = []): string {
  const q = new URLSearchParams({ schema, table })
  for (const f of filters) q.append('f', encodeFilter(f))
  return `/tables?${q.toString()}`
}
