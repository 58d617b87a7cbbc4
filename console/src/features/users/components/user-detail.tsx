import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { ArrowLeft, Ban, KeyRound, LogOut, Trash2, UserCheck } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Card, PageHeader, SectionTitle } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { formatDateTime } from '@/lib/format'
import { toastError, toastSuccess } from '@/lib/toast'
import { useDeleteUser, useFactors, useSendRecovery, useSetBanned, useSignOutEverywhere, useUser, useUserSessions } from '../api/users'
import { StatusBadge } from './status-badge'

function isBanned(bannedUntil: string | undefined | null): boolean {
  return !!bannedUntil && new Date(bannedUntil).getTime() > Date.now()
}

function Facts({ items }: { items: Array<[string, React.ReactNode]> }) {
  return (
    <dl className="grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      {items.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-slate-600">{k}</dt>
          <dd className="min-w-0 text-slate-900 [overflow-wrap:anywhere]">{v}</dd>
        </div>
      ))}
    </dl>
  )
}

export function UserDetail({ id }: { id: string }) {
  const navigate = useNavigate()
  const user = useUser(id)
  const factors = useFactors(id)
  const sessions = useUserSessions(id)
  const setBanned = useSetBanned(id)
  const recovery = useSendRecovery()
  const signOutAll = useSignOutEverywhere(id)
  const remove = useDeleteUser()
  const [confirmDelete, setConfirmDelete] = useState(false)
  const [confirmSignOut, setConfirmSignOut] = useState(false)

  const back = (
    <Link to="/users" className="mb-3 inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
      <ArrowLeft className="h-4 w-4" aria-hidden /> All users
    </Link>
  )
  if (user.isPending) return <>{back}<Spinner label="Loading the user…" /></>
  if (user.isError)
    return (
      <>
        {back}
        <PageHeader title="User" />
        <ErrorAlert error={user.error} title="The user could not be loaded" />
      </>
    )
  const u = user.data
  const banned = isBanned(u.banned_until)
  const status = banned ? 'banned' : u.email_confirmed_at || u.phone_confirmed_at || u.confirmed_at ? 'active' : 'unconfirmed'

  return (
    <>
      {back}
      <PageHeader
        title={u.email || u.phone || 'User'}
        description={<span className="font-mono text-xs [overflow-wrap:anywhere]">{u.id}</span>}
      />
      <div className="mb-5 flex flex-wrap gap-2">
        <Button
          variant="outline"
          disabled={setBanned.isPending}
          onClick={() =>
            setBanned.mutate(!banned, {
              onSuccess: () => toastSuccess(banned ? 'User unbanned' : 'User banned'),
              onError: (e) => toastError(e),
            })
          }
        >
          {banned ? <UserCheck className="h-4 w-4" aria-hidden /> : <Ban className="h-4 w-4" aria-hidden />}
          {banned ? 'Unban' : 'Ban'}
        </Button>
        <Button
          variant="outline"
          disabled={!u.email || recovery.isPending}
          onClick={() =>
            recovery.mutate(u.email!, {
              onSuccess: () => toastSuccess('Recovery e-mail sent', u.email),
              onError: (e) => toastError(e),
            })
          }
        >
          <KeyRound className="h-4 w-4" aria-hidden /> Send recovery e-mail
        </Button>
        <Button variant="outline" disabled={signOutAll.isPending} onClick={() => setConfirmSignOut(true)}>
          <LogOut className="h-4 w-4" aria-hidden /> Sign out everywhere
        </Button>
        <Button variant="danger" disabled={remove.isPending} onClick={() => setConfirmDelete(true)}>
          <Trash2 className="h-4 w-4" aria-hidden /> Delete user
        </Button>
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <Card aria-labelledby="user-account">
          <SectionTitle id="user-account">Account</SectionTitle>
          <Facts
            items={[
              ['Status', <StatusBadge key="s" status={status} />],
              ['Email', u.email || '—'],
              ['Phone', u.phone || '—'],
              ['Created', formatDateTime(u.created_at)],
              ['Confirmed', formatDateTime(u.email_confirmed_at ?? u.confirmed_at)],
              ['Last sign-in', formatDateTime(u.last_sign_in_at)],
              ['Banned until', banned ? formatDateTime(u.banned_until) : '—'],
            ]}
          />
        </Card>
        <Card aria-labelledby="user-identities">
          <SectionTitle id="user-identities">Identities</SectionTitle>
          {u.identities?.length ? (
            <ul className="space-y-2 text-sm">
              {u.identities.map((i) => (
                <li key={i.identity_id ?? i.id} className="flex flex-wrap items-center gap-2">
                  <Badge tone="brand">{i.provider}</Badge>
                  <span className="min-w-0 [overflow-wrap:anywhere]">{(i.identity_data?.email as string | undefined) ?? i.id}</span>
                  <span className="text-xs text-slate-600">since {formatDateTime(i.created_at)}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">No identities.</p>
          )}
          <h3 className="mb-2 mt-4 text-sm font-semibold text-slate-900">MFA factors</h3>
          {factors.isPending ? (
            <Spinner className="py-2" label="Loading factors…" />
          ) : factors.isError ? (
            <ErrorAlert error={factors.error} />
          ) : factors.data.length ? (
            <ul className="space-y-1 text-sm">
              {factors.data.map((f) => (
                <li key={f.id} className="flex flex-wrap items-center gap-2">
                  <Badge>{f.factor_type}</Badge>
                  <span>{f.friendly_name || f.id}</span>
                  <Badge tone={f.status === 'verified' ? 'success' : 'warning'}>{f.status}</Badge>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">No MFA factors.</p>
          )}
        </Card>
      </div>

      <section aria-labelledby="user-sessions" className="mt-5">
        <SectionTitle id="user-sessions">Sessions</SectionTitle>
        {sessions.isPending ? (
          <Spinner label="Loading sessions…" />
        ) : sessions.isError ? (
          <ErrorAlert error={sessions.error} />
        ) : sessions.data.length === 0 ? (
          <Empty>No active sessions.</Empty>
        ) : (
          <DataTable label="Sessions">
            <thead>
              <tr>
                <Th>Started</Th>
                <Th>Last refreshed</Th>
                <Th>IP</Th>
                <Th>User agent</Th>
                <Th>AAL</Th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <Tr key={s.id}>
                  <Td className="whitespace-nowrap">{formatDateTime(s.created_at)}</Td>
                  <Td className="whitespace-nowrap">{formatDateTime(s.refreshed_at ?? s.updated_at)}</Td>
                  <Td className="whitespace-nowrap">{s.ip || '—'}</Td>
                  <Td className="min-w-[12rem] max-w-[24rem] text-xs [overflow-wrap:anywhere]">{s.user_agent || '—'}</Td>
                  <Td>{s.aal || '—'}</Td>
                </Tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </section>

      <ConfirmDialog
        open={confirmSignOut}
        onOpenChange={setConfirmSignOut}
        title="Sign out everywhere?"
        description="Every session and refresh token of this user ends; their apps must sign in again."
        confirmLabel="Sign out everywhere"
        onConfirm={() =>
          signOutAll.mutate(undefined, {
            onSuccess: () => toastSuccess('Signed out everywhere'),
            onError: (e) => toastError(e),
          })
        }
      />
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title="Delete this user?"
        description={`${u.email || u.phone || u.id} and everything that cascades from the account are deleted. This cannot be undone.`}
        confirmLabel="Delete user"
        onConfirm={() =>
          remove.mutate(u.id, {
            onSuccess: () => {
              toastSuccess('User deleted', u.email ?? undefined)
              navigate('/users')
            },
            onError: (e) => toastError(e),
          })
        }
      />
    </>
  )
}
