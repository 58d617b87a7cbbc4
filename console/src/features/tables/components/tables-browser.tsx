import { useMemo, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { ChevronLeft, ChevronRight, Eye, Plus, Table2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Field, Select } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page'
import { cn, formatCount } from '@/lib/format'
import { useSchema, type Relation } from '@/lib/schema'
import { usePageInRange } from '@/lib/use-page-in-range'
import { useRows, type Row } from '../api/rows'
import { decodeFilter, encodeFilter, type Filter } from '../lib/filters'
import { tablesPath } from '../lib/url'
import { DataGrid, type Order } from './data-grid'
import { FilterBar } from './filter-bar'
import { RowDialog } from './row-dialog'

const PAGE_SIZES = [10, 25, 50, 100]

function parseOrder(text: string | null): Order {
  if (!text) return null
  const m = /^(.+)\.(asc|desc)$/.exec(text)
  return m ? { column: m[1], ascending: m[2] === 'asc' } : null
}

function RelationList({ relations, current }: { relations: Relation[]; current: Relation | undefined }) {
  return (
    <nav aria-label="Relations" className="hidden max-h-[70vh] overflow-y-auto rounded-xl border border-slate-200 bg-white p-2 lg:block">
      <ul className="space-y-0.5">
        {relations.map((r) => (
          <li key={r.name}>
            <Link
              to={tablesPath(r.schema, r.name)}
              aria-current={r === current ? 'page' : undefined}
              className={cn(
                'flex items-center gap-2 rounded-md px-2 py-1.5 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                r === current ? 'bg-brand-50 font-medium text-brand-800' : 'text-slate-700 hover:bg-slate-100',
              )}
            >
              {r.kind === 'view' ? <Eye className="h-3.5 w-3.5 shrink-0" aria-label="view" /> : <Table2 className="h-3.5 w-3.5 shrink-0" aria-hidden />}
              <span className="truncate">{r.name}</span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}

export function TablesBrowser() {
  const schema = useSchema()
  const [params, setParams] = useSearchParams()
  const [dialogRow, setDialogRow] = useState<Row | null | undefined>(undefined)

  const schemas = schema.data?.schemas ?? []
  const schemaName = params.get('schema') ?? (schemas.includes('public') ? 'public' : (schemas[0] ?? ''))
  const relations = useMemo(
    () => (schema.data?.relations ?? []).filter((r) => r.schema === schemaName).sort((a, b) => a.name.localeCompare(b.name)),
    [schema.data, schemaName],
  )
  const tableName = params.get('table')
  const relation = relations.find((r) => r.name === tableName)
  const page = Math.max(1, Number(params.get('page')) || 1)
  const size = Number(params.get('size'))
  const PAGE_SIZE = PAGE_SIZES.includes(size) ? size : 50
  const order = parseOrder(params.get('order'))
  const filters = params
    .getAll('f')
    .map(decodeFilter)
    .filter((f): f is Filter => f !== null)

  const rows = useRows(
    relation
      ? {
          schema: relation.schema,
          table: relation.name,
          page,
          pageSize: PAGE_SIZE,
          order,
          stableOrder: relation.primary_key,
          filters,
        }
      : null,
  )

  const update = (changes: { schema?: string; table?: string; page?: number; size?: number; order?: Order; filters?: Filter[] }) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev)
      if (changes.schema !== undefined) {
        next.set('schema', changes.schema)
        next.delete('table')
        next.delete('f')
        next.delete('order')
        next.delete('page')
      }
      if (changes.table !== undefined) {
        next.set('table', changes.table)
        next.delete('f')
        next.delete('order')
        next.delete('page')
      }
      if (changes.order !== undefined) {
        if (changes.order) next.set('order', `${changes.order.column}.${changes.order.ascending ? 'asc' : 'desc'}`)
        else next.delete('order')
        next.delete('page')
      }
      if (changes.filters !== undefined) {
        next.delete('f')
        for (const f of changes.filters) next.append('f', encodeFilter(f))
        next.delete('page')
      }
      if (changes.size !== undefined) {
        next.set('size', String(changes.size))
        next.delete('page')
      }
      if (changes.page !== undefined) {
        if (changes.page > 1) next.set('page', String(changes.page))
        else next.delete('page')
      }
      return next
    })

  const sort = (column: string) => {
    // ascending, then descending, then unsorted
    if (order?.column !== column) update({ order: { column, ascending: true } })
    else if (order.ascending) update({ order: { column, ascending: false } })
    else update({ order: null })
  }

  const count = rows.data?.count ?? 0
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE))
  usePageInRange(page, rows.data && !rows.isPlaceholderData ? pages : undefined, (last) => update({ page: last }))
  const editable = !!relation && relation.kind === 'table' && relation.primary_key.length > 0

  return (
    <>
      <PageHeader
        title="Tables"
        description="Rows of the exposed schemas, read and written as service role."
        actions={
          editable && (
            <Button onClick={() => setDialogRow(null)}>
              <Plus className="h-4 w-4" aria-hidden /> Insert row
            </Button>
          )
        }
      />
      {schema.isPending ? (
        <Spinner label="Loading the schema…" />
      ) : schema.isError ? (
        <ErrorAlert error={schema.error} title="The schema could not be loaded" />
      ) : (
        <div className="grid gap-4 lg:grid-cols-[14rem_minmax(0,1fr)]">
          <div className="min-w-0 space-y-3">
            <Field id="tables-schema" label="Schema">
              <Select id="tables-schema" value={schemaName} onChange={(e) => update({ schema: e.target.value })}>
                {schemas.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="tables-table" label="Table" className="lg:hidden">
              <Select id="tables-table" value={relation?.name ?? ''} onChange={(e) => update({ table: e.target.value })}>
                <option value="" disabled>
                  Choose a table…
                </option>
                {relations.map((r) => (
                  <option key={r.name} value={r.name}>
                    {r.name}
                    {r.kind === 'view' ? ' (view)' : ''}
                  </option>
                ))}
              </Select>
            </Field>
            <RelationList relations={relations} current={relation} />
          </div>
          <section className="min-w-0" aria-label={relation ? `${relation.schema}.${relation.name}` : 'Rows'}>
            {!relation ? (
              <Empty>{tableName ? `No relation ${schemaName}.${tableName}.` : 'Choose a table to see its rows.'}</Empty>
            ) : (
              <>
                <h2 className="mb-2 flex flex-wrap items-baseline gap-2 text-lg font-semibold">
                  <span className="[overflow-wrap:anywhere]">
                    {relation.schema}.{relation.name}
                  </span>
                  <span className="text-xs font-normal text-slate-600">
                    {relation.kind}
                    {relation.primary_key.length ? ` · primary key ${relation.primary_key.join(', ')}` : ' · no primary key (read only)'}
                  </span>
                </h2>
                <FilterBar key={relation.name} columns={relation.columns} filters={filters} onChange={(f) => update({ filters: f })} />
                {rows.isError && <ErrorAlert error={rows.error} title="PostgREST refused the query" className="mb-3" />}
                {rows.isPending ? (
                  <Spinner label="Loading rows…" />
                ) : rows.data ? (
                  <>
                    <p role="status" className="mb-2 text-sm text-slate-600">
                      {formatCount(count)} {count === 1 ? 'row' : 'rows'}
                      {count > 0 && ` · showing ${formatCount((page - 1) * PAGE_SIZE + 1)}–${formatCount(Math.min(page * PAGE_SIZE, count))}`}
                      {rows.isFetching ? ' · updating…' : ''}
                    </p>
                    <DataGrid relation={relation} rows={rows.data.rows} order={order} onSort={sort} onEdit={editable ? (r) => setDialogRow(r) : null} />
                    {rows.data.rows.length === 0 && <p className="mt-2 text-sm text-slate-600">No rows.</p>}
                    <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center justify-end gap-2 text-sm">
                      <label htmlFor="tables-page-size" className="text-slate-700">
                        Rows per page
                      </label>
                      <select
                        id="tables-page-size"
                        value={PAGE_SIZE}
                        onChange={(e) => update({ size: Number(e.target.value) })}
                        className="h-8 rounded-lg border border-slate-300 bg-white px-2 text-sm"
                      >
                        {PAGE_SIZES.map((n) => (
                          <option key={n} value={n}>
                            {n}
                          </option>
                        ))}
                      </select>
                      <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => update({ page: page - 1 })} aria-label="Previous page">
                        <ChevronLeft className="h-4 w-4" aria-hidden />
                      </Button>
                      <span>
                        Page {page} of {pages}
                      </span>
                      <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => update({ page: page + 1 })} aria-label="Next page">
                        <ChevronRight className="h-4 w-4" aria-hidden />
                      </Button>
                    </nav>
                  </>
                ) : null}
              </>
            )}
          </section>
        </div>
      )}
      {relation && dialogRow !== undefined && <RowDialog relation={relation} row={dialogRow} onClose={() => setDialogRow(undefined)} />}
    </>
  )
}
