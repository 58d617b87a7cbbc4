// My Templates (spec section 2, Dashboard → My Templates): every template of
// the user by lifecycle stage, the stage in the URL (`?tab=`), with deletion
// behind a confirmation dialog.
import { useEffect, useState } from 'react'
import { useSearchParams } from 'react-router'
import * as Tabs from '@radix-ui/react-tabs'
import { LayoutGrid, Plus } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState, LoadError, Skeleton } from '@/components/ui/feedback'
import { toastError } from '@/lib/toast'
import { useMyTemplates } from '../api/get-my-templates'
import { useDeleteMyTemplate } from '../api/delete-my-template'
import { deleteDescription, tabFromParam, type MyTemplate, type TemplateKind } from '../model'
import { MyTemplateCard } from './my-template-card'

type Tab = TemplateKind | 'all'

// `heading`: the panel's heading, visually hidden (the tab shows the label); it
// keeps the page's outline whole above the cards' h3 titles (axe heading-order).
const TABS: Array<{ value: Tab; label: string; heading: string; empty: { title: string; description: string } }> = [
  { value: 'all', label: 'All', heading: 'All templates', empty: { title: 'No templates yet', description: 'Create your first template to start sharing it with the community.' } },
  { value: 'draft', label: 'Drafts', heading: 'Drafts', empty: { title: 'No drafts', description: 'Templates you save as drafts appear here until you submit them.' } },
  { value: 'pending', label: 'Pending', heading: 'Pending approval', empty: { title: 'No templates pending approval', description: 'Templates you submit for review appear here until our team decides.' } },
  { value: 'published', label: 'Published', heading: 'Published templates', empty: { title: 'No published templates', description: 'Your templates appear here once they are approved.' } },
  { value: 'rejected', label: 'Rejected', heading: 'Rejected templates', empty: { title: 'No rejected templates', description: 'Templates that need changes before approval appear here.' } },
]

/** Newest activity first; undated last. */
function byDateDesc(a: MyTemplate, b: MyTemplate): number {
  return (b.date ?? '').localeCompare(a.date ?? '')
}

const trigger =
  'inline-flex shrink-0 items-center gap-1.5 rounded-md px-3 py-2 text-sm font-medium text-slate-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm'

export function MyTemplates({ userId }: { userId: string }) {
  const [params, setParams] = useSearchParams()
  const current: Tab = tabFromParam(params.get('tab')) ?? 'all'
  const drafts = useMyTemplates('draft', userId)
  const pending = useMyTemplates('pending', userId)
  const published = useMyTemplates('published', userId)
  const rejected = useMyTemplates('rejected', userId)
  const queries = { draft: drafts, pending, published, rejected }
  const [confirming, setConfirming] = useState<MyTemplate | null>(null)
  const remove = useDeleteMyTemplate(userId)

  const failed = Object.values(queries).some((q) => q.isError)
  useEffect(() => {
    if (failed) toastError('Failed to load templates. Please try again.')
  }, [failed])

  const listFor = (tab: Tab): MyTemplate[] =>
    tab === 'all'
      ? [...(drafts.data ?? []), ...(pending.data ?? []), ...(published.data ?? []), ...(rejected.data ?? [])].sort(byDateDesc)
      : (queries[tab].data ?? [])
  const loadingFor = (tab: Tab): boolean =>
    tab === 'all' ? Object.values(queries).some((q) => q.isLoading) : queries[tab].isLoading
  // A list not read (the server out of reach): the tab shows the retry state, not "none yet".
  const unread = (q: (typeof queries)[keyof typeof queries]) => q.isError && !q.data
  const unreadFor = (tab: Tab): boolean => (tab === 'all' ? Object.values(queries).some(unread) : unread(queries[tab]))

  return (
    <div className="space-y-6">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">My Templates</h1>
          <p className="mt-1 text-slate-600">Your drafts, submissions and published templates.</p>
        </div>
        <ButtonLink to="/upload">
          <Plus className="h-4 w-4" aria-hidden /> Create Template
        </ButtonLink>
      </header>

      <Tabs.Root
        value={current}
        onValueChange={(v) => setParams(v === 'all' ? {} : { tab: v }, { replace: true })}
      >
        {/* The tabs wrap onto a second row on a phone rather than scroll
            sideways: at 375 px a scrolling strip cut "All" off with no cue
            that more tabs followed (issue 44, Low). */}
        <Tabs.List aria-label="Template status" className="flex max-w-full flex-wrap gap-1 rounded-lg bg-slate-100 p-1 sm:flex-nowrap">
          {TABS.map((t) => {
            const loading = loadingFor(t.value)
            return (
              <Tabs.Trigger key={t.value} value={t.value} className={trigger}>
                {t.label}
                {!loading && !unreadFor(t.value) && (
                  <span aria-hidden className="rounded-full bg-slate-200 px-1.5 text-xs text-slate-700">
                    {listFor(t.value).length}
                  </span>
                )}
              </Tabs.Trigger>
            )
          })}
        </Tabs.List>
        {TABS.map((t) => {
          const list = listFor(t.value)
          return (
            <Tabs.Content key={t.value} value={t.value} className="mt-6">
              <h2 className="sr-only">{t.heading}</h2>
              {loadingFor(t.value) ? (
                <ul className="grid gap-6 sm:grid-cols-2 xl:grid-cols-3" aria-hidden>
                  {[0, 1, 2].map((i) => (
                    <li key={i}>
                      <Skeleton className="aspect-[16/10] w-full rounded-2xl" />
                      <Skeleton className="mt-3 h-5 w-2/3" />
                      <Skeleton className="mt-2 h-4 w-full" />
                    </li>
                  ))}
                </ul>
              ) : unreadFor(t.value) ? (
                <LoadError title="We couldn't load your templates" />
              ) : list.length === 0 ? (
                <EmptyState
                  icon={<LayoutGrid className="h-10 w-10" aria-hidden />}
                  title={t.empty.title}
                  description={t.empty.description}
                />
              ) : (
                <ul className="grid gap-6 sm:grid-cols-2 xl:grid-cols-3">
                  {list.map((item) => (
                    <li key={`${item.kind}-${item.id}`}>
                      <MyTemplateCard
                        template={item}
                        onDelete={setConfirming}
                        deleting={remove.isPending && remove.variables?.id === item.id}
                      />
                    </li>
                  ))}
                </ul>
              )}
            </Tabs.Content>
          )
        })}
      </Tabs.Root>

      <ConfirmDialog
        open={!!confirming}
        onOpenChange={(open) => !open && setConfirming(null)}
        title="Are you sure?"
        description={deleteDescription(confirming?.kind ?? 'pending')}
        confirmLabel="Delete"
        onConfirm={() => confirming && remove.mutate({ kind: confirming.kind, id: confirming.id })}
      />
    </div>
  )
}
