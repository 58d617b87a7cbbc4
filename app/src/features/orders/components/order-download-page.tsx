// /download/{orderId} (signed in; spec sections 2, 7, 8): the buyer's order
// read by id (row-level security shows a buyer only their own orders), its
// 'Download File' link or 'No download available for this order.', and
// 'Back to Marketplace'.
import { useParams } from 'react-router'
import { AlertTriangle, Package } from 'lucide-react'
import { LoadError, Spinner } from '@/components/ui/feedback'
import { isConnectionProblem } from '@/lib/errors'
import { errorText } from '@/lib/toast'
import { useOrder } from '../api/get-order'
import { useValidateDownload } from '../api/validate-download'
import { DownloadCard, DownloadFileLink } from './download-link'

const errorIcon = <AlertTriangle className="h-10 w-10 text-red-600" aria-hidden />

export function OrderDownloadPage() {
  const { orderId = '' } = useParams()
  const id = orderId.trim()
  const order = useOrder(id, !!id)
  // Orders without a lasting link (paid ones: their files are private) are
  // opened for their signed-in buyer by validate-download, without a token.
  const secure = useValidateDownload(id, null, !!order.data && !order.data.download_url)
  if (!id) {
    return (
      <DownloadCard title="Download Error" icon={errorIcon}>
        <p role="alert" className="mt-3 text-slate-700">
          Missing order ID.
        </p>
      </DownloadCard>
    )
  }
  if (order.isPending) return <Spinner label="Loading your order..." className="py-24" />
  // The server out of reach is not a refusal: say so, with "Try again" (issue 24).
  if (order.isError && !order.data && isConnectionProblem(order.error)) {
    return (
      <DownloadCard title="Your Download" icon={<Package className="h-10 w-10 text-brand-600" aria-hidden />}>
        <LoadError compact className="mt-4" title="We couldn't load your order" />
      </DownloadCard>
    )
  }
  if (order.isError || !order.data) {
    return (
      <DownloadCard title="Download Error" icon={errorIcon}>
        <p role="alert" className="mt-3 text-slate-700">
          {order.isError ? errorText(order.error, 'Something went wrong.') : 'Order not found or you do not have access.'}
        </p>
      </DownloadCard>
    )
  }
  const { template, download_url } = order.data
  return (
    <DownloadCard title="Your Download" icon={<Package className="h-10 w-10 text-brand-600" aria-hidden />}>
      {template && <p className="mt-2 text-lg font-medium text-slate-800">{template.title}</p>}
      <p className="mt-1 break-all text-xs text-slate-500">Order {order.data.id}</p>
      <div className="mt-6">
        {download_url ? (
          <DownloadFileLink href={download_url} />
        ) : secure.isPending ? (
          <Spinner label="Preparing your download..." className="py-4" />
        ) : secure.data?.downloadUrl ? (
          <DownloadFileLink href={secure.data.downloadUrl} />
        ) : secure.isError && isConnectionProblem(secure.error) ? (
          <LoadError compact title="We couldn't prepare your download" />
        ) : (
          // The spec's text for every order without a file here, an unpaid
          // one too (its 402 'Payment not completed...' is the secure
          // download page's, /download-secure).
          <p className="text-slate-700">No download available for this order.</p>
        )}
      </div>
    </DownloadCard>
  )
}
