import { useState, type KeyboardEvent } from 'react'
import { CheckCircle2, History, Play, XCircle } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Checkbox, Label, Textarea } from '@/components/ui/field'
import { PageHeader, SectionTitle } from '@/components/ui/page'
import { formatDateTime, formatMs } from '@/lib/format'
import { useRunSql, useSqlHistory } from '../api/sql'
import { ResultSetView } from './result-set'
import { SqlError } from './sql-error'

export function SqlEditor() {
  const [text, setText] = useState('select now();')
  const [readOnly, setReadOnly] = useState(false)
  // The query the shown answer belongs to (the caret points into it).
  const [ran, setRan] = useState('')
  const run = useRunSql()
  const history = useSqlHistory()

  const execute = () => {
    if (!text.trim() || run.isPending) return
    setRan(text)
    run.mutate({ query: text, read_only: readOnly })
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      execute()
    }
  }

  return (
    <>
      <PageHeader title="SQL editor" description="Runs as the database owner on a connection of its own, with a 60 s statement timeout." />
      <div className="grid gap-5 xl:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0 space-y-4">
          <div>
            <Label htmlFor="sql-query">Query</Label>
            <Textarea
              id="sql-query"
              rows={8}
              spellCheck={false}
              autoCapitalize="off"
              autoCorrect="off"
              value={text}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={onKeyDown}
              aria-describedby="sql-keys"
              className="resize-y font-mono text-sm leading-5"
            />
            <p id="sql-keys" className="mt-1 text-xs text-slate-600">
              Ctrl+Enter (⌘+Enter) runs the query.
            </p>
          </div>
          <div className="flex flex-wrap items-center gap-4">
            <Button onClick={execute} disabled={run.isPending || !text.trim()}>
              <Play className="h-4 w-4" aria-hidden /> {run.isPending ? 'Running…' : 'Run'}
            </Button>
            <Checkbox id="sql-read-only" label="Read-only (one statement, rolled back)" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
          </div>
          <div aria-live="polite" className="space-y-4">
            {run.isPending && <Spinner label="Running the query…" className="justify-start py-2" />}
            {run.isError && <SqlError error={run.error} query={ran} />}
            {run.isSuccess && (
              <>
                <p role="status" className="text-sm text-slate-700">
                  {run.data.results.length} {run.data.results.length === 1 ? 'result' : 'results'} in {formatMs(run.data.duration_ms)}
                </p>
                {run.data.results.map((r, i) => (
                  <ResultSetView key={i} result={r} index={i} />
                ))}
              </>
            )}
          </div>
        </div>
        <section aria-labelledby="sql-history" className="min-w-0">
          <SectionTitle id="sql-history">
            <span className="inline-flex items-center gap-1.5">
              <History className="h-4 w-4" aria-hidden /> History
            </span>
          </SectionTitle>
          {history.isPending ? (
            <Spinner label="Loading the history…" />
          ) : history.isError ? (
            <ErrorAlert error={history.error} />
          ) : history.data.length === 0 ? (
            <p className="text-sm text-slate-600">No queries yet.</p>
          ) : (
            <ol className="max-h-[36rem] space-y-1.5 overflow-y-auto pr-1">
              {history.data.map((h) => (
                <li key={h.id}>
                  <button
                    type="button"
                    onClick={() => setText(h.query)}
                    aria-label={`Load query: ${h.query.slice(0, 80)}`}
                    className="w-full rounded-lg border border-slate-200 bg-white p-2 text-left hover:border-brand-300 hover:bg-brand-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                  >
                    <code className="line-clamp-2 block whitespace-pre-wrap break-all font-mono text-xs text-slate-900">{h.query}</code>
                    <span className="mt-1 flex flex-wrap items-center gap-1.5 text-[11px] text-slate-600">
                      {h.ok ? (
                        <Badge tone="success">
                          <CheckCircle2 className="h-3 w-3" aria-hidden /> ok
                        </Badge>
                      ) : (
                        <Badge tone="danger">
                          <XCircle className="h-3 w-3" aria-hidden /> failed
                        </Badge>
                      )}
                      {h.read_only && <Badge>read-only</Badge>}
                      <span>{formatDateTime(h.ran_at)}</span>
                      {h.duration_ms !== null && <span>· {formatMs(h.duration_ms)}</span>}
                      {h.operator && <span className="[overflow-wrap:anywhere]">· {h.operator}</span>}
                    </span>
                  </button>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </>
  )
}
