import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { Badge } from '@/components/ui/badge'
import { CodeBlock } from '@/components/ui/code'
import { ConfirmDialog } from '@/components/ui/dialog'
import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Field, Select } from '@/components/ui/field'
import { Card, PageHeader } from '@/components/ui/page'
import { cn } from '@/lib/format'
import { useSchema } from '@/lib/schema'
import { toastError, toastSuccess } from '@/lib/toast'
import { usePolicies, useSetRls, type TablePolicies } from '../api/policies'
import { AccessMatrix } from './access-matrix'

function RlsSwitch({ table }: { table: TablePolicies }) {
  const setRls = useSetRls()
  const [confirmOff, setConfirmOff] = useState(false)
  const id = `rls-${table.schema}-${table.name}`
  const change = (enabled: boolean) =>
    setRls.mutate(
      { schema: table.schema, table: table.name, enabled },
      {
        onSuccess: (a) => toastSuccess(`Row-level security ${a.rls_enabled ? 'on' : 'off'}`, `${table.schema}.${table.name}`),
        onError: (e) => toastError(e, 'Row-level security was not changed'),
      },
    )
  const on = table.rls_enabled
  return (
    <div className="flex items-center gap-2">
      <span id={id} className="text-sm text-slate-700">
        Row-level security
      </span>
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-labelledby={id}
        disabled={setRls.isPending}
        onClick={() => (on ? setConfirmOff(true) : change(true))}
        className={cn(
          'relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 disabled:opacity-60',
          on ? 'bg-emerald-600' : 'bg-slate-300',
        )}
      >
        <span className={cn('inline-block h-5 w-5 rounded-full bg-white shadow transition-transform', on ? 'translate-x-5' : 'translate-x-0.5')} />
      </button>
      <span className={cn('text-sm font-semibold', on ? 'text-emerald-800' : 'text-slate-600')}>{on ? 'On' : 'Off'}</span>
      {table.rls_forced && <Badge tone="brand">forced</Badge>}
      <ConfirmDialog
        open={confirmOff}
        onOpenChange={setConfirmOff}
        title={`Turn off row-level security on ${table.name}?`}
        description="Without it every role with a privilege on the table reads and writes all of its rows; its policies are no longer applied."
        confirmLabel="Turn off"
        onConfirm={() => change(false)}
      />
    </div>
  )
}

function TableCard({ table }: { table: TablePolicies }) {
  const headingId = `policies-${table.schema}-${table.name}`
  return (
    <Card aria-labelledby={headingId} className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold [overflow-wrap:anywhere]">
          {table.schema}.{table.name}
        </h2>
        <RlsSwitch table={table} />
      </div>
      <div>
        <h3 className="mb-2 text-sm font-semibold text-slate-900">Policies ({table.policies.length})</h3>
        {table.policies.length === 0 ? (
          <p className="text-sm text-slate-600">No policies.{table.rls_enabled ? ' With row-level security on, only roles that bypass it see rows.' : ''}</p>
        ) : (
          <ul className="space-y-3">
            {table.policies.map((p) => (
              <li key={p.name} className="rounded-lg border border-slate-200 p-3">
                <p className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="font-semibold [overflow-wrap:anywhere]">{p.name}</span>
                  <Badge tone="brand">{p.command}</Badge>
                  <Badge tone={p.permissive ? 'neutral' : 'warning'}>{p.permissive ? 'permissive' : 'restrictive'}</Badge>
                  <span className="text-xs text-slate-600">to {p.roles.length ? p.roles.join(', ') : 'public'}</span>
                </p>
                {p.using && (
                  <div className="mt-2">
                    <p className="text-xs font-medium text-slate-600">USING</p>
                    <CodeBlock>{p.using}</CodeBlock>
                  </div>
                )}
                {p.with_check && (
                  <div className="mt-2">
                    <p className="text-xs font-medium text-slate-600">WITH CHECK</p>
                    <CodeBlock>{p.with_check}</CodeBlock>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <h3 className="mb-2 text-sm font-semibold text-slate-900">Who can do what</h3>
        <AccessMatrix schema={table.schema} table={table.name} />
      </div>
    </Card>
  )
}

export function PoliciesPage() {
  const schema = useSchema()
  const [params, setParams] = useSearchParams()
  const schemas = schema.data?.schemas ?? []
  const schemaName = params.get('schema') ?? (schemas.includes('public') ? 'public' : (schemas[0] ?? ''))
  const tableName = params.get('table') ?? ''
  const policies = usePolicies(schemaName)
  const tables = (policies.data ?? []).slice().sort((a, b) => a.name.localeCompare(b.name))
  const shown = tableName ? tables.filter((t) => t.name === tableName) : tables

  return (
    <>
      <PageHeader title="Policies" description="Row-level security per table, its policies, and what each API role may do." />
      <div className="mb-4 grid gap-3 sm:grid-cols-2 lg:max-w-2xl">
        <Field id="policies-schema" label="Schema">
          <Select id="policies-schema" value={schemaName} onChange={(e) => setParams({ schema: e.target.value })}>
            {schemas.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="policies-table" label="Table">
          <Select id="policies-table" value={tableName} onChange={(e) => setParams(e.target.value ? { schema: schemaName, table: e.target.value } : { schema: schemaName })}>
            <option value="">All tables</option>
            {tables.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      {schema.isError && <ErrorAlert error={schema.error} className="mb-3" />}
      {policies.isPending ? (
        <Spinner label="Loading policies…" />
      ) : policies.isError ? (
        <ErrorAlert error={policies.error} title="The policies could not be loaded" />
      ) : shown.length === 0 ? (
        <Empty>No tables in {schemaName}.</Empty>
      ) : (
        <div className="space-y-4">
          {shown.map((t) => (
            <TableCard key={t.name} table={t} />
          ))}
        </div>
      )}
    </>
  )
}
