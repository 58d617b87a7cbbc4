// /dashboard/profile (spec section 2, Dashboard → Profile): Profile Picture,
// Display Name, Username, Bio and Social Links, each saved on its own.
import { useEffect } from 'react'
import { UserX } from 'lucide-react'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { toastError } from '@/lib/toast'
import { personName } from '@/lib/types'
import { useAccountProfile } from '@/features/account/api/get-account-profile'
import { ScreenHeading } from '@/features/account/components/section'
import { ProfilePictureSection } from '@/features/account/components/profile-picture-section'
import { DisplayNameSection } from '@/features/account/components/display-name-section'
import { UsernameSection } from '@/features/account/components/username-section'
import { BioSection } from '@/features/account/components/bio-section'
import { SocialLinksSection } from '@/features/account/components/social-links-section'

export default function DashboardProfileRoute() {
  const { user } = useSession()
  const profile = useAccountProfile(user?.id)

  useEffect(() => {
    if (profile.isError) toastError('Failed to load profile data. Please try again.')
  }, [profile.isError])

  if (!user) return null
  if (profile.isLoading) return <Spinner label="Loading profile..." />
  // Only when nothing was read: a failed re-read keeps the forms (and what is typed in them).
  if (profile.isError && !profile.data) return <LoadError title="We couldn't load your profile" />
  const data = profile.data
  if (!data) {
    return (
      <EmptyState
        icon={<UserX className="h-10 w-10" aria-hidden />}
        title="Profile Not Found"
        description="The requested profile could not be found."
      />
    )
  }
  return (
    <div className="mx-auto max-w-3xl">
      <ScreenHeading title="Profile" subtitle="How you appear to the people who browse your templates." />
      <div className="space-y-6">
        <ProfilePictureSection userId={data.id} url={data.avatar_url} name={personName(data)} />
        <DisplayNameSection userId={data.id} displayName={data.display_name} />
        <UsernameSection userId={data.id} username={data.username} />
        <BioSection userId={data.id} bio={data.bio} />
        <SocialLinksSection userId={data.id} links={data.social_links} />
      </div>
    </div>
  )
}
