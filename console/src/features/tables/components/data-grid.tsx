import { Link } from 'react-router'
import { ArrowDown, ArrowUp, ArrowUpDown, Pencil } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { DataTable, Td } from '@/components/ui/table'
import { cellText, cn } from '@/lib/format'
import type { ForeignKey, Relation } from '@/lib/schema'
import type { Row } from '../api/rows'
import { foreignKeyFilters } from '../lib/filters'
import { tablesPath } from '../lib/url'

export type Order = { column: string; ascending: boolean } | null

/** Where a cell's foreign key leads: the referenced table filtered to the row it points at. */
function foreignKeyLink(fk: ForeignKey, row: Row): string | null {
  const values = fk.columns.map((c) => row[c])
  if (values.some((v) => v === null || v === undefined)) return null
  return tablesPath(fk.references.schema, fk.references.table, foreignKeyFilters(fk.references.columns, values))
}

export function DataGrid({
  relation,
  rows,
  order,
  onSort,
  onEdit,
}: {
  relation: Relation
  rows: Row[]
  order: Order
  onSort: (column: string) => void
  onEdit: ((row: Row) => void) | null
}) {
  const fkOf = new Map<string, ForeignKey>()
  for (const fk of relation.foreign_keys) for (const c of fk.columns) if (!fkOf.has(c)) fkOf.set(c, fk)
  const keyOf = (row: Row, i: number) => (relation.primary_key.length ? relation.primary_key.map((c) => cellText(row[c])).join('/') : String(i))

  return (
    <DataTable label={`Rows of ${relation.schema}.${relation.name}`}>
      <thead>
        <tr>
          {onEdit && (
            <th scope="col" className="bg-slate-50 px-2 py-2">
              <span className="sr-only">Actions</span>
            </th>
          )}
          {relation.columns.map((c) => {
            const active = order?.column === c.name
            const Icon = active ? (order!.ascending ? ArrowUp : ArrowDown) : ArrowUpDown
            return (
              <th
                key={c.name}
                scope="col"
                aria-sort={active ? (order!.ascending ? 'ascending' : 'descending') : 'none'}
                className="whitespace-nowrap bg-slate-50 px-1 py-1 text-left align-bottom"
              >
                <button
                  type="button"
                  onClick={() => onSort(c.name)}
                  title={`${c.pretty_type} · TypeScript: ${c.ts_type}${c.nullable ? ' | null' : ''}`}
                  className="flex w-full items-start gap-1 rounded-md px-2 py-1 text-left hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                >
                  <span className="flex flex-col">
                    <span className="text-xs font-semibold text-slate-900">{c.name}</span>
                    <span className="text-[11px] font-normal text-slate-600">{c.pretty_type}</span>
                  </span>
                  <Icon className={cn('mt-0.5 h-3.5 w-3.5 shrink-0', active ? 'text-brand-700' : 'text-slate-400')} aria-hidden />
                </button>
              </th>
            )
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={keyOf(row, i)} className="border-t border-slate-100 hover:bg-slate-50">
            {onEdit && (
              <Td className="px-2 py-1">
                <Button variant="ghost" size="iconSm" aria-label={`Edit row ${keyOf(row, i)}`} onClick={() => onEdit(row)}>
                  <Pencil className="h-3.5 w-3.5" aria-hidden />
                </Button>
              </Td>
            )}
            {relation.columns.map((c) => {
              const value = row[c.name]
              const text = cellText(value)
              const fk = fkOf.get(c.name)
              const link = fk ? foreignKeyLink(fk, row) : null
              return (
                <Td key={c.name} className="max-w-[18rem] truncate whitespace-nowrap py-1.5 font-mono text-xs" title={text.length > 40 ? text : undefined}>
                  {link ? (
                    <Link to={link} className="text-brand-700 underline underline-offset-2" title={`Open ${fk!.references.table} where ${fk!.references.columns.join(', ')} = ${text}`}>
                      {text}
                    </Link>
                  ) : value === null || value === undefined ? (
                    <span className="text-slate-400">NULL</span>
                  ) : (
                    text
                  )}
                </Td>
              )
            })}
          </tr>
        ))}
      </tbody>
    </DataTable>
  )
}
