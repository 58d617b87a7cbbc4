// /dashboard/wishlist (spec section 2, Dashboard → Wishlist): the templates
// the user saved, newest first, each with a Remove button.
import { Heart } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, StillLoading } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { useWishlist } from '@/features/account/api/get-wishlist'
import { ScreenHeading } from '@/features/account/components/section'
import { WishlistRemoveButton } from '@/features/account/components/wishlist-remove-button'
import { TemplateGrid, TemplateGridSkeleton } from '@/features/templates/components/template-card'

export default function DashboardWishlistRoute() {
  const { user } = useSession()
  const wishlist = useWishlist(user?.id)
  const templates = wishlist.data ?? []
  return (
    <div>
      <ScreenHeading title="Wishlist" subtitle="Templates you saved for later." />
      {/* The list's heading, for the page's outline: the cards' titles are h3 (axe heading-order). */}
      <h2 className="sr-only">Saved templates</h2>
      {wishlist.isLoading ? (
        <>
          <StillLoading />
          <TemplateGridSkeleton count={3} />
        </>
      ) : wishlist.isError && !wishlist.data ? (
        // The spec words no load failure here: the shared retry state.
        <LoadError title="We couldn't load your wishlist" />
      ) : templates.length === 0 ? (
        <EmptyState
          icon={<Heart className="h-10 w-10" aria-hidden />}
          title="No Wishlisted Templates"
          description="Save templates you like with the Wishlist button on their page."
          action={<ButtonLink to="/discover" variant="outline">Discover templates</ButtonLink>}
        />
      ) : (
        <TemplateGrid
          templates={templates}
          action={(t) => user && <WishlistRemoveButton userId={user.id} templateId={t.id} title={t.title} />}
        />
      )}
    </div>
  )
}
