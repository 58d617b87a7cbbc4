import { CheckCircle2, XCircle } from 'lucide-react'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Card } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { formatBytes, formatCount, formatDuration, formatMs } from '@/lib/format'
import { useHealth } from '../api/logs'

export function HealthCards() {
  const health = useHealth()
  if (health.isPending) return <Spinner label="Loading health…" />
  if (health.isError) return <ErrorAlert error={health.error} title="Health could not be read" />
  const { database: db, uptime_seconds, node, services, realtime } = health.data
  return (
    <div className="space-y-4">
      <div className="grid grid-cols-2 gap-3 xl:grid-cols-4">
        <Card className="p-3">
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-600">Database</h3>
          <p className={`mt-1 flex items-center gap-1.5 text-lg font-bold ${db.ok ? 'text-emerald-700' : 'text-red-700'}`}>
            {db.ok ? <CheckCircle2 className="h-5 w-5" aria-hidden /> : <XCircle className="h-5 w-5" aria-hidden />}
            {db.ok ? 'OK' : 'Down'}
          </p>
          <p className="text-xs text-slate-600">latency {formatMs(db.latency_ms)}</p>
        </Card>
        <Card className="p-3">
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-600">Database size</h3>
          <p className="mt-1 text-lg font-bold">{formatBytes(db.size_bytes)}</p>
          <p className="truncate text-xs text-slate-600" title={db.version ?? undefined}>
            {db.version ?? '—'}
          </p>
        </Card>
        <Card className="p-3">
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-600">Uptime</h3>
          <p className="mt-1 text-lg font-bold">{formatDuration(uptime_seconds)}</p>
          {/* Behind a load balancer, whose book and counts these are. */}
          <p className="truncate text-xs text-slate-600" title={node ? `node ${node.name}, process ${node.pid}` : undefined}>
            {node ? `node ${node.name} · pid ${node.pid}` : '—'}
          </p>
        </Card>
        <Card className="p-3">
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-600">Realtime</h3>
          <p className="mt-1 text-lg font-bold">{formatCount(realtime?.sockets)} sockets</p>
          <p className="text-xs text-slate-600">
            {formatCount(realtime?.topics)} topics · {formatCount(realtime?.channels)} channels
          </p>
        </Card>
      </div>
      <DataTable label="Requests per service">
        <thead>
          <tr>
            <Th>Service</Th>
            <Th className="text-right">Requests</Th>
            <Th className="text-right">Errors</Th>
            <Th className="text-right">Mean</Th>
            <Th className="text-right">p95</Th>
          </tr>
        </thead>
        <tbody>
          {services.map((s) => (
            <Tr key={s.service}>
              <Td className="font-medium">{s.service}</Td>
              <Td className="text-right tabular-nums">{formatCount(s.requests)}</Td>
              <Td className={`text-right tabular-nums ${s.errors ? 'text-red-700' : ''}`}>{formatCount(s.errors)}</Td>
              <Td className="whitespace-nowrap text-right tabular-nums">{formatMs(s.mean_ms)}</Td>
              <Td className="whitespace-nowrap text-right tabular-nums">{formatMs(s.p95_ms)}</Td>
            </Tr>
          ))}
        </tbody>
      </DataTable>
    </div>
  )
}
