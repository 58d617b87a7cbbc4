// /dashboard/library: the signed-in user's orders (our reading; see the page).
import { LibraryPage } from '@/features/orders/components/library-page'

export default function LibraryRoute() {
  return <LibraryPage />
}
