import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { admin, unwrap } from '@/lib/supabase'
import { toPostgrest, type Filter } from '../lib/filters'

export type Row = Record<string, unknown>

export type GridQuery = {
  schema: string
  table: string
  page: number
  pageSize: number
  order: { column: string; ascending: boolean } | null
  /** Used when no order is chosen, so that pages do not shift (the primary key). */
  stableOrder: string[]
  filters: Filter[]
}

export function useRows(q: GridQuery | null) {
  return useQuery({
    queryKey: ['rows', q],
    enabled: !!q,
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const { schema, table, page, pageSize, order, stableOrder, filters } = q!
      const filtered = (head: boolean) => {
        let request = admin().schema(schema).from(table).select('*', { count: 'exact', head })
        for (const f of filters) {
          const { column, operator, value } = toPostgrest(f)
          request = request.filter(column, operator, value)
        }
        return request
      }
      let request = filtered(false)
      if (order) request = request.order(order.column, { ascending: order.ascending })
      else for (const c of stableOrder) request = request.order(c, { ascending: true })
      const from = (page - 1) * pageSize
      const answer = await request.range(from, from + pageSize - 1)
      if (answer.error?.code === 'PGRST103') {
        // A page past the last one: no rows, and the count, so that the
        // browser can go to the last page there is.
        const counted = await filtered(true)
        unwrap(counted)
        return { rows: [] as Row[], count: counted.count ?? 0 }
      }
      const rows = unwrap(answer) as Row[]
      return { rows, count: answer.count ?? rows.length }
    },
  })
}

function useInvalidateRows() {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: ['rows'] })
}

export function useInsertRow(schema: string, table: string) {
  const invalidate = useInvalidateRows()
  return useMutation({
    mutationFn: async (row: Row) => unwrap(await admin().schema(schema).from(table).insert(row).select()) as Row[],
    onSuccess: invalidate,
  })
}

export function useUpdateRow(schema: string, table: string, primaryKey: string[]) {
  const invalidate = useInvalidateRows()
  return useMutation({
    mutationFn: async ({ key, patch }: { key: Row; patch: Row }) => {
      let request = admin().schema(schema).from(table).update(patch)
      for (const c of primaryKey) request = request.eq(c, key[c] as string)
      return unwrap(await request.select()) as Row[]
    },
    onSuccess: invalidate,
  })
}
