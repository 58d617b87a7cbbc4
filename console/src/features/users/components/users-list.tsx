import { useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { ChevronLeft, ChevronRight, Mail, UserPlus } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { ChoiceField, Field, Input } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { formatCount, formatDateTime } from '@/lib/format'
import { usePageInRange } from '@/lib/use-page-in-range'
import { PER_PAGE, useUsers } from '../api/users'
import { StatusBadge } from './status-badge'
import { CreateUserDialog, InviteUserDialog } from './user-dialogs'

const PROVIDERS = ['email', 'phone', 'github', 'google', 'apple', 'azure', 'gitlab', 'anonymous']
const STATUSES = ['active', 'unconfirmed', 'banned']

/** `text` with a line-break opportunity before each "@" and "." (an e-mail wraps there, not mid-word). */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?=[@.])/)
  return (
    <>
      {parts.map((part, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {part}
        </span>
      ))}
    </>
  )
}

export function UsersList() {
  const [params, setParams] = useSearchParams()
  const q = params.get('q') ?? ''
  const provider = params.get('provider') ?? ''
  const status = params.get('status') ?? ''
  const page = Math.max(1, Number(params.get('page')) || 1)
  const [search, setSearch] = useState(q)
  const [creating, setCreating] = useState(false)
  const [inviting, setInviting] = useState(false)

  const set = (changes: Record<string, string>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev)
        for (const [k, v] of Object.entries(changes)) if (v) next.set(k, v)
        else next.delete(k)
        return next
      },
      { replace: true },
    )

  // The search box writes the URL a moment after typing stops.
  useEffect(() => {
    if (search === q) return
    const t = setTimeout(() => set({ q: search, page: '' }), 300)
    return () => clearTimeout(t)
  }, [search])

  const users = useUsers({ q, provider, status, page })
  const total = users.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / PER_PAGE))
  usePageInRange(page, users.data && !users.isPlaceholderData ? pages : undefined, (last) =>
    set({ page: last > 1 ? String(last) : '' }),
  )

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone with an account on this node."
        actions={
          <>
            <Button variant="outline" onClick={() => setInviting(true)}>
              <Mail className="h-4 w-4" aria-hidden /> Invite user
            </Button>
            <Button onClick={() => setCreating(true)}>
              <UserPlus className="h-4 w-4" aria-hidden /> Create user
            </Button>
          </>
        }
      />
      <div className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)]">
        <Field id="user-search" label="Search" className="col-span-2 sm:col-span-1">
          <Input id="user-search" type="search" placeholder="E-mail, phone or id" value={search} onChange={(e) => setSearch(e.target.value)} />
        </Field>
        <ChoiceField id="user-provider" label="Provider" value={provider} onChange={(v) => set({ provider: v, page: '' })} choices={PROVIDERS} any="Any provider" />
        <ChoiceField id="user-status" label="Status" value={status} onChange={(v) => set({ status: v, page: '' })} choices={STATUSES} any="Any status" />
      </div>
      {users.isError && <ErrorAlert error={users.error} className="mb-3" />}
      {users.isPending ? (
        <Spinner label="Loading users…" />
      ) : (
        <>
          <p role="status" className="mb-2 text-sm text-slate-600">
            {formatCount(total)} {total === 1 ? 'user' : 'users'}
            {users.isFetching ? ' · updating…' : ''}
          </p>
          <DataTable label="Users">
            <thead>
              <tr>
                <Th>Email / phone</Th>
                <Th>Providers</Th>
                <Th>Status</Th>
                <Th>Created</Th>
                <Th>Last sign-in</Th>
              </tr>
            </thead>
            <tbody>
              {users.data?.users.map((u) => (
                <Tr key={u.id}>
                  <Td className="min-w-[12rem] max-w-[18rem]">
                    {/* Wraps before "@" and "." only, never inside a word (issue 44, low): the table scrolls in its box if a part is wider. */}
                    <Link to={`/users/${u.id}`} className="font-medium text-brand-700 underline-offset-2 hover:underline [overflow-wrap:normal]" data-testid="user-email">
                      {u.email ? <Breakable text={u.email} /> : u.phone || u.id}
                    </Link>
                    {u.email && u.phone && <div className="text-xs text-slate-600">{u.phone}</div>}
                  </Td>
                  <Td className="whitespace-nowrap">{u.providers.join(', ') || '—'}</Td>
                  <Td>
                    <StatusBadge status={u.status} />
                  </Td>
                  <Td className="whitespace-nowrap">{formatDateTime(u.created_at)}</Td>
                  <Td className="whitespace-nowrap">{formatDateTime(u.last_sign_in_at)}</Td>
                </Tr>
              ))}
              {users.data?.users.length === 0 && (
                <tr>
                  <Td colSpan={5} className="py-6 text-center text-slate-600">
                    No users match.
                  </Td>
                </tr>
              )}
            </tbody>
          </DataTable>
          <nav aria-label="Pages" className="mt-3 flex items-center justify-end gap-2 text-sm">
            <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => set({ page: String(page - 1) })} aria-label="Previous page">
              <ChevronLeft className="h-4 w-4" aria-hidden />
            </Button>
            <span>
              Page {page} of {pages}
            </span>
            <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => set({ page: String(page + 1) })} aria-label="Next page">
              <ChevronRight className="h-4 w-4" aria-hidden />
            </Button>
          </nav>
        </>
      )}
      <CreateUserDialog open={creating} onOpenChange={setCreating} />
      <InviteUserDialog open={inviting} onOpenChange={setInviting} />
    </>
  )
}
