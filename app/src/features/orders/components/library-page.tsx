// /dashboard/library. The spec names the sidebar entry but does not show the
// screen; this reading is ours: the signed-in user's completed orders (paid
// or free), newest first, each with its template's title and preview and a
// link to its download page (/download/{orderId}); an empty library invites
// to Discover.
import { Link } from 'react-router'
import { ImageIcon, Library } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, Skeleton } from '@/components/ui/feedback'
import { formatDate, formatPrice } from '@/lib/format'
import { THUMB_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { useSession } from '@/lib/session'
import { useLibrary, type LibraryOrder } from '../api/get-library'

export function LibraryPage() {
  const { user } = useSession()
  const library = useLibrary(user?.id)
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Library</h1>
        <p className="mt-1 text-slate-600">The templates you bought or downloaded, ready to download again.</p>
      </div>
      {library.isPending ? (
        <div className="space-y-3" aria-hidden>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-20 w-full" />
          ))}
        </div>
      ) : library.isError ? (
        <LoadError title="We couldn't load your library" />
      ) : library.data.length === 0 ? (
        <EmptyState
          icon={<Library className="h-10 w-10" aria-hidden />}
          title="Your library is empty"
          description="Templates you buy or download while signed in appear here."
          action={<ButtonLink to="/discover">Discover Templates</ButtonLink>}
        />
      ) : (
        <ul className="space-y-3" aria-label="Your templates">
          {library.data.map((order) => (
            <li key={order.id}>
              <LibraryRow order={order} />
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

function LibraryRow({ order }: { order: LibraryOrder }) {
  const title = order.template?.title ?? 'Template no longer listed'
  const price = formatPrice(order.price_in_cents / 100)
  return (
    <Link
      to={`/download/${order.id}`}
      className="flex items-center gap-4 rounded-2xl border border-slate-200 bg-white p-3 shadow-sm transition hover:border-brand-300 hover:shadow-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
    >
      <div className="flex h-16 w-24 shrink-0 items-center justify-center overflow-hidden rounded-lg bg-slate-100 text-slate-400">
        {order.template?.preview_image_url ? (
          <img
            src={renditionUrl(order.template.preview_image_url, TEMPLATES_BUCKET, THUMB_RENDITION) ?? undefined}
            alt=""
            {...imageSize(THUMB_RENDITION)}
            loading="lazy"
            decoding="async"
            className="h-full w-full object-cover"
          />
        ) : (
          <ImageIcon className="h-6 w-6" aria-hidden />
        )}
      </div>
      <div className="min-w-0 flex-1">
        <p className="truncate font-semibold text-slate-900">{title}</p>
        <p className="text-sm text-slate-600">
          {order.payment_status === 'free' ? 'Downloaded' : 'Purchased'} {formatDate(order.created_at)} · {price}
        </p>
      </div>
      <span className="hidden text-sm font-medium text-brand-700 sm:inline">Download</span>
    </Link>
  )
}
