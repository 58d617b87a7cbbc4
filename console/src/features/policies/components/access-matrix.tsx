import { Check, Filter, X } from 'lucide-react'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { DataTable, Th } from '@/components/ui/table'
import { cn } from '@/lib/format'
import { useMatrix, type Access, type Cell } from '../api/policies'

const STYLE: Record<Access, string> = {
  all: 'bg-emerald-50 text-emerald-900',
  policy: 'bg-amber-50 text-amber-900',
  none: 'bg-slate-50 text-slate-700',
}
const ICON = { all: Check, policy: Filter, none: X }
const WORD: Record<Access, string> = { all: 'all rows', policy: 'by policy', none: 'none' }

export function MatrixCell({ cell }: { cell: Cell | undefined }) {
  if (!cell) return <td className="px-3 py-2 text-slate-500">—</td>
  const Icon = ICON[cell.access] ?? X
  return (
    <td className={cn('min-w-[10rem] max-w-[16rem] px-3 py-2 align-top text-xs', STYLE[cell.access])} data-access={cell.access}>
      <span className="flex items-center gap-1 text-sm font-semibold">
        <Icon className="h-3.5 w-3.5" aria-hidden />
        {cell.access}
        <span className="sr-only"> ({WORD[cell.access]})</span>
      </span>
      {cell.policies.length > 0 && <span className="mt-0.5 block font-mono [overflow-wrap:anywhere]">{cell.policies.join(', ')}</span>}
      <span className="mt-0.5 block text-[11px] opacity-80">{cell.reason}</span>
    </td>
  )
}

export function AccessMatrix({ schema, table }: { schema: string; table: string }) {
  const matrix = useMatrix(schema, table)
  if (matrix.isPending) return <Spinner label="Working out who can do what…" className="justify-start py-2" />
  if (matrix.isError) return <ErrorAlert error={matrix.error} />
  const { roles, commands, cells } = matrix.data
  return (
    <DataTable label={`Who can do what on ${schema}.${table}`}>
      <thead>
        <tr>
          <Th>Role</Th>
          {commands.map((c) => (
            <Th key={c}>{c}</Th>
          ))}
        </tr>
      </thead>
      <tbody>
        {roles.map((role) => (
          <tr key={role} className="border-t border-slate-100">
            <th scope="row" className="whitespace-nowrap px-3 py-2 text-left align-top font-mono text-xs font-semibold text-slate-900">
              {role}
            </th>
            {commands.map((c) => (
              <MatrixCell key={c} cell={cells[role]?.[c]} />
            ))}
          </tr>
        ))}
      </tbody>
    </DataTable>
  )
}
