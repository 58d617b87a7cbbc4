import { AlertTriangle } from 'lucide-react'
import { ApiError, errorMessage } from '@/lib/api'
import { locate } from '../lib/position'

/** An error of POST /sql: code, message, where it points (line, column, caret under the query's line), detail, hint. */
export function SqlError({ error, query }: { error: unknown; query: string }) {
  const body = error instanceof ApiError ? error.body : {}
  const code = typeof body.code === 'string' ? body.code : null
  const position = typeof body.position === 'number' ? body.position : null
  const where = position !== null ? locate(query, position) : null
  const detail = typeof body.detail === 'string' && body.detail ? body.detail : null
  const hint = typeof body.hint === 'string' && body.hint ? body.hint : null
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-3 text-sm text-red-900">
      <p className="flex flex-wrap items-center gap-2 font-semibold">
        <AlertTriangle className="h-4 w-4" aria-hidden />
        {code && <span className="rounded bg-red-100 px-1.5 py-0.5 font-mono text-xs">{code}</span>}
        <span className="[overflow-wrap:anywhere]">{errorMessage(error, 'The query failed.')}</span>
      </p>
      {where && (
        <>
          <p className="mt-2">
            At line {where.line}, column {where.column} (character {position}):
          </p>
          <pre
            aria-label={`The query at line ${where.line}, column ${where.column}`}
            className="mt-1 max-w-full overflow-x-auto rounded-lg bg-white px-3 py-2 font-mono text-xs leading-5 text-slate-900 ring-1 ring-red-200"
          >
            <code>{where.lineText}</code>
            {'\n'}
            <code data-testid="sql-error-caret" className="font-bold text-red-700">
              {where.caret}
            </code>
          </pre>
        </>
      )}
      {detail && <p className="mt-2 [overflow-wrap:anywhere]">Detail: {detail}</p>}
      {hint && <p className="mt-1 [overflow-wrap:anywhere]">Hint: {hint}</p>}
    </div>
  )
}
