import { DataTable, Td, Th } from '@/components/ui/table'
import { formatCount } from '@/lib/format'
import type { ResultSet } from '../api/sql'

export function ResultSetView({ result, index }: { result: ResultSet; index: number }) {
  const label = `Result ${index + 1}: ${result.command}`
  return (
    <section aria-label={label} className="min-w-0">
      <p className="mb-1 flex flex-wrap items-center gap-x-3 text-sm">
        <span className="font-semibold">{label}</span>
        <span className="text-slate-600">
          {formatCount(result.row_count)} {result.row_count === 1 ? 'row' : 'rows'}
        </span>
        {result.truncated && <span className="text-amber-800">Only the first {formatCount(result.rows.length)} rows are shown (truncated).</span>}
      </p>
      {result.columns.length > 0 && (
        <DataTable label={`Rows of ${label}`} className="max-h-[28rem] overflow-y-auto">
          <thead className="sticky top-0">
            <tr>
              {result.columns.map((c, i) => (
                <Th key={i} className="normal-case tracking-normal">
                  <span className="block text-xs font-semibold text-slate-900">{c.name}</span>
                  <span className="block text-[11px] font-normal text-slate-600">{c.type}</span>
                </Th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row, r) => (
              <tr key={r} className="border-t border-slate-100">
                {row.map((v, i) => (
                  <Td key={i} className="max-w-[24rem] truncate whitespace-nowrap py-1 font-mono text-xs" title={v && v.length > 40 ? v : undefined}>
                    {v === null ? <span className="text-slate-400">NULL</span> : v}
                  </Td>
                ))}
              </tr>
            ))}
          </tbody>
        </DataTable>
      )}
    </section>
  )
}
