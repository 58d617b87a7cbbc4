import { useEffect, useState } from 'react'
import { Pause, Play } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { ErrorAlert } from '@/components/ui/feedback'
import { ChoiceField } from '@/components/ui/field'
import { useEventStream } from '@/lib/event-source'
import { cn, formatTime } from '@/lib/format'
import { logStreamUrl, useLogSeed, type LogEntry, type LogFilters } from '../api/logs'

const LEVELS = [
  ['', 'Any level'],
  ['error', 'Errors'],
  ['warn', 'Warnings and up'],
  ['info', 'Info and up'],
  ['debug', 'Debug and up'],
] as const
const SERVICES = ['auth', 'rest', 'storage', 'realtime', 'functions', 'console', 'node']
const STATUSES = ['2xx', '3xx', '4xx', '5xx']
const KEEP = 500

const LEVEL_STYLE: Record<string, string> = {
  ERROR: 'text-red-700',
  WARN: 'text-amber-700',
  INFO: 'text-sky-700',
  DEBUG: 'text-slate-500',
}

/** The entries seeded and streamed, newest first, each once. */
export function mergeEntries(seed: LogEntry[], streamed: LogEntry[], keep = KEEP): LogEntry[] {
  const seen = new Set<string>()
  const out: LogEntry[] = []
  for (const e of [...streamed].reverse().concat([...seed].reverse())) {
    const key = String(e.id)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(e)
    if (out.length >= keep) break
  }
  return out
}

export function LogTail() {
  const [filters, setFilters] = useState<LogFilters>({ level: '', service: '', status: '' })
  const [paused, setPaused] = useState(false)
  const [streamed, setStreamed] = useState<LogEntry[]>([])
  const seed = useLogSeed(filters, !paused)
  // The stream opens once the seed is in, and anew when the filters change.
  const url = !paused && seed.isSuccess ? logStreamUrl(filters) : null
  useEffect(() => setStreamed([]), [url])
  const state = useEventStream<LogEntry>(url, 'log', (e) => setStreamed((all) => [...all, e].slice(-KEEP)))
  const entries = mergeEntries(seed.data ?? [], streamed)
  const set = (k: keyof LogFilters, v: string) => setFilters((f) => ({ ...f, [k]: v }))

  return (
    <div>
      <div className="mb-3 grid grid-cols-2 gap-2 sm:grid-cols-[repeat(3,minmax(0,1fr))_auto] sm:items-end">
        <ChoiceField id="log-level" label="Level" value={filters.level} onChange={(v) => set('level', v)} choices={LEVELS} />
        <ChoiceField id="log-service" label="Service" value={filters.service} onChange={(v) => set('service', v)} choices={SERVICES} any="Any service" />
        <ChoiceField id="log-status" label="Status" value={filters.status} onChange={(v) => set('status', v)} choices={STATUSES} any="Any status" />
        <Button variant="outline" onClick={() => setPaused((p) => !p)} aria-pressed={paused}>
          {paused ? <Play className="h-4 w-4" aria-hidden /> : <Pause className="h-4 w-4" aria-hidden />}
          {paused ? 'Resume' : 'Pause'}
        </Button>
      </div>
      <p role="status" className="mb-2 text-sm text-slate-600">
        {paused ? 'Paused.' : state === 'open' ? 'Live.' : state === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'} {entries.length} entries.
      </p>
      {seed.isError && <ErrorAlert error={seed.error} className="mb-2" />}
      <div role="region" aria-label="Log entries" tabIndex={0} className="max-h-[32rem] overflow-auto rounded-xl border border-slate-800 bg-slate-950 p-2 font-mono text-xs text-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500">
        {entries.length === 0 ? (
          <p className="p-2 text-slate-400">No entries match.</p>
        ) : (
          <ol>
            {entries.map((e) => (
              <li key={String(e.id)} className="flex gap-2 whitespace-nowrap px-1 py-0.5 hover:bg-slate-800" data-level={e.level} data-service={e.service}>
                <span className="text-slate-400">{formatTime(e.at)}</span>
                <span className={cn('w-12 shrink-0 font-semibold', LEVEL_STYLE[e.level] ?? 'text-slate-300')}>{e.level}</span>
                <span className="w-16 shrink-0 text-violet-300">{e.service}</span>
                <span className="text-slate-100">{e.message}</span>
                {e.duration_ms !== null && e.duration_ms !== undefined && <span className="text-slate-400">{e.duration_ms.toFixed(1)} ms</span>}
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  )
}
