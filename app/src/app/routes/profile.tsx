import { useEffect } from 'react'
import { useParams, useSearchParams } from 'react-router'
import * as Tabs from '@radix-ui/react-tabs'
import { UserX } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, StillLoading } from '@/components/ui/feedback'
import { PageSpinner } from '@/components/ui/page-spinner'
import { Container } from '@/components/ui/layout'
import { usePageTitle } from '@/lib/page-title'
import { useSession } from '@/lib/session'
import { toastError } from '@/lib/toast'
import { personName } from '@/lib/types'
import { useProfile } from '@/features/profiles/api/get-profile'
import { useCreatorStatistics } from '@/features/profiles/api/get-creator-statistics'
import { usePendingTemplates } from '@/features/profiles/api/get-pending-templates'
import { ProfileHeader } from '@/features/profiles/components/profile-header'
import { CreatorStatsBlock } from '@/features/profiles/components/creator-stats-block'
import { PendingTemplates } from '@/features/profiles/components/pending-templates'
import { AvatarUpload } from '@/features/account/components/avatar-upload'
import { BioEditor } from '@/features/account/components/bio-editor'
import { useUserTemplates } from '@/features/templates/api/get-user-templates'
import { TemplateGrid, TemplateGridSkeleton } from '@/features/templates/components/template-card'
import { Pager } from '@/components/ui/pager'
import { PAGE_SIZE, usePageParam } from '@/lib/paging'

const tab =
  'rounded-md px-4 py-2 text-sm font-medium text-slate-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm'

export default function ProfileRoute() {
  const { usernameOrId = '' } = useParams()
  const [params, setParams] = useSearchParams()
  const { user } = useSession()
  const profile = useProfile(usernameOrId)
  const id = profile.data?.id
  const owner = !!user && user.id === id
  const page = usePageParam()
  const templates = useUserTemplates(id, page)
  const stats = useCreatorStatistics(id)
  const pending = usePendingTemplates(owner ? id : undefined)
  usePageTitle(profile.data ? profileTitle(profile.data) : profile.isLoading || profile.isError ? undefined : 'Profile Not Found')

  useEffect(() => {
    if (profile.isError) toastError('Failed to load profile')
  }, [profile.isError])
  useEffect(() => {
    if (templates.isError) toastError('Failed to load templates. Please try again.')
  }, [templates.isError])
  useEffect(() => {
    if (pending.isError) toastError('Failed to load pending templates')
  }, [pending.isError])

  if (profile.isLoading) return <PageSpinner label="Loading profile..." />
  // Not read (the server out of reach) is not "not found" (issue 24).
  if (profile.isError && !profile.data) {
    return (
      <Container className="py-16">
        <LoadError />
      </Container>
    )
  }
  if (!profile.data) {
    return (
      <Container className="py-16">
        <EmptyState
          icon={<UserX className="h-10 w-10" aria-hidden />}
          title="Profile Not Found"
          titleAs="h1"
          description="The requested profile could not be found."
          action={<ButtonLink to="/creators" variant="outline">Browse creators</ButtonLink>}
        />
      </Container>
    )
  }
  const list = templates.data?.items ?? []
  const total = templates.data?.total ?? 0
  const pendingList = pending.data ?? []
  const showPending = owner && pendingList.length > 0
  const current = params.get('tab') === 'pending' && showPending ? 'pending' : 'templates'
  return (
    <Container className="space-y-8 py-8">
      <ProfileHeader
        profile={profile.data}
        viewerId={user?.id ?? null}
        ownerAvatar={<AvatarUpload userId={profile.data.id} url={profile.data.avatar_url} name={personName(profile.data)} />}
        ownerBio={<BioEditor userId={profile.data.id} bio={profile.data.bio} />}
      />
      {stats.data && <CreatorStatsBlock stats={stats.data} />}
      <Tabs.Root
        value={current}
        onValueChange={(v) => setParams(v === 'templates' ? {} : { tab: v }, { replace: true })}
      >
        <Tabs.List aria-label="Profile sections" className="inline-flex rounded-lg bg-slate-100 p-1">
          <Tabs.Trigger value="templates" className={tab}>Templates ({total})</Tabs.Trigger>
          {showPending && <Tabs.Trigger value="pending" className={tab}>Pending Review ({pendingList.length})</Tabs.Trigger>}
        </Tabs.List>
        <Tabs.Content value="templates" className="mt-6">
          {/* The panel's heading, for the page's outline: the cards' titles are h3 (axe heading-order). */}
          <h2 className="sr-only">Templates</h2>
          {templates.isLoading ? (
            <>
              <StillLoading />
              <TemplateGridSkeleton count={3} />
            </>
          ) : templates.isError && !templates.data ? (
            <LoadError title="We couldn't load the templates" />
          ) : total === 0 ? (
            <EmptyState title="No templates yet" description={owner ? 'Upload your first template to start sharing.' : 'This creator has not published any templates yet.'} />
          ) : (
            <>
              {list.length === 0 ? (
                <EmptyState title="No templates on this page" description="This page is past the last one." />
              ) : (
                <TemplateGrid templates={list} />
              )}
              <Pager page={page} total={total} size={PAGE_SIZE} label="Templates" />
            </>
          )}
        </Tabs.Content>
        {showPending && (
          <Tabs.Content value="pending" className="mt-6">
            <h2 className="sr-only">Pending review</h2>
            <PendingTemplates creatorId={profile.data.id} templates={pendingList} />
          </Tabs.Content>
        )}
      </Tabs.Root>
    </Container>
  )
}

/** As the server titles a profile page: `Name (@username)`. */
function profileTitle(p: { display_name: string | null; username: string | null }): string {
  const name = p.display_name?.trim() || p.username || 'A creator'
  return p.username ? `${name} (@${p.username})` : name
}
