// /dashboard/audience (spec section 2, Dashboard → Audience): the user's
// followers and the people they follow, with Unfollow on the latter. The
// open tab is kept in the URL (?tab=following).
import { useEffect } from 'react'
import { useSearchParams } from 'react-router'
import * as Tabs from '@radix-ui/react-tabs'
import { LogIn } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { toastError } from '@/lib/toast'
import { useAudience } from '@/features/account/api/get-audience'
import { useUnfollow } from '@/features/account/api/unfollow'
import { AudienceList } from '@/features/account/components/audience-list'
import { ScreenHeading } from '@/features/account/components/section'

const tab =
  'flex-1 rounded-md px-4 py-2 text-sm font-medium text-slate-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm sm:flex-none'

export default function DashboardAudienceRoute() {
  const { user } = useSession()
  if (!user) {
    return (
      <EmptyState
        icon={<LogIn className="h-10 w-10" aria-hidden />}
        title="Please Sign In"
        description="Sign in to see your followers and the creators you follow."
        action={<ButtonLink to="/auth?mode=sign-in&redirect=%2Fdashboard%2Faudience">Sign In</ButtonLink>}
      />
    )
  }
  return <Audience userId={user.id} />
}

function Audience({ userId }: { userId: string }) {
  const [params, setParams] = useSearchParams()
  const audience = useAudience(userId)
  const unfollow = useUnfollow(userId)

  useEffect(() => {
    if (audience.isError) toastError('Failed to load followers data')
  }, [audience.isError])

  const current = params.get('tab') === 'following' ? 'following' : 'followers'
  const followers = audience.data?.followers ?? []
  const following = audience.data?.following ?? []
  return (
    <div className="mx-auto max-w-3xl">
      <ScreenHeading title="Audience" subtitle="The people who follow you and the creators you follow." />
      <Tabs.Root
        value={current}
        onValueChange={(value) =>
          setParams(
            (p) => {
              const next = new URLSearchParams(p)
              if (value === 'following') next.set('tab', 'following')
              else next.delete('tab')
              return next
            },
            { replace: true },
          )
        }
      >
        <Tabs.List aria-label="Audience" className="mb-4 flex gap-1 rounded-lg bg-slate-100 p-1 sm:inline-flex">
          <Tabs.Trigger value="followers" className={tab}>Followers ({followers.length})</Tabs.Trigger>
          <Tabs.Trigger value="following" className={tab}>Following ({following.length})</Tabs.Trigger>
        </Tabs.List>
        {audience.isLoading ? (
          <Spinner label="Loading audience..." />
        ) : audience.isError && !audience.data ? (
          <LoadError title="We couldn't load your audience" />
        ) : (
          <>
            <Tabs.Content value="followers" className="rounded-lg">
              <AudienceList kind="followers" members={followers} />
            </Tabs.Content>
            <Tabs.Content value="following" className="rounded-lg">
              <AudienceList
                kind="following"
                members={following}
                onUnfollow={(m) => unfollow.mutate(m.id)}
                unfollowing={unfollow.isPending ? unfollow.variables : null}
              />
            </Tabs.Content>
          </>
        )}
      </Tabs.Root>
    </div>
  )
}
