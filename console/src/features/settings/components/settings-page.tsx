import { useState } from 'react'
import { Eye, Lock } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { CopyButton } from '@/components/ui/copy-field'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Input, Label } from '@/components/ui/field'
import { Card, PageHeader, SectionTitle } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { formatDateTime } from '@/lib/format'
import { useRevealServiceKey, useSettings, type ConfigEntry } from '../api/settings'

function ConfigTable({ config }: { config: ConfigEntry[] }) {
  const [filter, setFilter] = useState('')
  const shown = config.filter((c) => c.name.toLowerCase().includes(filter.trim().toLowerCase()))
  return (
    <>
      <div className="mb-2 max-w-xs">
        <Label htmlFor="config-filter">Filter by name</Label>
        <Input id="config-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      <DataTable label="Configuration" className="max-h-[32rem] overflow-y-auto">
        <thead className="sticky top-0">
          <tr>
            <Th>Name</Th>
            <Th>Value</Th>
          </tr>
        </thead>
        <tbody>
          {shown.map((c) => (
            <Tr key={c.name}>
              <Td className="whitespace-nowrap font-mono text-xs font-semibold">{c.name}</Td>
              <Td className="min-w-[12rem] font-mono text-xs">
                <span className="flex flex-wrap items-center gap-2">
                  {c.set ? <span className="[overflow-wrap:anywhere]">{c.value}</span> : <span className="text-slate-500">not set{c.value ? ` (default ${c.value})` : ''}</span>}
                  {c.secret && (
                    <Badge tone="warning">
                      <Lock className="h-3 w-3" aria-hidden /> secret, masked
                    </Badge>
                  )}
                </span>
              </Td>
            </Tr>
          ))}
        </tbody>
      </DataTable>
    </>
  )
}

function Keys({ anon, masked }: { anon: string; masked: string }) {
  const reveal = useRevealServiceKey()
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Card aria-labelledby="anon-key-title">
        <h3 id="anon-key-title" className="mb-1 text-sm font-semibold">
          anon key
        </h3>
        <p className="mb-2 text-xs text-slate-600">Public: apps use it in the browser; row-level security decides what it may do.</p>
        <code className="mb-2 block break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="anon-key">
          {anon}
        </code>
        <CopyButton fieldLabel="anon key" get={() => anon}>
          Copy anon key
        </CopyButton>
      </Card>
      <Card aria-labelledby="service-key-title">
        <h3 id="service-key-title" className="mb-1 text-sm font-semibold">
          service_role key
        </h3>
        <p className="mb-2 text-xs text-slate-600">Secret: bypasses row-level security. Keep it on servers only.</p>
        <code className="mb-2 block break-all rounded-lg bg-slate-100 p-2 font-mono text-xs" data-testid="service-key">
          {reveal.data ?? masked}
        </code>
        {reveal.isError && <ErrorAlert error={reveal.error} className="mb-2" />}
        {reveal.data ? (
          <CopyButton fieldLabel="service_role key" get={() => reveal.data}>
            Copy service_role key
          </CopyButton>
        ) : (
          <Button variant="outline" size="sm" onClick={() => reveal.mutate()} disabled={reveal.isPending}>
            <Eye className="h-4 w-4" aria-hidden /> {reveal.isPending ? 'Revealing…' : 'Reveal'}
          </Button>
        )}
      </Card>
    </div>
  )
}

export function SettingsPage() {
  const settings = useSettings()
  return (
    <>
      <PageHeader title="Settings" description="The node's configuration (secrets masked), its API keys and the migrations applied." />
      {settings.isPending ? (
        <Spinner label="Loading settings…" />
      ) : settings.isError ? (
        <ErrorAlert error={settings.error} title="The settings could not be loaded" />
      ) : (
        <div className="space-y-6">
          <section aria-labelledby="keys-title">
            <SectionTitle id="keys-title">API keys</SectionTitle>
            <Keys anon={settings.data.keys.anon} masked={settings.data.keys.service_role} />
          </section>
          <section aria-labelledby="config-title">
            <SectionTitle id="config-title">Configuration</SectionTitle>
            <ConfigTable config={settings.data.config} />
          </section>
          <section aria-labelledby="migrations-title">
            <SectionTitle id="migrations-title">Migrations ({settings.data.migrations.length})</SectionTitle>
            <DataTable label="Migrations" className="max-h-[32rem] overflow-y-auto">
              <thead className="sticky top-0">
                <tr>
                  <Th>Set</Th>
                  <Th>Version</Th>
                  <Th>Description</Th>
                  <Th>Installed</Th>
                  <Th>Result</Th>
                </tr>
              </thead>
              <tbody>
                {settings.data.migrations.map((m) => (
                  <Tr key={`${m.set}-${m.version}`}>
                    <Td className="whitespace-nowrap">{m.set}</Td>
                    <Td className="whitespace-nowrap font-mono text-xs">{m.version}</Td>
                    <Td className="min-w-[12rem]">{m.description}</Td>
                    <Td className="whitespace-nowrap">{formatDateTime(m.installed_on)}</Td>
                    <Td>{m.success ? <Badge tone="success">applied</Badge> : <Badge tone="danger">failed</Badge>}</Td>
                  </Tr>
                ))}
              </tbody>
            </DataTable>
          </section>
        </div>
      )}
    </>
  )
}
