// /download-secure/{orderId}?token= (spec sections 2, 4, 7, 8): validates the
// link, then offers the file, or says why not. After a paid order's download
// is validated its receipt is requested once (paid-download-confirmation).
import { useEffect, useRef } from 'react'
import { useParams, useSearchParams } from 'react-router'
import { AlertTriangle, CheckCircle2, FileX2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { DownloadError, useValidateDownload } from '../api/validate-download'
import { sendPaidConfirmation } from '../api/send-paid-confirmation'
import { DownloadCard, DownloadFileLink } from './download-link'

export function SecureDownloadPage() {
  const { orderId = '' } = useParams()
  const [params] = useSearchParams()
  const token = params.get('token')?.trim() ?? ''
  const id = orderId.trim()
  if (!id || !token) {
    return (
      <DownloadCard icon={<AlertTriangle className="h-10 w-10 text-red-600" aria-hidden />} title="Download Error">
        <p role="alert" className="mt-3 text-slate-700">
          Missing order ID or token.
        </p>
      </DownloadCard>
    )
  }
  return <SecureDownload orderId={id} token={token} />
}

function SecureDownload({ orderId, token }: { orderId: string; token: string }) {
  const check = useValidateDownload(orderId, token, true)
  const confirmed = useRef<string | null>(null)
  const data = check.data

  useEffect(() => {
    // A paid order only (a free one had its e-mail from create-free-order);
    // sent with or without a file, as it is the receipt of the payment.
    if (!data || !data.isPaid || data.price_in_cents <= 0) return
    if (confirmed.current === orderId) return
    confirmed.current = orderId
    void sendPaidConfirmation(orderId, data.buyer_email)
  }, [data, orderId])

  if (check.isPending) return <Spinner label="Validating download..." className="py-24" />
  if (check.isError) {
    const error = check.error
    const status = error instanceof DownloadError ? error.status : 0
    const retryable = status === 402 || status === 0 || status >= 500
    return (
      <DownloadCard icon={<AlertTriangle className="h-10 w-10 text-red-600" aria-hidden />} title="Download Error">
        <p role="alert" className="mt-3 text-slate-700">
          {error.message || 'Something went wrong.'}
        </p>
        {status === 0 && <p className="mt-2 text-sm text-slate-600">Check your connection and try again.</p>}
        {status === 402 && (
          <p className="mt-2 text-sm text-slate-600">
            If you have just paid, the payment may take a few moments to be confirmed. Please wait a moment and try again.
          </p>
        )}
        {retryable && (
          <Button className="mt-5" onClick={() => void check.refetch()} disabled={check.isFetching} aria-busy={check.isFetching}>
            {check.isFetching ? 'Checking...' : 'Retry'}
          </Button>
        )}
      </DownloadCard>
    )
  }
  if (!data?.downloadUrl) {
    return (
      <DownloadCard icon={<FileX2 className="h-10 w-10 text-slate-500" aria-hidden />} title="No Download Available">
        <p className="mt-3 text-slate-700">No download URL available.</p>
      </DownloadCard>
    )
  }
  return (
    <DownloadCard icon={<CheckCircle2 className="h-10 w-10 text-emerald-600" aria-hidden />} title="Your download is ready">
      <p className="mt-3 text-slate-700">Thank you for your purchase! Your template is ready to download.</p>
      <p className="mt-1 text-sm text-slate-500">Keep this page's link: it opens your download again.</p>
      <div className="mt-6">
        <DownloadFileLink href={data.downloadUrl} />
      </div>
    </DownloadCard>
  )
}
