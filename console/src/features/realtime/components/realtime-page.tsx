import { useState, type FormEvent } from 'react'
import { Pause, Play, Radio } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { CodeBlock } from '@/components/ui/code'
import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Field, Select } from '@/components/ui/field'
import { Card, PageHeader, SectionTitle } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { useEventStream } from '@/lib/event-source'
import { formatCount, formatMs, formatTime } from '@/lib/format'
import { useSchema } from '@/lib/schema'
import { toastError, toastSuccess } from '@/lib/toast'
import { changesUrl, useInvocations, useRealtimeStatus, useSetPublished, type Change } from '../api/realtime'

const MAX_CHANGES = 100

/** A select of every table of the exposed schemas, valued `schema.table`. */
function TablePicker({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (value: string) => void }) {
  const schema = useSchema()
  const tables = (schema.data?.relations ?? []).filter((r) => r.kind === 'table').sort((a, b) => `${a.schema}.${a.name}`.localeCompare(`${b.schema}.${b.name}`))
  return (
    <Field id={id} label={label}>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={!schema.data}>
        <option value="">Choose a table…</option>
        {tables.map((t) => (
          <option key={`${t.schema}.${t.name}`} value={`${t.schema}.${t.name}`}>
            {t.schema}.{t.name}
          </option>
        ))}
      </Select>
    </Field>
  )
}

function split(value: string): { schema: string; table: string } {
  const dot = value.indexOf('.')
  return { schema: value.slice(0, dot), table: value.slice(dot + 1) }
}

function Counts() {
  const status = useRealtimeStatus()
  const items: Array<[string, number | undefined]> = [
    ['Sockets', status.data?.sockets],
    ['Topics', status.data?.topics],
    ['Channels', status.data?.channels],
  ]
  return (
    <div className="grid grid-cols-3 gap-3" aria-label="Live counts" role="group">
      {items.map(([label, n]) => (
        <Card key={label} className="p-3">
          <p className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</p>
          <p className="mt-1 text-2xl font-bold tabular-nums" aria-label={`${label}: ${n ?? 'loading'}`}>
            {n === undefined ? '…' : formatCount(n)}
          </p>
        </Card>
      ))}
    </div>
  )
}

function PublishedTables() {
  const status = useRealtimeStatus()
  const publish = useSetPublished()
  const [choice, setChoice] = useState('')
  const set = (schema: string, table: string, enabled: boolean) =>
    publish.mutate(
      { schema, table, enabled },
      {
        onSuccess: () => toastSuccess(enabled ? 'Changes published' : 'Changes no longer published', `${schema}.${table}`),
        onError: (e) => toastError(e),
      },
    )
  const enable = (e: FormEvent) => {
    e.preventDefault()
    if (!choice) return
    const { schema, table } = split(choice)
    set(schema, table, true)
    setChoice('')
  }
  return (
    <Card aria-labelledby="published-title">
      <SectionTitle id="published-title">Published tables</SectionTitle>
      <form onSubmit={enable} className="mb-3 flex flex-wrap items-end gap-2">
        <div className="min-w-0 flex-1">
          <TablePicker id="publish-table" label="Table to publish" value={choice} onChange={setChoice} />
        </div>
        <Button type="submit" disabled={!choice || publish.isPending}>
          Enable
        </Button>
      </form>
      {status.isPending ? (
        <Spinner />
      ) : status.isError ? (
        <ErrorAlert error={status.error} />
      ) : status.data.tables.length === 0 ? (
        <p className="text-sm text-slate-600">No table's changes are published.</p>
      ) : (
        <ul aria-label="Published tables" className="divide-y divide-slate-100 text-sm">
          {status.data.tables.map((t) => (
            <li key={`${t.schema}.${t.table}`} className="flex items-center justify-between gap-2 py-1.5">
              <span className="min-w-0 font-mono text-xs [overflow-wrap:anywhere]">
                {t.schema}.{t.table}
              </span>
              <Button variant="ghost" size="sm" onClick={() => set(t.schema, t.table, false)} disabled={publish.isPending} aria-label={`Disable ${t.schema}.${t.table}`}>
                Disable
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

function ChangeTail() {
  const [choice, setChoice] = useState('')
  const [tailing, setTailing] = useState<string | null>(null)
  const [changes, setChanges] = useState<Array<Change & { key: number }>>([])
  const { schema, table } = tailing ? split(tailing) : { schema: '', table: '' }
  const state = useEventStream<Change>(tailing ? changesUrl(schema, table) : null, 'change', (c) =>
    setChanges((all) => [{ ...c, key: Date.now() + Math.random() }, ...all].slice(0, MAX_CHANGES)),
  )
  const stateText = !tailing ? 'Not tailing.' : state === 'open' ? `Tailing ${tailing}: waiting for changes.` : state === 'reconnecting' ? `Reconnecting to ${tailing}…` : `Connecting to ${tailing}…`
  return (
    <Card aria-labelledby="tail-title">
      <SectionTitle id="tail-title">
        <span className="inline-flex items-center gap-1.5">
          <Radio className="h-4 w-4" aria-hidden /> Changes
        </span>
      </SectionTitle>
      <div className="mb-3 flex flex-wrap items-end gap-2">
        <div className="min-w-0 flex-1">
          <TablePicker id="tail-table" label="Table to tail" value={choice} onChange={setChoice} />
        </div>
        {tailing && tailing === choice ? (
          <Button variant="outline" onClick={() => setTailing(null)}>
            <Pause className="h-4 w-4" aria-hidden /> Stop
          </Button>
        ) : (
          <Button
            disabled={!choice}
            onClick={() => {
              setChanges([])
              setTailing(choice)
            }}
          >
            <Play className="h-4 w-4" aria-hidden /> Tail changes
          </Button>
        )}
      </div>
      <p role="status" className="mb-2 text-sm text-slate-600">
        {stateText}
        {changes.length > 0 && ` ${changes.length} ${changes.length === 1 ? 'change' : 'changes'} shown (the last ${MAX_CHANGES} are kept).`}
      </p>
      {changes.length > 0 && (
        <ol aria-label="Changes" className="max-h-[28rem] space-y-2 overflow-y-auto">
          {changes.map((c) => (
            <li key={c.key} className="rounded-lg border border-slate-200 p-2">
              <p className="mb-1 flex flex-wrap items-center gap-2 text-xs">
                <Badge tone={c.type === 'INSERT' ? 'success' : c.type === 'DELETE' ? 'danger' : 'warning'}>{c.type}</Badge>
                <span className="font-mono">
                  {c.schema}.{c.table}
                </span>
                <span className="text-slate-600">{formatTime(c.commit_timestamp)}</span>
              </p>
              <CodeBlock label={`${c.type} record`}>{JSON.stringify(c.type === 'DELETE' ? c.old_record : c.record, null, 2)}</CodeBlock>
            </li>
          ))}
        </ol>
      )}
    </Card>
  )
}

function Invocations() {
  const invocations = useInvocations()
  return (
    <section aria-labelledby="invocations-title">
      <SectionTitle id="invocations-title">Function invocations</SectionTitle>
      {invocations.isPending ? (
        <Spinner />
      ) : invocations.isError ? (
        <ErrorAlert error={invocations.error} />
      ) : invocations.data.length === 0 ? (
        <Empty>No calls to /functions/v1 or /api yet.</Empty>
      ) : (
        <DataTable label="Function invocations" className="max-h-[28rem] overflow-y-auto">
          <thead className="sticky top-0">
            <tr>
              <Th>Time</Th>
              <Th>Method</Th>
              <Th>Path</Th>
              <Th>Status</Th>
              <Th>Duration</Th>
            </tr>
          </thead>
          <tbody>
            {invocations.data.map((inv, i) => (
              <Tr key={`${inv.at}-${i}`}>
                <Td className="whitespace-nowrap">{formatTime(inv.at)}</Td>
                <Td className="font-mono text-xs">{inv.method}</Td>
                <Td className="whitespace-nowrap font-mono text-xs" title={inv.route ?? undefined}>
                  {inv.path}
                </Td>
                <Td>
                  <Badge tone={inv.status >= 500 ? 'danger' : inv.status >= 400 ? 'warning' : 'success'}>{inv.status}</Badge>
                </Td>
                <Td className="whitespace-nowrap">{formatMs(inv.duration_ms)}</Td>
              </Tr>
            ))}
          </tbody>
        </DataTable>
      )}
    </section>
  )
}

export function RealtimePage() {
  return (
    <>
      <PageHeader title="Realtime & functions" description="Live connections, published tables, a tail of changes, and recent function calls." />
      <div className="space-y-5">
        <Counts />
        <div className="grid gap-4 lg:grid-cols-2">
          <PublishedTables />
          <ChangeTail />
        </div>
        <Invocations />
      </div>
    </>
  )
}
