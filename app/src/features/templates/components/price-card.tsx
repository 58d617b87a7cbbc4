// The side card: price, the guest e-mail field for paid templates, and the
// download / purchase button with its 1.2 s preparing state. On a phone the
// same price and main action also sit in a sticky bar at the bottom of the
// window (not in the spec: issue 15, item 5), so they are in reach while the
// card is far below the description.
import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { CheckCircle2, Download, Loader2, ShoppingCart } from 'lucide-react'
import { Button, ButtonLink } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/field'
import { DOWNLOAD_PREPARING_MS } from '@/config/constants'
import { wait } from '@/lib/browser'
import { followDownload, type DownloadTarget } from '@/lib/download'
import { formatPrice, isFree } from '@/lib/format'
import { errorText, toastError } from '@/lib/toast'
import { PHONE_QUERY, useMediaQuery } from '@/lib/use-media-query'
import type { User } from '@supabase/supabase-js'
import type { Template } from '@/lib/types'
import { createFreeOrder } from '../api/create-free-order'
import { useUserOrder } from '../api/get-user-order'
import { FreeDownloadDialog } from './free-download-dialog'

/** The server's rule for a buyer's e-mail (one @, something either side, no spaces). */
function looksLikeEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email)
}

export function PriceCard({ template, user }: { template: Template; user: User | null }) {
  const navigate = useNavigate()
  const free = isFree(template.price)
  const [busy, setBusy] = useState(false)
  const [guestEmail, setGuestEmail] = useState('')
  const [modalOpen, setModalOpen] = useState(false)
  const [sending, setSending] = useState(false)
  // The link last followed, offered again in case the browser held it back.
  const [followed, setFollowed] = useState<DownloadTarget | null>(null)
  const order = useUserOrder(template.id, user?.id)
  // A paid template the user has bought: the main action opens their order.
  const ownedOrder = !free ? (order.data ?? null) : null
  // Until a signed-in user's order is read, the card does not say "Secure checkout" to someone who may own it.
  const checkingOwnership = !!user && order.isPending
  const phone = useMediaQuery(PHONE_QUERY)

  // The page stays (issue 15, item 16): a stored file is saved as an
  // attachment, another web link opens in a new tab; only web links at all.
  const download = async (email: string) => {
    setFollowed(followDownload(await createFreeOrder(template.id, email)))
  }

  const act = async () => {
    if (free && !user) {
      setModalOpen(true)
      return
    }
    const email = user?.email ?? guestEmail.trim()
    if (!email) {
      toastError('Please enter your email.')
      // From the sticky bar the field may be off-screen: bring it to the user.
      document.getElementById('buyer-email')?.focus()
      return
    }
    if (!looksLikeEmail(email)) {
      // Not the spec's (it names only the empty case): the app's sign-in
      // wording, told here rather than after moving to /checkout.
      toastError('Please enter a valid email address')
      return
    }
    setBusy(true)
    try {
      await wait(DOWNLOAD_PREPARING_MS)
      if (free) {
        await download(email)
      } else {
        const query = new URLSearchParams({ templateId: template.id, buyerEmail: email })
        if (user) query.set('buyerId', user.id)
        navigate(`/checkout?${query.toString()}`)
      }
    } catch (error) {
      toastError(errorText(error, 'Something went wrong'))
    } finally {
      setBusy(false)
    }
  }

  const sendLink = async (email: string) => {
    setSending(true)
    try {
      await download(email)
      setModalOpen(false)
    } catch (error) {
      toastError(errorText(error, 'Something went wrong'))
    } finally {
      setSending(false)
    }
  }

  /** The main action (Download / Download Free / Purchase & Download), for the card and the phone's sticky bar. */
  const mainAction = (className: string) =>
    ownedOrder ? (
      <ButtonLink to={`/download/${ownedOrder.id}`} size="lg" className={className}>
        <Download className="h-4 w-4" aria-hidden /> Download
      </ButtonLink>
    ) : (
      <Button size="lg" className={className} onClick={() => void act()} disabled={busy} aria-busy={busy}>
        {busy ? (
          <>
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Processing...
          </>
        ) : free ? (
          <>
            <Download className="h-4 w-4" aria-hidden /> Download Free
          </>
        ) : (
          <>
            <ShoppingCart className="h-4 w-4" aria-hidden /> Purchase & Download
          </>
        )}
      </Button>
    )

  return (
    <>
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm" data-testid="price-card">
        <p className="text-sm font-medium text-slate-600">Price</p>
        <p className="mt-1 text-4xl font-extrabold tracking-tight text-slate-900" data-testid="price">
          {formatPrice(template.price)}
        </p>
        {!free && !user && (
          <div className="mt-5">
            <Label htmlFor="buyer-email">Email for your receipt and download</Label>
            <Input
              id="buyer-email"
              type="email"
              autoComplete="email"
              placeholder="you@example.com"
              value={guestEmail}
              onChange={(e) => setGuestEmail(e.target.value)}
            />
          </div>
        )}
        {mainAction('mt-5 w-full')}
        {busy && (
          <p className="mt-2 text-center text-sm text-slate-600" role="status">
            Preparing your download...
          </p>
        )}
        {followed && !busy && (
          <p className="mt-2 text-center text-sm text-slate-600" role="status">
            {followed.kind === 'file' ? 'Your download has started.' : 'Your template opened in a new tab.'}{' '}
            {followed.kind === 'file' ? (
              <a href={followed.href} download className="font-medium text-brand-700 underline">
                Download again
              </a>
            ) : (
              <a href={followed.href} target="_blank" rel="noopener noreferrer" className="font-medium text-brand-700 underline">
                Open it again
              </a>
            )}
          </p>
        )}
        {order.data && (
          <p className="mt-3 flex items-center justify-center gap-1.5 text-sm text-emerald-700">
            <CheckCircle2 className="h-4 w-4" aria-hidden /> You own this template.{' '}
            {!ownedOrder && (
              <Link to={`/download/${order.data.id}`} className="font-medium underline">
                Go to download
              </Link>
            )}
          </p>
        )}
        {/* What buying gives, said only to someone who has not: an owner is told where their copy is (issue 44). */}
        {(order.data || !checkingOwnership) && (
          <ul className="mt-5 space-y-1.5 border-t border-slate-100 pt-4 text-sm text-slate-600" data-testid="price-card-notes">
            {order.data ? (
              <li>
                Download it again any time from{' '}
                <Link to="/dashboard/library" className="font-medium text-brand-700 underline">
                  your library
                </Link>
                .
              </li>
            ) : (
              <>
                <li>Instant access after {free ? 'download' : 'purchase'}</li>
                {!free && <li>Secure checkout</li>}
              </>
            )}
          </ul>
        )}
        <FreeDownloadDialog open={modalOpen} onOpenChange={setModalOpen} sending={sending} onSend={(e) => void sendLink(e)} />
      </div>
      {phone && (
        <section
          aria-label="Quick actions"
          className="fixed inset-x-0 bottom-0 z-40 border-t border-slate-200 bg-white/95 px-4 pt-3 shadow-[0_-4px_12px_rgba(15,23,42,0.08)] backdrop-blur md:hidden"
          style={{ paddingBottom: 'max(0.75rem, env(safe-area-inset-bottom))' }}
        >
          <div className="mx-auto flex max-w-xl items-center gap-3">
            <p className="shrink-0 text-xl font-extrabold text-slate-900">
              <span className="sr-only">Price: </span>
              {formatPrice(template.price)}
            </p>
            {mainAction('flex-1')}
          </div>
        </section>
      )}
    </>
  )
}
