import { HeartOff } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { useRemoveFromWishlist } from '../api/remove-from-wishlist'

/** The wishlist card's Remove: takes the template off the list. */
export function WishlistRemoveButton({ userId, templateId, title }: { userId: string; templateId: string; title: string }) {
  const remove = useRemoveFromWishlist(userId)
  return (
    <Button
      variant="outline"
      size="sm"
      className="w-full"
      disabled={remove.isPending}
      onClick={() => remove.mutate(templateId)}
      aria-label={`Remove ${title} from wishlist`}
    >
      <HeartOff className="h-4 w-4" aria-hidden /> Remove
    </Button>
  )
}
