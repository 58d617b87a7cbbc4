// /dashboard/wishlist (spec section 2, Dashboard → Wishlist): the templates
// the user saved, newest first.
import { Heart } from 'lucide-react'
import { Button, ButtonLink } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { useWishlist } from '@/features/account/api/get-wishlist'
import { ScreenHeading } from '@/features/account/components/section'
import { TemplateGrid, TemplateGridSkeleton } from '@/features/templates/components/template-card'

export default function DashboardWishlistRoute() {
  const { user } = useSession()
  const wishlist = useWishlist(user?.id)
  const templates = wishlist.data ?? []
  return (
    <div>
      <ScreenHeading title="Wishlist" subtitle="Templates you saved for later." />
      {wishlist.isLoading ? (
        <TemplateGridSkeleton count={3} />
      ) : wishlist.isError ? (
        // The spec words no load failure here: say so and offer a retry.
        <EmptyState
          title="Could not load your wishlist"
          description="Please try again."
          action={<Button variant="outline" onClick={() => void wishlist.refetch()}>Try again</Button>}
        />
      ) : templates.length === 0 ? (
        <EmptyState
          icon={<Heart className="h-10 w-10" aria-hidden />}
          title="No Wishlisted Templates"
          description="Save templates you like with the Wishlist button on their page."
          action={<ButtonLink to="/discover" variant="outline">Discover templates</ButtonLink>}
        />
      ) : (
        <TemplateGrid templates={templates} />
      )}
    </div>
  )
}
